//! `callfix check --calls`: recorded calls must be valid without repair, and
//! calls written into a message's text are reported.

use predicates::prelude::*;

use crate::{callfix, write};

#[test]
fn recorded_calls_must_be_valid_without_repair() {
    let dir = tempfile::tempdir().unwrap();
    // A call the filter would repair is still a finding here.
    write(
        dir.path(),
        "calls.jsonl",
        "{\"name\":\"read\",\"arguments\":{\"file_path\":\"/a\",\"offset\":\"3\"}}\n",
    );
    callfix()
        .args(["check", "--calls"])
        .arg(dir.path().join("calls.jsonl"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "calls.jsonl:1:1: error[call-invalid]: recorded call 0.0 to \"read\" is not valid: offset: expected integer, got string",
        ));
}

#[test]
fn calls_from_stdin_are_counted_and_none_is_an_error() {
    let good = "{\"name\":\"read\",\"arguments\":{\"file_path\":\"/a\"}}\n";
    callfix()
        .args(["check", "--calls", "-"])
        .write_stdin(format!("{good}{good}  {good}"))
        .assert()
        .code(0)
        .stdout("")
        .stderr("callfix: check: 9 tools, 3 calls: 0 errors, 0 warnings\n");
    callfix()
        .args(["check", "--calls", "-"])
        .write_stdin("{\"role\":\"assistant\",\"content\":\"no calls here\"}\n")
        .assert()
        .code(1)
        .stdout("<stdin>:1:1: error[calls-empty]: no tool call found: a --calls input must hold recorded calls\n");
    // A record's column is where it starts on its line.
    callfix()
        .args(["check", "--calls", "-"])
        .write_stdin("  {\"name\":\"read\",\"arguments\":{}}\n")
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "<stdin>:1:3: error[call-invalid]",
        ));
}

/// A call written into a message's text runs only if callfix extracts it, and
/// never when the message also holds tool calls of its own: `check --calls`
/// reports both, whatever else the record holds. A call the text only echoes
/// (the same tool and arguments as one of the message's own) is not reported.
#[test]
fn calls_written_into_the_text_are_reported_beside_real_calls() {
    let call = |id: &str, path: &str| {
        format!(
            r#"{{"id":"{id}","type":"function","function":{{"name":"read","arguments":"{{\"file_path\":\"{path}\"}}"}}}}"#
        )
    };
    let leaked = |args: &str| {
        format!(r#"<tool_call>{{\"name\":\"read\",\"arguments\":{args}}}</tool_call>"#)
    };
    let records = [
        format!(
            r#"{{"role":"assistant","content":"Reading it.","tool_calls":[{}]}}"#,
            call("c1", "/a")
        ),
        format!(
            r#"{{"role":"assistant","content":"{}"}}"#,
            leaked(r#"{\"file_path\":\"/b\"}"#)
        ),
        format!(
            r#"{{"role":"assistant","content":"Both. {}","tool_calls":[{}]}}"#,
            leaked(r#"{\"file_path\":\"/c\"}"#),
            call("c2", "/d")
        ),
        format!(
            r#"{{"role":"assistant","content":"Both, bad. {}","tool_calls":[{}]}}"#,
            leaked(r#"{\"limit\":\"x\"}"#),
            call("c3", "/e")
        ),
        format!(
            r#"{{"role":"assistant","content":"Echo. {}","tool_calls":[{}]}}"#,
            leaked(r#"{\"file_path\":\"/f\"}"#),
            call("c4", "/f")
        ),
    ];
    let out = callfix()
        .args(["check", "--calls", "-"])
        .write_stdin(records.join("\n") + "\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        got,
        [
            "<stdin>:2:1: error[call-in-text]: recorded call 1.0 to \"read\" is written into the message text (hermes markup), not as a tool call: it runs only if callfix extracts it",
            "<stdin>:3:1: error[call-in-text]: record 2: a call to \"read\" is written into the message text (hermes markup) beside the message's own tool calls: it never runs",
            "<stdin>:4:1: error[call-in-text]: record 3: a call to \"read\" is written into the message text (hermes markup) beside the message's own tool calls: it never runs; and it is not valid: file_path: Required; limit: expected integer, got string",
        ]
    );
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "callfix: check: 9 tools, 7 calls: 3 errors, 0 warnings\n"
    );
}

/// What else is wrong with a call written into text is what the filter would
/// say, every repair on: a Qwen3-Coder `3` is an integer by the schema, not a
/// wrong string; `many` is not an integer.
#[test]
fn a_call_in_text_is_judged_as_the_filter_judges_it() {
    let qwen = |params: &str| {
        serde_json::json!({
            "role": "assistant",
            "content": format!("<tool_call>\n<function=read>\n{params}</function>\n</tool_call>"),
        })
        .to_string()
    };
    let typed =
        qwen("<parameter=file_path>\n/a\n</parameter>\n<parameter=limit>\n3\n</parameter>\n");
    let wrong =
        qwen("<parameter=file_path>\n/a\n</parameter>\n<parameter=limit>\nmany\n</parameter>\n");
    callfix()
        .args(["check", "--calls", "-"])
        .write_stdin(format!("{typed}\n{wrong}\n"))
        .assert()
        .code(1)
        .stdout(concat!(
            "<stdin>:1:1: error[call-in-text]: recorded call 0.0 to \"read\" is written into the message text (qwen3-coder markup), not as a tool call: it runs only if callfix extracts it\n",
            "<stdin>:2:1: error[call-in-text]: recorded call 1.0 to \"read\" is written into the message text (qwen3-coder markup), not as a tool call: it runs only if callfix extracts it; and it is not valid: limit: expected integer, got string\n",
        ));
}
