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

#[allow(unused_imports)]
use super::*;

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
/// schema, in place: each value that is a string becomes its [`reading`] in
/// markup, where it has one. Other values, and keys not listed, are left as
/// they are.
pub fn type_untyped(tool: &Tool, args: &mut Value, keys: &[String]) {
    let s = Schemas::new(tool);
    for key in keys {
        let path = std::slice::from_ref(key);
        let Some(Value::String(text)) = get(args, path) else {
            continue;
        };
        let Some(typed) = reading(text, &s.wanted(args, path), Source::Markup) else {
            continue;
        };
        if let Some(slot) = get_mut(args, path) {
            *slot = typed;
        }
    }
}
