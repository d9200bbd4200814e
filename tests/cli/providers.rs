//! Provider conversions and tool calls leaked into assistant text.

use serde_json::{Value, json};

use crate::run_json;

fn kinds(r: &Value) -> Vec<String> {
    r["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn deepseek_dsml_leak_becomes_a_validated_call() {
    // opencode #24566 (DeepSeek, read), written in an OpenAI assistant message.
    let text = "I'll read the file.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read\">\n<｜DSML｜parameter name=\"file_path\" string=\"true\">/work/src/hypercall.cpp</｜DSML｜parameter>\n<｜DSML｜parameter name=\"limit\" string=\"false\">15</｜DSML｜parameter>\n<｜DSML｜parameter name=\"offset\" string=\"false\">357</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let msg = json!({"role": "assistant", "content": text});
    let (code, out) = run_json(&[], &format!("{msg}\n"));
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["tool"], "read");
    assert_eq!(out[0]["status"], "repaired");
    assert_eq!(
        out[0]["args"],
        json!({"file_path": "/work/src/hypercall.cpp", "limit": 15, "offset": 357})
    );
    assert_eq!(kinds(&out[0]), ["extract-from-text"]);
}

#[test]
fn qwen_function_leak_is_extracted_then_repaired() {
    // Qwen-Coder's XML format in an Anthropic text block; values arrive as text
    // and the schema-guided rules type them.
    let text = "<function=grep>\n<parameter=pattern>\nfn main\n</parameter>\n<parameter=head_limit>\n15\n</parameter>\n<parameter=case_insensitive>\ntrue\n</parameter>\n</function>";
    let msg = json!({"role": "assistant", "content": [{"type": "text", "text": text}]});
    let (code, out) = run_json(&[], &format!("{msg}\n"));
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out[0]["tool"], "grep");
    assert_eq!(
        out[0]["args"],
        json!({"pattern": "fn main", "head_limit": 15, "case_insensitive": true})
    );
    assert_eq!(
        kinds(&out[0]),
        ["extract-from-text", "coerce-number", "coerce-boolean"]
    );
}

#[test]
fn hermes_tool_call_leak_in_gemini_parts() {
    let text = "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"**/*.toml\"}}\n</tool_call>";
    let content = json!({"role": "model", "parts": [{"text": text}]});
    let (code, out) = run_json(&[], &format!("{content}\n"));
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(
        (out[0]["tool"].as_str(), out[0]["status"].as_str()),
        (Some("glob"), Some("repaired"))
    );
    assert_eq!(out[0]["args"], json!({"pattern": "**/*.toml"}));
}

#[test]
fn malformed_leaks_are_rejected_with_a_clear_message() {
    // opencode #24566: the JSON inside string="false" lost its brackets.
    let text = "<｜DSML｜invoke name=\"todowrite\"><｜DSML｜parameter name=\"todos\" string=\"false\">[{\"content\": \"a\", \"status\": {\"x\": 1}, {\"y\": 2}]</｜DSML｜parameter></｜DSML｜invoke>";
    let msg = json!({"role": "assistant", "content": text});
    let (code, out) = run_json(&[], &format!("{msg}\n"));
    assert_eq!(code, 1);
    let message = out[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Please rewrite the input with valid arguments. Errors: parameter \"todos\" is marked as JSON but is not valid JSON"),
        "{message}"
    );
}

#[test]
fn extraction_is_a_repair_kind_that_can_be_turned_off() {
    let msg = json!({"role": "assistant", "content": "<tool_call>{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}}</tool_call>"});
    let (code, out) = run_json(&["--repair", "none"], &format!("{msg}\n"));
    assert_eq!((code, out.len()), (0, 0));
    // A message that has real calls is not searched.
    let both = json!({"role": "assistant", "content": "<tool_call>{\"name\": \"read\", \"arguments\": {}}</tool_call>",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\":\"*\"}"}}]});
    let (_, out) = run_json(&[], &format!("{both}\n"));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["tool"], "glob");
    // Plain prose stays a message without calls.
    let prose = json!({"role": "assistant", "content": "Use Vec<T> here; <b>done</b>."});
    let (code, out) = run_json(&[], &format!("{prose}\n"));
    assert_eq!((code, out.len()), (0, 0));
}
