//! Reading and writing every provider's envelopes.

use super::*;

fn calls(v: Value) -> Vec<Call> {
    match extract(v, Some(&|_: &str| true)) {
        Extracted::Calls(c) => c,
        Extracted::Unrecognised(r) => panic!("unrecognised: {r}"),
    }
}

fn one(v: Value) -> Call {
    let mut c = calls(v);
    assert_eq!(c.len(), 1, "{c:?}");
    c.remove(0)
}

#[test]
fn generic_with_each_args_key() {
    for key in ["arguments", "args", "input", "parameters"] {
        let c = one(json!({"id": "c1", "name": "read", key: {"filePath": "/a"}}));
        assert_eq!(c.name, "read");
        assert_eq!(c.id, json!("c1"));
        assert_eq!(c.args, Args::Value(json!({"filePath": "/a"})));
        assert_eq!((c.provider, c.args_at), ("generic", &[key][..]));
    }
    let c = one(json!({"name": "read", "arguments": "{\"a\":1}"}));
    assert_eq!(c.args, Args::Text("{\"a\":1}".into()));
    assert_eq!(c.id, Value::Null);
}

#[test]
fn openai_chat_call_message_and_completion() {
    let tc = json!({"id": "call_1", "type": "function",
        "function": {"name": "read", "arguments": "{\"filePath\":\"/a\"}"}});
    let c = one(tc.clone());
    assert_eq!(c.provider, "openai");
    assert_eq!(c.args, Args::Text("{\"filePath\":\"/a\"}".into()));
    let msg = json!({"role": "assistant", "content": null, "tool_calls": [tc.clone(), tc.clone()]});
    assert_eq!(calls(msg.clone()).len(), 2);
    let completion = json!({"id": "chatcmpl-1", "object": "chat.completion",
        "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]});
    assert_eq!(calls(completion).len(), 2);
}

#[test]
fn openai_responses_item_and_response() {
    let item = json!({"type": "function_call", "id": "fc_1", "call_id": "call_9",
        "name": "glob", "arguments": "{\"pattern\":\"*.rs\"}"});
    let c = one(item.clone());
    assert_eq!(c.provider, "openai-responses");
    assert_eq!(c.id, json!("call_9"));
    let response = json!({"object": "response", "output": [
        {"type": "reasoning", "summary": []},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]},
        item]});
    assert_eq!(calls(response).len(), 1);
}

#[test]
fn anthropic_block_and_message() {
    let block = json!({"type": "tool_use", "id": "toolu_1", "name": "bash",
        "input": {"command": "ls"}});
    let c = one(block.clone());
    assert_eq!(c.provider, "anthropic");
    assert_eq!(c.args, Args::Value(json!({"command": "ls"})));
    let msg = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "Let me look."}, block]});
    assert_eq!(calls(msg).len(), 1);
}

#[test]
fn gemini_part_content_and_response() {
    let part = json!({"functionCall": {"name": "grep", "args": {"pattern": "fn main"}}});
    let c = one(part.clone());
    assert_eq!(c.provider, "gemini");
    let content = json!({"role": "model", "parts": [{"text": "ok"}, part]});
    assert_eq!(calls(content.clone()).len(), 1);
    let response = json!({"candidates": [{"content": content, "finishReason": "STOP"}]});
    assert_eq!(calls(response).len(), 1);
}

#[test]
fn mcp_tools_call_and_other_methods() {
    let req = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "webfetch", "arguments": {"url": "https://x"}}});
    let c = one(req);
    assert_eq!(c.provider, "mcp");
    assert_eq!(c.id, json!(7));
    let other = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    assert!(calls(other).is_empty());
}

#[test]
fn messages_without_calls_hold_zero_calls() {
    assert!(calls(json!({"role": "user", "content": "hi"})).is_empty());
    assert!(
        calls(json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]}))
            .is_empty()
    );
    assert!(calls(json!({"type": "text", "text": "x"})).is_empty());
}

#[test]
fn unrecognised_records_say_what_they_saw() {
    let Extracted::Unrecognised(r) = extract(json!({"foo": 1, "bar": 2}), Some(&|_: &str| true))
    else {
        panic!()
    };
    assert_eq!(r, "no tool call found in an object with keys foo, bar");
    let Extracted::Unrecognised(r) = extract(json!(42), Some(&|_: &str| true)) else {
        panic!()
    };
    assert_eq!(r, "expected a tool call object, got number");
    let Extracted::Unrecognised(r) = extract(
        json!({"type": "tool_use", "input": {}}),
        Some(&|_: &str| true),
    ) else {
        panic!()
    };
    assert_eq!(r, "Anthropic tool_use has no \"name\"");
}

#[test]
fn write_back_puts_args_in_provider_form() {
    let args = json!({"filePath": "/a", "limit": 5});
    let c = one(json!({"id": "call_1", "type": "function",
        "function": {"name": "read", "arguments": "{}"}}));
    assert_eq!(
        write_call(&c, &args, &Default::default()),
        json!({"id": "call_1", "type": "function",
            "function": {"name": "read", "arguments": "{\"filePath\":\"/a\",\"limit\":5}"}})
    );
    let c = one(json!({"type": "tool_use", "id": "t", "name": "read", "input": {}}));
    assert_eq!(
        write_call(&c, &args, &Default::default()),
        json!({"type": "tool_use", "id": "t", "name": "read", "input": args})
    );
    let c = one(json!({"functionCall": {"name": "read", "args": {}}}));
    assert_eq!(
        write_call(&c, &args, &Default::default()),
        json!({"functionCall": {"name": "read", "args": args}})
    );
}

#[test]
fn provider_names() {
    assert_eq!(provider_name("read"), "read");
    assert_eq!(provider_name("uber.ride"), "uber_ride");
    assert_eq!(provider_name("mcp/server:tool"), "mcp_server_tool");
    assert_eq!(provider_name(&"x".repeat(70)).len(), 64);
    // Never invented: a call with no name keeps none (issue 26, item 16).
    assert_eq!(provider_name(""), "");
}

#[test]
fn error_results_per_provider() {
    let c = one(json!({"type": "tool_use", "id": "t1", "name": "read", "input": {}}));
    assert_eq!(
        error_result(&c, "bad"),
        json!({"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": "bad"})
    );
    let c = one(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "read", "arguments": {}}}));
    assert_eq!(
        error_result(&c, "bad"),
        json!({"jsonrpc": "2.0", "id": 3,
            "result": {"content": [{"type": "text", "text": "bad"}], "isError": true}})
    );
}

#[test]
fn every_provider_is_registered_once_by_name() {
    let names: Vec<&str> = PROVIDERS.iter().map(|p| p.name()).collect();
    assert_eq!(
        names,
        [
            "mcp",
            "claude-code",
            "ollama",
            "openai",
            "openai-responses",
            "anthropic",
            "gemini",
            "mistral",
            "bedrock",
            "generic"
        ]
    );
    for n in names {
        assert_eq!(by_name(n).map(|p| p.name()), Some(n));
    }
}

#[test]
fn mistral_ids_are_nine_alphanumerics_and_deterministic() {
    let m = by_name("mistral").unwrap();
    for id in ["call_abc123xyz", "toolu_01A09q90qw90lq917835lq9", "", "x"] {
        let a = m.call_id(&json!(id));
        let s = a.as_str().unwrap();
        assert_eq!(s.len(), 9, "{id}");
        assert!(s.bytes().all(|b| b.is_ascii_alphanumeric()), "{s}");
        assert_eq!(m.call_id(&json!(id)), a);
    }
    assert_ne!(m.call_id(&json!("call_1")), m.call_id(&json!("call_2")));
    assert_eq!(m.call_id(&json!("abc123XYZ")), json!("abc123XYZ"));
}

#[test]
fn a_claude_code_pre_tool_use_payload_is_a_call_and_other_events_hold_none() {
    let payload = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Read",
        "tool_input": {"file_path": "/a"}, "tool_use_id": "toolu_1"});
    let Extracted::Calls(calls) = extract(payload, None) else {
        panic!()
    };
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].name.as_str(), &calls[0].id),
        ("Read", &json!("toolu_1"))
    );
    assert_eq!(calls[0].args, Args::Value(json!({"file_path": "/a"})));
    let other = json!({"hook_event_name": "SessionStart", "source": "startup"});
    assert_eq!(extract(other, None), Extracted::Calls(Vec::new()));
}

#[test]
fn a_legacy_function_call_message_is_a_call_answered_by_a_function_message() {
    let c = one(json!({"role": "assistant", "content": null,
        "function_call": {"name": "read", "arguments": "{\"file_path\":\"/a\"}"}}));
    assert_eq!((c.name.as_str(), c.provider), ("read", "openai"));
    assert_eq!(c.args, Args::Text("{\"file_path\":\"/a\"}".into()));
    assert_eq!(
        error_result(&c, "bad"),
        json!({"role": "function", "name": "read", "content": "bad"})
    );
}

#[test]
fn an_ollama_chat_response_holds_calls_with_object_arguments() {
    let response = json!({"model": "qwen3", "created_at": "2026-11-01T10:00:00Z",
        "message": {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "read", "arguments": {"file_path": "/a"}}}]},
        "done": true});
    let c = one(response);
    assert_eq!((c.name.as_str(), c.provider), ("read", "ollama"));
    assert_eq!(c.args, Args::Value(json!({"file_path": "/a"})));
    let args = json!({"file_path": "/b"});
    assert_eq!(
        write_call(&c, &args, &Spellings::default()),
        json!({"function": {"name": "read", "arguments": {"file_path": "/b"}}})
    );
    assert_eq!(
        error_result(&c, "bad"),
        json!({"role": "tool", "tool_name": "read", "content": "bad"})
    );
}

#[test]
fn a_bedrock_converse_response_holds_tool_use_blocks() {
    let response = json!({"output": {"message": {"role": "assistant", "content": [
            {"text": "Reading it."},
            {"toolUse": {"toolUseId": "tooluse_1", "name": "read", "input": {"file_path": "/a"}}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 10, "outputTokens": 5}});
    let c = one(response);
    assert_eq!((c.name.as_str(), c.provider), ("read", "bedrock"));
    assert_eq!(c.id, json!("tooluse_1"));
    assert_eq!(c.args, Args::Value(json!({"file_path": "/a"})));
    assert_eq!(
        error_result(&c, "bad"),
        json!({"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "bad"}], "status": "error"}})
    );
}

#[test]
fn an_openai_call_with_a_type_stays_openai_even_with_object_arguments() {
    let c = one(json!({"id": "call_1", "type": "function",
        "function": {"name": "read", "arguments": {"file_path": "/a"}}}));
    assert_eq!(c.provider, "openai");
}
