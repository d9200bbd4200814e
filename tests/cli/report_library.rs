//! The library's `Toolset::report` counts what `callfix report --format json`
//! counts: the same object, on the shipped examples and on a generated log of
//! every form the filter reads (the Python and Node packages compare with the
//! command in their own tests).

use std::path::Path;

use serde_json::{Value, json};

use crate::{callfix, root};

/// `callfix report --format json --label LABEL --schemas schemas FILE`, parsed.
fn command(file: &Path, label: &str) -> Value {
    let out = callfix()
        .args([
            "report",
            "--no-config",
            "--format",
            "json",
            "--label",
            label,
            "--schemas",
        ])
        .arg(root().join("schemas"))
        .arg(file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn library(file: &Path, label: &str) -> Value {
    let tools = callfix::Toolset::from_path(root().join("schemas")).unwrap();
    let bytes = std::fs::read(file).unwrap();
    tools.report(&bytes[..], label).unwrap().to_json()
}

/// A log mixing every form the filter reads, from several models and none.
pub(crate) fn mixed_log(n: usize) -> String {
    let args = [
        r#"{"file_path": "/a"}"#,
        r#"{"file_path": "/a", "offset": "3"}"#,
        r#"{"offset": 3}"#,
        r#"{"file_path": 5}"#,
        r#"```json
{"file_path": "/a"}
```"#,
        r#"{"file_path": "/a", "limit": 1"#,
        "not json",
    ];
    let mut out = String::new();
    let mut seed = 7u64;
    for i in 0..n {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = (seed >> 33) as usize;
        let a = args[pick % args.len()];
        let tool = ["read", "Read", "nope"][pick / 7 % 3];
        let model = ["m-a", "m-b", ""][pick / 21 % 3];
        let line = match i % 6 {
            0 => json!({"model": model, "choices": [{"finish_reason": "tool_calls", "message": {
                "role": "assistant", "tool_calls": [{"id": format!("c{i}"), "type": "function",
                "function": {"name": tool, "arguments": a}}]}}]})
            .to_string(),
            1 => json!({"model": model, "role": "assistant", "stop_reason": "tool_use",
                "content": [{"type": "tool_use", "id": format!("t{i}"), "name": tool,
                "input": serde_json::from_str::<Value>(a).unwrap_or(json!(a))}]})
            .to_string(),
            2 => json!({"name": tool, "arguments": a}).to_string(),
            3 => json!({"role": "assistant", "content":
                format!("<tool_call>{{\"name\": \"{tool}\", \"arguments\": {a}}}</tool_call>")})
            .to_string(),
            4 => format!(
                "data: {}\n\ndata: {}\n\ndata: [DONE]\n",
                json!({"model": model, "choices": [{"index": 0, "delta": {"tool_calls": [
                    {"index": 0, "id": format!("s{i}"), "type": "function",
                     "function": {"name": tool, "arguments": a}}]}, "finish_reason": null}]}),
                json!({"model": model, "choices": [{"index": 0, "delta": {},
                    "finish_reason": if pick.is_multiple_of(2) { "length" } else { "tool_calls" }}]}),
            ),
            _ => ["{\"nothing\": 1}", "garbage", "[1, 2"][pick % 3].to_owned(),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[test]
fn toolset_report_is_the_commands_json_on_the_examples() {
    for name in ["calls.jsonl", "stream.sse"] {
        let file = root().join("examples").join(name);
        assert_eq!(library(&file, "agent"), command(&file, "agent"), "{name}");
    }
}

#[test]
fn toolset_report_is_the_commands_json_on_a_mixed_log() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mixed.log");
    std::fs::write(&file, mixed_log(600)).unwrap();
    let cli = command(&file, "vendor");
    assert_eq!(library(&file, "vendor"), cli);
    // The log has every outcome, several models and the label.
    for key in ["valid", "repaired", "rejected", "broken_records"] {
        assert!(cli[key].as_u64().unwrap() > 10, "{key}: {cli}");
    }
    let models = cli["by_model"].as_object().unwrap();
    assert!(
        models.contains_key("vendor") && models.contains_key("m-a"),
        "{cli}"
    );
    assert!(!cli["leaks"].as_object().unwrap().is_empty(), "{cli}");
}
