//! Recorded provider streams are reassembled into the calls of the response
//! they stream (tests/fixtures/streams: each `.sse` beside the `.json` a
//! non-streaming request returns, and a `_cut.sse` that ends mid-call).

use serde_json::Value;

use crate::{callfix, json_lines, root};

fn results(file: &str) -> (i32, Vec<Value>) {
    let out = callfix()
        .args(["-f", "json", &format!("tests/fixtures/streams/{file}")])
        .output()
        .unwrap();
    (out.status.code().unwrap(), json_lines(&out.stdout))
}

/// What a result says of its call, without where it sits in the input.
fn calls(results: &[Value]) -> Vec<Value> {
    results
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let m = r.as_object_mut().unwrap();
            m.remove("index");
            r
        })
        .collect()
}

#[test]
fn every_stream_gives_the_calls_of_its_whole_response() {
    for provider in ["openai_chat", "anthropic", "responses", "gemini"] {
        let (code, streamed) = results(&format!("{provider}.sse"));
        let (_, whole) = results(&format!("{provider}.json"));
        assert_eq!(code, 0, "{provider}");
        assert_eq!(streamed.len(), 2, "{provider}: {streamed:?}");
        assert_eq!(calls(&streamed), calls(&whole), "{provider}");
        assert_eq!(streamed[1]["status"], "repaired", "{provider}");
    }
}

#[test]
fn a_stream_cut_off_mid_call_rejects_that_call_and_keeps_the_whole_ones() {
    for provider in ["openai_chat", "anthropic", "responses"] {
        let (code, out) = results(&format!("{provider}_cut.sse"));
        assert_eq!(code, 1, "{provider}");
        assert_eq!(out.len(), 2, "{provider}: {out:?}");
        assert_eq!(out[0]["status"], "valid", "{provider}");
        assert_eq!(out[1]["tool"], "read", "{provider}");
        assert_eq!(out[1]["status"], "rejected", "{provider}");
        assert_eq!(
            out[1]["message"],
            "Please rewrite the input with valid arguments. Errors: the stream ended before this call was complete; send the complete call",
            "{provider}"
        );
    }
}

#[test]
fn a_stream_without_sse_framing_is_read_the_same() {
    let sse =
        std::fs::read_to_string(root().join("tests/fixtures/streams/openai_chat.sse")).unwrap();
    let lines: String = sse
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|l| *l != "[DONE]")
        .map(|l| format!("{l}\n"))
        .collect();
    let out = callfix()
        .args(["-f", "json"])
        .write_stdin(lines)
        .output()
        .unwrap();
    let (_, whole) = results("openai_chat.json");
    assert_eq!(calls(&json_lines(&out.stdout)), calls(&whole));
}

#[test]
fn two_streams_in_one_file_each_come_out_in_order() {
    let sse = std::fs::read_to_string(root().join("tests/fixtures/streams/anthropic.sse")).unwrap();
    let out = callfix()
        .args(["-f", "json"])
        .write_stdin(format!("{sse}{sse}"))
        .output()
        .unwrap();
    let out = json_lines(&out.stdout);
    assert_eq!(out.len(), 4);
    assert_eq!(out[0]["index"], out[1]["index"]);
    assert_ne!(out[1]["index"], out[2]["index"]);
    assert_eq!(calls(&out[..2]), calls(&out[2..]));
}
