//! Sites: where the validator says something is wrong, and its errors indexed by
//! instance path.

use std::collections::{HashMap, HashSet};

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::engine::MAX_SITES;
use crate::json::pointer_segments;
use crate::registry::Tool;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Site {
    /// The value at this path is rejected.
    Value(Vec<String>),
    /// The object at this path has a key its schema does not allow.
    UnknownKey(Vec<String>, String),
    /// The object at this path lacks a required property.
    Missing(Vec<String>, String),
}

impl Site {
    /// The path this site changes, for keeping one change per region per round: a
    /// value, or one key of an object (so the keys of one object are fixed
    /// together).
    pub(super) fn region(&self) -> Vec<String> {
        match self {
            Site::Value(p) => p.clone(),
            Site::UnknownKey(p, key) | Site::Missing(p, key) => {
                let mut region = p.clone();
                region.push(key.clone());
                region
            }
        }
    }
}

/// The distinct sites of the errors, in error order.
pub(super) fn sites(errors: &Errors<'_>) -> Vec<Site> {
    let mut out: Vec<Site> = Vec::new();
    let mut seen: HashSet<Site> = HashSet::new();
    let mut push = |s: Site| {
        if seen.insert(s.clone()) {
            out.push(s);
        }
    };
    for (path, e) in &errors.list {
        let path = path.clone();
        match e.kind() {
            ValidationErrorKind::Required { property } => {
                if let Some(p) = property.as_str() {
                    push(Site::Missing(path, p.to_owned()));
                }
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                for k in unexpected {
                    push(Site::UnknownKey(path.clone(), k.clone()));
                }
            }
            // The regex engine gave up: that says nothing about the value.
            ValidationErrorKind::BacktrackLimitExceeded { .. }
            | ValidationErrorKind::RegexEngineFailure { .. } => {}
            _ => push(Site::Value(path)),
        }
    }
    out
}

/// The validator's errors for one document, indexed by instance path.
pub(super) struct Errors<'i> {
    pub(super) list: Vec<(Vec<String>, ValidationError<'i>)>,
    /// Error positions in `list`, by instance path (built when first asked:
    /// the first look at a document wants only its sites).
    at: std::cell::OnceCell<HashMap<Vec<String>, Vec<usize>>>,
    /// Every path that has an error at it or below it (built when first asked).
    pub(super) under: std::cell::OnceCell<HashSet<Vec<String>>>,
}

impl<'i> Errors<'i> {
    pub(super) fn of(tool: &'i Tool, doc: &'i Value) -> Self {
        let mut errors = Errors {
            list: Vec::new(),
            at: std::cell::OnceCell::new(),
            under: std::cell::OnceCell::new(),
        };
        for e in tool.iter_errors(doc) {
            if errors.list.len() > MAX_SITES {
                break;
            }
            let path = pointer_segments(e.instance_path().as_str());
            errors.list.push((path, e));
        }
        errors
    }

    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether any error is at `path` or below it.
    pub(super) fn under(&self, path: &[String]) -> bool {
        self.under
            .get_or_init(|| {
                let mut under = HashSet::new();
                for (p, _) in &self.list {
                    for prefix in prefixes(p) {
                        if !under.contains(prefix) {
                            under.insert(prefix.to_vec());
                        }
                    }
                }
                under
            })
            .contains(path)
    }

    /// The errors at exactly `path`. (Every position is in `list`; were one not,
    /// its error would be skipped, and a document is returned repaired only once
    /// it validates in full.)
    pub(super) fn at(&self, path: &[String]) -> impl Iterator<Item = &ValidationError<'i>> {
        self.at
            .get_or_init(|| {
                let mut at: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
                for (i, (p, _)) in self.list.iter().enumerate() {
                    at.entry(p.clone()).or_default().push(i);
                }
                at
            })
            .get(path)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.list.get(i))
            .map(|(_, e)| e)
    }
}

/// Every prefix of `path`, from the empty one to `path` itself.
pub(super) fn prefixes(path: &[String]) -> impl Iterator<Item = &[String]> {
    (0..=path.len()).filter_map(|n| path.get(..n))
}
