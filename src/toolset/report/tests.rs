use std::io::{self, Read};

use serde_json::json;

use crate::filter::{Input, Options, Summary};
use crate::report::Report;
use crate::toolset::Toolset;

fn shipped() -> Toolset {
    Toolset::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas")).expect("schemas")
}

fn example(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))).expect("example")
}

/// What `callfix report --label LABEL` runs for one file (src/app/report.rs):
/// a default report, its label set, the filter streamed into it with the
/// command line's default options.
fn as_the_command_runs(tools: &Toolset, bytes: &[u8], label: &str) -> Report {
    let mut report = Report::default();
    report.set_label(label);
    let options = Options::default();
    tools
        .filter_with(&options)
        .stream(
            Input::new(bytes, "file.jsonl"),
            &mut report,
            &mut Summary::default().without_per_tool(),
        )
        .expect("stream");
    report
}

/// A reader that gives one byte at a time: records split at every byte.
struct Trickle<'a>(&'a [u8]);

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        match (self.0.split_first(), out.first_mut()) {
            (Some((b, rest)), Some(o)) => {
                *o = *b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

#[test]
fn the_shipped_examples_count_as_the_command_counts_them() {
    let tools = shipped();
    for name in ["calls.jsonl", "stream.sse"] {
        let bytes = example(name);
        let report = tools.report(&bytes[..], "agent").expect("report");
        let command = as_the_command_runs(&tools, &bytes, "agent");
        assert_eq!(report.to_json(), command.to_json(), "{name}");
        // Split at every byte, the same counts.
        let trickled = tools.report(Trickle(&bytes), "agent").expect("report");
        assert_eq!(trickled.to_json(), report.to_json(), "{name}");
    }
    // docs/report.md's example: 19 calls, 5 valid, 7 repaired, 7 rejected.
    let report = tools.report(&example("calls.jsonl")[..], "agent").unwrap();
    let t = report.total();
    assert_eq!((t.calls, t.valid, t.repaired, t.rejected), (19, 5, 7, 7));
    assert_eq!(report.by_model()["agent"].calls, 19);
    assert_eq!(report.broken_records(), 1);
}

#[test]
fn every_form_the_filter_reads_is_counted_under_its_model_or_the_label() {
    let tools = shipped();
    let log = [
        // An OpenAI response naming its model: one call repaired.
        json!({"model": "gpt", "choices": [{"finish_reason": "tool_calls", "message": {
            "role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "read", "arguments": "{\"file_path\": \"/a\", \"offset\": \"3\"}"}}]}}]})
        .to_string(),
        // An Anthropic message naming its model: one call rejected.
        json!({"model": "claude", "role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "t1", "name": "read", "input": {"offset": 3}}]})
        .to_string(),
        // A bare call (no model: the label), valid.
        json!({"name": "read", "arguments": {"file_path": "/b"}}).to_string(),
        // A call leaked into assistant text (no model: the label).
        json!({"role": "assistant", "content":
            "<tool_call>{\"name\": \"read\", \"arguments\": {\"file_path\": \"/c\"}}</tool_call>"})
        .to_string(),
        // Not JSON, and a record with no call: broken records, not calls.
        "this is not JSON".to_owned(),
        json!({"nothing": "here"}).to_string(),
    ]
    .join("\n");
    let report = tools.report(log.as_bytes(), "mine").expect("report");
    let t = report.total();
    // The leaked call is repaired (extract-from-text).
    assert_eq!((t.calls, t.valid, t.repaired, t.rejected), (4, 1, 2, 1));
    let models: Vec<_> = report.by_model().keys().map(String::as_str).collect();
    assert_eq!(models, ["claude", "gpt", "mine"]);
    assert_eq!(report.by_model()["mine"].calls, 2);
    assert_eq!(report.broken_records(), 2);
    assert_eq!(report.leaks().values().sum::<u64>(), 1);
    assert_eq!(report.repairs().get("coerce-number"), Some(&1));
    assert_eq!(report.repairs().get("extract-from-text"), Some(&1));
    assert_eq!(
        report.to_json(),
        as_the_command_runs(&tools, log.as_bytes(), "mine").to_json()
    );
}

#[test]
fn hostile_input_is_a_broken_record_and_the_rest_is_still_counted() {
    let tools = shipped().with_options(Options {
        max_record_bytes: 1 << 20,
        ..Options::default()
    });
    let valid = json!({"name": "read", "arguments": {"file_path": "/a"}}).to_string();
    // Deep (balanced, and open) and long (past the record limit) records.
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    let open = "{\"a\": [".repeat(1000);
    let huge = format!(
        "{{\"name\": \"read\", \"arguments\": {{\"file_path\": \"{}\"}}}}",
        "a".repeat(2 << 20)
    );
    let not_utf8 = b"{\"name\": \"read\", \"arguments\": {\"file_path\": \"\xff\"}}".to_vec();
    let mut log = Vec::new();
    for bad in [
        deep.as_bytes(),
        open.as_bytes(),
        huge.as_bytes(),
        &not_utf8,
        b"}}}{{{",
    ] {
        log.extend_from_slice(bad);
        log.push(b'\n');
        log.extend_from_slice(valid.as_bytes());
        log.push(b'\n');
    }
    let report = tools.report(&log[..], "x").expect("report");
    let t = report.total();
    assert_eq!((t.calls, t.valid), (5, 5), "{}", report.to_json());
    assert_eq!(report.broken_records(), 5, "{}", report.to_json());
}

#[test]
fn an_empty_input_is_an_empty_report_and_a_failed_read_an_error() {
    let report = shipped().report(&b""[..], "x").expect("report");
    assert_eq!(report.total().calls, 0);
    assert_eq!(report.to_json()["schema_accuracy"], json!(0.0));

    struct Fails;
    impl Read for Fails {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("disk gone"))
        }
    }
    let err = shipped().report(Fails, "x").expect_err("a failed read");
    assert!(err.to_string().contains("disk gone"), "{err}");
}
