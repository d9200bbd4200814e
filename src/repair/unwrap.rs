//! `unwrap-arguments`: the arguments one level down, under a key the schema
//! does not declare (`{"arguments": {"file_path": "/a"}}` for `read`), as
//! models write them when they repeat the call's envelope inside it.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::rules::{Change, Fix};
use super::schemas::Schemas;
use super::site::Site;

/// The keys models put the arguments under.
const WRAPPERS: [&str; 5] = ["arguments", "parameters", "input", "args", "tool_call"];

/// Whether `object` holds an object or text under a key models put the
/// arguments under, not one of the `declared` properties: what this rule
/// would take out if it could (`drop-unknown` drops nothing beside it at the
/// root). A lookup per wrapper key, whatever the object's size.
pub(super) fn holds_wrapper(object: &Map<String, Value>, declared: &HashSet<&str>) -> bool {
    WRAPPERS.iter().any(|key| {
        !declared.contains(key)
            && object
                .get(*key)
                .is_some_and(|v| v.is_object() || v.is_string())
    })
}

/// At most this many wrappers are taken off (`{"tool_call": {"name": …,
/// "arguments": {…}}}` is two).
const MAX_WRAPPERS: usize = 2;

/// 0. The arguments under a wrapper key: the whole object is that key alone
///    (and perhaps `name`, holding the tool's own name), the schema describes
///    neither key (no property, no near miss of one, no pattern or schema for
///    other keys), and what the key holds is an object (or JSON text of one).
///    Proposed at every site of the root; the engine keeps it only when the
///    unwrapped object leaves no error at the root, and makes it alone.
pub(super) fn unwrap_arguments(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let root = match site {
        Site::Value(p) | Site::UnknownKey(p, _) | Site::Missing(p, _) => p.is_empty(),
    };
    // The cheap test first: a call with many keys has many sites.
    let small = doc.as_object().is_some_and(|m| (1..=2).contains(&m.len()));
    if !root || !small || !describes_no_other_key(s, doc) {
        return None;
    }
    let o = s.object(doc, &[]);
    let undeclared = |key: &str| !o.declared.contains(key) && !o.near.any(key);
    let mut keys: Vec<String> = Vec::new();
    let mut unwrapped: Option<Value> = None;
    for _ in 0..MAX_WRAPPERS {
        let object = unwrapped.as_ref().unwrap_or(doc).as_object()?;
        match wrapped(object, &s.tool.name, &undeclared) {
            Some((key, value)) => {
                keys.push(key);
                unwrapped = Some(value);
            }
            // Past the first level, what is inside is the arguments.
            None if !keys.is_empty() => break,
            None => return None,
        }
    }
    Some(Fix {
        change: Change::Set(Vec::new(), unwrapped?),
        path: Vec::new(),
        from: Value::String(keys.join(".")),
        to: Value::Null,
    })
}

/// The wrapper key of `object` and the object it holds, when `object` is that
/// key alone, beside perhaps `name` holding `tool`.
fn wrapped(
    object: &Map<String, Value>,
    tool: &str,
    undeclared: &dyn Fn(&str) -> bool,
) -> Option<(String, Value)> {
    let mut wrapper = None;
    for (key, value) in object {
        match key.as_str() {
            "name" if value.as_str() == Some(tool) && undeclared("name") => {}
            k if WRAPPERS.contains(&k) && wrapper.is_none() && undeclared(k) => {
                wrapper = Some((key, value));
            }
            _ => return None,
        }
    }
    let (key, value) = wrapper?;
    let value = match value {
        Value::Object(_) => value.clone(),
        // Double-encoded: JSON text of an object, strictly, read one way.
        Value::String(text) => match crate::json::parse_str_unrepeated(text) {
            Ok(Ok(v @ Value::Object(_))) => v,
            _ => return None,
        },
        _ => return None,
    };
    Some((key.clone(), value))
}

/// Whether the root schemas describe keys only by name: no `patternProperties`
/// and no schema for other keys (`additionalProperties: {…}`), either of which
/// may declare a wrapper key.
fn describes_no_other_key(s: &Schemas<'_>, doc: &Value) -> bool {
    s.at(doc, &[]).iter().all(|node| match node.schema {
        Value::Object(m) => {
            !m.contains_key("patternProperties")
                && !m.get("additionalProperties").is_some_and(Value::is_object)
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::registry::Tool;
    use crate::repair::{Policy, repair};

    fn read() -> Value {
        json!({"type": "object", "properties": {"file_path": {"type": "string"},
            "offset": {"type": "integer"}}, "required": ["file_path"],
            "additionalProperties": false})
    }

    fn fix(schema: Value, args: Value) -> Option<(Value, Vec<(&'static str, Value)>)> {
        let t = Tool::named("read", schema);
        assert!(!t.is_valid(&args), "{args}");
        repair(&t, &args, Policy::default()).map(|(v, r)| {
            assert!(t.is_valid(&v));
            (v, r.into_iter().map(|r| (r.kind.name(), r.from)).collect())
        })
    }

    #[test]
    fn the_arguments_under_a_wrapper_are_taken_out() {
        let want = json!({"file_path": "/a"});
        for (args, from) in [
            (json!({"arguments": {"file_path": "/a"}}), "arguments"),
            (json!({"parameters": {"file_path": "/a"}}), "parameters"),
            (json!({"input": {"file_path": "/a"}}), "input"),
            (json!({"args": {"file_path": "/a"}}), "args"),
            (json!({"arguments": "{\"file_path\": \"/a\"}"}), "arguments"),
            (
                json!({"name": "read", "arguments": {"file_path": "/a"}}),
                "arguments",
            ),
            (
                json!({"tool_call": {"name": "read", "arguments": {"file_path": "/a"}}}),
                "tool_call.arguments",
            ),
        ] {
            let (v, repairs) = fix(read(), args.clone()).unwrap_or_else(|| panic!("{args}"));
            assert_eq!(v, want, "{args}");
            assert_eq!(repairs, [("unwrap-arguments", json!(from))], "{args}");
        }
        // An open schema: the missing property is the site.
        let open = json!({"type": "object", "properties": {"file_path": {"type": "string"}},
            "required": ["file_path"]});
        let (v, _) = fix(open, json!({"input": {"file_path": "/a"}})).unwrap();
        assert_eq!(v, want);
        // What is inside is repaired after.
        let (v, repairs) = fix(
            read(),
            json!({"arguments": {"file_path": "/a", "offset": "3"}}),
        )
        .unwrap();
        assert_eq!(v, json!({"file_path": "/a", "offset": 3}));
        assert_eq!(repairs.len(), 2);
    }

    #[test]
    fn no_unwrap_where_another_reading_exists() {
        for args in [
            // Another key beside it, or another tool's name.
            json!({"arguments": {"file_path": "/a"}, "offset": 3}),
            json!({"name": "write", "arguments": {"file_path": "/a"}}),
            json!({"arguments": {"file_path": "/a"}, "input": {"file_path": "/b"}}),
            // Not an object inside, or not one that fits.
            json!({"arguments": "/a"}),
            json!({"arguments": "{\"file_path\": \"/a\""}),
            json!({"arguments": ["/a"]}),
            json!({"arguments": {"path": "/a"}}),
            json!({"arguments": {"file_path": 7}}),
        ] {
            let got = fix(read(), args.clone());
            assert!(
                got.as_ref()
                    .is_none_or(|(_, r)| r.iter().all(|(k, _)| *k != "unwrap-arguments")),
                "{args}: {got:?}"
            );
        }
        // The schema declares the key, a near miss of it, or keys by pattern.
        for schema in [
            json!({"type": "object", "properties": {"input": {"type": "object"},
                "to": {"type": "string"}}, "required": ["to"]}),
            json!({"type": "object", "properties": {"input_text": {"type": "string"},
                "to": {"type": "string"}}, "required": ["to"]}),
            json!({"type": "object", "properties": {"to": {"type": "string"}},
                "patternProperties": {"^in": {}}, "required": ["to"]}),
            json!({"type": "object", "properties": {"to": {"type": "string"}},
                "additionalProperties": {"type": "object"}, "required": ["to"]}),
        ] {
            assert_eq!(
                fix(schema.clone(), json!({"input": {"to": "fr"}})),
                None,
                "{schema}"
            );
        }
        // A tool that declares `name`: its `name` is an argument.
        let named = json!({"type": "object", "properties": {"name": {"type": "string"},
            "file_path": {"type": "string"}}, "required": ["file_path"],
            "additionalProperties": false});
        assert_eq!(
            fix(
                named,
                json!({"name": "read", "arguments": {"file_path": "/a"}})
            ),
            None
        );
    }
}
