//! Reading and writing every provider's envelopes.

use serde_json::{Value, json};

use super::leak::Declared;
use super::{
    Args, Call, Extracted, PROVIDERS, Provider, error_result, extract, provider_name,
    read_by_its_end, write_call,
};
use crate::spelling::Spellings;

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
        assert_eq!((c.provider, c.args_at), (Provider::Generic, &[key][..]));
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
    assert_eq!(c.provider, Provider::OpenAi);
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
    assert_eq!(c.provider, Provider::OpenAiResponses);
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
    assert_eq!(c.provider, Provider::Anthropic);
    assert_eq!(c.args, Args::Value(json!({"command": "ls"})));
    let msg = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "Let me look."}, block]});
    assert_eq!(calls(msg).len(), 1);
}

#[test]
fn gemini_part_content_and_response() {
    let part = json!({"functionCall": {"name": "grep", "args": {"pattern": "fn main"}}});
    let c = one(part.clone());
    assert_eq!(c.provider, Provider::Gemini);
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
    assert_eq!(c.provider, Provider::Mcp);
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
        assert_eq!(Provider::from_name(n).map(|p| p.name()), Some(n));
    }
}

#[test]
fn a_provider_is_found_by_its_name_and_by_no_other() {
    // Name to provider and back, for every provider: the names `--to` and
    // `--provider` take, and messages say.
    for &p in PROVIDERS {
        assert_eq!(Provider::from_name(p.name()), Some(p), "{p:?}");
        assert_eq!(Provider::from_name(p.name()), Some(p), "{p:?}");
    }
    let pairs = [
        (Provider::Mcp, "mcp"),
        (Provider::ClaudeCode, "claude-code"),
        (Provider::Ollama, "ollama"),
        (Provider::OpenAi, "openai"),
        (Provider::OpenAiResponses, "openai-responses"),
        (Provider::Anthropic, "anthropic"),
        (Provider::Gemini, "gemini"),
        (Provider::Mistral, "mistral"),
        (Provider::Bedrock, "bedrock"),
        (Provider::Generic, "generic"),
    ];
    assert_eq!(pairs.map(|(p, _)| p), PROVIDERS);
    for (p, name) in pairs {
        assert_eq!(p.name(), name);
    }
    // Exactly as written: no case folding, no other spelling.
    for other in ["", "bogus", "OpenAI", "openai ", "claude_code", "responses"] {
        assert_eq!(Provider::from_name(other), None, "{other:?}");
    }
}

#[test]
fn every_provider_but_mistral_reads_its_own_records() {
    // Mistral's records are OpenAI's: no reader of its own, so an OpenAI
    // call is never taken for a Mistral one.
    for &p in PROVIDERS {
        assert_eq!(p.reader().is_some(), p != Provider::Mistral, "{p:?}");
    }
    let c = one(
        json!({"id": "a", "type": "function", "function": {"name": "read", "arguments": "{}"}}),
    );
    assert_eq!(c.provider, Provider::OpenAi);
}

#[test]
fn only_the_two_openai_apis_have_a_strict_mode() {
    for &p in PROVIDERS {
        let strict = matches!(p, Provider::OpenAi | Provider::OpenAiResponses);
        assert_eq!(p.has_strict_mode(), strict, "{p:?}");
    }
}

#[test]
fn text_arguments_are_allowed_where_the_envelope_carries_text_or_keeps_what_came() {
    let text = |v: Value| one(v).text_args_allowed();
    assert!(text(
        json!({"id": "a", "type": "function", "function": {"name": "read", "arguments": "{}"}})
    ));
    assert!(text(
        json!({"type": "function_call", "call_id": "a", "name": "read", "arguments": "{}"})
    ));
    assert!(text(json!({"name": "read", "arguments": "{}"})));
    assert!(!text(
        json!({"type": "tool_use", "id": "a", "name": "read", "input": "{}"})
    ));
    assert!(!text(
        json!({"functionCall": {"name": "read", "args": "{}"}})
    ));
    // A generic call is written back in the form it came in.
    let args = json!({"a": 1});
    let as_text = one(json!({"name": "read", "arguments": "{}"}));
    let as_object = one(json!({"name": "read", "arguments": {}}));
    let spellings = Spellings::default();
    assert_eq!(
        write_call(&as_text, &args, &spellings),
        json!({"name": "read", "arguments": "{\"a\":1}"})
    );
    assert_eq!(
        write_call(&as_object, &args, &spellings),
        json!({"name": "read", "arguments": {"a": 1}})
    );
}

#[test]
fn calls_found_without_a_sentinel_count_as_read_by_the_message_end() {
    let declared: Declared = &|n: &str| n == "read";
    let leaked = |text: &str| {
        let message = json!({"role": "assistant", "content": text});
        let Extracted::Calls(mut calls) = extract(message, Some(declared)) else {
            panic!("{text}")
        };
        assert_eq!(calls.len(), 1, "{text}");
        calls.remove(0).leaked.unwrap()
    };
    // Each syntax with no sentinel: its family is one the leak table names.
    for (text, family) in [
        (r#"read(file_path="/a")"#, "call"),
        // Prose after it: the call is no longer at the text's end.
        ("read(file_path=\"/a\")\nThen I look.", "call"),
        (r#"[read(file_path="/a")]"#, "pythonic"),
        (
            r#"{"name": "read", "arguments": {"file_path": "/a"}}"#,
            "json",
        ),
        (
            r#"{"type": "tool_use", "id": "t", "name": "read", "input": {"file_path": "/a"}}"#,
            "tool_use",
        ),
    ] {
        let leak = leaked(text);
        assert_eq!(leak.family, family, "{text}");
        assert!(super::leak::sentinel_free(family), "{family}");
        assert!(read_by_its_end(&leak, text), "{text}");
    }
    // A call with its sentinels: read by the end only where its markup ends
    // the text.
    let hermes = r#"<tool_call>{"name": "read", "arguments": {"file_path": "/a"}}</tool_call>"#;
    let leak = leaked(hermes);
    assert_eq!(leak.family, "hermes");
    assert!(!super::leak::sentinel_free("hermes"));
    assert!(read_by_its_end(&leak, hermes));
    assert!(!read_by_its_end(&leak, &format!("{hermes}\nDone.")));
}

#[test]
fn mistral_ids_are_nine_alphanumerics_and_deterministic() {
    let m = Provider::Mistral.writer();
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
    assert_eq!((c.name.as_str(), c.provider), ("read", Provider::OpenAi));
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
    assert_eq!((c.name.as_str(), c.provider), ("read", Provider::Ollama));
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
    assert_eq!((c.name.as_str(), c.provider), ("read", Provider::Bedrock));
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
    assert_eq!(c.provider, Provider::OpenAi);
}
