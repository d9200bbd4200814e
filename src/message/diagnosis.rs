//! Diagnosis: the validator's errors turned into `path: message` items, ordered,
//! de-duplicated and capped.

use std::collections::HashMap;

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value};

use super::{ArgError, cut, join, plural, quote, short_json};
use crate::json::pointer_segments;
use crate::provider::json_type;
use crate::registry::Tool;
use crate::suggest;

/// At most this many errors are kept per call (the model reads `--max-errors` of
/// them); the rest are counted in a last `(+N more)` entry.
pub(super) const MAX_ERRORS: usize = 100;

use crate::json::{ALL_ERRORS_UP_TO, more_values_than};

/// Errors read from the validator per call before the rest are only counted.
pub(super) const MAX_ERRORS_READ: usize = 10_000;

/// Each kept error's message is cut to this many characters (a million-value
/// enum is not listed whole).
pub(super) const MAX_ERROR_CHARS: usize = 1000;

/// Every schema error of `args`, converted, deduplicated and ordered; at most
/// [`MAX_ERRORS`] of them.
#[cfg(test)]
pub(crate) fn validation_errors(tool: &Tool, args: &Value) -> Vec<ArgError> {
    ranked_errors(tool, args).0
}

/// Every schema error of `args` (as `validation_errors` gives them), with the rank of the first (0 missing required, 1
/// wrong type, 2 anything else; 2 when there is none).
pub(crate) fn ranked_errors(tool: &Tool, args: &Value) -> (Vec<ArgError>, u8) {
    let mut items = Vec::new();
    let doc = Doc::new(args);
    // The validator collects every error before handing out the first, so for
    // very large arguments only the first error is asked for (it stops there).
    if more_values_than(args, ALL_ERRORS_UP_TO) {
        if let Err(err) = tool.validate(args) {
            convert(&err, &tool.schema, &doc, &mut items);
        }
        let rank = items.first().map_or(2, |i| i.rank);
        let mut out: Vec<ArgError> = items.into_iter().map(|i| i.error).take(1).collect();
        out.push(ArgError::root(format!(
            "(further errors not listed: the arguments hold more than {ALL_ERRORS_UP_TO} values)"
        )));
        return (out, rank);
    }
    // A call with very many errors is described by the first ones the validator
    // reports (in schema and document order), so time and memory stay bounded.
    let mut unread = 0usize;
    for err in tool.iter_errors(args) {
        if items.len() >= MAX_ERRORS_READ {
            unread += 1;
            continue;
        }
        convert(&err, &tool.schema, &doc, &mut items);
    }
    // Missing first, then type errors, then the rest; each in document order.
    items.sort_by(|a, b| {
        a.rank
            .cmp(&b.rank)
            .then_with(|| a.position.cmp(&b.position))
    });
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    let mut out: Vec<ArgError> = Vec::with_capacity(items.len().min(MAX_ERRORS + 1));
    let mut more = unread;
    let rank = items.first().map_or(2, |i| i.rank);
    for mut item in items {
        if seen.contains(&item.error) {
            continue;
        }
        if out.len() == MAX_ERRORS {
            more += 1;
            continue;
        }
        seen.insert(item.error.clone());
        item.error.message = cut(&item.error.message, MAX_ERROR_CHARS);
        out.push(item.error);
    }
    if more > 0 {
        out.push(ArgError::more(more));
    }
    (out, rank)
}

pub(super) struct Item {
    /// 0 missing required, 1 wrong type, 2 anything else.
    pub(super) rank: u8,
    /// Where the value (or, for a missing key, its parent) sits in the document.
    pub(super) position: Vec<usize>,
    pub(super) error: ArgError,
}

pub(super) fn convert(
    err: &ValidationError<'_>,
    schema: &Value,
    doc: &Doc<'_>,
    out: &mut Vec<Item>,
) {
    let pointer = err.instance_path().as_str();
    let segments = pointer_segments(pointer);
    let position = document_position(doc, &segments);
    let path = segments.join(".");
    let instance = err.instance();
    let push = |out: &mut Vec<Item>, rank, path: String, message: String| {
        out.push(Item {
            rank,
            position: position.clone(),
            error: ArgError::at(path, message),
        });
    };
    match err.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            push(out, 0, join(&path, &name), "Required".into());
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                // In the order the schema lists them, when it can be found.
                TypeKind::Multiple(set) => match schema.pointer(err.schema_path().as_str()) {
                    Some(Value::Array(types)) if types.iter().all(Value::is_string) => types
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" or "),
                    _ => set
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(" or "),
                },
            };
            push(
                out,
                1,
                path,
                format!("expected {expected}, got {}", json_type(instance)),
            );
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let allowed = allowed_keys(schema, err.schema_path().as_str());
            let declared: Vec<&str> = allowed.iter().flatten().map(String::as_str).collect();
            let near = suggest::NearMisses::new(&declared);
            // Joined once, and only as far as a message is kept: each key's
            // message is cut to MAX_ERROR_CHARS anyway (a list per key of every
            // property was quadratic).
            let listed = allowed
                .as_deref()
                .map(|list| joined_past(list, MAX_ERROR_CHARS));
            // Where each key sits in its object, found in one pass (not per key).
            for key in unexpected {
                let message = match (near.of(key), &allowed) {
                    (Some(meant), _) => {
                        format!("unrecognized key (did you mean {}?)", quote(meant))
                    }
                    (None, Some(list)) if !list.is_empty() => {
                        format!(
                            "unrecognized key (allowed: {})",
                            listed.as_deref().unwrap_or_default()
                        )
                    }
                    _ => "unrecognized key".to_owned(),
                };
                // Positioned where the key itself sits, not at its parent.
                let mut key_segments = segments.clone();
                key_segments.push(key.clone());
                let key_position = document_position(doc, &key_segments);
                out.push(Item {
                    rank: 2,
                    position: key_position,
                    error: ArgError::at(join(&path, key), message),
                });
            }
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            reduce_branches(
                context, &segments, instance, schema, doc, out, &position, &path,
            );
        }
        kind => push(out, 2, path, describe(kind, instance)),
    }
}

/// Picks what to say about a failed anyOf/oneOf: when every branch rejects the
/// value's type or value outright, one "expected A or B" line; otherwise the errors
/// of the closest branch.
#[allow(clippy::too_many_arguments)]
pub(super) fn reduce_branches(
    context: &[Vec<ValidationError<'static>>],
    at: &[String],
    instance: &Value,
    schema: &Value,
    doc: &Doc<'_>,
    out: &mut Vec<Item>,
    position: &[usize],
    path: &str,
) {
    let here = |e: &ValidationError<'_>| pointer_segments(e.instance_path().as_str()) == at;
    let shallow = |e: &ValidationError<'_>| {
        here(e)
            && matches!(
                e.kind(),
                ValidationErrorKind::Type { .. }
                    | ValidationErrorKind::Constant { .. }
                    | ValidationErrorKind::Enum { .. }
            )
    };
    if context.iter().all(|branch| branch.iter().all(shallow)) {
        let mut types: Vec<String> = Vec::new();
        let mut values: Vec<String> = Vec::new();
        for e in context.iter().flatten() {
            match e.kind() {
                ValidationErrorKind::Type { kind } => match kind {
                    TypeKind::Single(t) => types.push(t.to_string()),
                    TypeKind::Multiple(set) => types.extend(set.iter().map(|t| t.to_string())),
                },
                ValidationErrorKind::Constant { expected_value } => {
                    values.push(short_json(expected_value));
                }
                ValidationErrorKind::Enum { options } => {
                    if let Value::Array(opts) = options.as_ref() {
                        values.extend(opts.iter().map(short_json));
                    }
                }
                _ => {}
            }
        }
        dedup(&mut types);
        dedup(&mut values);
        let message = match (types.is_empty(), values.is_empty()) {
            (false, true) => format!(
                "expected {}, got {}",
                types.join(" or "),
                json_type(instance)
            ),
            (true, false) => format!(
                "expected one of {}, got {}",
                values.join(", "),
                short_json(instance)
            ),
            _ => format!(
                "expected {} or one of {}, got {}",
                types.join(" or "),
                values.join(", "),
                short_json(instance)
            ),
        };
        out.push(Item {
            rank: 1,
            position: position.to_vec(),
            error: ArgError::at(path.to_owned(), message),
        });
        return;
    }
    // A branch whose discriminator (a const/enum on a direct child) failed is a
    // worse match than one whose details failed; then the fewest errors wins.
    let discriminator_mismatch = |branch: &[ValidationError<'_>]| {
        branch.iter().any(|e| {
            matches!(
                e.kind(),
                ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
            ) && pointer_segments(e.instance_path().as_str()).len() == at.len() + 1
        })
    };
    let best = context
        .iter()
        .filter(|branch| !branch.iter().all(shallow))
        .min_by_key(|branch| (discriminator_mismatch(branch), branch.len()));
    if let Some(branch) = best {
        for e in branch {
            convert(e, schema, doc, out);
        }
    }
}

/// The message for every other kind of error.
pub(super) fn describe(kind: &ValidationErrorKind, instance: &Value) -> String {
    use ValidationErrorKind as K;
    match kind {
        K::Enum { options } => {
            let list = match options.as_ref() {
                Value::Array(opts) => opts.iter().map(short_json).collect::<Vec<_>>().join(", "),
                other => short_json(other),
            };
            format!("expected one of {list}, got {}", short_json(instance))
        }
        K::Constant { expected_value } => format!(
            "expected {}, got {}",
            short_json(expected_value),
            short_json(instance)
        ),
        K::Minimum { limit } => format!("must be >= {limit}"),
        K::Maximum { limit } => format!("must be <= {limit}"),
        K::ExclusiveMinimum { limit } => format!("must be > {limit}"),
        K::ExclusiveMaximum { limit } => format!("must be < {limit}"),
        K::MultipleOf { multiple_of } => format!("must be a multiple of {multiple_of}"),
        K::MinLength { limit } => {
            format!("must be at least {limit} {}", plural(*limit, "character"))
        }
        K::MaxLength { limit } => {
            format!("must be at most {limit} {}", plural(*limit, "character"))
        }
        K::Pattern { pattern } => format!("must match pattern {pattern}"),
        K::Format { format } => format!("must be a valid {format}"),
        K::MinItems { limit } => format!("must have at least {limit} item(s)"),
        K::MaxItems { limit } => format!("must have at most {limit} item(s)"),
        K::AdditionalItems { limit } => format!("must have at most {limit} item(s)"),
        K::UniqueItems => "must not contain duplicate items".into(),
        K::Contains => "must contain at least one matching item".into(),
        K::MinProperties { limit } => format!("must have at least {limit} key(s)"),
        K::MaxProperties { limit } => format!("must have at most {limit} key(s)"),
        K::UnevaluatedItems { .. } => "has unexpected items".into(),
        K::FalseSchema => "not allowed".into(),
        K::Not { .. } => "is not allowed here".into(),
        K::OneOfMultipleValid { .. } => {
            "matches more than one allowed shape; make it match exactly one".into()
        }
        K::PropertyNames { error } => format!(
            "key {}: {}",
            short_json(error.instance()),
            describe(error.kind(), error.instance())
        ),
        K::ContentEncoding { content_encoding } => format!("must be valid {content_encoding}"),
        K::FromUtf8 { .. } => "must decode to valid UTF-8".into(),
        K::ContentMediaType { content_media_type } => format!("must be valid {content_media_type}"),
        K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. } => {
            "could not be checked against its pattern".into()
        }
        K::Custom { message, .. } => message.clone(),
        K::Referencing(e) => format!("schema reference could not be resolved: {e}"),
        // Listed for completeness; handled in `convert`.
        K::Required { .. }
        | K::Type { .. }
        | K::AdditionalProperties { .. }
        | K::UnevaluatedProperties { .. }
        | K::AnyOf { .. }
        | K::OneOfNotValid { .. } => "is invalid".into(),
    }
}

pub(super) fn dedup(v: &mut Vec<String>) {
    let mut seen = Vec::with_capacity(v.len());
    v.retain(|s| {
        if seen.contains(s) {
            false
        } else {
            seen.push(s.clone());
            true
        }
    });
}

/// The position of each key of one object.
pub(super) type KeyIndex<'a> = HashMap<&'a str, usize>;

/// The arguments, with the position of each key in its object found once per
/// object (so that thousands of errors in one large object stay linear).
pub(super) struct Doc<'a> {
    pub(super) value: &'a Value,
    pub(super) keys: std::cell::RefCell<HashMap<*const Map<String, Value>, KeyIndex<'a>>>,
}

impl<'a> Doc<'a> {
    pub(super) fn new(value: &'a Value) -> Self {
        Doc {
            value,
            keys: Default::default(),
        }
    }

    /// The position of `key` in `map`, a map inside this document.
    pub(super) fn key_position(&self, map: &'a Map<String, Value>, key: &str) -> Option<usize> {
        if map.len() <= 16 {
            return map.keys().position(|k| k == key);
        }
        let mut cache = self.keys.borrow_mut();
        let index = cache.entry(std::ptr::from_ref(map)).or_insert_with(|| {
            map.keys()
                .enumerate()
                .map(|(i, k)| (k.as_str(), i))
                .collect()
        });
        index.get(key).copied()
    }
}

/// The position of a path in document order: the key or element index at each
/// level. Missing levels sort last.
pub(super) fn document_position(doc: &Doc<'_>, segments: &[String]) -> Vec<usize> {
    let mut cur = Some(doc.value);
    segments
        .iter()
        .map(|seg| match cur {
            Some(Value::Object(map)) => {
                let pos = doc.key_position(map, seg);
                cur = map.get(seg.as_str());
                pos.unwrap_or(usize::MAX)
            }
            Some(Value::Array(items)) => {
                let i = seg.parse::<usize>().unwrap_or(usize::MAX);
                cur = items.get(i);
                i
            }
            _ => usize::MAX,
        })
        .collect()
}

/// The declared property names of the object schema that owns an
/// `additionalProperties` (or `unevaluatedProperties`) keyword.
/// `names` joined with `, `, stopped once the text is longer than `chars`
/// characters (so that cutting it, or a message holding it, to `chars` gives what
/// cutting the whole list would).
fn joined_past(names: &[String], chars: usize) -> String {
    let mut out = String::new();
    let mut count = 0usize;
    for (i, name) in names.iter().enumerate() {
        if count > chars {
            break;
        }
        if i > 0 {
            out.push_str(", ");
            count += 2;
        }
        out.push_str(name);
        count += name.chars().count();
    }
    out
}

pub(super) fn allowed_keys(schema: &Value, keyword_path: &str) -> Option<Vec<String>> {
    let owner = keyword_path.rsplit_once('/').map(|(owner, _)| owner)?;
    let node = schema.pointer(owner)?;
    let props = node.get("properties")?.as_object()?;
    Some(props.keys().cloned().collect())
}

#[cfg(test)]
mod joined {
    use super::*;

    #[test]
    fn a_list_joined_past_the_cut_cuts_as_the_whole_list() {
        let names: Vec<String> = (0..2000).map(|i| format!("p{i:05}é")).collect();
        let whole = format!("unrecognized key (allowed: {})", names.join(", "));
        let part = format!(
            "unrecognized key (allowed: {})",
            joined_past(&names, MAX_ERROR_CHARS)
        );
        assert!(part.len() < 2 * MAX_ERROR_CHARS * 4);
        assert_eq!(cut(&part, MAX_ERROR_CHARS), cut(&whole, MAX_ERROR_CHARS));
        let few = &names[..3];
        assert_eq!(joined_past(few, MAX_ERROR_CHARS), few.join(", "));
    }
}
