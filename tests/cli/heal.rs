//! `callfix heal`: poisoned OpenAI and Anthropic histories healed, every call
//! paired with exactly one result, valid records byte for byte, `--to` both
//! ways, exit codes, records that are no conversation passed through.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::{callfix, fixture, json_lines};

/// `callfix heal ARGS` on `stdin`: (exit code, stdout, stderr).
pub(crate) fn heal(args: &[&str], stdin: impl Into<Vec<u8>>) -> (i32, Vec<u8>, String) {
    let out = callfix()
        .arg("heal")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap(), out.stdout, stderr)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(&format!("heal/{name}"))).unwrap()
}

/// Every OpenAI call has exactly one result, right after its turn, and every
/// result its call; ids are unique; arguments are JSON objects as text.
pub(crate) fn assert_openai_paired(body: &Value) {
    let messages = body["messages"].as_array().unwrap();
    let mut seen = HashSet::new();
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        assert_ne!(
            m["role"], "tool",
            "a result without its call at {i}: {body}"
        );
        i += 1;
        let Some(calls) = m.get("tool_calls").and_then(Value::as_array) else {
            continue;
        };
        assert!(!calls.is_empty());
        let mut want: Vec<&str> = Vec::new();
        for c in calls {
            let id = c["id"].as_str().unwrap();
            assert!(seen.insert(id.to_owned()), "id {id} twice");
            want.push(id);
            let args: Value =
                serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap();
            assert!(args.is_object());
            let name = c["function"]["name"].as_str().unwrap();
            assert!(!name.is_empty() && name.len() <= 64);
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                "{name}"
            );
        }
        let mut got = Vec::new();
        while let Some(r) = messages.get(i).filter(|r| r["role"] == "tool") {
            got.push(r["tool_call_id"].as_str().unwrap());
            i += 1;
        }
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(want, got, "results of message {}: {body}", i);
    }
}

/// Every Anthropic `tool_use` has exactly one `tool_result` at the start of
/// the next (user) message, and every result its call.
pub(crate) fn assert_anthropic_paired(body: &Value) {
    let messages = body["messages"].as_array().unwrap();
    let mut seen = HashSet::new();
    let mut answered_by_next: Vec<String> = Vec::new();
    for m in messages {
        let blocks: Vec<Value> = m["content"].as_array().cloned().unwrap_or_default();
        let results: Vec<&str> = blocks
            .iter()
            .take_while(|b| b["type"] == "tool_result")
            .map(|b| b["tool_use_id"].as_str().unwrap())
            .collect();
        assert_eq!(
            blocks.iter().filter(|b| b["type"] == "tool_result").count(),
            results.len(),
            "tool_result blocks not first: {m}"
        );
        let mut want = std::mem::take(&mut answered_by_next);
        let mut got: Vec<String> = results.iter().map(|s| (*s).to_owned()).collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(want, got, "{body}");
        if !got.is_empty() {
            assert_eq!(m["role"], "user");
        }
        for b in blocks.iter().filter(|b| b["type"] == "tool_use") {
            assert_eq!(m["role"], "assistant");
            let id = b["id"].as_str().unwrap();
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                "{id}"
            );
            assert!(seen.insert(id.to_owned()), "id {id} twice");
            assert!(b["input"].is_object());
            answered_by_next.push(id.to_owned());
        }
    }
    assert!(answered_by_next.is_empty(), "last calls unanswered: {body}");
}

pub(crate) fn one(out: &[u8]) -> Value {
    let mut lines = json_lines(out);
    assert_eq!(lines.len(), 1);
    lines.remove(0)
}

#[test]
fn heal_openai_poisoned_history() {
    let (code, out, stderr) = heal(&[], read("openai_poisoned.json"));
    assert_eq!(code, 1, "{stderr}");
    let body = one(&out);
    assert_openai_paired(&body);
    let calls = body["messages"][2]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 6, "no call lost");
    // Valid: byte for byte, its spacing and `1e2` kept.
    assert_eq!(
        calls[0]["function"]["arguments"],
        "{\"path\": \"/a\",  \"limit\": 1e2}"
    );
    assert_eq!(
        calls[1]["function"]["arguments"],
        "{\"path\":\"/b\",\"limit\":5}"
    );
    assert_eq!(calls[2]["function"]["arguments"], "{\"query\":\"x\"}");
    // Truncated: never completed, neutralised.
    assert_eq!(calls[3]["function"]["arguments"], "{}");
    assert_eq!(calls[4]["function"]["name"], "delete_everything");
    assert_eq!(calls[5]["function"]["name"], "read_file_");
    let results: Vec<&Value> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    let cut = results
        .iter()
        .find(|r| r["tool_call_id"] == "call_cut")
        .unwrap();
    let cut = cut["content"].as_str().unwrap();
    assert!(
        cut.starts_with("[callfix] This call was rejected: "),
        "{cut}"
    );
    assert!(
        cut.contains("as sent (not a JSON object, shown as {}): {\"path\": \"/c"),
        "{cut}"
    );
    assert!(
        cut.ends_with("\nerror: no such file"),
        "the result's own content is kept: {cut}"
    );
    let bad = results
        .iter()
        .find(|r| r["tool_call_id"] == "call_bad_name")
        .unwrap();
    assert!(
        bad["content"]
            .as_str()
            .unwrap()
            .contains("Tool name as sent: read file!\n")
    );
    assert!(
        bad["content"]
            .as_str()
            .unwrap()
            .ends_with(": not json at all")
    );
    // The orphan result is kept, as a user message after the results.
    let orphan = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user" && m["content"].as_str().unwrap().contains("call_gone"))
        .unwrap();
    assert!(
        orphan["content"]
            .as_str()
            .unwrap()
            .ends_with("\na result with no call")
    );
    assert!(
        stderr.contains("callfix: repaired: stdin:1: messages[2] \"read\": limit coerce-number"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "callfix: neutralised: stdin:1: messages[2] \"delete_everything\": Unknown tool"
        ),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 5, "{stderr}");
}

#[test]
fn heal_anthropic_poisoned_history() {
    let (code, out, stderr) = heal(&[], read("anthropic_poisoned.json"));
    assert_eq!(code, 1, "{stderr}");
    let body = one(&out);
    assert_anthropic_paired(&body);
    let blocks = body["messages"][1]["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 7, "no call lost");
    assert_eq!(blocks[2]["input"], json!({"path": "/b", "limit": 5}));
    assert_eq!(blocks[3]["input"], json!({"query": "x"}));
    // Rejected but a JSON object: kept as sent, its result says why.
    assert_eq!(blocks[4]["input"], json!({"limit": 3}));
    // The second call with id toolu_ok gets an id of its own.
    assert_eq!(blocks[6]["id"], "toolu_ok_1_5");
    let results = body["messages"][2]["content"].as_array().unwrap();
    let missing = results
        .iter()
        .find(|r| r["tool_use_id"] == "toolu_missing")
        .unwrap();
    assert_eq!(missing["is_error"], true);
    assert_eq!(
        missing["content"][1]["text"], "error: path required",
        "own content kept"
    );
    assert!(
        missing["content"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("path: Required")
    );
    let last = results.last().unwrap();
    assert_eq!(last["type"], "text");
    assert!(last["text"].as_str().unwrap().contains("toolu_gone"));
    // `1e2` written as it came, in a record that changed.
    assert!(String::from_utf8(out).unwrap().contains("\"limit\":1e2"));
}

#[test]
fn heal_valid_records_come_out_byte_for_byte() {
    let valid = "{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"read\",\"parameters\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}}}}}],\"messages\":[{\"role\":\"user\",\"content\":\"caf\\u00e9 \\/ 1E5\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"{ \\\"n\\\" : 1.50 }\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"ok\"}],\"temperature\":1.0e0}\n";
    let pretty = serde_json::to_string_pretty(&serde_json::from_str::<Value>(valid).unwrap())
        .unwrap()
        + "\n";
    for input in [valid.to_owned(), pretty, format!("{valid}{valid}")] {
        let (code, out, stderr) = heal(&[], input.clone());
        assert_eq!((code, stderr.as_str()), (0, ""));
        assert_eq!(String::from_utf8(out).unwrap(), input);
    }
}

#[test]
fn heal_repaired_record_keeps_untouched_parts() {
    let record = r#"{"z":1E400,"model":"m","tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"n":{"type":"integer"}}}}}],"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"read","arguments":"{\"n\": \"2\"}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}],"a":[1.0,-0.0,12345678901234567890123]}"#;
    let (code, out, stderr) = heal(&[], format!("{record}\n"));
    assert_eq!(code, 0, "{stderr}");
    let want = record.replace(r#"{\"n\": \"2\"}"#, r#"{\"n\":2}"#);
    assert_eq!(String::from_utf8(out).unwrap(), format!("{want}\n"));
}

#[test]
fn heal_is_idempotent() {
    for name in ["openai_poisoned.json", "anthropic_poisoned.json"] {
        let (_, once, _) = heal(&[], read(name));
        let (code, twice, _) = heal(&[], once.clone());
        assert_eq!(code, 1, "the rejected calls are still rejected");
        assert_eq!(
            String::from_utf8(once).unwrap(),
            String::from_utf8(twice).unwrap()
        );
    }
}

#[test]
fn heal_to_anthropic() {
    let (code, out, stderr) = heal(&["--to", "anthropic"], read("openai_poisoned.json"));
    assert_eq!(code, 1, "{stderr}");
    let body = one(&out);
    assert_anthropic_paired(&body);
    assert_eq!(body["system"], "You are terse.");
    assert_eq!(body["max_tokens"], 512);
    assert_eq!(
        body["tools"][0]["input_schema"]["required"],
        json!(["path"])
    );
    assert!(
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["role"] != "system")
    );
    let uses: Vec<&Value> = body["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .collect();
    assert_eq!(uses.len(), 6);
    assert_eq!(uses[1]["input"], json!({"path": "/b", "limit": 5}));
}

#[test]
fn heal_to_openai() {
    let (code, out, stderr) = heal(&["--to", "openai"], read("anthropic_poisoned.json"));
    assert_eq!(code, 1, "{stderr}");
    let body = one(&out);
    assert_openai_paired(&body);
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You are terse."})
    );
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["path"])
    );
    let calls = body["messages"][2]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 6);
    assert_eq!(
        calls[0]["function"]["arguments"],
        "{\"path\":\"/a\",\"limit\":1e2}"
    );
    assert_eq!(body["messages"][2]["content"], "Reading.");
}

#[test]
fn heal_to_a_provider_it_does_not_write_is_a_usage_error() {
    let (code, out, stderr) = heal(&["--to", "gemini"], read("openai_poisoned.json"));
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        stderr.contains("[possible values: openai, anthropic]"),
        "{stderr}"
    );
}

#[test]
fn heal_passes_a_record_that_is_no_conversation_through() {
    let valid = read("openai_poisoned.json");
    let input = format!("{{\"name\": \"read\"}}\nnot json\n{valid}{{\"messages\": []}}\n");
    let (code, out, stderr) = heal(&[], input);
    assert_eq!(code, 2, "{stderr}");
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "no record lost: {text}");
    assert_eq!(lines[0], "{\"name\": \"read\"}");
    assert_eq!(lines[1], "not json");
    assert_openai_paired(&serde_json::from_str(lines[2]).unwrap());
    assert!(
        stderr.contains(
            "callfix: error: stdin:1: written as it came, not healed: not a conversation"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("stdin:2: written as it came, not healed: not valid JSON"),
        "{stderr}"
    );
    assert!(
        stderr.contains("stdin:4: written as it came, not healed: no tools"),
        "{stderr}"
    );
}

#[test]
fn heal_schemas_flag_overrides_the_records_tools() {
    let record = json!({"model": "m", "messages": [
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function",
         "function": {"name": "read", "arguments": "{\"file_path\": \"/a\", \"offset\": \"3\"}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"}]});
    let (code, out, stderr) = heal(&["--schemas", "schemas"], format!("{record}\n"));
    assert_eq!(code, 0, "{stderr}");
    let body = one(&out);
    assert_eq!(
        body["messages"][0]["tool_calls"][0]["function"]["arguments"],
        "{\"file_path\":\"/a\",\"offset\":3}"
    );
}

#[test]
fn heal_a_missing_file_is_exit_2_and_the_others_are_healed() {
    let out = callfix()
        .args(["heal", "no/such/file.jsonl"])
        .arg(fixture("heal/openai_poisoned.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_lines(&out.stdout).len(), 1);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("no/such/file.jsonl"), "{stderr}");
    assert!(
        stderr.contains("openai_poisoned.json:1: messages[2]"),
        "{stderr}"
    );
}

#[test]
fn heal_unreadable_calls_and_odd_ids() {
    let tools = json!([{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]);
    let record = json!({"model": "m", "tools": tools, "messages": [
        {"role": "tool", "tool_call_id": "x", "content": "before any call"},
        {"role": "assistant", "content": "text", "tool_calls": [
            {"id": 7, "type": "function", "function": {"name": "read", "arguments": "{}"}},
            {"type": "function", "function": {"name": "read", "arguments": "[1]"}},
            "not a call",
            {"id": "d", "type": "function", "function": {"arguments": "{}"}}]},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1_0", "type": "function", "function": {"name": "read", "arguments": "{}"}}]}]});
    let (code, out, stderr) = heal(&[], format!("{record}\n"));
    assert_eq!(code, 1, "{stderr}");
    let body = one(&out);
    assert_openai_paired(&body);
    let turn = &body["messages"][1];
    assert_eq!(turn["tool_calls"].as_array().unwrap().len(), 2);
    assert!(
        turn["content"]
            .as_str()
            .unwrap()
            .starts_with("text\n[callfix] A tool call that could not be read")
    );
    assert!(turn["content"].as_str().unwrap().contains("not a call"));
    // Non-object arguments: neutralised to {}.
    assert_eq!(turn["tool_calls"][1]["function"]["arguments"], "{}");
    assert_eq!(body["messages"][0]["role"], "user");
}

#[test]
fn heal_a_long_history_with_deep_arguments() {
    let tools = json!([{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]);
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let mut messages = vec![];
    for i in 0..2000 {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("c{i}"), "type": "function", "function": {"name": "read", "arguments": deep}}]}));
    }
    let record = json!({"model": "m", "tools": tools, "messages": messages});
    let (code, out, _) = heal(&[], format!("{record}\n"));
    assert_eq!(code, 1);
    let body = one(&out);
    assert_openai_paired(&body);
}
