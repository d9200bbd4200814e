//! `callfix report` without `--schemas`: each request body judged against its
//! own `tools`; a record with none has its calls counted as not judged.

use serde_json::{Value, json};

use crate::callfix;

fn weather_tools_openai() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "required": ["city"],
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}])
}

fn openai(model: &str, tools: &Value, name: &str, args: &str) -> String {
    json!({"model": model, "tools": tools, "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": name, "arguments": args}}]}]})
    .to_string()
}

fn anthropic(model: &str, input: Value) -> String {
    json!({"model": model, "max_tokens": 100,
        "tools": [{"name": "get_time", "input_schema": {"type": "object", "required": ["zone"],
            "properties": {"zone": {"type": "string"}}}}],
        "messages": [{"role": "user", "content": "time?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_time",
                "input": input}]}]})
    .to_string()
}

/// The log: (record, expected status) — the generator's own tally.
fn log() -> String {
    let tools = weather_tools_openai();
    let mut lines = Vec::new();
    for _ in 0..40 {
        lines.push(openai("gpt-x", &tools, "get_weather", r#"{"city":"Oslo"}"#));
    }
    for _ in 0..30 {
        lines.push(openai(
            "gpt-x",
            &tools,
            "get_weather",
            r#"{"city":"Oslo","days":"2"}"#,
        ));
    }
    for _ in 0..20 {
        lines.push(openai("gpt-x", &tools, "get_time", r#"{"zone":"UTC"}"#));
    }
    for _ in 0..25 {
        lines.push(anthropic("claude-y", json!({"zone": "UTC"})));
    }
    for _ in 0..15 {
        lines.push(anthropic("claude-y", json!({"city": "Oslo"})));
    }
    // A response: no tools of its own.
    for _ in 0..7 {
        lines.push(
            json!({"model": "gpt-x", "choices": [{"finish_reason": "tool_calls", "message": {
                "role": "assistant", "tool_calls": [{"id": "c", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]}}]})
            .to_string(),
        );
    }
    lines.join("\n") + "\n"
}

fn report(args: &[&str], stdin: String) -> (Value, String) {
    let out = callfix()
        .args(["report", "--format", "json"])
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn four(v: &Value) -> [u64; 4] {
    ["calls", "valid", "repaired", "rejected"].map(|k| v[k].as_u64().unwrap())
}

#[test]
fn report_judges_each_request_body_against_its_own_tools() {
    let (v, _) = report(&[], log());
    // 40 valid, 30 repaired (coerce-number), 20 unknown tool: OpenAI bodies;
    // 25 valid, 15 missing-required: Anthropic bodies; 7 responses not judged.
    assert_eq!(four(&v), [130, 65, 30, 35]);
    assert_eq!(four(&v["by_model"]["gpt-x"]), [90, 40, 30, 20]);
    assert_eq!(four(&v["by_model"]["claude-y"]), [40, 25, 0, 15]);
    assert_eq!(
        v["rejections"],
        json!({"unknown-tool": 20, "missing-required": 15})
    );
    assert_eq!(v["repairs"], json!({"coerce-number": 30}));
    assert_eq!(v["unjudged"], 7);
    // get_time: unknown in the 20 OpenAI bodies, 15 Anthropic calls lack `zone`.
    assert_eq!(four(&v["by_tool"]["get_time"]), [60, 25, 0, 35]);
}

#[test]
fn report_schemas_given_are_used_for_every_record_instead() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("get_weather.json"),
        r#"{"type":"object","required":["city","days"]}"#,
    )
    .unwrap();
    let (v, _) = report(&["-s", dir.path().to_str().unwrap()], log());
    // Every get_weather call lacks `days` but the 30 that have it (coerced or not: any type).
    assert_eq!(v["unjudged"], 0);
    assert_eq!(four(&v["by_tool"]["get_weather"]), [77, 30, 0, 47]);
    assert_eq!(four(&v["by_tool"]["get_time"])[3], 60);
}

#[test]
fn report_table_says_how_many_calls_were_not_judged() {
    let out = callfix().arg("report").write_stdin(log()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("7 calls not judged (no tools in the record: pass --schemas)"),
        "{text}"
    );
    // Only responses: nothing judged, nothing divided by zero.
    let only = log()
        .lines()
        .filter(|l| !l.contains("\"tools\""))
        .collect::<Vec<_>>()
        .join("\n");
    let (v, _) = report(&[], only);
    assert_eq!(
        (v["calls"].as_u64(), v["unjudged"].as_u64()),
        (Some(0), Some(7))
    );
    assert_eq!(v["schema_accuracy"], 0.0);
}

#[test]
fn report_a_broken_tool_schema_in_a_request_is_said_and_is_trouble() {
    let tools = json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "nope"}}}}}]);
    let out = callfix()
        .args(["report", "--format", "json"])
        .write_stdin(openai("m", &tools, "get_weather", r#"{"city":"Oslo"}"#) + "\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("get_weather"), "{stderr}");
}
