//! `callfix report`'s progress line: drawn on stderr only when stderr is a
//! terminal (a pseudo-terminal from util-linux `script` here), cleared at the
//! end; a pipe or file gets nothing but what it got before.

use std::process::Command;

use crate::callfix;

fn log(records: usize) -> String {
    let line = serde_json::json!({"model": "m", "choices": [{"message": {"role": "assistant",
        "tool_calls": [{"id": "c", "type": "function",
        "function": {"name": "read", "arguments": "{\"file_path\": \"/a\"}"}}]}}]});
    format!("{line}\n").repeat(records)
}

#[test]
fn report_progress_is_not_written_to_a_stderr_that_is_no_terminal() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.jsonl"), log(2000)).unwrap();
    let out = callfix()
        .args(["report", "-s", "schemas", "--format", "json"])
        .arg(dir.path().join("a.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    // The input pauses past the redraw interval: a terminal would get a line.
    let slow = format!(
        "cat {0}; sleep 0.6; cat {0}",
        dir.path().join("a.jsonl").display()
    );
    let bin = env!("CARGO_BIN_EXE_callfix");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "({slow}) | {bin} --no-config report -s schemas --format json"
        ))
        .current_dir(crate::root())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["calls"], 4000);
}

#[test]
fn report_progress_on_a_terminal_is_drawn_and_cleared() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    std::fs::write(&a, log(2000)).unwrap();
    let json = dir.path().join("out.json");
    let bin = env!("CARGO_BIN_EXE_callfix");
    // stderr is the pseudo-terminal, stdout a file; the input pauses past
    // the redraw interval, so the line is drawn at least once.
    let inner = format!(
        "(cat {a}; sleep 0.6; cat {a}) | {bin} --no-config report -s schemas --format json > {json}",
        a = a.display(),
        json = json.display()
    );
    let out = Command::new("/usr/bin/script")
        .args(["-qec", &inner, "/dev/null"])
        .current_dir(crate::root())
        .env("NO_COLOR", "1")
        .output()
        .expect("util-linux `script`, for a pseudo-terminal");
    assert_eq!(out.status.code(), Some(0));
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(tty.contains("\r\x1b[2Kstdin: "), "{tty:?}");
    assert!(tty.contains(" records, "), "{tty:?}");
    assert!(
        tty.ends_with("\r\x1b[2K"),
        "the line is cleared at the end: {tty:?}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["calls"], 4000);
}
