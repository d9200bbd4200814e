//! The schema-guided rules, in the order they are tried.

use serde_json::Value;

use super::engine::get;
use super::schemas::Schemas;
use super::site::Site;
use super::unwrap::unwrap_arguments;
use crate::kinds::Kind;
use crate::suggest::normalise;

/// A change to the arguments.
#[derive(Debug, Clone)]
pub(super) enum Change {
    Set(Vec<String>, Value),
    Remove(Vec<String>),
    Rename(Vec<String>, String, String),
}

pub(super) struct Fix {
    pub(super) change: Change,
    pub(super) path: Vec<String>,
    pub(super) from: Value,
    pub(super) to: Value,
}

pub(super) type Rule = fn(&Schemas<'_>, &Value, &Site) -> Option<Fix>;

/// The schema-guided rules, in the order they are tried. The order is
/// load-bearing: a stringified array is parsed before anything could wrap it.
pub(super) const RULES: [(Kind, Rule); 11] = [
    (Kind::UnwrapArguments, unwrap_arguments),
    (Kind::ParseJsonString, parse_json_string),
    (Kind::CoerceNumber, coerce_number),
    (Kind::CoerceBoolean, coerce_boolean),
    (Kind::CoerceString, coerce_string),
    (Kind::WrapArray, wrap_array),
    (Kind::DropPlaceholder, drop_placeholder),
    (Kind::RenameKey, rename_key),
    (Kind::DropUnknown, drop_unknown),
    (Kind::EnumCase, enum_case),
    (Kind::UnwrapAutolink, unwrap_autolink),
];

pub(super) fn value_site<'v>(doc: &'v Value, site: &'v Site) -> Option<(&'v Value, &'v [String])> {
    let Site::Value(path) = site else {
        return None;
    };
    Some((get(doc, path)?, path.as_slice()))
}

pub(super) fn set(path: &[String], from: &Value, to: Value) -> Fix {
    Fix {
        change: Change::Set(path.to_vec(), to.clone()),
        path: path.to_vec(),
        from: from.clone(),
        to,
    }
}

/// 1. A string holding the object or array the schema wants.
pub(super) fn parse_json_string(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    coerce(s, doc, site, |v| v.is_object() || v.is_array())
}

/// 2. A decimal string where the schema wants a number.
pub(super) fn coerce_number(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    coerce(s, doc, site, Value::is_number)
}

/// 3. Exactly `"true"` or `"false"` where the schema wants a boolean.
pub(super) fn coerce_boolean(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    coerce(s, doc, site, Value::is_boolean)
}

/// A string at the site read as the schema wants it there (by
/// [`super::text::reading`], which also types the text of XML parameters), when the
/// reading is of the kind a rule makes.
fn coerce(s: &Schemas<'_>, doc: &Value, site: &Site, kind: fn(&Value) -> bool) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let text = v.as_str()?;
    let typed = s.reading(doc, path, text, kind)?;
    Some(set(path, v, typed))
}

/// 4. A number or boolean where the schema wants a string whose form it pins,
///    and the value's text has that form.
///
/// Any string field is no reading: `{"path": 7}` for a plain string is not the
/// file `7`, and `{"command": true}` is not the command `true`. The text is
/// taken only where the schema says what the string looks like: an `enum` or
/// `const` that holds it (`true` for `["true", "false"]`), or a `pattern` or an
/// asserted `format`, which the re-validation then checks the text matches.
pub(super) fn coerce_string(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let text = match v {
        // The number's text as sent, digit for digit; an exponent may have been
        // respelled by the parser (`1E2` is read as `1e+2`), so it is left alone.
        Value::Number(n) => Some(n.to_string()).filter(|t| !t.contains(['e', 'E']))?,
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    let w = s.wanted(doc, path);
    let own = if v.is_boolean() { "boolean" } else { "number" };
    // An enum or const holding the text needs no `type: string` beside it.
    let listed = w.enums.iter().any(|e| e.as_str() == Some(text.as_str()));
    let pinned = !w.patterns.is_empty() || w.formats.iter().any(|f| PINNING_FORMATS.contains(f));
    let wants_string = w.has("string") && !w.has(own);
    (listed || (wants_string && pinned)).then(|| set(path, v, Value::String(text)))
}

/// Formats the validator asserts and that pin a string's form. Formats it does
/// not know (`path`) or that accept almost any text (`uri-reference`,
/// `hostname`) say nothing about what a number was meant to be.
pub(super) const PINNING_FORMATS: [&str; 11] = [
    "date",
    "date-time",
    "time",
    "duration",
    "email",
    "idn-email",
    "ipv4",
    "ipv6",
    "uri",
    "iri",
    "uuid",
];

/// 5. A single value where the schema wants an array of such values.
///
/// A placeholder means "no value" and is never wrapped, nor is a text with
/// more than one reading ([`one_item`]).
pub(super) fn wrap_array(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    if v.is_array() || is_placeholder(v) {
        return None;
    }
    if let Value::String(text) = v
        && !one_item(text)
    {
        return None;
    }
    let w = s.wanted(doc, path);
    let own = json_type_name(v);
    if !w.has("array") || w.has(own) {
        return None;
    }
    Some(set(path, v, Value::Array(vec![v.clone()])))
}

/// Whether `text` can only be one item. Text that opens a list, an object or
/// a quoted string (`[`, `{`, `"`, `'`, after blanks) and was not parsed as
/// the value the schema wants (`parse-json-string` runs first) is cut off or
/// broken, or its quotes are JSON's as much as the value's: `["a.txt"` is no
/// file name, and `"a.txt"` may be `a.txt`. A list separator (`,` or a line
/// break) makes two readings too: `a.txt, b.txt` is two files or one name.
fn one_item(text: &str) -> bool {
    let opens = text.trim_start().starts_with(['[', '{', '"', '\'']);
    !opens && !text.contains([',', '\n', '\r'])
}

/// 6. A placeholder at an optional property whose schema rejects it.
pub(super) fn drop_placeholder(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let (key, parent) = path.split_last()?;
    if !get(doc, parent)?.is_object() {
        return None;
    }
    if !is_placeholder(v) || s.wanted(doc, parent).required.contains(&key.as_str()) {
        return None;
    }
    Some(Fix {
        change: Change::Remove(path.to_vec()),
        path: path.to_vec(),
        from: v.clone(),
        to: Value::Null,
    })
}

/// What models send for "no value": `null`, `{}`, `[]`, `""`, `"null"`, `"undefined"`.
pub(super) fn is_placeholder(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(t) => matches!(t.as_str(), "" | "null" | "undefined"),
        _ => false,
    }
}

/// 7. An unknown key that is a spelling of exactly one missing declared property.
pub(super) fn rename_key(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (path, object) = match site {
        Site::UnknownKey(p, _) | Site::Missing(p, _) => (p, get(doc, p)?.as_object()?),
        Site::Value(_) => return None,
    };
    // Indexed once per object (not a pass over every property per key).
    let o = s.object(doc, path);
    let undeclared = |k: &str| !o.declared.contains(k);
    let missing = |p: &&&str| !object.contains_key(**p);
    let (from, to) = match site {
        Site::UnknownKey(_, key) => {
            if !undeclared(key) {
                return None;
            }
            let norm = normalise(key);
            let mut targets = o
                .declared_by_norm
                .get(&norm)
                .into_iter()
                .flatten()
                .filter(missing);
            let target = *targets.next()?;
            if targets.next().is_some() {
                return None;
            }
            (key.clone(), target.to_owned())
        }
        Site::Missing(_, prop) => {
            let norm = normalise(prop);
            let mut keys = o
                .keys_by_norm
                .get(&norm)
                .into_iter()
                .flatten()
                .filter(|k| undeclared(k));
            let key = keys.next()?;
            if keys.next().is_some() {
                return None;
            }
            // The same key must not fit another missing property as well.
            let rivals = o
                .declared_by_norm
                .get(&norm)
                .into_iter()
                .flatten()
                .filter(missing)
                .count();
            if rivals != 1 {
                return None;
            }
            (key.clone(), prop.clone())
        }
        Site::Value(_) => return None,
    };
    let mut new_path = path.clone();
    new_path.push(to.clone());
    Some(Fix {
        change: Change::Rename(path.clone(), from.clone(), to.clone()),
        path: new_path,
        from: Value::String(from),
        to: Value::String(to),
    })
}

/// 8. An unknown key in a closed object, when no rename applies and it is no near
///    miss of a declared property: `forced` for `force` may carry what `force`
///    means, and dropping it would change the call's meaning.
pub(super) fn drop_unknown(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let Site::UnknownKey(path, key) = site else {
        return None;
    };
    let o = s.object(doc, path);
    // Past the object's work budget a key counts as near: never dropped.
    if o.near.any(key) {
        return None;
    }
    let object = get(doc, path)?.as_object()?;
    let value = object.get(key)?;
    // An undeclared wrapper key at the root holding an object or text may
    // hold the arguments themselves (`unwrap-arguments` found no way to take
    // them out: cut off, not valid inside, or beside a `name` naming another
    // tool): nothing at the root is dropped, neither it (that would drop the
    // arguments) nor a key beside it (that would leave it to be unwrapped).
    if path.is_empty() && super::unwrap::holds_wrapper(object, &o.declared) {
        return None;
    }
    let mut key_path = path.clone();
    key_path.push(key.clone());
    Some(Fix {
        change: Change::Remove(key_path.clone()),
        path: key_path,
        from: value.clone(),
        to: Value::Null,
    })
}

/// 9. A string that is exactly one enum value but for case and separators.
pub(super) fn enum_case(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let text = v.as_str()?;
    let w = s.wanted(doc, path);
    // Normalising only drops characters: a text far longer than every enum value
    // cannot match one (and is not normalised at all).
    let longest = w
        .enums
        .iter()
        .filter_map(|e| e.as_str())
        .map(str::len)
        .max()?;
    if text.len() > longest.saturating_mul(4).saturating_add(16) {
        return None;
    }
    let norm = normalise(text);
    let mut matches: Vec<&str> = w
        .enums
        .iter()
        .filter_map(|e| e.as_str())
        .filter(|e| normalise(e) == norm)
        .collect();
    matches.dedup();
    match matches.as_slice() {
        [one] if *one != text => Some(set(path, v, Value::String((*one).to_owned()))),
        _ => None,
    }
}

/// 10. `[notes.md](http://notes.md)` in a path-like property → `notes.md`.
pub(super) fn unwrap_autolink(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let text = v.as_str()?;
    let key = path.last()?;
    let w = s.wanted(doc, path);
    let norm = normalise(key);
    let path_like = ["path", "file", "dir", "filename"]
        .iter()
        .any(|suffix| norm.ends_with(suffix))
        || w.formats
            .iter()
            .any(|f| matches!(*f, "uri-reference" | "path"));
    if !path_like {
        return None;
    }
    let inner = text.strip_prefix('[')?.strip_suffix(')')?;
    let (label, url) = inner.split_once("](")?;
    let (scheme, rest) = url.split_once("://")?;
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (scheme_ok && !label.is_empty() && label == rest && !label.contains(['[', ']', '(', ')']))
        .then(|| set(path, v, Value::String(label.to_owned())))
}

pub(super) fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::registry::Tool;
    use crate::repair::{Policy, repair};

    /// Repairs `args`; the result and the kinds used, or None.
    fn fix(schema: Value, args: Value) -> Option<(Value, Vec<&'static str>)> {
        let t = Tool::from_schema(schema);
        repair(&t, &args, Policy::default()).map(|(v, r)| {
            assert!(t.is_valid(&v), "repaired output must validate");
            (v, r.iter().map(|r| r.kind.name()).collect())
        })
    }

    fn object(props: Value, required: &[&str]) -> Value {
        json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
    }

    #[test]
    fn wrap_array_only_text_with_one_reading() {
        // Attack F13: text that opens a list or a value and does not parse is
        // broken or cut off; quoted text and a separated list are two readings.
        let schema = object(
            json!({"paths": {"type": "array", "items": {"type": "string"}}}),
            &["paths"],
        );
        for text in [
            r#"["a.txt", "b.txt""#,
            "[a.txt]",
            "  [a.txt",
            r#"{"path": "a.txt""#,
            r#""a.txt""#,
            "'a.txt'",
            "a.txt, b.txt",
            "a.txt,b.txt",
            "a.txt\nb.txt",
        ] {
            assert_eq!(
                fix(schema.clone(), json!({ "paths": text })),
                None,
                "{text}"
            );
        }
        // One item, written as one.
        for text in ["a.txt", "dir/my file.txt", "a.txt]"] {
            assert_eq!(
                fix(schema.clone(), json!({ "paths": text })),
                Some((json!({ "paths": [text] }), vec!["wrap-array"])),
                "{text}"
            );
        }
        // A number or boolean item is no text.
        let ids = object(
            json!({"ids": {"type": "array", "items": {"type": "integer"}}}),
            &["ids"],
        );
        assert_eq!(
            fix(ids, json!({"ids": 5})),
            Some((json!({"ids": [5]}), vec!["wrap-array"]))
        );
    }
}
