//! Streams that would run a call nobody made, or lose calls (attack pass 2:
//! F0, F14, F15; tests/fixtures/streams): an event that cannot be used rejects
//! the calls it may have held, `n` choices are kept apart, and a
//! `response.completed` whose output disagrees with the streamed items loses
//! no call.

use serde_json::Value;

use crate::{callfix, json_lines};

/// `callfix -f json --jobs JOBS` on a fixture: its exit code and results,
/// each without its place in the input.
fn results(file: &str, jobs: &str) -> (i32, Vec<Value>) {
    let out = callfix()
        .args(["-f", "json", "--jobs", jobs])
        .arg(format!("tests/fixtures/streams/{file}"))
        .output()
        .unwrap();
    let results = json_lines(&out.stdout)
        .into_iter()
        .map(|mut r| {
            r.as_object_mut().unwrap().remove("index");
            r
        })
        .collect();
    (out.status.code().unwrap(), results)
}

const LOST: &str = "an event of this call's stream could not be read, so a part of its \
                    arguments may be missing; send the complete call";

#[test]
fn a_stream_with_an_unusable_event_never_passes_the_call_it_was_in() {
    // gap_chat: OpenAI chunks, the middle fragment of `rm -rf /tmp/build` on a
    // line that is no JSON; gap_anthropic: the same as Anthropic events;
    // gap_anthropic_index: a well-formed event whose index is "0"; gap_text
    // and gap_text_anthropic: the call written in the message's text.
    for file in [
        "gap_chat.sse",
        "gap_anthropic.sse",
        "gap_anthropic_index.sse",
        "gap_text.sse",
        "gap_text_anthropic.sse",
    ] {
        for jobs in ["1", "2"] {
            let (code, out) = results(file, jobs);
            assert_eq!(code, 1, "{file}");
            let call = out.iter().find(|r| r["tool"] == "bash").unwrap();
            assert_eq!(call["status"], "rejected", "{file}: {out:?}");
            assert_eq!(call["errors"][0]["message"], LOST, "{file}");
            assert!(
                out.iter().all(|r| r["status"] == "rejected"),
                "{file}: {out:?}"
            );
            // The default output forwards nothing to run.
            let forwarded = callfix()
                .args(["--jobs", jobs, &format!("tests/fixtures/streams/{file}")])
                .output()
                .unwrap();
            assert!(
                !String::from_utf8_lossy(&forwarded.stdout).contains("rm -rf"),
                "{file}"
            );
        }
    }
}

#[test]
fn a_stream_of_two_choices_gives_the_calls_of_the_same_response_unstreamed() {
    for name in ["two_choices", "two_choices_split"] {
        for jobs in ["1", "2"] {
            let (_, streamed) = results(&format!("{name}.sse"), jobs);
            let (_, whole) = results(&format!("{name}.json"), jobs);
            assert_eq!(streamed.len(), 2, "{name}: {streamed:?}");
            assert_eq!(streamed, whole, "{name}");
        }
    }
    let (code, out) = results("two_choices.sse", "1");
    assert_eq!(code, 0);
    assert_eq!(out[0]["args"]["pattern"], "*.rs");
    assert_eq!(out[1]["args"]["pattern"], "*.md");
    // Neither half of the split command is run as one.
    let (_, out) = results("two_choices_split.sse", "1");
    assert!(out.iter().all(|r| r["status"] == "rejected"), "{out:?}");
}

#[test]
fn a_responses_stream_whose_completed_output_is_empty_or_absent_keeps_its_calls() {
    for file in ["responses_empty_output.sse", "responses_no_output.sse"] {
        let (code, out) = results(file, "1");
        assert_eq!(code, 0, "{file}: {out:?}");
        assert_eq!(out.len(), 2, "{file}: {out:?}");
        assert_eq!(out[0]["id"], "call0");
        assert_eq!(out[0]["args"]["pattern"], "*.rs");
        assert_eq!(out[1]["id"], "call1");
        assert_eq!(out[1]["args"]["pattern"], "*.md");
    }
}

#[test]
fn report_counts_a_call_with_a_gap_as_rejected() {
    let out = callfix()
        .args(["report", "--format", "json", "--schemas", "schemas"])
        .arg("tests/fixtures/streams/gap_chat.sse")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(report["calls"], 1, "{report}");
    assert_eq!(report["rejected"], 1, "{report}");
}
