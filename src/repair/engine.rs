//! The engine: fixes applied in batches, validated once per batch, kept only where
//! they resolved their site.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use super::rules::{Change, Fix, RULES};
use super::schemas::Schemas;
use super::site::{Errors, Site, prefixes, sites};
use crate::kinds::{Kind, Policy, Repair};
use crate::registry::Tool;

pub(super) fn get<'v>(doc: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(doc, |v, seg| match v {
        Value::Object(m) => m.get(seg.as_str()),
        Value::Array(items) => items.get(seg.parse::<usize>().ok()?),
        _ => None,
    })
}

pub(super) fn get_mut<'v>(doc: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    path.iter().try_fold(doc, |v, seg| match v {
        Value::Object(m) => m.get_mut(seg.as_str()),
        Value::Array(items) => items.get_mut(seg.parse::<usize>().ok()?),
        _ => None,
    })
}

/// Applies disjoint changes to `doc` in place. Removals and renames in one object
/// are done in one pass over it, so a call with many of them stays linear.
pub(super) fn apply_all(doc: &mut Value, changes: &[&Change]) {
    let mut removals: HashMap<&[String], HashSet<&str>> = HashMap::new();
    let mut renames: HashMap<&[String], HashMap<&str, &str>> = HashMap::new();
    for change in changes {
        match change {
            Change::Set(path, v) => {
                if let Some(slot) = get_mut(doc, path) {
                    *slot = v.clone();
                }
            }
            Change::Remove(path) => {
                if let Some((key, parent)) = path.split_last() {
                    removals.entry(parent).or_default().insert(key);
                }
            }
            Change::Rename(path, from, to) => {
                renames.entry(path).or_default().insert(from, to);
            }
        }
    }
    for (parent, keys) in removals {
        if let Some(object) = get_mut(doc, parent).and_then(Value::as_object_mut) {
            object.retain(|k, _| !keys.contains(k.as_str()));
        }
    }
    for (path, names) in renames {
        if let Some(object) = get_mut(doc, path).and_then(Value::as_object_mut) {
            // Keep each key where it stood.
            let renamed: Map<String, Value> = std::mem::take(object)
                .into_iter()
                .map(|(k, v)| match names.get(k.as_str()) {
                    Some(to) => ((*to).to_owned(), v),
                    None => (k, v),
                })
                .collect();
            *object = renamed;
        }
    }
}

/// Whether the candidate's errors show `site` resolved (and, for wrap-array,
/// everything under it).
pub(super) fn resolved(errors: &Errors<'_>, site: &Site, fix: &Fix, kind: Kind) -> bool {
    let unexpected = |e: &ValidationError<'_>, key: &String| {
        matches!(e.kind(),
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected }
            if unexpected.contains(key))
    };
    match (site, kind) {
        // The whole document replaced: nothing left wrong at its root.
        (_, Kind::UnwrapArguments) => errors.at(&[]).next().is_none(),
        (Site::Value(p), Kind::WrapArray) => !errors.under(p),
        (Site::Value(p), _) => errors.at(p).next().is_none(),
        (Site::UnknownKey(p, key), Kind::DropUnknown) => !errors.at(p).any(|e| unexpected(e, key)),
        (Site::UnknownKey(p, _) | Site::Missing(p, _), Kind::RenameKey) => {
            let (Value::String(from), Value::String(to)) = (&fix.from, &fix.to) else {
                return false;
            };
            !errors.at(p).any(|e| match e.kind() {
                ValidationErrorKind::Required { property } => property.as_str() == Some(to),
                _ => unexpected(e, from) || unexpected(e, to),
            }) // The renamed value is repaired, if need be, in a later round.
        }
        _ => false,
    }
}

/// Paths changed so far in a round: a site whose region overlaps one of them
/// (is above, below or equal) waits for the next round.
#[derive(Default)]
pub(super) struct Touched {
    pub(super) exact: HashSet<Vec<String>>,
    pub(super) prefixes: HashSet<Vec<String>>,
}

impl Touched {
    pub(super) fn overlaps(&self, region: &[String]) -> bool {
        self.prefixes.contains(region) || prefixes(region).any(|p| self.exact.contains(p))
    }

    pub(super) fn add(&mut self, region: &[String]) {
        for p in prefixes(region) {
            if !self.prefixes.contains(p) {
                self.prefixes.insert(p.to_vec());
            }
        }
        self.exact.insert(region.to_vec());
    }
}

/// A call with more validation errors (or sites) than this is rejected without
/// repair.
pub(super) const MAX_SITES: usize = 10_000;

/// Repairs `args` against `tool`'s schema. Returns the repaired arguments (which
/// validate) and what was done, or `None` when they cannot be repaired.
///
/// Each round takes the sites of the current errors whose regions do not
/// overlap, and proposes one fix per site: the first rule, in `RULES` order, that
/// has one. All proposed fixes are applied together and the result is validated
/// once; a fix is kept only if the error at its site is gone. A site whose fix did
/// not resolve it tries its next rule, again in one batch. So a round costs a few
/// validations of the document, however many sites it has: linear in its size.
pub(crate) fn repair(tool: &Tool, args: &Value, policy: Policy) -> Option<(Value, Vec<Repair>)> {
    // Arguments this large are no near miss, and listing their errors is costly.
    if crate::json::more_values_than(args, crate::json::ALL_ERRORS_UP_TO) {
        return None;
    }
    let schemas = Schemas::new(tool);
    // The arguments themselves until a batch is kept: each batch is tried on
    // a copy, so the first needs none of its own.
    let mut doc = Cow::Borrowed(args);
    let mut repairs = Vec::new();
    // The document is the last candidate validated, and that had no errors:
    // the next round would find none (a validation saved).
    let mut clean = false;
    for _ in 0..policy.max_rounds {
        if clean {
            return Some((doc.into_owned(), repairs));
        }
        let found = {
            let errors = Errors::of(tool, &doc);
            if errors.is_empty() {
                return Some((doc.into_owned(), repairs));
            }
            // Past this many problems a call is not a near miss: no repair.
            let sites = sites(&errors);
            if errors.list.len() > MAX_SITES || sites.len() > MAX_SITES {
                return None;
            }
            sites
        };
        let mut pending: Vec<(&Site, usize)> = match found.as_slice() {
            // One site overlaps nothing.
            [site] => vec![(site, 0)],
            _ => {
                let mut touched = Touched::default();
                let mut pending = Vec::new();
                for site in &found {
                    let region = site.region();
                    if !touched.overlaps(&region) {
                        touched.add(&region);
                        pending.push((site, 0));
                    }
                }
                pending
            }
        };
        let mut kept = 0;
        while !pending.is_empty() {
            // The next fix each pending site proposes, from its next rule on.
            // (Room for all at once: a proposal is some 350 bytes, and growing
            // from four of them asks malloc for a large block each time.)
            let mut batch: Vec<(&Site, usize, Kind, Fix)> = Vec::with_capacity(pending.len());
            let mut renamed: HashSet<(Vec<String>, String)> = HashSet::new();
            let mut renamed_to: HashSet<(Vec<String>, String)> = HashSet::new();
            for &(site, from) in &pending {
                let proposal = RULES
                    .iter()
                    .enumerate()
                    .skip(from)
                    .find_map(|(i, (kind, rule))| {
                        if !policy.enabled.has(*kind) {
                            return None;
                        }
                        rule(&schemas, &doc, site).map(|fix| (i, *kind, fix))
                    });
                // Two sites may propose the same change (a rename seen from the
                // unknown key and from the missing property): made once.
                if let Some((i, kind, fix)) = proposal {
                    // One rename per key and per target in a batch: two keys
                    // renamed to the same name would lose one value.
                    if let Change::Rename(path, from, to) = &fix.change
                        && !(renamed.insert((path.clone(), from.clone()))
                            & renamed_to.insert((path.clone(), to.clone())))
                    {
                        continue;
                    }
                    batch.push((site, i, kind, fix));
                }
            }
            if batch.is_empty() {
                break;
            }
            // An unwrap replaces the whole document, so it is made alone: the
            // other sites that proposed it share its fate, and the rest wait
            // (from the rule they proposed) until it is settled.
            let mut waiting: Vec<(&Site, usize)> = Vec::new();
            if let Some(at) = batch.iter().position(|b| b.2 == Kind::UnwrapArguments) {
                let unwrap = batch.remove(at);
                for (site, i, kind, _) in batch.drain(..) {
                    let next = if kind == Kind::UnwrapArguments {
                        i + 1
                    } else {
                        i
                    };
                    waiting.push((site, next));
                }
                batch.push(unwrap);
            }
            let mut candidate = Value::clone(&doc);
            apply_all(
                &mut candidate,
                &batch
                    .iter()
                    .map(|(_, _, _, f)| &f.change)
                    .collect::<Vec<_>>(),
            );
            let (good, bad, candidate_clean): (Vec<_>, Vec<_>, bool) = {
                let errors = Errors::of(tool, &candidate);
                let (mut good, mut bad) = (Vec::with_capacity(batch.len()), Vec::new());
                for proposal in batch {
                    let (site, _, kind, fix) = &proposal;
                    if resolved(&errors, site, fix, *kind) {
                        good.push(proposal);
                    } else {
                        bad.push(proposal);
                    }
                }
                (good, bad, errors.is_empty())
            };
            if bad.is_empty() {
                doc = Cow::Owned(candidate);
                clean = candidate_clean;
                schemas.forget();
            } else if !good.is_empty() {
                clean = false;
                apply_all(
                    doc.to_mut(),
                    &good
                        .iter()
                        .map(|(_, _, _, f)| &f.change)
                        .collect::<Vec<_>>(),
                );
                schemas.forget();
            }
            // A kept unwrap changed the whole document: what waited is stale.
            let unwrapped = !waiting.is_empty() && !good.is_empty();
            kept += good.len();
            for (_, _, kind, fix) in good {
                repairs.push(Repair {
                    path: fix.path.join("."),
                    kind,
                    from: fix.from,
                    to: fix.to,
                });
            }
            pending = bad
                .into_iter()
                .map(|(site, i, _, _)| (site, i + 1))
                .collect();
            if !unwrapped {
                pending.extend(waiting);
            }
        }
        if kept == 0 {
            return None;
        }
    }
    tool.is_valid(&doc).then(|| (doc.into_owned(), repairs))
}
