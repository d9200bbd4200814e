//! Every provider envelope is recognised without flags.

use serde_json::json;

use crate::run_json;

fn one(input: serde_json::Value) -> serde_json::Value {
    let (code, out) = run_json(&[], &format!("{input}\n"));
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out.len(), 1, "{out:?}");
    out.into_iter().next().unwrap()
}

const ARGS: &str = r#"{"pattern":"src/**/*.rs"}"#;

fn expect_glob(result: &serde_json::Value, id: serde_json::Value) {
    assert_eq!(result["tool"], "glob");
    assert_eq!(result["status"], "valid");
    assert_eq!(result["id"], id);
    assert_eq!(result["args"], json!({"pattern": "src/**/*.rs"}));
    assert_eq!(result["repairs"], json!([]));
    assert_eq!(result["errors"], json!([]));
    assert_eq!(result["message"], json!(null));
}

#[test]
fn generic_with_every_arguments_key() {
    for key in ["arguments", "args", "input", "parameters"] {
        let r = one(json!({"id": "g1", "name": "glob", key: {"pattern": "src/**/*.rs"}}));
        expect_glob(&r, json!("g1"));
    }
    let r = one(json!({"name": "glob", "arguments": ARGS}));
    expect_glob(&r, json!(null));
}

#[test]
fn openai_chat_tool_call_message_and_completion() {
    let tc = json!({"id": "call_1", "type": "function", "function": {"name": "glob", "arguments": ARGS}});
    expect_glob(&one(tc.clone()), json!("call_1"));
    let msg = json!({"role": "assistant", "content": null, "tool_calls": [tc]});
    expect_glob(&one(msg.clone()), json!("call_1"));
    let completion =
        json!({"object": "chat.completion", "choices": [{"index": 0, "message": msg}]});
    expect_glob(&one(completion), json!("call_1"));
}

#[test]
fn openai_responses_item_and_response() {
    let item = json!({"type": "function_call", "id": "fc_1", "call_id": "call_2", "name": "glob", "arguments": ARGS});
    expect_glob(&one(item.clone()), json!("call_2"));
    let response =
        json!({"object": "response", "output": [{"type": "reasoning", "summary": []}, item]});
    expect_glob(&one(response), json!("call_2"));
}

#[test]
fn anthropic_block_and_message() {
    let block = json!({"type": "tool_use", "id": "toolu_1", "name": "glob", "input": {"pattern": "src/**/*.rs"}});
    expect_glob(&one(block.clone()), json!("toolu_1"));
    let msg =
        json!({"role": "assistant", "content": [{"type": "text", "text": "Looking."}, block]});
    expect_glob(&one(msg), json!("toolu_1"));
}

#[test]
fn gemini_part_content_and_response() {
    let part =
        json!({"functionCall": {"id": "gc_1", "name": "glob", "args": {"pattern": "src/**/*.rs"}}});
    expect_glob(&one(part.clone()), json!("gc_1"));
    let content = json!({"role": "model", "parts": [part]});
    expect_glob(&one(content.clone()), json!("gc_1"));
    let response = json!({"candidates": [{"content": content, "finishReason": "STOP"}]});
    expect_glob(&one(response), json!("gc_1"));
}

#[test]
fn mcp_tools_call() {
    let req = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "glob", "arguments": {"pattern": "src/**/*.rs"}}});
    expect_glob(&one(req), json!(9));
}

#[test]
fn several_calls_in_one_record_are_numbered() {
    let tc = |id: &str| json!({"id": id, "type": "function", "function": {"name": "glob", "arguments": ARGS}});
    let msg = json!({"role": "assistant", "tool_calls": [tc("a"), tc("b"), tc("c")]});
    let (code, out) = run_json(&[], &format!("{msg}\n{msg}\n"));
    assert_eq!(code, 0);
    let at: Vec<_> = out
        .iter()
        .map(|r| (r["index"].clone(), r["call"].clone()))
        .collect();
    assert_eq!(
        at,
        [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)].map(|(i, c)| (json!(i), json!(c)))
    );
}

#[test]
fn stream_shapes_jsonl_concatenated_pretty_and_array() {
    let call = json!({"name": "glob", "arguments": {"pattern": "*"}});
    let pretty = serde_json::to_string_pretty(&call).unwrap();
    let inputs = [
        format!("{call}\n{call}\n{call}\n"),
        format!("{call}{call} {call}"),
        format!("{pretty}\n{pretty}\n{pretty}\n"),
        format!("[{call},\n{call},{call}]"),
        format!("[\n{pretty},\n{pretty},\n{pretty}\n]\n"),
    ];
    for input in inputs {
        let (code, out) = run_json(&[], &input);
        assert_eq!(code, 0, "{input}");
        let idx: Vec<_> = out.iter().map(|r| r["index"].as_u64().unwrap()).collect();
        assert_eq!(idx, [0, 1, 2], "{input}");
    }
}

#[test]
fn messages_without_calls_produce_no_result() {
    let input =
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"done\"}\n";
    let (code, out) = run_json(&[], input);
    assert_eq!(code, 0);
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn bare_arguments_with_tool_flag() {
    let (code, out) = run_json(&["--tool", "glob"], ARGS);
    assert_eq!(code, 0);
    expect_glob(&out[0], json!(null));
    let (code, out) = run_json(&["--tool", "glob"], "{\"pattern\": [3]}");
    assert_eq!(code, 1);
    assert_eq!(
        out[0]["message"],
        "Please rewrite the input with valid arguments. Errors: pattern: expected string, got array"
    );
}

#[test]
fn bare_arguments_from_several_files_are_numbered_in_order() {
    let dir = tempfile::tempdir().unwrap();
    crate::write(dir.path(), "a.json", ARGS);
    crate::write(dir.path(), "b.json", "{}");
    let (code, out) = run_json(
        &[
            "--tool",
            "glob",
            dir.path().join("a.json").to_str().unwrap(),
            dir.path().join("b.json").to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 1);
    let got: Vec<_> = out
        .iter()
        .map(|r| (r["index"].clone(), r["status"].clone()))
        .collect();
    assert_eq!(
        got,
        [(json!(0), json!("valid")), (json!(1), json!("rejected"))]
    );
}

#[test]
fn openai_legacy_function_call_message() {
    // Before tool_calls: one call per message, no id. It used to be read as a
    // message without calls, and nothing was written.
    let msg = json!({"role": "assistant", "content": null, "function_call": {"name": "glob", "arguments": ARGS}});
    expect_glob(&one(msg.clone()), json!(null));
    let completion =
        json!({"object": "chat.completion", "choices": [{"index": 0, "message": msg}]});
    expect_glob(&one(completion), json!(null));
}

#[test]
fn ollama_chat_response() {
    let response = json!({"model": "qwen3:8b", "created_at": "2026-11-01T10:00:00.000Z",
        "message": {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "glob", "arguments": {"pattern": "src/**/*.rs"}}}]},
        "done": true, "done_reason": "stop"});
    expect_glob(&one(response.clone()), json!(null));
    // Written back, its arguments stay an object.
    let out = crate::callfix()
        .args(["-f", "call"])
        .write_stdin(format!("{}\n", response["message"]["tool_calls"][0]))
        .output()
        .unwrap();
    let call: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        call,
        json!({"function": {"name": "glob", "arguments": {"pattern": "src/**/*.rs"}}})
    );
}

#[test]
fn bedrock_converse_response() {
    let response = json!({"output": {"message": {"role": "assistant", "content": [
            {"text": "Looking for Rust files."},
            {"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "glob",
                "input": {"pattern": "src/**/*.rs"}}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 30, "outputTokens": 20, "totalTokens": 50}});
    expect_glob(&one(response), json!("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"));
}
