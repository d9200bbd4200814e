//! Repair as the command line shows it: status, repairs, exit codes, loops.

use serde_json::json;

use crate::util::repair_kinds;
use crate::{callfix, run_json};

fn one(args: &[&str], input: serde_json::Value) -> (i32, serde_json::Value) {
    let (code, out) = run_json(args, &format!("{input}\n"));
    assert_eq!(out.len(), 1, "{out:?}");
    (code, out.into_iter().next().unwrap())
}

#[test]
fn repaired_calls_report_every_change_and_exit_zero() {
    // opencode #24912 + #908 shapes through an OpenAI envelope.
    let args = json!({"todos": "[{\"content\":\"Write tests\",\"status\":\"In_Progress\",\"priority\":\"high\"}]"});
    let call = json!({"id": "call_1", "type": "function",
        "function": {"name": "todowrite", "arguments": args.to_string()}});
    let (code, r) = one(&[], call);
    assert_eq!(code, 0);
    assert_eq!(r["status"], "repaired");
    assert_eq!(
        r["args"],
        json!({"todos": [{"content": "Write tests", "status": "in_progress", "priority": "high"}]})
    );
    let kinds = repair_kinds(&r);
    assert_eq!(kinds, ["parse-json-string", "enum-case"]);
    assert_eq!(r["repairs"][1]["path"], "todos.0.status");
    assert_eq!(r["repairs"][1]["from"], "In_Progress");
    assert_eq!(r["repairs"][1]["to"], "in_progress");
}

#[test]
fn strict_counts_repaired_as_failure() {
    let call = json!({"name": "read", "arguments": {"file_path": "/a", "offset": "3"}});
    callfix().write_stdin(call.to_string()).assert().code(0);
    callfix()
        .arg("--strict")
        .write_stdin(call.to_string())
        .assert()
        .code(1);
}

#[test]
fn rename_tool() {
    // opencode #31558 (Kimi K2.6): todo_write for todowrite; A3: Read for read.
    let (code, r) = one(
        &[],
        json!({"name": "Read", "arguments": {"file_path": "/a"}}),
    );
    assert_eq!(code, 0);
    assert_eq!(r["tool"], "read");
    assert_eq!(
        r["repairs"],
        json!([{"path": "", "kind": "rename-tool", "from": "Read", "to": "read"}])
    );
    // The call written back carries the new name.
    let out = callfix()
        .args(["-f", "call"])
        .write_stdin(r#"{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/a"}}"#)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"read\",\"input\":{\"file_path\":\"/a\"}}\n"
    );
}

#[test]
fn salvage_of_argument_text() {
    let cases = [
        // pi #8858: a whole-text fence.
        ("```json\n{\"pattern\": \"*.rs\"}\n```", vec!["strip-fence"]),
        // QwenPaw #6363: a leaked closing tag.
        (
            "{\"pattern\": \"*.rs\"}</tool_call>",
            vec!["strip-leaked-tag"],
        ),
        // mastra #11078 / qwen-code #288: JSON5-isms and Python quotes.
        ("{pattern: '*.rs',}", vec!["tolerant-parse"]),
        // opencode #33064 (GLM-5.1): the same object twice.
        (
            "{\"pattern\":\"*.rs\"}{\"pattern\":\"*.rs\"}",
            vec!["duplicate-object"],
        ),
        // OpenManus #989: double-encoded arguments.
        (
            "\"{\\\"pattern\\\": \\\"*.rs\\\"}\"",
            vec!["double-encoded"],
        ),
    ];
    for (text, kinds) in cases {
        let call =
            json!({"id": "c", "type": "function", "function": {"name": "glob", "arguments": text}});
        let (code, r) = one(&[], call);
        assert_eq!(code, 0, "{text}: {r}");
        assert_eq!(r["args"], json!({"pattern": "*.rs"}), "{text}");
        let got = repair_kinds(&r);
        assert_eq!(got, kinds, "{text}");
    }
}

#[test]
fn salvage_refuses_what_it_cannot_do_exactly() {
    let cases = [
        // qwen-code #9013: never completed into a runnable command.
        (
            "{\"command\":\"rm -rf /tmp/scra",
            "arguments are incomplete JSON (cut off at line 1 column 28); send the complete arguments",
        ),
        (
            "{\"command\":}",
            "arguments are not valid JSON: expected value at line 1 column 12",
        ),
        (
            "{\"command\":\"ls\"}{\"command\":\"rm -rf /\"}",
            "arguments hold two different JSON values; send exactly one object",
        ),
    ];
    for (text, message) in cases {
        let call = json!({"name": "bash", "arguments": text});
        let (code, r) = one(&[], call);
        assert_eq!(code, 1, "{text}");
        assert_eq!(
            r["errors"],
            json!([{"path": "", "message": message}]),
            "{text}"
        );
    }
}

#[test]
fn empty_arguments_only_when_nothing_is_required() {
    let dir = tempfile::tempdir().unwrap();
    crate::write(
        dir.path(),
        "todoread.json",
        r#"{"type":"object","properties":{},"additionalProperties":false}"#,
    );
    crate::write(
        dir.path(),
        "glob.json",
        r#"{"type":"object","required":["pattern"]}"#,
    );
    let s = dir.path().to_str().unwrap();
    // goose #1108: empty arguments.
    let (code, r) = one(
        &["-s", s],
        json!({"id": "c", "type": "function", "function": {"name": "todoread", "arguments": ""}}),
    );
    assert_eq!(
        (code, r["args"].clone(), r["repairs"][0]["kind"].clone()),
        (0, json!({}), json!("empty-arguments"))
    );
    let (code, r) = one(
        &["-s", s],
        json!({"id": "c", "type": "function", "function": {"name": "glob", "arguments": " "}}),
    );
    assert_eq!(code, 1);
    assert_eq!(
        r["errors"][0]["message"],
        "arguments are empty; send a JSON object"
    );
}

#[test]
fn rejection_lists_the_errors_of_the_original_input() {
    // `offset` could be coerced, but file_path is missing: the message names both
    // problems as the model sent them.
    let (code, r) = one(&[], json!({"name": "read", "arguments": {"offset": "5"}}));
    assert_eq!(code, 1);
    assert_eq!(
        r["message"],
        "Please rewrite the input with valid arguments. Errors: file_path: Required; offset: expected integer, got string"
    );
    assert_eq!(r["repairs"], json!([]));
}

#[test]
fn repair_none_turns_everything_off() {
    let (code, r) = one(
        &["--repair", "none"],
        json!({"name": "read", "arguments": {"file_path": "/a", "offset": "5"}}),
    );
    assert_eq!((code, r["status"].as_str()), (1, Some("rejected")));
    let (code, _) = one(
        &["--repair", "coerce-number"],
        json!({"name": "read", "arguments": {"file_path": "/a", "offset": "5"}}),
    );
    assert_eq!(code, 0);
    callfix()
        .args(["--repair", "coerce"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid value 'coerce' for '--repair <KINDS>'",
        ));
}

#[test]
fn the_same_rejected_call_three_times_says_stop() {
    let call = json!({"name": "read", "arguments": {"limit": 5, "offset": 1}});
    // Key order does not hide a repeat.
    let same = json!({"name": "read", "arguments": {"offset": 1, "limit": 5}});
    let other = json!({"name": "read", "arguments": {"limit": 6}});
    let input = format!("{call}\n{other}\n{same}\n{call}\n{call}\n");
    let (code, out) = run_json(&[], &input);
    assert_eq!(code, 1);
    let loops: Vec<bool> = out.iter().map(|r| r["loop"].as_bool().unwrap()).collect();
    assert_eq!(loops, [false, false, false, true, true]);
    assert_eq!(
        out[3]["message"],
        "Stop retrying: this exact call to \"read\" was rejected 3 times. Do not send it again; ask the user how to proceed. Errors: file_path: Required"
    );
    let (_, out) = run_json(&["--loop-limit", "0"], &input);
    assert!(out.iter().all(|r| r["loop"] == false));
}

#[test]
fn stats_count_repairs_per_kind_and_tool() {
    let input = [
        json!({"name": "read", "arguments": {"file_path": "/a", "offset": "3"}}),
        json!({"name": "read", "arguments": {"file_path": "/a"}}),
        json!({"name": "glob", "arguments": {"pattern": "*", "path": null}}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    let out = callfix()
        .arg("--stats")
        .write_stdin(input)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("3 calls (1 valid, 2 repaired, 0 rejected)"),
        "{stderr}"
    );
    assert!(stderr.contains("repair rate"), "{stderr}");
    assert!(
        stderr.contains("\n  read        2        1         1         0        50.0%"),
        "{stderr}"
    );
    assert!(
        stderr.contains("repairs: coerce-number 1, drop-placeholder 1"),
        "{stderr}"
    );
}

#[test]
fn human_format_lists_each_repair() {
    callfix()
        .args(["-f", "human"])
        .write_stdin(r#"{"name":"read","arguments":{"filePath":"/a","offset":"3"}}"#)
        .assert()
        .code(0)
        .stdout(
            "#0.0 read repaired\n    {\n      \"file_path\": \"/a\",\n      \"offset\": 3\n    }\n  \
             ~ offset: coerce-number \"3\" → 3\n  ~ file_path: rename-key \"filePath\" → \"file_path\"\n",
        );
}

#[test]
fn repeated_failures_are_counted_per_conversation() {
    // Issue 9: three sessions sending the same bad call in one multiplexed stream
    // were told to stop.
    let record = |session: &str| {
        format!(
            r#"{{"metadata":{{"conversation_id":"{session}"}},"name":"read","arguments":{{}}}}"#
        )
    };
    let input: String = ["a", "b", "c", "a", "a"]
        .iter()
        .map(|s| record(s) + "\n")
        .collect();
    let (_, out) = run_json(&["--session", "/metadata/conversation_id"], &input);
    let loops: Vec<bool> = out.iter().map(|r| r["loop"].as_bool().unwrap()).collect();
    assert_eq!(loops, [false, false, false, false, true]);
    // Without --session, one input is one conversation.
    let (_, out) = run_json(&[], &input);
    let loops: Vec<bool> = out.iter().map(|r| r["loop"].as_bool().unwrap()).collect();
    assert_eq!(loops, [false, false, true, true, true]);
    // A pointer that is no JSON pointer is a usage error.
    let (code, _) = run_json(&["--session", "metadata"], &input);
    assert_eq!(code, 2);
}

#[test]
fn each_input_file_is_its_own_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let bad = "{\"name\":\"read\",\"arguments\":{}}\n";
    for name in ["a.jsonl", "b.jsonl"] {
        crate::write(dir.path(), name, &bad.repeat(2));
    }
    let out = crate::callfix()
        .args(["-f", "json"])
        .arg(dir.path().join("a.jsonl"))
        .arg(dir.path().join("b.jsonl"))
        .output()
        .unwrap();
    let results = crate::json_lines(&out.stdout);
    assert_eq!(results.len(), 4);
    assert!(results.iter().all(|r| r["loop"] == false), "{results:?}");
}
