//! How text becomes a typed value: the one place that decides it.
//!
//! Two callers read text by the schema, and both go through [`reading`], so
//! they can never disagree on what a text means:
//!
//! - the repair rules `parse-json-string`, `coerce-number` and
//!   `coerce-boolean`, for a JSON string where the schema wants another type
//!   (reported, per value);
//! - the values of the XML-parameter families
//!   (`<parameter=limit>3</parameter>`, [`type_untyped`]), whose text never had
//!   a JSON type: typing it is part of reading the call, covered by its
//!   `extract-from-text`.
//!
//! Text stays text wherever the schema admits a string, whatever it looks like
//! (`02134` for a path stays `"02134"`), and where no reading fits (`007` for
//! an integer), so that the validator rejects it as a string.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::engine::{MAX_SITES, get, get_mut};
use super::schemas::{Schemas, Wanted};
use crate::json::pointer_segments;
use crate::registry::Tool;
use crate::salvage;

/// Where a text was written, which decides the spellings read from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// A JSON string in JSON arguments: the model had JSON's own `3` and
    /// `true` at hand and wrote a string, so only JSON's spellings are read.
    Json,
    /// The untyped text of a parameter in markup. The chat templates of these
    /// families write a value with Python's `str` (`True`, `None`), so those
    /// spellings are read as well as JSON's.
    Markup,
}

/// The one reading of `text` that the schemas `w` (those that apply at its
/// path) want, or `None` when the text stays text: they admit a string, or no
/// reading of the text has a type they want.
///
/// A text has at most one reading: an object or array (JSON, or what layer 1
/// of salvage reads as one, such as a Python list), `null`, a boolean and a
/// number are each written differently.
pub(super) fn reading(text: &str, w: &Wanted<'_>, source: Source) -> Option<Value> {
    if w.has("string") {
        return None;
    }
    if w.has("object") || w.has("array") {
        let parsed = salvage::parse_embedded(text);
        if let Some(v) = parsed
            .filter(|v| (v.is_object() && w.has("object")) || (v.is_array() && w.has("array")))
        {
            return Some(v);
        }
    }
    if w.has("null") && null(text, source) {
        return Some(Value::Null);
    }
    if w.has("boolean")
        && let Some(b) = boolean(text, source)
    {
        return Some(Value::Bool(b));
    }
    if w.has("number") {
        return decimal(text, w.wants_exactly_integer()).map(Value::Number);
    }
    None
}

/// `true`/`false`, and in markup Python's `True`/`False`. Nothing else:
/// `TRUE`, `yes` and `1` are other words.
fn boolean(text: &str, source: Source) -> Option<bool> {
    match (text, source) {
        ("true", _) | ("True", Source::Markup) => Some(true),
        ("false", _) | ("False", Source::Markup) => Some(false),
        _ => None,
    }
}

/// `null` or Python's `None`, in markup only: a JSON string `"null"` is a
/// placeholder (`drop-placeholder`), not a value.
fn null(text: &str, source: Source) -> bool {
    source == Source::Markup && matches!(text, "null" | "None")
}

/// `^-?(0|[1-9]\d*)(\.\d+)?$` as an exact JSON number; `integer` keeps only
/// integral values.
pub(super) fn decimal(text: &str, integer: bool) -> Option<serde_json::Number> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || (digits.contains('.') && !all_digits(frac)) {
        return None;
    }
    // `"007"` is an id, a code or an octal number as often as it is 7: more
    // than one reading, so no repair (JSON itself has no leading zeros).
    if int.len() > 1 && int.starts_with('0') {
        return None;
    }
    let integral = frac.bytes().all(|b| b == b'0');
    if integer && !integral {
        return None;
    }
    // The number as written, digit for digit (`arbitrary_precision`).
    let sign = if text.starts_with('-') { "-" } else { "" };
    let exact = if digits.contains('.') {
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}{int}")
    };
    exact.parse().ok()
}

/// Types the untyped text at the top-level `keys` of `args` by `tool`'s
/// schema, in place: each value that is a string becomes its reading (`reading`) in
/// markup, where it has one. Other values, and keys not listed, are left as
/// they are.
///
/// The schemas are read as the repair rules read them (`$ref`, `allOf`,
/// `anyOf`, `oneOf`, `properties`, `additionalProperties`); where the
/// validator rejects a typed value and accepts its text (a string wanted by a
/// keyword those do not follow, such as `patternProperties`), the text is
/// kept: text stays text wherever the schema admits it.
pub(crate) fn type_untyped(tool: &Tool, args: &mut Value, keys: &[String]) {
    let s = Schemas::new(tool);
    let mut texts = HashMap::new();
    for key in keys {
        let path = std::slice::from_ref(key);
        let Some(Value::String(text)) = get(args, path) else {
            continue;
        };
        let Some(typed) = reading(text, &s.wanted(args, path), Source::Markup) else {
            continue;
        };
        if let Some(slot) = get_mut(args, path) {
            texts.insert(key.as_str(), std::mem::replace(slot, typed));
        }
    }
    if texts.is_empty() || tool.is_valid(args) {
        return;
    }
    // The typed keys the validator faults, tried as text: those it then
    // accepts keep their text. Two passes of the validator, whatever the
    // number of keys.
    let typed_faulted = faulted(tool, args, |k| texts.get_key_value(k).map(|(k, _)| *k));
    if typed_faulted.is_empty() {
        return;
    }
    let mut as_text = args.clone();
    for key in &typed_faulted {
        set_key(&mut as_text, key, texts.get(key));
    }
    let text_faulted = faulted(tool, &as_text, |k| typed_faulted.get(k).copied());
    for key in typed_faulted.difference(&text_faulted) {
        set_key(args, key, texts.get(key));
    }
}

/// The top-level keys of `doc` that the validator faults, at the key or under
/// it, among those `key` knows (looking at no more errors than repair does).
fn faulted<'k>(
    tool: &Tool,
    doc: &Value,
    key: impl Fn(&str) -> Option<&'k str>,
) -> HashSet<&'k str> {
    let mut found = HashSet::new();
    for e in tool.iter_errors(doc).take(MAX_SITES) {
        let path = pointer_segments(e.instance_path().as_str());
        if let Some(k) = path.first().and_then(|k| key(k)) {
            found.insert(k);
        }
    }
    found
}

fn set_key(doc: &mut Value, key: &str, value: Option<&Value>) {
    if let (Some(slot), Some(value)) = (doc.get_mut(key), value) {
        *slot = value.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;
    use serde_json::json;

    /// A tool whose parameter `p` has the schema `p`.
    fn tool(p: Value) -> Tool {
        Tool::from_schema(json!({
            "type": "object",
            "properties": {"p": p},
            "$defs": {"s": {"type": "string"}, "i": {"type": "integer"}},
        }))
    }

    /// `text` at `p`, typed as untyped markup text.
    fn typed(p: Value, text: &str) -> Value {
        let mut args = json!({ "p": text });
        type_untyped(&tool(p), &mut args, &["p".to_owned()]);
        args["p"].take()
    }

    /// Schemas that admit a string, however they say it.
    fn admitting_a_string() -> Vec<Value> {
        vec![
            json!({"type": "string"}),
            json!({"type": ["string", "integer"]}),
            json!({"type": ["integer", "boolean", "null", "string"]}),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
            json!({"oneOf": [{"type": "boolean"}, {"$ref": "#/$defs/s"}]}),
            json!({"allOf": [{"$ref": "#/$defs/s"}]}),
            json!({"$ref": "#/$defs/s"}),
            json!({"type": "string", "pattern": "^[0-9]+$"}),
            json!({"type": ["object", "array", "string"]}),
        ]
    }

    #[test]
    fn a_string_keeps_its_text() {
        for schema in admitting_a_string() {
            for text in [
                "02134", "3", "-1.5", "true", "True", "None", "null", "[1]", "{}",
            ] {
                assert_eq!(typed(schema.clone(), text), json!(text), "{schema} {text}");
            }
        }
    }

    #[test]
    fn other_types_get_their_one_reading() {
        let int = json!({"type": "integer"});
        let num = json!({"type": "number"});
        let boolean = json!({"type": "boolean"});
        let nullable = json!({"type": ["integer", "null"]});
        for (schema, text, want) in [
            (&int, "3", json!(3)),
            (&int, "-3", json!(-3)),
            (&json!({"$ref": "#/$defs/i"}), "3", json!(3)),
            (
                &json!({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}),
                "True",
                json!(true),
            ),
            (&boolean, "true", json!(true)),
            (&boolean, "False", json!(false)),
            (&nullable, "None", json!(null)),
            (&nullable, "null", json!(null)),
            (&nullable, "12", json!(12)),
            (&json!({"type": "array"}), "[1, \"a\"]", json!([1, "a"])),
            (&json!({"type": "array"}), "['a', True]", json!(["a", true])),
            (&json!({"type": "object"}), "{\"a\": 1}", json!({"a": 1})),
            // No reading of a type it wants: the text stays, to be rejected.
            (&int, "007", json!("007")),
            (&int, "1e3", json!("1e3")),
            (&int, "3.5", json!("3.5")),
            (&int, " 3", json!(" 3")),
            (&int, "None", json!("None")),
            (&boolean, "TRUE", json!("TRUE")),
            (&boolean, "1", json!("1")),
            (&json!({"type": "array"}), "{\"a\": 1}", json!("{\"a\": 1}")),
            // A schema that says nothing of a type: no reading is wanted.
            (&json!({}), "3", json!("3")),
            (&json!({"description": "anything"}), "true", json!("true")),
        ] {
            assert_eq!(typed(schema.clone(), text), want, "{schema} {text}");
        }
        // The digits as written.
        assert_eq!(typed(num.clone(), "2.50").to_string(), "2.50");
        let long = "0.1000000000000000055511151231257827";
        assert_eq!(typed(num, long).to_string(), long);
    }

    #[test]
    fn only_the_keys_listed_are_typed() {
        let t = Tool::from_schema(json!({"type": "object", "properties": {
            "a": {"type": "integer"}, "b": {"type": "integer"}}}));
        let mut args = json!({"a": "1", "b": "2", "c": "3"});
        type_untyped(
            &t,
            &mut args,
            &["b".to_owned(), "c".to_owned(), "gone".to_owned()],
        );
        assert_eq!(args, json!({"a": "1", "b": 2, "c": "3"}));
    }

    #[test]
    fn text_the_validator_accepts_stays_text() {
        // `patternProperties` takes `x1` before `additionalProperties`, which
        // the schema reading follows: the validator has the last word.
        let t = Tool::from_schema(json!({"type": "object",
            "patternProperties": {"^x": {"type": "string"}},
            "additionalProperties": {"type": "integer"}}));
        let mut args = json!({"x1": "3", "n": "4"});
        let keys = ["x1".to_owned(), "n".to_owned()];
        type_untyped(&t, &mut args, &keys);
        // Typed, `x1` breaks the call and as text it passes; `n` wants its
        // number.
        assert_eq!(args, json!({"x1": "3", "n": 4}));
        // A typed value the schema rejects, which it rejects as text too,
        // stays typed (its error says what is wrong with the value).
        let t = Tool::from_schema(json!({"type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1}}}));
        let mut args = json!({"n": "0"});
        type_untyped(&t, &mut args, &keys);
        assert_eq!(args, json!({"n": 0}));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Any text at a parameter that admits a string comes out byte for
        /// byte as it went in.
        #[test]
        fn any_text_at_a_string_parameter_is_kept(
            text in prop_oneof![
                any::<String>(),
                "-?[0-9]{1,6}(\\.[0-9]{1,4})?",
                "(true|false|True|False|None|null)",
                "\\[[0-9, ]{0,8}\\]",
            ],
            which in 0usize..9,
        ) {
            let schema = admitting_a_string().swap_remove(which);
            prop_assert_eq!(typed(schema, &text), Value::String(text));
        }

        /// The rules and the markup never read one text two ways: where both
        /// read it, they agree, and markup reads all the rules read.
        #[test]
        fn the_rules_and_markup_read_alike(
            text in prop_oneof![
                any::<String>(),
                "-?[0-9]{1,6}(\\.[0-9]{1,4})?",
                "(true|false|True|False|None|null|007|-0|0\\.0)",
            ],
            types in proptest::sample::subsequence(
                vec!["integer", "number", "boolean", "null", "array", "object"], 1..4),
        ) {
            let t = tool(json!({ "type": types }));
            let s = Schemas::new(&t);
            let doc = json!({ "p": text });
            let w = s.wanted(&doc, &["p".to_owned()]);
            let json = reading(&text, &w, Source::Json);
            let markup = reading(&text, &w, Source::Markup);
            if let Some(j) = json {
                prop_assert_eq!(Some(j), markup);
            }
        }
    }
}
