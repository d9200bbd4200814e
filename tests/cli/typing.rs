//! Values of the XML-parameter families are untyped text, typed by the
//! tool's schema as the call is read: a string parameter keeps its text
//! exactly, a number, boolean, null, object or array parameter gets the one
//! reading of the text the schema accepts (issue 26, item 8).

use serde_json::{Value, json};

use crate::util::{assistant_line, repair_kinds};
use crate::{callfix, json_lines};

/// Judges an assistant message whose text is `text`, with the schemas in
/// `schemas` (or the shipped ones); returns (exit code, the one result).
fn judge(schemas: Option<&str>, text: &str) -> (i32, Value) {
    let mut cmd = callfix();
    cmd.args(["-f", "json"]);
    if let Some(s) = schemas {
        cmd.args(["-s", s]);
    }
    let out = cmd.write_stdin(assistant_line(text)).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let mut results = json_lines(&out.stdout);
    assert_eq!(results.len(), 1, "{text}: {results:?}");
    (out.status.code().unwrap(), results.remove(0))
}

/// Qwen3-Coder markup calling `tool` with `params` as written.
fn qwen(tool: &str, params: &[(&str, &str)]) -> String {
    let mut text = format!("<tool_call>\n<function={tool}>\n");
    for (name, value) in params {
        text.push_str(&format!("<parameter={name}>\n{value}\n</parameter>\n"));
    }
    text + "</function>\n</tool_call>"
}

/// GLM markup calling `tool` with `params` as written.
fn glm(tool: &str, params: &[(&str, &str)]) -> String {
    let mut text = format!("<tool_call>{tool}\n");
    for (name, value) in params {
        text.push_str(&format!(
            "<arg_key>{name}</arg_key>\n<arg_value>{value}</arg_value>\n"
        ));
    }
    text + "</tool_call>"
}

#[test]
fn a_string_parameter_keeps_its_text_and_a_number_is_typed_as_read() {
    // The bug every inference engine re-fixes: `02134` is a path (or a zip
    // code), never the number 2134; `3` for an integer is the number 3.
    let inline = "<tool_call><function=read><parameter=file_path>02134</parameter><parameter=limit>3</parameter></function></tool_call>";
    let params = [("file_path", "02134"), ("limit", "3")];
    for text in [
        inline.to_owned(),
        qwen("read", &params),
        glm("read", &params),
    ] {
        let (code, r) = judge(None, &text);
        assert_eq!(code, 0, "{text}: {r}");
        assert_eq!(
            r["args"],
            json!({"file_path": "02134", "limit": 3}),
            "{text}"
        );
        // Typing the text is part of reading the call: no coerce-* repair.
        assert_eq!(repair_kinds(&r), ["extract-from-text"], "{text}");
    }
}

/// A schema directory holding `probe`, whose parameters take each type.
fn probe_schemas() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::write(
        dir.path(),
        "probe.json",
        r##"{"type": "object", "additionalProperties": false, "properties": {
            "text": {"type": "string"},
            "either": {"type": ["string", "integer"]},
            "any_of": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "one_of": {"oneOf": [{"type": "boolean"}, {"$ref": "#/$defs/s"}]},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "maybe": {"type": ["integer", "null"]},
            "items": {"type": "array", "items": {"type": "string"}},
            "options": {"type": "object"}
        }, "$defs": {"s": {"type": "string"}}}"##,
    );
    dir
}

#[test]
fn values_are_typed_by_the_schema() {
    let dir = probe_schemas();
    let s = dir.path().to_str().unwrap();
    for (param, text, want) in [
        ("count", "3", json!(3)),
        ("count", "-12", json!(-12)),
        ("ratio", "0.1000000000000000055511151231257827", json!(null)),
        ("ratio", "2.50", json!(null)),
        ("flag", "true", json!(true)),
        ("flag", "False", json!(false)),
        ("flag", "True", json!(true)),
        ("maybe", "None", json!(null)),
        ("maybe", "null", json!(null)),
        ("maybe", "7", json!(7)),
        ("items", "[\"a\", \"b\"]", json!(["a", "b"])),
        // vllm-mlx #63: a Python list.
        (
            "items",
            "['python', 'tutorial']",
            json!(["python", "tutorial"]),
        ),
        (
            "options",
            "{\"theme\": \"dark\", \"size\": 14}",
            json!({"theme": "dark", "size": 14}),
        ),
        (
            "options",
            "{'theme': 'dark', 'size': 14}",
            json!({"theme": "dark", "size": 14}),
        ),
        // Text stays text wherever the schema admits a string.
        ("text", "3", json!("3")),
        ("text", "True", json!("True")),
        ("text", "None", json!("None")),
        ("text", "[1]", json!("[1]")),
        ("either", "3", json!("3")),
        ("any_of", "007", json!("007")),
        ("one_of", "true", json!("true")),
    ] {
        let text = qwen("probe", &[(param, text)]);
        let (code, r) = judge(Some(s), &text);
        assert_eq!(code, 0, "{param} {text}: {r}");
        assert_eq!(repair_kinds(&r), ["extract-from-text"], "{param} {text}");
        let got = &r["args"][param];
        if want.is_null() && param == "ratio" {
            // The digits as written (arbitrary precision), not a float.
            let written = text.lines().nth(3).unwrap();
            assert_eq!(got.to_string(), written, "{param}");
        } else {
            assert_eq!(got, &want, "{param} {text}");
        }
    }
}

#[test]
fn text_with_no_reading_the_schema_accepts_stays_text_and_is_rejected() {
    let dir = probe_schemas();
    let s = dir.path().to_str().unwrap();
    for (param, text, want) in [
        ("count", "007", "count: expected integer, got string"),
        ("count", "1e3", "count: expected integer, got string"),
        ("count", "3.5", "count: expected integer, got string"),
        ("count", "three", "count: expected integer, got string"),
        ("flag", "yes", "flag: expected boolean, got string"),
        ("flag", "TRUE", "flag: expected boolean, got string"),
        (
            "maybe",
            "Null",
            "maybe: expected integer or null, got string",
        ),
    ] {
        let (code, r) = judge(Some(s), &qwen("probe", &[(param, text)]));
        assert_eq!(code, 1, "{param} {text}: {r}");
        assert_eq!(r["status"], "rejected", "{param} {text}");
        assert_eq!(r["errors"][0]["message"], want.split_once(": ").unwrap().1);
        assert!(r["message"].as_str().unwrap().contains(want), "{r}");
    }
}

#[test]
fn json_written_values_are_not_retyped() {
    // Only text the markup left untyped is typed: a JSON string in a JSON
    // call is the model's own, and goes through the repair rules (reported).
    let (code, r) = judge(
        None,
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"02134\", \"limit\": \"3\"}}\n</tool_call>",
    );
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["args"], json!({"file_path": "02134", "limit": 3}));
    assert_eq!(repair_kinds(&r), ["extract-from-text", "coerce-number"]);
}
