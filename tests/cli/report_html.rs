//! `callfix report --html FILE`: one self-contained page (no script, no
//! external reference), every string from the log escaped, the chart one
//! group per model with its counts; stdout still gets the table or JSON.

use serde_json::{Value, json};

use crate::callfix;

const SCHEMA: &str =
    r#"{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}}"#;

/// Models and a tool with hostile names, and a hostile argument.
const MODELS: [&str; 3] = [
    "<script>alert(1)</script>",
    "\"quoted\" & 'single' http://evil.example/x.png",
    "模型-é ☃",
];

fn response(model: &str, tool: &str, args: &str) -> String {
    json!({"model": model, "choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "tool_calls": [{"id": "c", "type": "function",
        "function": {"name": tool, "arguments": args}}]}}]})
    .to_string()
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("schemas")).unwrap();
    std::fs::write(dir.path().join("schemas/get_weather.json"), SCHEMA).unwrap();
    let mut log = String::new();
    for (i, model) in MODELS.iter().enumerate() {
        for _ in 0..=i {
            log += &response(model, "get_weather", r#"{"city":"Oslo"}"#);
            log.push('\n');
        }
        log += &response(
            model,
            "get_weather",
            r#"{"city":5,"x":"</code><script>x()</script>"}"#,
        );
        log.push('\n');
        log += &response(model, "<img src=x onerror=alert(1)>", "{}");
        log.push('\n');
    }
    std::fs::write(dir.path().join("log.jsonl"), log).unwrap();
    dir
}

#[test]
fn report_html_is_self_contained_escaped_and_charts_each_model() {
    let dir = setup();
    let out = callfix()
        .current_dir(dir.path())
        .args(["report", "-s", "schemas", "log.jsonl", "--format", "json"])
        .args(["--html", "r.html"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // stdout still gets the JSON.
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["calls"], 12);
    let page = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    let lower = page.to_lowercase();
    for bad in [
        "<script",
        "http:",
        "https:",
        "//",
        " src=",
        "href=",
        "url(",
        "@import",
        "<link",
        "<iframe",
        "<img",
        "<object",
        "<embed",
        "javascript",
    ] {
        assert!(!lower.contains(bad), "{bad:?} in the page:\n{page}");
    }
    // No event handler attribute (` onerror=`, ` onload=`…).
    for (at, _) in lower.match_indices(" on") {
        let rest = lower.get(at + 3..).unwrap_or_default();
        let name: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
        assert!(
            !rest.get(name.len()..).unwrap_or_default().starts_with('='),
            "an on{name}= attribute in the page:\n{page}"
        );
    }
    // The hostile strings are there, as text.
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;&#47;script&gt;"),
        "{page}"
    );
    assert!(
        page.contains("&quot;quoted&quot; &amp; &#39;single&#39;"),
        "{page}"
    );
    assert!(page.contains("模型-é ☃"), "{page}");
    assert!(
        page.contains("&lt;img src&#61;x onerror&#61;alert(1)&gt;"),
        "{page}"
    );
    assert!(
        page.contains("&lt;&#47;code&gt;&lt;script&gt;x()"),
        "{page}"
    );
    // One chart group per model, holding its counts.
    assert_eq!(page.matches("<g class=\"model\"").count(), MODELS.len());
    for (i, _) in MODELS.iter().enumerate() {
        let (calls, valid) = (i + 3, i + 1);
        let want = format!(
            "data-calls=\"{calls}\" data-valid=\"{valid}\" data-repaired=\"0\" data-rejected=\"2\""
        );
        assert!(page.contains(&want), "{want} not in\n{page}");
    }
    for id in [
        "id=\"chart\"",
        "id=\"tools\"",
        "id=\"rejections\"",
        "id=\"examples\"",
    ] {
        assert!(page.contains(id), "{id} not in the page");
    }
}

#[test]
fn report_html_that_cannot_be_written_is_trouble_after_the_table() {
    let dir = setup();
    let out = callfix()
        .current_dir(dir.path())
        .args(["report", "-s", "schemas", "log.jsonl"])
        .args(["--html", "no/such/dir/r.html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("12 calls: 6 valid"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--html: cannot write no/such/dir/r.html"),
        "{stderr}"
    );
}
