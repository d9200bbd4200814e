use serde_json::{Value, json};

use super::engine::MAX_SITES;
use super::{Enabled, Kind, Policy, repair};
use crate::registry::Tool;

fn tool(schema: Value) -> Tool {
    Tool::from_schema(schema)
}

/// Repairs `args`; returns the result and the kinds used, or None.
fn fix(schema: Value, args: Value) -> Option<(Value, Vec<&'static str>)> {
    let t = tool(schema);
    assert!(!t.is_valid(&args), "the test input must be invalid");
    repair(&t, &args, Policy::default()).map(|(v, r)| {
        assert!(t.is_valid(&v), "repaired output must validate");
        // Repairing a repaired output changes nothing.
        assert!(repair(&t, &v, Policy::default()).is_some_and(|(w, r2)| w == v && r2.is_empty()));
        (v, r.iter().map(|r| r.kind.name()).collect())
    })
}

fn object(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn todos() -> Value {
    object(
        json!({"todos": {"type": "array", "items": object(json!({
            "id": {"type": "string"},
            "content": {"type": "string"},
            "status": {"enum": ["pending", "in_progress", "completed", "cancelled"]},
            "priority": {"enum": ["high", "medium", "low"]},
        }), &["content", "status", "priority"])}}),
        &["todos"],
    )
}

fn read() -> Value {
    object(
        json!({
            "filePath": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1},
        }),
        &["filePath"],
    )
}

#[test]
fn valid_arguments_are_returned_untouched() {
    let t = tool(read());
    let args = json!({"filePath": "/a", "offset": 3});
    assert_eq!(repair(&t, &args, Policy::default()), Some((args, vec![])));
}

#[test]
fn parse_json_string_todos() {
    // opencode #24912, #10813, kilocode #10168: the array arrives as a string.
    let items = json!([{"content": "Test todo", "priority": "low", "status": "completed"}]);
    let got = fix(todos(), json!({"todos": items.to_string()}));
    assert_eq!(
        got,
        Some((json!({"todos": items}), vec!["parse-json-string"]))
    );
}

#[test]
fn parse_json_string_then_repairs_inside() {
    // llxprt #222 inside a stringified list: a status spelled otherwise.
    let items = r#"[{"id": "1", "content": "a", "status": "Pending", "priority": "high"}]"#;
    let got = fix(todos(), json!({"todos": items}));
    assert_eq!(
        got,
        Some((
            json!({"todos": [{"id": "1", "content": "a", "status": "pending", "priority": "high"}]}),
            vec!["parse-json-string", "enum-case"]
        ))
    );
    // The id as a number, where the id is any string: no reading, rejected.
    let items = r#"[{"id": 1, "content": "a", "status": "pending", "priority": "high"}]"#;
    assert_eq!(fix(todos(), json!({"todos": items})), None);
}

#[test]
fn parse_json_string_with_a_leaked_tail() {
    // opencode #1373 (Claude Sonnet 4 via Copilot).
    let text = "[{\"content\": \"Analyze\", \"id\": \"1\", \"priority\": \"high\", \"status\": \"completed\"}]</parameter>\n</invoke>";
    let got = fix(todos(), json!({"todos": text})).unwrap();
    assert_eq!(got.0["todos"][0]["content"], "Analyze");
}

#[test]
fn a_stringified_array_is_parsed_not_wrapped() {
    // codex #3913: command as a string holding the array.
    let schema = object(
        json!({"command": {"type": "array", "items": {"type": "string"}}}),
        &["command"],
    );
    let got = fix(schema, json!({"command": "[\"ls\", \"-la\"]"}));
    assert_eq!(
        got,
        Some((json!({"command": ["ls", "-la"]}), vec!["parse-json-string"]))
    );
}

#[test]
fn parse_json_string_with_raw_newlines_and_tabs_in_its_strings() {
    // The outer JSON already decoded `\n` and `\t`: the embedded text holds the
    // characters themselves, which strict JSON refuses inside a string.
    let sent = json!({"todos": "[{\"content\":\"line 1\nline\t2\",\"status\":\"pending\",\"priority\":\"low\"}]"});
    let (args, kinds) = fix(todos(), sent).unwrap();
    assert_eq!(args["todos"][0]["content"], "line 1\nline\t2");
    assert_eq!(kinds, ["parse-json-string"]);
}

#[test]
fn parse_json_string_refusals() {
    // Not JSON, the wrong type, or cut off: stays rejected.
    assert_eq!(fix(todos(), json!({"todos": "buy milk"})), None);
    assert_eq!(fix(todos(), json!({"todos": "{\"content\": \"a\"}"})), None);
    assert_eq!(fix(todos(), json!({"todos": "[{\"content\": \"a\""})), None);
}

#[test]
fn coerce_number_strict_decimals_only() {
    // opencode #26870: offset "2490".
    let got = fix(
        read(),
        json!({"filePath": "AL\\alpha.py", "limit": 90, "offset": "2490"}),
    );
    assert_eq!(
        got,
        Some((
            json!({"filePath": "AL\\alpha.py", "limit": 90, "offset": 2490}),
            vec!["coerce-number"]
        ))
    );
    for bad in [
        "1e5", "0x10", " 5", "5 ", "+5", ".5", "5.", "1.5", "-", "NaN",
    ] {
        assert_eq!(
            fix(read(), json!({"filePath": "a", "offset": bad})),
            None,
            "{bad:?}"
        );
    }
    // "" is no number: at an optional property it is a placeholder, and dropped.
    assert_eq!(
        fix(read(), json!({"filePath": "a", "offset": ""})),
        Some((json!({"filePath": "a"}), vec!["drop-placeholder"]))
    );
    // An integer that breaks a bound stays rejected: the repair must fix the error.
    assert_eq!(fix(read(), json!({"filePath": "a", "offset": "0"})), None);
    let num = object(json!({"t": {"type": "number"}}), &[]);
    assert_eq!(
        fix(num.clone(), json!({"t": "1.5"})).unwrap().0,
        json!({"t": 1.5})
    );
    assert_eq!(
        fix(num.clone(), json!({"t": "-20"})).unwrap().0,
        json!({"t": -20})
    );
    // The digits as written, however many: no float rounding.
    for (text, want) in [
        ("1.50", "1.50"),
        (
            "0.1000000000000000055511151231257827",
            "0.1000000000000000055511151231257827",
        ),
        ("12345678901234567890123", "12345678901234567890123"),
        ("0", "0"),
        ("0.5", "0.5"),
        ("-3.0", "-3.0"),
    ] {
        let got = fix(num.clone(), json!({ "t": text })).unwrap().0;
        assert_eq!(got["t"].to_string(), want, "{text}");
    }
}

#[test]
fn coerce_number_rejects_leading_zeros() {
    // Issue 26 item 10: `"007"` is a code as often as it is 7 (and JSON has no
    // leading zeros): more than one reading, rejected.
    let num = object(json!({"t": {"type": "number"}}), &[]);
    for text in ["007", "00", "-01", "00.5"] {
        assert_eq!(
            fix(read(), json!({"filePath": "a", "offset": text})),
            None,
            "{text}"
        );
        assert_eq!(fix(num.clone(), json!({ "t": text })), None, "{text}");
    }
}

#[test]
fn a_renamed_key_has_its_value_repaired_in_the_same_call() {
    // Issue 26 item 10: `{"Force": true}` was renamed but `{"Offset": "3"}`
    // rejected, because the renamed value did not validate yet.
    let schema = object(
        json!({"offset": {"type": "integer"}, "force": {"type": "boolean"}}),
        &[],
    );
    assert_eq!(
        fix(schema.clone(), json!({"Offset": "3"})),
        Some((json!({"offset": 3}), vec!["rename-key", "coerce-number"]))
    );
    assert_eq!(
        fix(schema.clone(), json!({"Force": "true", "Offset": "3"})).map(|r| r.0),
        Some(json!({"force": true, "offset": 3}))
    );
    // Found through the missing required property too.
    assert_eq!(
        fix(read(), json!({"file_path": "/a", "offset": "4"})),
        Some((
            json!({"filePath": "/a", "offset": 4}),
            vec!["coerce-number", "rename-key"]
        ))
    );
    let req = json!({"type": "object", "properties": {"limit": {"type": "integer"}}, "required": ["limit"]});
    assert_eq!(
        fix(req, json!({"LIMIT": "9"})).map(|r| r.0),
        Some(json!({"limit": 9}))
    );
    // A value no rule can repair: the call stays rejected.
    assert_eq!(fix(schema, json!({"Offset": "three"})), None);
}

#[test]
fn coerce_boolean_exact_strings_only() {
    // opencode #908 (Gemini 3 Pro): "replaceAll": "false".
    let schema = object(json!({"replaceAll": {"type": "boolean"}}), &[]);
    assert_eq!(
        fix(schema.clone(), json!({"replaceAll": "false"})),
        Some((json!({"replaceAll": false}), vec!["coerce-boolean"]))
    );
    for bad in ["False", "TRUE", "yes", "1"] {
        assert_eq!(
            fix(schema.clone(), json!({"replaceAll": bad})).map(|r| r.0),
            None,
            "{bad}"
        );
    }
}

#[test]
fn coerce_string_from_numbers_and_booleans() {
    // Only where the schema pins the string's form: a pattern, or an enum holding
    // the text.
    let schema = object(
        json!({"id": {"type": "string", "pattern": "^[0-9]+$"}, "flag": {"type": "string", "enum": ["true", "false"]}}),
        &[],
    );
    assert_eq!(
        fix(schema, json!({"id": 1, "flag": true})),
        Some((
            json!({"id": "1", "flag": "true"}),
            vec!["coerce-string", "coerce-string"]
        ))
    );
    // The number's own text, not its shortest float form.
    let id = object(
        json!({"id": {"type": "string", "pattern": "^-?[0-9.]+$"}}),
        &[],
    );
    for text in ["3.10", "9400111899223344556677", "-0.0", "1.000"] {
        let args: Value = serde_json::from_str(&format!(r#"{{"id":{text}}}"#)).unwrap();
        let got = fix(id.clone(), args).unwrap();
        assert_eq!(got.0, json!({ "id": text }), "{text}");
    }
    // An exponent may have been respelled by the parser: no source text, no repair.
    let any = object(json!({"id": {"type": "string", "pattern": "."}}), &[]);
    for text in ["1e2", "1E+2", "2.5e-3"] {
        let args: Value = serde_json::from_str(&format!(r#"{{"id":{text}}}"#)).unwrap();
        assert_eq!(fix(any.clone(), args), None, "{text}");
    }
}

#[test]
fn coerce_string_never_on_a_plain_string() {
    // Issue 26 item 9: `write_file {"path": 7}` made a file named `7`, and
    // `bash {"command": true}` ran the command `true`.
    let schema = object(
        json!({"path": {"type": "string"}, "command": {"type": "string", "minLength": 1},
               "where": {"type": "string", "format": "uri-reference"}}),
        &[],
    );
    for args in [
        json!({"path": 7}),
        json!({"command": true}),
        json!({"command": 3.10}),
        json!({"where": 7}),
    ] {
        assert_eq!(fix(schema.clone(), args.clone()), None, "{args}");
    }
    // A pinned form the text does not have: no repair either.
    let pinned = object(
        json!({"mode": {"enum": ["on", "off"]}, "code": {"type": "string", "pattern": "^[A-Z]+$"},
               "kind": {"const": "1"}, "day": {"type": "string", "format": "date"}}),
        &[],
    );
    for args in [
        json!({"mode": true}),
        json!({"code": 7}),
        json!({"kind": 2}),
        json!({"day": 2024}),
    ] {
        assert_eq!(fix(pinned.clone(), args.clone()), None, "{args}");
    }
    // const holding the text: one reading.
    assert_eq!(
        fix(pinned, json!({"kind": 1})),
        Some((json!({"kind": "1"}), vec!["coerce-string"]))
    );
}

#[test]
fn wrap_array_only_a_valid_item() {
    // hermes #19717: urls as a bare string.
    let schema = object(
        json!({"urls": {"type": "array", "items": {"type": "string", "format": "uri"}}}),
        &["urls"],
    );
    assert_eq!(
        fix(schema.clone(), json!({"urls": "https://a.com"})),
        Some((json!({"urls": ["https://a.com"]}), vec!["wrap-array"]))
    );
    // Not a valid item: not wrapped.
    assert_eq!(fix(schema.clone(), json!({"urls": "not a uri"})), None);
    assert_eq!(fix(schema, json!({"urls": {"u": 1}})), None);
}

#[test]
fn drop_placeholder_only_at_optional_properties() {
    // jarvis #199 (Groq): null for an optional string.
    let schema = object(
        json!({"quote": {"type": "string"}, "fact": {"type": "string"}, "cursor": {"type": "string", "minLength": 1},
               "tags": {"type": "array", "minItems": 1}, "opts": {"type": "object", "minProperties": 1}}),
        &["fact"],
    );
    assert_eq!(
        fix(schema.clone(), json!({"fact": "x", "quote": null})),
        Some((json!({"fact": "x"}), vec!["drop-placeholder"]))
    );
    // opencode #33341: "" placeholders (here the schema rejects "").
    assert_eq!(
        fix(
            schema.clone(),
            json!({"fact": "x", "cursor": "", "tags": [], "opts": {}})
        )
        .map(|r| r.0),
        Some(json!({"fact": "x"}))
    );
    for p in [json!("null"), json!("undefined")] {
        assert_eq!(
            fix(schema.clone(), json!({"fact": "x", "tags": p})).map(|r| r.0),
            Some(json!({"fact": "x"}))
        );
    }
    // Never at a required property, and a placeholder is never wrapped.
    assert_eq!(fix(schema.clone(), json!({"fact": null})), None);
    let required_tags = object(json!({"tags": {"type": "array"}}), &["tags"]);
    assert_eq!(fix(required_tags, json!({"tags": "null"})), None);
}

#[test]
fn rename_key_when_unique() {
    let got = fix(read(), json!({"file_path": "/a", "limit": 3}));
    assert_eq!(
        got,
        Some((json!({"filePath": "/a", "limit": 3}), vec!["rename-key"]))
    );
    // Open object: found through the missing required property.
    let open = json!({"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]});
    assert_eq!(
        fix(open, json!({"FilePath": "/a"})).unwrap().0,
        json!({"file_path": "/a"})
    );
    // Two declared properties that normalise alike: ambiguous, no rename.
    let twin = object(
        json!({"a_b": {"type": "string"}, "ab": {"type": "string"}}),
        &["a_b", "ab"],
    );
    assert_eq!(fix(twin, json!({"A-B": "x"})), None);
}

#[test]
fn drop_unknown_in_closed_objects_only() {
    // opencode #49725 shape: an extra `description` on a closed schema.
    let shell = object(json!({"command": {"type": "string"}}), &["command"]);
    assert_eq!(
        fix(
            shell.clone(),
            json!({"command": "git status", "description": "Check"})
        ),
        Some((json!({"command": "git status"}), vec!["drop-unknown"]))
    );
    // `cmd` is not a spelling of `command`: dropped, but command is still
    // missing, so the call stays rejected.
    assert_eq!(fix(shell, json!({"cmd": "ls", "description": "x"})), None);
}

#[test]
fn drop_unknown_never_drops_arguments_it_could_not_unwrap() {
    // Found by an attack pass: with every property optional, a wrapper whose
    // content was cut off, or held a near miss, was dropped, leaving `{}`.
    let open = object(
        json!({"s": {"type": "string"}, "n": {"type": "integer"}}),
        &[],
    );
    for args in [
        json!({"arguments": "{\"s\": \"rm -rf /tmp/bu"}),
        json!({"arguments": {"S": "x"}}),
        json!({"input": {"s": "a", "s2": 1}}),
        json!({"parameters": "s=x"}),
        json!({"s": "a", "args": {"n": "1"}}),
        // Not `name` beside it either: the wrapper would then be unwrapped,
        // and the call was to another tool.
        json!({"name": "other_tool", "arguments": {"s": "a"}}),
    ] {
        assert_eq!(fix(open.clone(), args.clone()), None, "{args}");
    }
    // Not a place arguments go: dropped as before.
    assert_eq!(
        fix(open.clone(), json!({"s": "a", "input": 5})),
        Some((json!({"s": "a"}), vec!["drop-unknown"]))
    );
    assert_eq!(
        fix(open, json!({"s": "a", "comment": {"n": 1}})),
        Some((json!({"s": "a"}), vec!["drop-unknown"]))
    );
}

#[test]
fn drop_unknown_never_drops_a_near_miss() {
    // Issue 9: `forced` for a schema declaring `force` was dropped, turning a
    // forced restart into a plain one.
    let schema = object(
        json!({"service": {"type": "string"}, "force": {"type": "boolean"}, "file_path": {"type": "string"}, "pattern": {"type": "string"}}),
        &["service"],
    );
    for near in ["forced", "forec", "path", "pattren", "FILEPATH2"] {
        let args = json!({"service": "db", near: true});
        assert_eq!(fix(schema.clone(), args), None, "{near}");
    }
    // The same name but for case and separators: renamed (exactly one fit).
    assert_eq!(
        fix(schema.clone(), json!({"service": "db", "Force_": true})).map(|r| r.1),
        Some(vec!["rename-key"])
    );
    // Far from every declared name: dropped.
    assert_eq!(
        fix(schema, json!({"service": "db", "explanation": "why"})),
        Some((json!({"service": "db"}), vec!["drop-unknown"]))
    );
}

#[test]
fn enum_case_one_match_only() {
    let got = fix(
        todos(),
        json!({"todos": [{"content": "a", "status": "In-Progress", "priority": "HIGH"}]}),
    );
    assert_eq!(
        got.unwrap().0["todos"][0],
        json!({"content": "a", "status": "in_progress", "priority": "high"})
    );
    // opencode #1354: "failed" is no spelling of any status.
    assert_eq!(
        fix(
            todos(),
            json!({"todos": [{"content": "a", "status": "failed", "priority": "low"}]})
        ),
        None
    );
}

#[test]
fn unwrap_autolink_in_path_properties() {
    let schema = object(
        json!({"file_path": {"type": "string", "pattern": "^[^\\[\\]()]+$"},
                               "note": {"type": "string", "pattern": "^[^\\[\\]()]+$"}}),
        &[],
    );
    assert_eq!(
        fix(
            schema.clone(),
            json!({"file_path": "[notes.md](http://notes.md)"})
        ),
        Some((json!({"file_path": "notes.md"}), vec!["unwrap-autolink"]))
    );
    // Real markdown, and non-path properties, are left alone.
    assert_eq!(
        fix(
            schema.clone(),
            json!({"file_path": "[click](https://example.com)"})
        ),
        None
    );
    assert_eq!(
        fix(schema, json!({"note": "[notes.md](http://notes.md)"})),
        None
    );
}

#[test]
fn a_rule_never_applies_where_the_schema_accepts_the_value() {
    // A string where anyOf allows string or array stays a string, even when it
    // looks like an array.
    let schema = object(
        json!({"t": {"anyOf": [{"type": "string"}, {"type": "array"}]}, "n": {"type": "integer"}}),
        &[],
    );
    let got = fix(schema, json!({"t": "[1]", "n": "4"})).unwrap();
    assert_eq!(got.0, json!({"t": "[1]", "n": 4}));
}

#[test]
fn several_paths_in_one_call_and_rounds() {
    let got = fix(
        read(),
        json!({"file_path": "/a", "offset": "10", "limit": null, "extra": 1}),
    )
    .unwrap();
    assert_eq!(got.0, json!({"filePath": "/a", "offset": 10}));
}

#[test]
fn thousands_of_sites_are_repaired_in_a_few_validations() {
    let item = json!({"content": "a", "status": "Pending", "priority": "high"});
    let (fixed, kinds) = fix(todos(), json!({"todos": vec![item; 8_000]})).unwrap();
    assert_eq!(kinds.len(), 8_000);
    assert!(kinds.iter().all(|k| *k == "enum-case"));
    assert!(
        fixed["todos"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "pending")
    );
    // Many unknown keys in one closed object: dropped in one pass.
    let mut args = serde_json::Map::new();
    args.insert("filePath".into(), json!("/a"));
    for i in 0..5_000 {
        args.insert(format!("extra{i}"), json!(i));
    }
    let (fixed, kinds) = fix(read(), Value::Object(args)).unwrap();
    assert_eq!(fixed, json!({"filePath": "/a"}));
    assert_eq!(kinds.len(), 5_000);
}

#[test]
fn two_spellings_of_one_key_are_never_both_renamed() {
    // Both normalise to `filePath`: renaming both would keep one value and
    // silently lose the other.
    assert_eq!(
        fix(read(), json!({"file_path": "/a", "FILEPATH": "/b"})),
        None
    );
    let got = fix(read(), json!({"file_path": "/a"}));
    assert_eq!(got, Some((json!({"filePath": "/a"}), vec!["rename-key"])));
}

#[test]
fn past_the_site_limit_a_call_is_not_repaired() {
    let item = json!({"content": "a", "status": "Pending", "priority": "high"});
    assert_eq!(
        fix(todos(), json!({"todos": vec![item; MAX_SITES + 1]})),
        None
    );
}

#[test]
fn disabled_kinds_do_not_run() {
    let t = tool(read());
    let policy = Policy {
        enabled: Enabled::parse("coerce-number").unwrap(),
        max_rounds: 6,
    };
    assert!(repair(&t, &json!({"filePath": "/a", "offset": "2"}), policy).is_some());
    assert!(repair(&t, &json!({"file_path": "/a"}), policy).is_none());
}

#[test]
fn enabled_parses_lists_and_refuses_unknown_kinds() {
    assert_eq!(Enabled::parse("all"), Ok(Enabled::ALL));
    assert_eq!(Enabled::parse("none"), Ok(Enabled::NONE));
    let e = Enabled::parse("coerce-number, wrap-array").unwrap();
    assert!(e.has(Kind::WrapArray) && e.has(Kind::CoerceNumber) && !e.has(Kind::RenameKey));
    assert!(
        Enabled::parse("coerce")
            .unwrap_err()
            .to_string()
            .starts_with("unknown repair kind \"coerce\"")
    );
}

/// Paths are the validator's JSON pointers split into strings and read against
/// the document, not jsonschema's typed `Location::segments()`, which reads a
/// property named `"0"` as array index 0 (jsonschema 0.60): such a key is
/// repaired at its own place, in an object and inside an array.
#[test]
fn a_property_named_like_an_index_is_a_property() {
    let schema = json!({"type": "object", "properties": {
        "0": {"type": "integer"},
        "a": {"type": "array", "items": {"type": "object", "properties": {"0": {"type": "boolean"}}}}
    }});
    let (v, kinds) = fix(schema, json!({"0": "5", "a": [{"0": "true"}]})).unwrap();
    assert_eq!(v, json!({"0": 5, "a": [{"0": true}]}));
    assert_eq!(kinds, ["coerce-number", "coerce-boolean"]);
}

#[test]
fn what_a_value_may_be_is_read_through_every_combinator_and_ref() {
    // Each keyword that combines schemas, and `$ref`, leads to the one that
    // says the string is a number.
    let integer = json!({"type": "integer"});
    for wrapped in [
        json!({"allOf": [integer]}),
        json!({"anyOf": [{"type": "null"}, integer]}),
        json!({"oneOf": [{"type": "null"}, integer]}),
        json!({"$ref": "#/$defs/n"}),
    ] {
        let mut schema = object(json!({"n": wrapped}), &["n"]);
        schema["$defs"] = json!({"n": integer});
        assert_eq!(
            fix(schema, json!({"n": "5"})),
            Some((json!({"n": 5}), vec!["coerce-number"])),
            "{wrapped}"
        );
    }
}
