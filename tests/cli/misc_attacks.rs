//! Attacks on `--to` ids and near-miss matching: results must pair with the
//! right call, and many misspelt keys must not cost a pass per pair.

use std::collections::HashSet;

use serde_json::{Value, json};

/// `callfix ARGS` on `stdin`: the output lines as JSON.
fn lines(args: &[&str], stdin: &str) -> Vec<Value> {
    let out = crate::callfix()
        .args(args)
        .write_stdin(stdin.to_owned())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    crate::json_lines(&out.stdout)
}

fn openai_call(id: &Value, pattern: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": "glob", "arguments": json!({"pattern": pattern}).to_string()}})
}

/// The `provider_id` of every result, in order.
fn provider_ids(to: &str, stdin: &str) -> Vec<Value> {
    lines(&["-f", "json", "--to", to], stdin)
        .into_iter()
        .map(|r| r["provider_id"].clone())
        .collect()
}

fn assert_distinct(ids: &[Value]) {
    let set: HashSet<String> = ids.iter().map(Value::to_string).collect();
    assert_eq!(set.len(), ids.len(), "{ids:?}");
}

#[test]
fn mistral_ids_of_one_message_never_collide() {
    // `call_abc123xyz` hashes to `T33wORImo`, which is also a valid Mistral id
    // kept as it is: the two calls must not share it.
    let message = json!({"role": "assistant", "content": "", "tool_calls": [
        openai_call(&json!("call_abc123xyz"), "a"),
        openai_call(&json!("T33wORImo"), "b"),
    ]});
    let out = lines(&["-f", "call", "--to", "mistral"], &message.to_string());
    let ids: Vec<Value> = out[0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].clone())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_distinct(&ids);
    for id in &ids {
        let id = id.as_str().unwrap();
        assert!(
            id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
            "{id}"
        );
    }
    // The first call keeps the id it always had; the second, whose id came
    // first, takes the alternative. The mapping in -f json agrees with the
    // calls written.
    assert_eq!(ids[0], "T33wORImo");
    let json = provider_ids("mistral", &message.to_string());
    assert_eq!(json, ids);
}

#[test]
fn a_number_id_and_the_same_digits_as_text_stay_two_ids() {
    let stdin = [
        json!({"id": 1, "name": "glob", "arguments": {"pattern": "a"}}),
        json!({"id": "1", "name": "glob", "arguments": {"pattern": "b"}}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    for to in [
        "openai",
        "anthropic",
        "openai-responses",
        "mistral",
        "bedrock",
        "gemini",
    ] {
        let ids = provider_ids(to, &stdin);
        assert_eq!(ids.len(), 2, "{to}");
        assert_distinct(&ids);
    }
    // MCP takes both: a number and a string are two JSON-RPC ids.
    assert_eq!(provider_ids("mcp", &stdin), [json!(1), json!("1")]);
}

#[test]
fn an_explicit_id_equal_to_a_derived_one_does_not_share_it() {
    let no_id = json!({"name": "glob", "arguments": {"pattern": "a"}}).to_string();
    let derived = provider_ids("openai", &no_id);
    let derived = derived[0].as_str().unwrap().to_owned();
    assert!(derived.starts_with("call_"), "{derived}");
    let forged = json!({"id": derived, "name": "glob", "arguments": {"pattern": "b"}}).to_string();
    for stdin in [format!("{no_id}\n{forged}"), format!("{forged}\n{no_id}")] {
        let ids = provider_ids("openai", &stdin);
        assert_eq!(ids.len(), 2);
        assert_distinct(&ids);
        // The same input gives the same ids.
        assert_eq!(provider_ids("openai", &stdin), ids);
    }
    // In one message too, and the error results name the ids of their calls.
    let message = json!({"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "glob", "arguments": "{\"pattern\":\"a\"}"}},
        openai_call(&json!(derived), "b"),
        openai_call(&json!(derived), "c"),
    ]});
    let out = lines(&["-f", "call", "--to", "anthropic"], &message.to_string());
    let ids: Vec<Value> = out[0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| b["id"].clone())
        .collect();
    assert_eq!(ids.len(), 3);
    assert_distinct(&ids);
}

#[test]
fn repeated_ids_get_distinct_ids_and_the_results_follow_them() {
    // Two calls with one id, the second rejected: its error result names the
    // id its call was given, not the first call's.
    let message = json!({"role": "assistant", "content": "", "tool_calls": [
        openai_call(&json!("dup"), "a"),
        {"id": "dup", "type": "function", "function": {"name": "glob", "arguments": "{}"}},
    ]});
    let out = lines(&["-f", "call", "--to", "openai"], &message.to_string());
    let calls = out[0]["tool_calls"].as_array().unwrap();
    assert_eq!(calls[0]["id"], "dup");
    assert_ne!(calls[1]["id"], "dup");
    assert_eq!(out[1]["tool_call_id"], calls[1]["id"]);
}

#[test]
fn ids_are_injective_over_a_mixed_stream_and_the_same_with_jobs() {
    // Ids of every kind, with clashes planted: numbers, their text, missing
    // ids, repeats, Mistral-shaped and derived-shaped ids.
    let mut records = Vec::new();
    for i in 0..60 {
        let id = match i % 6 {
            0 => json!(i / 6),
            1 => json!((i / 6).to_string()),
            2 => Value::Null,
            3 => json!("same"),
            4 => json!(format!("T33wORIm{}", i % 10)),
            _ => json!("call_abc123xyz"),
        };
        let mut call = json!({"name": "glob", "arguments": {"pattern": "p"}});
        if !id.is_null() {
            call["id"] = id;
        }
        records.push(call.to_string());
    }
    let stdin = records.join("\n");
    for to in ["openai", "mistral", "anthropic", "mcp"] {
        let ids = provider_ids(to, &stdin);
        assert_eq!(ids.len(), 60, "{to}");
        assert_distinct(&ids);
        let calls = lines(&["-f", "call", "--to", to], &stdin);
        let jobs = lines(&["-f", "call", "--to", to, "--jobs", "2"], &stdin);
        assert_eq!(calls, jobs, "{to}");
    }
}

#[test]
fn many_misspelt_keys_get_only_right_suggestions_and_none_is_dropped() {
    // n misspelt keys against n properties: each suggestion, where one is
    // given, names the property the key misspells; past the work budget a key
    // gets none. No key is dropped (each is a near miss of a property).
    let dir = tempfile::tempdir().unwrap();
    let n = 300;
    let props: serde_json::Map<String, Value> = (0..n)
        .map(|i| (format!("field_{i:05}"), json!({"type": "string"})))
        .collect();
    let schema = json!({"type": "object", "properties": props, "additionalProperties": false});
    crate::write(dir.path(), "t.json", &schema.to_string());
    let args: serde_json::Map<String, Value> = (0..n)
        .map(|i| (format!("feild_{i:05}x"), json!("v")))
        .collect();
    let record = json!({"name": "t", "arguments": args}).to_string();
    let s = dir.path().to_str().unwrap();
    let out = lines(&["-f", "json", "-s", s, "--max-errors", "1000"], &record);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["status"], "rejected");
    let errors = out[0]["errors"].as_array().unwrap();
    assert!(!errors.is_empty());
    let mut suggested = 0;
    for e in errors {
        let path = e["path"].as_str().unwrap();
        let message = e["message"].as_str().unwrap();
        if let Some(meant) = message.strip_prefix("unrecognized key (did you mean \"") {
            let i = path
                .strip_prefix("feild_")
                .unwrap()
                .strip_suffix('x')
                .unwrap();
            assert_eq!(meant, format!("field_{i}\"?)"), "{path}");
            suggested += 1;
        }
    }
    assert!(suggested > 0);
}
