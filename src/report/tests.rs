use serde_json::json;

use super::*;
use crate::Toolset;
use crate::filter::{Input, Summary};

fn toolset() -> Toolset {
    let tools = json!([{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "required": ["city"],
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]);
    Toolset::from_tools(tools).expect("tools")
}

fn chat(model: &str, name: &str, args: &str, finish: &str) -> String {
    json!({"model": model, "choices": [{"finish_reason": finish, "message": {"role": "assistant",
        "tool_calls": [{"id": "c", "type": "function",
            "function": {"name": name, "arguments": args}}]}}]})
    .to_string()
}

fn run(lines: &[String], label: &str) -> Report {
    let text = lines.join("\n");
    let ts = toolset();
    let mut report = Report::new(label);
    ts.filter()
        .stream(
            Input::from_bytes(text.as_bytes(), "t"),
            &mut report,
            &mut Summary::default(),
        )
        .expect("stream");
    report
}

#[test]
fn counts_classes_models_and_accuracies() {
    let lines = [
        chat("m1", "get_weather", r#"{"city":"Oslo"}"#, "tool_calls"),
        chat("m1", "get_weather", r#"{"city":"Oslo","days":"3"}"#, "tool_calls"),
        chat("m2", "get_weather", r#"{"days":3}"#, "tool_calls"),
        chat("m2", "get_weather", r#"{"city":5}"#, "tool_calls"),
        chat("m2", "nope", r#"{}"#, "tool_calls"),
        chat("m2", "get_weather", r#"{"city":"Os"#, "length"),
        "{\"model\": \"m3\", \"choices\": [{\"message\": {\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"c\", \"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"arguments\": \"not json at all\"}}]}}]}".to_owned(),
        "not a record".to_owned(),
    ];
    let r = run(&lines, "file");
    assert_eq!(
        r.total(),
        Counts {
            calls: 7,
            valid: 1,
            repaired: 1,
            rejected: 5
        }
    );
    assert_eq!(r.by_model()["m1"].calls, 2);
    assert_eq!(r.by_model()["m2"].rejected, 4);
    assert_eq!(r.by_tool()["nope"].rejected, 1);
    assert_eq!(r.broken_records(), 1);
    assert_eq!(r.repairs().get("coerce-number"), Some(&1));
    let classes: Vec<(&str, u64)> = r.rejections().iter().map(|(c, n)| (c.name(), *n)).collect();
    assert_eq!(
        classes,
        [
            ("unknown-tool", 1),
            ("missing-required", 1),
            ("wrong-type", 1),
            ("cut-off", 1),
            ("not-json", 1)
        ]
    );
    assert_eq!(r.cut_off_stops().get("length"), Some(&1));
    assert!((r.schema_accuracy() - 1.0 / 7.0).abs() < 1e-12);
    assert!((r.accuracy_after() - 2.0 / 7.0).abs() < 1e-12);
    let j = r.to_json();
    assert_eq!(j["version"], 1);
    assert_eq!(j["by_model"]["m2"]["calls"], 4);
    assert_eq!(j["rejections"]["cut-off"], 1);
    assert_eq!(j["examples"].as_array().map(Vec::len), Some(5));
}

#[test]
fn records_without_a_model_take_the_label() {
    let line = json!({"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"x\"}"}}]})
    .to_string();
    let r = run(&[line], "vendor-a");
    assert_eq!(r.by_model()["vendor-a"].valid, 1);
}

#[test]
fn keys_and_examples_are_bounded() {
    let mut r = Report::new("x");
    let lines: Vec<String> = (0..Report::MAX_KEYS + 50)
        .map(|i| chat(&format!("m{i}"), &format!("t{i}"), "{}", "stop"))
        .collect();
    let ts = toolset();
    let text = lines.join("\n");
    ts.filter()
        .stream(
            Input::from_bytes(text.as_bytes(), "t"),
            &mut r,
            &mut Summary::default(),
        )
        .expect("stream");
    assert_eq!(r.by_model().len(), Report::MAX_KEYS + 1);
    assert_eq!(r.by_model()[Report::OTHER].calls, 50);
    assert_eq!(r.by_tool().len(), Report::MAX_KEYS + 1);
    assert_eq!(r.examples(usize::MAX).len(), Report::MAX_EXAMPLES);
    assert_eq!(r.total().calls, (Report::MAX_KEYS + 50) as u64);
}

#[test]
fn examples_are_one_line_and_short() {
    let long = format!(
        "{{\"city\": 5, \"pad\": \"{}\\n\u{1b}[31m\"}}",
        "a".repeat(500)
    );
    let r = run(&[chat("m", "get_weather", &long, "stop")], "x");
    let e = r.examples(1);
    let call = &e.first().expect("one example").call;
    assert!(call.ends_with('…') && call.chars().count() <= example::EXAMPLE_CHARS + 1);
    assert!(!call.contains('\n') && !call.contains('\u{1b}'), "{call}");
}

#[test]
fn a_value_outside_an_enum_is_other_not_wrong_type() {
    let tools = json!([{"type": "function", "function": {"name": "set", "parameters": {
        "type": "object", "required": ["mode"],
        "properties": {"mode": {"enum": ["a", "b"]}}}}}]);
    let ts = Toolset::from_tools(tools).expect("tools");
    let text = chat("m", "set", r#"{"mode":"c"}"#, "stop");
    let mut r = Report::new("x");
    ts.filter()
        .stream(
            Input::from_bytes(text.as_bytes(), "t"),
            &mut r,
            &mut Summary::default(),
        )
        .expect("stream");
    let classes: Vec<Class> = r.rejections().keys().copied().collect();
    assert_eq!(classes, [Class::Other]);
}
