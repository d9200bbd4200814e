//! Issue 25: framing attacks on the input stream (a broken SSE record, a stray
//! bracket, a bare scalar with text after it) and nesting attacks on argument
//! text. Each broken record gets exactly one result, and every call after it
//! comes out exact.

use serde_json::Value;

use crate::run_json;

const GOOD: &str = r#"{"name":"glob","arguments":{"pattern":"*"}}"#;

/// The statuses of the results, in order.
fn statuses(results: &[Value]) -> Vec<&str> {
    results
        .iter()
        .map(|r| r["status"].as_str().unwrap_or("?"))
        .collect()
}

/// `n` SSE events, each carrying GOOD.
fn good_events(n: usize) -> String {
    format!("event: message\ndata: {GOOD}\n\n").repeat(n)
}

#[test]
fn a_broken_sse_record_does_not_swallow_the_calls_after_it() {
    // Issue 25 item 9: 1,000 calls after `data: {"t":"f"x` gave one result.
    let input = format!("data: {{\"t\":\"f\"x\n\n{}", good_events(1000));
    let (_, results) = run_json(&[], &input);
    assert_eq!(results.len(), 1001);
    assert_eq!(results[0]["status"], "rejected");
    assert!(results[1..].iter().all(|r| r["status"] == "valid"));
    assert!(
        results[1..]
            .iter()
            .all(|r| r["args"] == serde_json::json!({"pattern": "*"}))
    );
}

#[test]
fn a_stray_bracket_line_does_not_make_later_data_lines_garbage() {
    // Issue 25 item 9: after a `[` line, every `data:` line was "not valid JSON".
    // The bracket is one result of its own.
    for stray in ["[\n", "data: [\n\n", "[\n: keep-alive\n"] {
        let input = format!("{}{stray}{}", good_events(2), good_events(3));
        let (_, results) = run_json(&[], &input);
        assert_eq!(
            statuses(&results),
            ["valid", "valid", "rejected", "valid", "valid", "valid"],
            "{stray:?}"
        );
        let message = results[2]["message"].as_str().unwrap();
        assert!(message.starts_with("record at stdin:7 "), "{message}");
    }
}

#[test]
fn every_broken_data_line_is_one_result_and_every_call_survives() {
    let broken = [
        "{\"t\":\"f\"x",
        "{",
        "[{\"name\":\"glob\"",
        "{\"a\":\"unterminated",
        "2 cats",
        "} nope {",
        "{\"name\":\"glob\",\"arguments\":{\"pattern\":",
    ];
    let mut input = String::new();
    for b in broken {
        input.push_str(&format!("data: {b}\n\n"));
        input.push_str(&good_events(1));
    }
    let (_, results) = run_json(&[], &input);
    let expected: Vec<&str> = broken.iter().flat_map(|_| ["rejected", "valid"]).collect();
    assert_eq!(statuses(&results), expected);
}

#[test]
fn a_bare_scalar_with_text_after_it_is_one_result() {
    // Issue 25 item 10b: `2 cats` gave two results.
    let (_, results) = run_json(&[], &format!("2 cats\n-1 ]\ntrue x\n\"a\" b\n{GOOD}\n"));
    assert_eq!(
        statuses(&results),
        ["rejected", "rejected", "rejected", "rejected", "valid"]
    );
    for (r, line) in results.iter().zip(1..) {
        if r["status"] == "rejected" {
            let message = r["message"].as_str().unwrap();
            assert!(message.contains(&format!("stdin:{line} ")), "{message}");
        }
    }
    // Values side by side on one line are still each a record.
    let (_, results) = run_json(&[], &format!("1 {GOOD}\n"));
    assert_eq!(statuses(&results), ["rejected", "valid"]);
}

/// Arguments nested `depth` levels deep, as JSON text in a string: strict JSON,
/// and with a leniency (single quotes) so that the tolerant parser reads it.
fn deep_arguments(depth: usize) -> String {
    let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let strict =
        serde_json::json!({"name": "glob", "arguments": format!("{{\"pattern\": {nested}}}")});
    let lenient =
        serde_json::json!({"name": "glob", "arguments": format!("{{'pattern': {nested}}}")});
    let pythonic = serde_json::json!({"name": "glob", "arguments": format!("{{pattern: {}1{}}}", "{a: ".repeat(depth), "}".repeat(depth))});
    format!("{strict}\n{lenient}\n{pythonic}\n{GOOD}\n")
}

#[test]
fn deeply_nested_argument_text_is_rejected_not_recursed_into() {
    // 100,000 levels: the strict parser's and the tolerant parser's depth
    // limits reject it, on the main thread and on workers alike.
    let input = deep_arguments(100_000);
    for jobs in ["1", "2"] {
        let (code, results) = run_json(&["--jobs", jobs], &input);
        assert_eq!(code, 1, "--jobs {jobs}");
        assert_eq!(
            statuses(&results),
            ["rejected", "rejected", "rejected", "valid"],
            "--jobs {jobs}"
        );
    }
}

#[test]
fn a_deeply_nested_record_is_rejected_and_the_stream_goes_on() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let obj = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    let input = format!(
        "{{\"name\":\"glob\",\"arguments\":{{\"pattern\":{deep}}}}}\n{obj}\ndata: {obj}\n\n{GOOD}\n"
    );
    for jobs in ["1", "2"] {
        let (_, results) = run_json(&["--jobs", jobs], &input);
        assert_eq!(
            statuses(&results),
            ["rejected", "rejected", "rejected", "valid"],
            "--jobs {jobs}"
        );
    }
}
