//! Live output: each result is written before callfix waits for more input
//! (issue 9). A co-process writes one record, reads its result, and only then
//! writes the next, without closing stdin.

use std::io::{BufRead, BufReader, Write};
use std::process::ChildStdout;
use std::sync::mpsc;
use std::time::Duration;

use crate::spawn;

const VALID: &str = r#"{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\"}"}}"#;
const REJECTED: &str =
    r#"{"id":"c2","type":"function","function":{"name":"read","arguments":"{}"}}"#;

/// Reads lines on a thread, so a missing result fails the test instead of
/// hanging it.
fn lines(out: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn next(rx: &mpsc::Receiver<String>, what: &str) -> String {
    // A deadlock guard, not a timing assertion: the result is due at once.
    rx.recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("no result for {what} while stdin is still open"))
}

fn co_process(args: &[&str], check: impl Fn(&str, &str)) {
    let human = args.contains(&"human");
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().unwrap();
    let rx = lines(child.stdout.take().unwrap());
    for (record, what) in [(VALID, "valid"), (REJECTED, "rejected"), (VALID, "valid")] {
        stdin.write_all(record.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let mut line = next(&rx, what);
        // Human output gives a result several lines: find its header.
        while human && !line.starts_with('#') {
            line = next(&rx, what);
        }
        check(what, &line);
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn each_result_is_written_before_waiting_for_input_in_every_format() {
    co_process(&["-f", "args"], |what, line| match what {
        "valid" => assert_eq!(line, r#"{"file_path":"/a"}"#),
        _ => assert!(line.starts_with("Please rewrite"), "{line}"),
    });
    co_process(&["-f", "json"], |what, line| {
        assert!(line.contains(&format!(r#""status":"{what}""#)), "{line}");
    });
    co_process(&["-f", "call"], |what, line| match what {
        "valid" => assert!(
            line.contains(r#""tool_call_id""#) || line.contains(r#""function""#),
            "{line}"
        ),
        _ => assert!(line.contains(r#""role":"tool""#), "{line}"),
    });
    co_process(
        &["-f", "call", "--to", "anthropic"],
        |what, line| match what {
            "valid" => assert!(line.contains(r#""type":"tool_use""#), "{line}"),
            _ => assert!(line.contains(r#""tool_result""#), "{line}"),
        },
    );
    co_process(&["-f", "human"], |what, line| {
        assert!(line.starts_with("#") && line.contains(what), "{line}");
    });
}

#[test]
fn an_assistant_message_converted_whole_is_written_before_waiting() {
    let message = r#"{"role":"assistant","content":"Reading.","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\"}"}}]}"#;
    let mut child = spawn(&["-f", "call", "--to", "gemini"]);
    let mut stdin = child.stdin.take().unwrap();
    let rx = lines(child.stdout.take().unwrap());
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
    let line = next(&rx, "the message");
    assert!(line.contains(r#""functionCall""#), "{line}");
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn jobs_write_each_result_before_waiting_for_input() {
    co_process(&["-f", "json", "--jobs", "2"], |what, line| {
        assert!(line.contains(&format!(r#""status":"{what}""#)), "{line}");
    });
    co_process(&["-f", "args", "-j", "0"], |what, line| match what {
        "valid" => assert_eq!(line, r#"{"file_path":"/a"}"#),
        _ => assert!(line.starts_with("Please rewrite"), "{line}"),
    });
}

#[test]
fn heal_writes_each_conversation_before_waiting_for_the_next() {
    let tools = r#"[{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"limit":{"type":"integer"}}}}}]"#;
    let record = |args: &str| {
        format!(
            r#"{{"model":"m","tools":{tools},"messages":[{{"role":"assistant","content":null,"tool_calls":[{{"id":"c1","type":"function","function":{{"name":"read","arguments":"{args}"}}}}]}},{{"role":"tool","tool_call_id":"c1","content":"ok"}}]}}"#
        )
    };
    let mut child = spawn(&["heal"]);
    let mut stdin = child.stdin.take().unwrap();
    let rx = lines(child.stdout.take().unwrap());
    for (args, want) in [
        (r#"{\"limit\":1}"#, r#"\"limit\":1"#),
        (r#"{\"limit\":\"2\"}"#, r#"{\"limit\":2}"#),
    ] {
        stdin.write_all(record(args).as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let line = next(&rx, "a conversation");
        assert!(line.contains(want), "{line}");
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
