//! The schema keywords a provider's API does not take in a tool's parameters:
//! one table ([`RULES`]), used by `tools` to adapt a payload and by `check` to
//! say what a provider would refuse.
//!
//! A keyword a dialect does not take is stripped, with a note: callfix still
//! validates every call against the full schema, so the model is told less but
//! nothing wrong gets through. What cannot be expressed at all (an open object
//! under OpenAI strict mode) is refused.

use serde_json::{Map, Value};

use super::{Refusal, Rewrite};

/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one schema.
const SCHEMA_ONE: [&str; 11] = [
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];

/// A provider's schema rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Gemini `functionDeclarations[].parameters`: an OpenAPI 3.0 subset.
    Gemini,
    /// OpenAI `strict: true` (Structured Outputs): a JSON Schema subset, every
    /// object closed and every property required.
    OpenAiStrict,
}

impl Dialect {
    /// Its name in notes and findings.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Gemini => "gemini",
            Dialect::OpenAiStrict => "openai-strict",
        }
    }
}

/// The keywords one dialect does not take.
#[derive(Debug)]
pub(crate) struct Rule {
    /// The dialect.
    pub dialect: Dialect,
    /// The keywords (schema keywords only: a property of that name is kept).
    pub keywords: &'static [&'static str],
}

/// Every dialect's unsupported keywords (from Gemini's `Schema` reference and
/// OpenAI's Structured Outputs "supported schemas" list).
pub(crate) static RULES: [Rule; 2] = [
    Rule {
        dialect: Dialect::Gemini,
        keywords: &[
            "additionalProperties",
            "patternProperties",
            "unevaluatedProperties",
            "propertyNames",
            "dependentRequired",
            "dependentSchemas",
            "oneOf",
            "allOf",
            "not",
            "if",
            "then",
            "else",
            "const",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "uniqueItems",
            "prefixItems",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedItems",
            "additionalItems",
            "examples",
            "$anchor",
            "$dynamicAnchor",
        ],
    },
    Rule {
        dialect: Dialect::OpenAiStrict,
        keywords: &[
            "patternProperties",
            "unevaluatedProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "allOf",
            "oneOf",
            "not",
            "if",
            "then",
            "else",
            "minLength",
            "maxLength",
            "uniqueItems",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedItems",
            "additionalItems",
            "prefixItems",
            "default",
            "examples",
            "$anchor",
            "$dynamicAnchor",
        ],
    },
];

/// Whether `dialect` takes `keyword`.
pub(crate) fn takes(dialect: Dialect, keyword: &str) -> bool {
    !RULES
        .iter()
        .any(|r| r.dialect == dialect && r.keywords.contains(&keyword))
}

/// One change or refusal made while adapting a schema. Its words for people
/// (`place`, `action`) are written in `message::provider`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// JSON Pointer to the schema object, in the schema as given.
    pub pointer: String,
    /// The keyword.
    pub keyword: String,
    /// `None`: stripped (or rewritten); `Some(why)`: the schema cannot be adapted.
    pub refused: Option<String>,
    /// `Some(how)`: not stripped but written the dialect's way, meaning the
    /// same (Gemini: `"type": ["integer", "null"]` as `"type": "integer",
    /// "nullable": true`); `tools` need not warn about it.
    pub rewritten: Option<&'static str>,
}

/// A schema as `dialect` takes it, and what was done to get there.
#[derive(Debug)]
pub(crate) struct Adapted {
    /// The adapted schema.
    pub schema: Value,
    /// Each keyword stripped and each refusal, in document order.
    pub notes: Vec<Note>,
}

/// Adapts `schema` (references already inlined) to `dialect`: strips what it
/// does not take; for OpenAI strict mode, also closes every object and makes
/// every property required, an optional one nullable (callfix drops a `null`
/// placeholder for an optional property, `drop-placeholder`).
pub(crate) fn adapt(schema: &Value, dialect: Dialect) -> Adapted {
    let mut notes = Vec::new();
    if dialect == Dialect::OpenAiStrict
        && schema.get("type").and_then(Value::as_str) != Some("object")
    {
        notes.push(refusal("", "type", Refusal::StrictTopNotObject));
    }
    let rules = Walk {
        takes: &|k| takes(dialect, k),
        strict: dialect == Dialect::OpenAiStrict,
        one_type: dialect == Dialect::Gemini,
    };
    let schema = rules.walk(schema, "", &mut notes);
    Adapted { schema, notes }
}

/// `schema` without the keywords `drop` names, from schema objects only (a
/// property of that name stays).
pub(crate) fn without(schema: &Value, drop: &[&str]) -> Value {
    let rules = Walk {
        takes: &|k| !drop.contains(&k),
        strict: false,
        one_type: false,
    };
    rules.walk(schema, "", &mut Vec::new())
}

fn refusal(pointer: &str, keyword: &str, why: Refusal) -> Note {
    Note {
        pointer: pointer.to_owned(),
        keyword: keyword.to_owned(),
        refused: Some(why.to_string()),
        rewritten: None,
    }
}

/// One pass over a schema and its subschemas.
struct Walk<'a> {
    /// Whether a keyword stays.
    takes: &'a dyn Fn(&str) -> bool,
    /// OpenAI strict mode: close objects, require every property.
    strict: bool,
    /// Gemini (OpenAPI 3.0): `type` is one name, "or null" is `nullable: true`.
    one_type: bool,
}

impl Walk<'_> {
    fn walk(&self, schema: &Value, at: &str, notes: &mut Vec<Note>) -> Value {
        let Value::Object(m) = schema else {
            return schema.clone();
        };
        let mut out = Map::new();
        for (k, v) in m {
            if !(self.takes)(k) {
                notes.push(Note {
                    pointer: at.to_owned(),
                    keyword: k.clone(),
                    refused: None,
                    rewritten: None,
                });
                continue;
            }
            let here = format!("{at}/{}", crate::json::pointer_token(k));
            let v = if SCHEMA_MAPS.contains(&k.as_str()) {
                match v {
                    Value::Object(props) => Value::Object(
                        props
                            .iter()
                            .map(|(name, s)| {
                                let at = format!("{here}/{}", crate::json::pointer_token(name));
                                (name.clone(), self.walk(s, &at, notes))
                            })
                            .collect(),
                    ),
                    other => other.clone(),
                }
            } else if SCHEMA_ONE.contains(&k.as_str()) {
                self.walk(v, &here, notes)
            } else if SCHEMA_LISTS.contains(&k.as_str()) {
                match v {
                    Value::Array(items) => Value::Array(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, s)| self.walk(s, &format!("{here}/{i}"), notes))
                            .collect(),
                    ),
                    other => other.clone(),
                }
            } else {
                v.clone()
            };
            out.insert(k.clone(), v);
        }
        if self.strict {
            strict_object(&mut out, at, notes);
        }
        if self.one_type {
            one_type(&mut out, at, notes);
        }
        Value::Object(out)
    }
}

/// OpenAI strict mode: an object schema lists its properties, all required, and
/// allows no others.
fn strict_object(m: &mut Map<String, Value>, at: &str, notes: &mut Vec<Note>) {
    let is_object =
        m.get("type").and_then(Value::as_str) == Some("object") || m.contains_key("properties");
    if !is_object {
        return;
    }
    match m.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => {
            notes.push(refusal(
                at,
                "additionalProperties",
                Refusal::StrictOpenObject,
            ));
            return;
        }
    }
    let required: Vec<String> = match m.get("required") {
        Some(Value::Array(r)) => r
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(props)) = m.get_mut("properties") else {
        notes.push(refusal(at, "properties", Refusal::StrictFreeForm));
        return;
    };
    for (name, schema) in props.iter_mut() {
        if !required.contains(name) {
            *schema = nullable(std::mem::take(schema));
        }
    }
    let all: Vec<Value> = props.keys().map(|k| Value::String(k.clone())).collect();
    m.insert("required".into(), Value::Array(all));
    m.insert("additionalProperties".into(), Value::Bool(false));
}

/// Gemini's `Schema.type` is one name (google-genai's own types refuse a list),
/// and "or null" is `nullable: true`. A `type` list of one name, or of one name
/// and `"null"`, is written that way (the same schema, noted as rewritten for
/// `check`); any other list is stripped, with a note (callfix still validates
/// it: the model is told less).
fn one_type(m: &mut Map<String, Value>, at: &str, notes: &mut Vec<Note>) {
    let Some(Value::Array(types)) = m.get("type") else {
        return;
    };
    let null = types.iter().any(|t| t == "null");
    let mut others = types.iter().filter(|t| *t != "null");
    let one = match (others.next(), others.next()) {
        (Some(Value::String(t)), None) => Some(t.clone()),
        (None, None) if null => Some("null".to_owned()),
        _ => None,
    };
    let mut note = Note {
        pointer: at.to_owned(),
        keyword: "type".to_owned(),
        refused: None,
        rewritten: None,
    };
    match one {
        Some(t) => {
            let nullable = null && t != "null";
            note.rewritten = Some(
                if nullable {
                    Rewrite::OneTypeNullable
                } else {
                    Rewrite::OneType
                }
                .words(),
            );
            m.insert("type".into(), Value::String(t));
            if nullable {
                m.insert("nullable".into(), Value::Bool(true));
            }
        }
        None => {
            m.remove("type");
        }
    }
    notes.push(note);
}

/// `schema`, or `null`: a `type` list where that says it, else `anyOf`.
fn nullable(schema: Value) -> Value {
    if let Value::Object(mut m) = schema {
        let plain = !m.contains_key("enum") && !m.contains_key("const");
        match m.get_mut("type") {
            Some(Value::String(t)) if plain => {
                let t = std::mem::take(t);
                if t != "null" {
                    m.insert("type".into(), serde_json::json!([t, "null"]));
                }
                return Value::Object(m);
            }
            Some(Value::Array(types)) if plain => {
                if !types.iter().any(|t| t == "null") {
                    types.push(Value::String("null".into()));
                }
                return Value::Object(m);
            }
            _ => return serde_json::json!({"anyOf": [Value::Object(m), {"type": "null"}]}),
        }
    }
    serde_json::json!({"anyOf": [schema, {"type": "null"}]})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gemini_strips_what_it_does_not_take_and_says_where() {
        let a = adapt(
            &json!({"type": "object", "additionalProperties": false,
                "properties": {"n": {"type": "integer", "exclusiveMinimum": 0},
                               "additionalProperties": {"type": "string"}}}),
            Dialect::Gemini,
        );
        assert_eq!(
            a.schema,
            json!({"type": "object", "properties": {"n": {"type": "integer"},
                "additionalProperties": {"type": "string"}}})
        );
        let notes: Vec<(&str, &str)> = a
            .notes
            .iter()
            .map(|n| (n.pointer.as_str(), n.keyword.as_str()))
            .collect();
        assert_eq!(
            notes,
            [
                ("", "additionalProperties"),
                ("/properties/n", "exclusiveMinimum")
            ]
        );
        assert!(a.notes.iter().all(|n| n.refused.is_none()));
    }

    #[test]
    fn gemini_writes_a_type_list_as_one_type_or_strips_it() {
        for (ty, want, rewritten) in [
            (
                json!(["integer", "null"]),
                json!({"type": "integer", "nullable": true}),
                true,
            ),
            (
                json!(["null", "string"]),
                json!({"type": "string", "nullable": true}),
                true,
            ),
            (json!(["object"]), json!({"type": "object"}), true),
            (json!(["null"]), json!({"type": "null"}), true),
            (json!(["string", "integer"]), json!({}), false),
            (json!(["string", "integer", "null"]), json!({}), false),
            (json!([]), json!({}), false),
            (json!([7, "null"]), json!({}), false),
        ] {
            let a = adapt(&json!({"type": ty}), Dialect::Gemini);
            assert_eq!(a.schema, want, "{ty}");
            assert_eq!(a.notes.len(), 1, "{ty}");
            assert_eq!(a.notes[0].keyword, "type");
            assert_eq!(a.notes[0].rewritten.is_some(), rewritten, "{ty}");
        }
        // A plain type, and the other dialects, are left alone.
        let a = adapt(&json!({"type": "string"}), Dialect::Gemini);
        assert!(a.notes.is_empty());
        let list = json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}});
        let a = adapt(&list, Dialect::OpenAiStrict);
        assert_eq!(
            a.schema["properties"]["n"]["type"],
            json!(["integer", "null"])
        );
    }

    #[test]
    fn openai_strict_closes_objects_and_requires_every_property() {
        let a = adapt(
            &json!({"type": "object", "required": ["a"], "properties": {
                "a": {"type": "string", "minLength": 1},
                "b": {"type": "integer"},
                "c": {"enum": ["x", "y"]},
                "d": {"type": "object", "properties": {"e": {"type": ["string", "number"]}}}
            }}),
            Dialect::OpenAiStrict,
        );
        assert_eq!(
            a.schema,
            json!({"type": "object", "required": ["a", "b", "c", "d"], "additionalProperties": false,
            "properties": {
                "a": {"type": "string"},
                "b": {"type": ["integer", "null"]},
                "c": {"anyOf": [{"enum": ["x", "y"]}, {"type": "null"}]},
                "d": {"type": ["object", "null"], "required": ["e"], "additionalProperties": false,
                    "properties": {"e": {"type": ["string", "number", "null"]}}}
            }})
        );
        assert_eq!(a.notes.len(), 1, "{:?}", a.notes);
        assert_eq!(a.notes[0].keyword, "minLength");
    }

    #[test]
    fn openai_strict_refuses_what_it_cannot_express() {
        for (schema, keyword) in [
            (
                json!({"type": "object", "additionalProperties": {"type": "string"}}),
                "additionalProperties",
            ),
            (
                json!({"type": "object", "properties": {"m": {"type": "object"}}}),
                "properties",
            ),
            (json!({"anyOf": [{"type": "object"}]}), "type"),
        ] {
            let a = adapt(&schema, Dialect::OpenAiStrict);
            assert!(
                a.notes
                    .iter()
                    .any(|n| n.keyword == keyword && n.refused.is_some()),
                "{schema}: {:?}",
                a.notes
            );
        }
    }
}
