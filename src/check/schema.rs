//! Every reason a schema does not compile, each at its own place: what its
//! meta-schema refuses, patterns that are not regular expressions, and `$ref`s
//! that do not resolve. The validator stops at the first; `check` reports all.

use std::path::Path;
use std::sync::Arc;

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use referencing::Draft;
use serde_json::Value;

use crate::json::{pointer_segments, pointer_token};
use crate::resolve::{RefMap, RefProblem, file_uri, unresolved};

/// One problem: where it is (a JSON Pointer into the schema) and what it is,
/// worded path first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Problem {
    pub(super) pointer: String,
    pub(super) message: String,
    /// A `$ref` that does not resolve (else the schema itself is wrong).
    pub(super) reference: bool,
}

/// How deep the walk for patterns goes.
const MAX_DEPTH: usize = 128;

/// Every problem found in `schema`, the schema of a tool declared in `file`,
/// in document order per kind. Linear in the schema.
pub(super) fn problems(schema: &Value, file: &Path, ref_map: &Arc<RefMap>) -> Vec<Problem> {
    let mut out = meta(schema);
    let mut patterns = Vec::new();
    bad_patterns(schema, String::new(), &mut patterns, 0);
    for (pointer, message) in patterns {
        if !out.iter().any(|p| p.pointer == pointer) {
            out.push(Problem {
                pointer,
                message,
                reference: false,
            });
        }
    }
    let canonical = file.canonicalize().ok();
    let root = canonical
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf);
    if let Some(canonical) = &canonical {
        for u in unresolved(schema, root, &file_uri(canonical), Arc::clone(ref_map)) {
            let why = match u.problem {
                RefProblem::Document(reason) => reason,
                RefProblem::NoTarget(fragment) => {
                    let document = u.reference.split('#').next().unwrap_or_default();
                    let document = if document.is_empty() {
                        "this schema"
                    } else {
                        document
                    };
                    format!("no \"{fragment}\" in {document}")
                }
                RefProblem::Other(reason) => reason,
            };
            out.push(Problem {
                message: format!(
                    "{}: \"{}\" does not resolve: {why}",
                    path(&u.pointer),
                    u.reference
                ),
                pointer: u.pointer,
                reference: true,
            });
        }
    }
    out
}

/// A JSON Pointer for people: `properties.file_path.$ref`; `top level` for
/// the whole schema.
pub(super) fn path(pointer: &str) -> String {
    let segments = pointer_segments(pointer);
    if segments.is_empty() {
        "top level".into()
    } else {
        segments.join(".")
    }
}

/// What the schema's meta-schema refuses, every error of it.
fn meta(schema: &Value) -> Vec<Problem> {
    let validator = match Draft::default().detect(schema) {
        Draft::Draft4 => jsonschema::draft4::meta::validator(),
        Draft::Draft6 => jsonschema::draft6::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
        Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
        Draft::Draft202012 => jsonschema::draft202012::meta::validator(),
        _ => return Vec::new(),
    };
    validator
        .iter_errors(schema)
        .map(|e| {
            let pointer = e.instance_path().as_str().to_owned();
            Problem {
                message: format!("{}: {}", path(&pointer), wording(&pointer, &e)),
                pointer,
                reference: false,
            }
        })
        .collect()
}

/// The JSON Schema types, for a `type` that names none.
const TYPES: &str = "array, boolean, integer, null, number, object, string";

/// A meta-schema error in callfix's words where the validator's are about the
/// meta-schema rather than the schema (`type`'s `anyOf`).
fn wording(pointer: &str, e: &ValidationError<'_>) -> String {
    let keyword = pointer.rsplit('/').next().unwrap_or_default();
    match e.kind() {
        ValidationErrorKind::AnyOf { .. } if keyword == "type" => {
            format!("{} is not a type (one of {TYPES})", e.instance())
        }
        _ => e.to_string(),
    }
}

/// `pattern`s and `patternProperties` keys the validator cannot compile.
fn bad_patterns(schema: &Value, pointer: String, out: &mut Vec<(String, String)>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match schema {
        Value::Object(m) => {
            if let Some(Value::String(p)) = m.get("pattern")
                && refused(p)
            {
                let at = format!("{pointer}/pattern");
                let message = format!("{}: \"{p}\" {NOT_A_REGEX}", path(&at));
                out.push((at, message));
            }
            if let Some(Value::Object(props)) = m.get("patternProperties") {
                for p in props.keys() {
                    if refused(p) {
                        let at = format!("{pointer}/patternProperties/{}", pointer_token(p));
                        let message = format!("{}: the key {NOT_A_REGEX}", path(&at));
                        out.push((at, message));
                    }
                }
            }
            for (k, v) in m {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    let here = format!("{pointer}/{}", pointer_token(k));
                    bad_patterns(v, here, out, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                bad_patterns(v, format!("{pointer}/{i}"), out, depth + 1);
            }
        }
        _ => {}
    }
}

/// What a pattern the validator refuses is (it gives no reason of its own).
const NOT_A_REGEX: &str = "is not a regular expression callfix can compile (its engine runs \
                           in linear time: no look-around, no backreferences)";

/// Whether the validator would refuse `pattern`, compiled as the registry
/// compiles every schema (`crate::registry`: the linear-time engine).
fn refused(pattern: &str) -> bool {
    let schema = serde_json::json!({ "pattern": pattern });
    jsonschema::options()
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(&schema)
        .is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_problem_is_reported_each_at_its_place() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "strng"},
                "b": {"type": "string", "pattern": "([a-z"}
            },
            "required": "a"
        });
        let found = problems(&schema, Path::new("/nonexistent/x.json"), &Arc::default());
        let pointers: Vec<&str> = found.iter().map(|p| p.pointer.as_str()).collect();
        assert!(pointers.contains(&"/properties/a/type"), "{found:?}");
        assert!(pointers.contains(&"/properties/b/pattern"), "{found:?}");
        assert!(pointers.contains(&"/required"), "{found:?}");
        assert_eq!(found.len(), 3, "{found:?}");
        let type_error = found.iter().find(|p| p.pointer == "/properties/a/type");
        assert_eq!(
            type_error.map(|p| p.message.as_str()),
            Some(
                "properties.a.type: \"strng\" is not a type (one of array, boolean, integer, \
                 null, number, object, string)"
            )
        );
    }

    #[test]
    fn paths_are_dotted() {
        assert_eq!(path(""), "top level");
        assert_eq!(path("/properties/a~1b/$ref"), "properties.a/b.$ref");
    }
}
