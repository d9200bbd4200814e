//! Provider conversions and tool calls leaked into assistant text.

use serde_json::{Value, json};

use crate::run_json;
use crate::util::{assistant_line, repair_kinds};

#[test]
fn deepseek_dsml_leak_becomes_a_validated_call() {
    // opencode #24566 (DeepSeek, read), written in an OpenAI assistant message.
    let text = "I'll read the file.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read\">\n<｜DSML｜parameter name=\"file_path\" string=\"true\">/work/src/hypercall.cpp</｜DSML｜parameter>\n<｜DSML｜parameter name=\"limit\" string=\"false\">15</｜DSML｜parameter>\n<｜DSML｜parameter name=\"offset\" string=\"false\">357</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let (code, out) = run_json(&[], &assistant_line(text));
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["tool"], "read");
    assert_eq!(out[0]["status"], "repaired");
    assert_eq!(
        out[0]["args"],
        json!({"file_path": "/work/src/hypercall.cpp", "limit": 15, "offset": 357})
    );
    assert_eq!(repair_kinds(&out[0]), ["extract-from-text"]);
}

#[test]
fn qwen_function_leak_is_extracted_then_repaired() {
    // Qwen-Coder's XML format in an Anthropic text block; values arrive as
    // text, typed by the schema as part of reading the call.
    let text = "<function=grep>\n<parameter=pattern>\nfn main\n</parameter>\n<parameter=head_limit>\n15\n</parameter>\n<parameter=case_insensitive>\ntrue\n</parameter>\n</function>";
    let msg = json!({"role": "assistant", "content": [{"type": "text", "text": text}]});
    let (code, out) = run_json(&[], &format!("{msg}\n"));
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out[0]["tool"], "grep");
    assert_eq!(
        out[0]["args"],
        json!({"pattern": "fn main", "head_limit": 15, "case_insensitive": true})
    );
    assert_eq!(repair_kinds(&out[0]), ["extract-from-text"]);
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
    let (code, out) = run_json(&[], &assistant_line(text));
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

fn call_lines(args: &[&str], input: &str) -> Vec<Value> {
    let out = crate::callfix()
        .args(["-f", "call"])
        .args(args)
        .write_stdin(input.to_owned())
        .output()
        .unwrap();
    crate::json_lines(&out.stdout)
}

const OPENAI_CALL: &str = r#"{"id":"call_abc123xyz","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\",\"offset\":\"3\"}"}}"#;

#[test]
fn to_each_provider_call_shape() {
    let args = json!({"file_path": "/a", "offset": 3});
    let cases = [
        (
            "openai",
            json!({"id": "call_abc123xyz", "type": "function", "function": {"name": "read", "arguments": args.to_string()}}),
        ),
        (
            "openai-responses",
            json!({"type": "function_call", "call_id": "call_abc123xyz", "name": "read", "arguments": args.to_string()}),
        ),
        (
            "anthropic",
            json!({"type": "tool_use", "id": "call_abc123xyz", "name": "read", "input": args}),
        ),
        (
            "gemini",
            json!({"functionCall": {"name": "read", "args": args, "id": "call_abc123xyz"}}),
        ),
        (
            "mcp",
            json!({"jsonrpc": "2.0", "id": "call_abc123xyz", "method": "tools/call", "params": {"name": "read", "arguments": args}}),
        ),
        (
            "generic",
            json!({"id": "call_abc123xyz", "name": "read", "arguments": args}),
        ),
    ];
    for (to, want) in cases {
        assert_eq!(call_lines(&["--to", to], OPENAI_CALL), [want], "{to}");
    }
}

#[test]
fn to_each_provider_error_shape() {
    let bad = r#"{"type":"tool_use","id":"toolu_1","name":"glob","input":{}}"#;
    let m = "Please rewrite the input with valid arguments. Errors: pattern: Required";
    let cases = [
        (
            "openai",
            json!({"role": "tool", "tool_call_id": "toolu_1", "content": m}),
        ),
        (
            "openai-responses",
            json!({"type": "function_call_output", "call_id": "toolu_1", "output": m}),
        ),
        (
            "anthropic",
            json!({"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": m}),
        ),
        (
            "gemini",
            json!({"functionResponse": {"name": "glob", "response": {"error": m}, "id": "toolu_1"}}),
        ),
        (
            "mcp",
            json!({"jsonrpc": "2.0", "id": "toolu_1", "result": {"content": [{"type": "text", "text": m}], "isError": true}}),
        ),
    ];
    for (to, want) in cases {
        assert_eq!(call_lines(&["--to", to], bad), [want], "{to}");
    }
}

#[test]
fn mistral_ids_and_the_recorded_mapping() {
    let a = call_lines(&["--to", "mistral"], OPENAI_CALL);
    let b = call_lines(&["--to", "mistral"], OPENAI_CALL);
    let id = a[0]["id"].as_str().unwrap();
    assert_eq!(id.len(), 9);
    assert!(id.bytes().all(|c| c.is_ascii_alphanumeric()));
    assert_eq!(a, b, "the same input id gives the same output id");
    let (_, out) = run_json(&["--to", "mistral"], OPENAI_CALL);
    assert_eq!(out[0]["id"], "call_abc123xyz");
    assert_eq!(out[0]["provider_id"], id);
    assert_eq!(out[0]["provider_name"], "read");
}

#[test]
fn names_are_sanitised_for_anthropic_and_gemini() {
    let dir = tempfile::tempdir().unwrap();
    crate::write(
        dir.path(),
        "tools.json",
        r#"[{"name":"uber.ride","input_schema":{"type":"object"}}]"#,
    );
    let s = dir.path().join("tools.json");
    let input = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"uber.ride","arguments":{}}}"#;
    for (to, path) in [
        ("anthropic", "/name"),
        ("gemini", "/functionCall/name"),
        ("openai", "/function/name"),
    ] {
        let out = call_lines(&["--to", to, "-s", s.to_str().unwrap()], input);
        assert_eq!(out[0].pointer(path), Some(&json!("uber_ride")), "{to}");
    }
    let out = call_lines(&["--to", "mcp", "-s", s.to_str().unwrap()], input);
    assert_eq!(out[0]["params"]["name"], "uber.ride");
}

#[test]
fn whole_messages_convert() {
    let msg = r#"{"role":"assistant","content":"Let me look.","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\"}"}},{"id":"c2","type":"function","function":{"name":"glob","arguments":"{\"pattern\":\"*\"}"}}]}"#;
    assert_eq!(
        call_lines(&["--to", "anthropic"], msg),
        [json!({"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "c1", "name": "read", "input": {"file_path": "/a"}},
            {"type": "tool_use", "id": "c2", "name": "glob", "input": {"pattern": "*"}},
        ]})]
    );
    assert_eq!(
        call_lines(&["--to", "gemini"], msg),
        [json!({"role": "model", "parts": [
            {"text": "Let me look."},
            {"functionCall": {"name": "read", "args": {"file_path": "/a"}, "id": "c1"}},
            {"functionCall": {"name": "glob", "args": {"pattern": "*"}, "id": "c2"}},
        ]})]
    );
    let responses = call_lines(&["--to", "openai-responses"], msg);
    assert_eq!(responses[0][0]["type"], "message");
    assert_eq!(responses[0][1]["type"], "function_call");
    assert_eq!(responses[0][2]["call_id"], "c2");
    // Anthropic in, OpenAI out: calls keep their order; empty text is left out.
    let anthropic = r#"{"role":"assistant","content":[{"type":"text","text":""},{"type":"tool_use","id":"t1","name":"glob","input":{"pattern":"a"}},{"type":"tool_use","id":"t2","name":"glob","input":{"pattern":"b"}}]}"#;
    let openai = call_lines(&["--to", "openai"], anthropic);
    assert_eq!(openai[0]["content"], Value::Null);
    let ids: Vec<&str> = openai[0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["t1", "t2"]);
}

#[test]
fn a_rejected_call_stays_in_the_message_and_its_error_result_follows() {
    let msg = r#"{"role":"assistant","content":"Two calls.","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\"}"}},{"id":"c2","type":"function","function":{"name":"glob","arguments":"{}"}}]}"#;
    let m = "Please rewrite the input with valid arguments. Errors: pattern: Required";
    let out = call_lines(&["--to", "anthropic"], msg);
    assert_eq!(
        out,
        [
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "Two calls."},
                {"type": "tool_use", "id": "c1", "name": "read", "input": {"file_path": "/a"}},
                {"type": "tool_use", "id": "c2", "name": "glob", "input": {}},
            ]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c2", "is_error": true, "content": m},
            ]}),
        ]
    );
    let out = call_lines(&["--to", "gemini"], msg);
    assert_eq!(out[0]["parts"].as_array().unwrap().len(), 3);
    assert_eq!(
        out[1],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "glob", "response": {"error": m}, "id": "c2"}},
        ]})
    );
    let out = call_lines(&["--to", "bedrock"], msg);
    assert_eq!(out[1]["role"], "user");
    assert_eq!(out[1]["content"][0]["toolResult"]["toolUseId"], "c2");
    // OpenAI: one `role: tool` message per result.
    let out = call_lines(&["--to", "openai"], msg);
    assert_eq!(out[0]["tool_calls"].as_array().unwrap().len(), 2);
    assert_eq!(
        out[1],
        json!({"role": "tool", "tool_call_id": "c2", "content": m})
    );
    // Without --to, a message's calls are written one per line, as before.
    assert_eq!(call_lines(&[], msg).len(), 2);
}

#[test]
fn a_rejected_calls_arguments_as_sent_or_an_object_with_the_text_quoted() {
    // OpenAI in, arguments that are not JSON at all.
    let msg = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"glob","arguments":"pattern=*.rs"}}]}"#;
    // A target that takes text keeps the text as sent.
    let out = call_lines(&["--to", "openai-responses"], msg);
    assert_eq!(out[0][0]["arguments"], "pattern=*.rs");
    assert!(!out[1]["output"].as_str().unwrap().contains("as sent"));
    // A target that needs an object gets `{}`, and the result quotes the text.
    let out = call_lines(&["--to", "anthropic"], msg);
    assert_eq!(out[0]["content"][0]["input"], json!({}));
    let said = out[1]["content"][0]["content"].as_str().unwrap();
    assert!(
        said.ends_with(" (arguments as sent: pattern=*.rs)"),
        "{said}"
    );
    // Arguments that parse to an object are kept as that object.
    let msg = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"glob","arguments":"{\"path\": \"/src\",\"n\":1.50}"}}]}"#;
    let out = call_lines(&["--to", "anthropic"], msg);
    let want: Value = serde_json::from_str(r#"{"path": "/src", "n": 1.50}"#).unwrap();
    assert_eq!(out[0]["content"][0]["input"], want);
    // … and a target that takes text keeps the text exactly as sent.
    let out = call_lines(&["--to", "openai"], msg);
    assert_eq!(
        out[0]["tool_calls"][0]["function"]["arguments"],
        "{\"path\": \"/src\",\"n\":1.50}"
    );
}

#[test]
fn ids_are_strings_where_the_target_needs_them() {
    // Gemini without ids, and MCP with a numeric id.
    let gemini = r#"{"role":"model","parts":[{"functionCall":{"name":"glob","args":{"pattern":"*"}}},{"functionCall":{"name":"glob","args":{}}}]}"#;
    let out = call_lines(&["--to", "anthropic"], gemini);
    let id = out[0]["content"][0]["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("call_") && id.len() == 21, "{id}");
    let rejected = out[0]["content"][1]["id"].as_str().unwrap();
    assert_ne!(id, rejected);
    // The result names the same derived id as its call; the same input gives
    // the same ids.
    assert_eq!(out[1]["content"][0]["tool_use_id"], rejected);
    assert_eq!(call_lines(&["--to", "anthropic"], gemini), out);
    let out = call_lines(&["--to", "openai"], gemini);
    assert!(out[0]["tool_calls"][0]["id"].is_string());
    // Mistral maps the derived id to its 9 characters, in call and result alike.
    let out = call_lines(&["--to", "mistral"], gemini);
    let id = out[0]["tool_calls"][1]["id"].as_str().unwrap();
    assert_eq!(id.len(), 9);
    assert_eq!(out[1]["tool_call_id"], id);
    // Gemini itself needs none, and Ollama has none.
    let out = call_lines(&["--to", "gemini"], gemini);
    assert!(out[0]["parts"][0]["functionCall"].get("id").is_none());
    let out = call_lines(&["--to", "ollama"], gemini);
    assert!(out[0]["tool_calls"][0].get("id").is_none());
    assert_eq!(
        out[0]["tool_calls"][0]["function"]["arguments"],
        json!({"pattern": "*"})
    );
    assert_eq!(out[1]["role"], "tool");
    assert_eq!(out[1]["tool_name"], "glob");
    // A numeric id is written as text for Anthropic, kept for MCP.
    let mcp = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"glob","arguments":{"pattern":"*"}}}"#;
    assert_eq!(call_lines(&["--to", "anthropic"], mcp)[0]["id"], "7");
    assert_eq!(call_lines(&["--to", "mcp"], mcp)[0]["id"], 7);
}

#[test]
fn round_trip_openai_anthropic_openai() {
    let input = r#"{"id":"call_7","type":"function","function":{"name":"edit","arguments":"{\"file_path\":\"/a\",\"old_string\":\"x\",\"new_string\":\"y\"}"}}"#;
    let anthropic = call_lines(&["--to", "anthropic"], input);
    let back = call_lines(&["--to", "openai"], &anthropic[0].to_string());
    let original: Value = serde_json::from_str(input).unwrap();
    assert_eq!(back[0], original);
    // Through Gemini and MCP too.
    let gemini = call_lines(&["--to", "gemini"], input);
    let mcp = call_lines(&["--to", "mcp"], &gemini[0].to_string());
    let back = call_lines(&["--to", "openai"], &mcp[0].to_string());
    assert_eq!(back[0], original);
}

#[test]
fn unknown_provider_is_a_usage_error() {
    crate::callfix()
        .args(["--to", "claude"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid value 'claude' for '--to <PROVIDER>'\n  [possible values: mcp, claude-code, \
             ollama, openai, openai-responses, anthropic, gemini, mistral, bedrock, generic]",
        ));
}
