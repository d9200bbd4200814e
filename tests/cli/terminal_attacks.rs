//! Text a model controls reaching a terminal or a line reader: every writer
//! that is read as lines (`-f human`, `-f args`, `--stats`, `check`'s human and
//! GitHub formats) writes control characters, DEL, U+0085 and U+2028/2029 as
//! visible escapes, so a model can neither forge a line nor send a terminal an
//! escape sequence. Also the caps that keep a run alive: `--jobs`, and the
//! per-tool rows of `--stats`.

use crate::{callfix, write};

/// What a terminal or a line reader would act on: a control character other
/// than the line's own end, or Unicode's line and paragraph separators.
fn acted_on(c: char) -> bool {
    (c.is_control() && c != '\n') || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Lines as Python's `str.splitlines()` sees them.
fn python_lines(text: &str) -> usize {
    let breaks = |c: char| {
        matches!(
            c,
            '\n' | '\r'
                | '\u{0b}'
                | '\u{0c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        )
    };
    text.split_terminator(breaks).count()
}

/// Every character a model might put in a name, a key or a value to reach
/// past its line.
const HOSTILE: &str = "a\\u0085b\\u2028c\\u2029d\\u007fe\\u009bf\\u001b]0;pwn\\u0007g\\nh\\ri";

fn assert_clean(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|c| acted_on(*c)) {
        panic!("{what}: raw U+{:04X} in {text:?}", u32::from(c));
    }
}

#[test]
fn human_repair_lines_escape_c1_del_and_line_separators() {
    // A drop-unknown repair (its key and value) and a parse-json-string repair
    // (its from and to) quote the model's text.
    let input = format!(
        "{}\n{}\n",
        format_args!(r#"{{"name":"glob","arguments":{{"pattern":"*","k{HOSTILE}":"{HOSTILE}"}}}}"#),
        format_args!(
            r#"{{"name":"todowrite","arguments":{{"todos":"[{{\"content\":\"{}\",\"status\":\"pending\",\"priority\":\"low\"}}]"}}}}"#,
            HOSTILE.replace('\\', "\\\\")
        ),
    );
    let out = callfix()
        .args(["-f", "human"])
        .write_stdin(input)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("drop-unknown"), "{stdout}");
    assert!(stdout.contains("parse-json-string"), "{stdout}");
    assert_clean("-f human", &stdout);
    // The escapes are visible, JSON style.
    assert!(stdout.contains(r"\u0085"), "{stdout}");
    assert!(stdout.contains(r"\u2028"), "{stdout}");
}

#[test]
fn human_ids_that_are_not_strings_are_escaped_too() {
    let input = format!(
        r#"{{"id":{{"x":"{HOSTILE}"}},"type":"function","function":{{"name":"glob","arguments":"{{}}"}}}}"#
    );
    let out = callfix()
        .args(["-f", "human"])
        .write_stdin(input + "\n")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_clean("-f human", &stdout);
}

#[test]
fn args_messages_stay_one_line_for_python_splitlines() {
    // 30 calls to unknown tools whose names hold C1 and line separators: 30
    // results, 30 lines, whoever splits them.
    let mut input = String::new();
    for i in 0..30 {
        input.push_str(&format!(
            r#"{{"name":"t{i}\u009b\u2028\u2029\u0085\u007f{HOSTILE}","arguments":{{}}}}"#
        ));
        input.push('\n');
    }
    let out = callfix()
        .args(["-f", "args"])
        .write_stdin(input)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_clean("-f args", &stdout);
    assert_eq!(python_lines(&stdout), 30, "{stdout}");
    assert!(stdout.starts_with("Unknown tool"), "{stdout}");
}

#[test]
fn loop_messages_quote_the_tool_name_visibly() {
    // The third identical rejection names the tool in the stop message.
    let line = format!(r#"{{"name":"x{HOSTILE}","arguments":{{}}}}"#);
    let input = format!("{line}\n{line}\n{line}\n");
    let out = callfix()
        .args(["-f", "args"])
        .write_stdin(input)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_clean("-f args", &stdout);
    assert_eq!(python_lines(&stdout), 3, "{stdout}");
}

#[test]
fn stats_write_tool_names_visibly() {
    // An OSC sequence (ESC ] … BEL) would retitle the terminal; a newline would
    // forge a line of the summary.
    let input = format!(
        "{}\n{}\n",
        r#"{"name":"x\u001b]0;pwned\u0007\ncallfix: 0 records: 0 calls","arguments":{}}"#,
        format_args!(r#"{{"name":"{HOSTILE}","arguments":{{}}}}"#),
    );
    let out = callfix()
        .args(["-f", "json", "--stats"])
        .write_stdin(input)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_clean("--stats", &stderr);
    // The summary line, the table's head and one row per tool.
    assert_eq!(python_lines(&stderr), 4, "{stderr}");
    assert!(
        stderr.contains(r"\u001b]0;pwned\u0007\ncallfix"),
        "{stderr}"
    );
}

#[test]
fn stats_keep_a_bounded_number_of_tool_rows() {
    // Each distinct name a model invents would otherwise be a row kept in
    // memory to the end of the stream.
    let mut input = String::new();
    for i in 0..1500 {
        input.push_str(&format!(r#"{{"name":"made_up_{i}","arguments":{{}}}}"#));
        input.push('\n');
    }
    let long = "n".repeat(300);
    input.push_str(&format!(r#"{{"name":"{long}","arguments":{{}}}}"#));
    input.push('\n');
    let out = callfix()
        .args(["-f", "json", "--stats"])
        .write_stdin(input)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let rows = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("made_up_"))
        .count();
    assert_eq!(rows, 1000, "{stderr}");
    assert!(
        !stderr.contains(&long),
        "a name over the row limit has no row"
    );
    assert!(
        stderr.contains("501 calls to other tools (0 valid, 0 repaired, 501 rejected)"),
        "{stderr}"
    );
    assert!(
        stderr.starts_with("callfix: 1501 records: 1501 calls"),
        "{stderr}"
    );
}

fn check_calls(dir: &std::path::Path, file: &str, format: &str) -> String {
    let out = callfix()
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .args(["--no-config", "check", "--schemas"])
        .arg(crate::root().join("schemas"))
        .args(["--calls", file, "-f", format])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn check_cannot_be_made_to_forge_a_workflow_command() {
    // A recorded call's name, an unknown key and a broken record's text, each
    // trying to start a line with `::error`.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "calls.jsonl",
        &[
            r#"{"name":"glob\n::error file=README.md,line=1::forged","arguments":{}}"#,
            r#"{"name":"glob\u2028::error file=README.md,line=1::forged","arguments":{}}"#,
            r#"{"name":"glob","arguments":{"pattern":"*","x\u0085\n::error::forged":1}}"#,
            r#"{"name":"glob\r::error::forged","arguments":{}}"#,
            "",
        ]
        .join("\n"),
    );
    for format in ["human", "github"] {
        let stdout = check_calls(dir.path(), "calls.jsonl", format);
        assert_clean(format, &stdout);
        assert_eq!(python_lines(&stdout), 4, "{format}: {stdout}");
        for line in stdout.lines() {
            if format == "human" {
                assert!(!line.starts_with("::"), "{line}");
            } else {
                assert!(line.starts_with("::error file=calls.jsonl,"), "{line}");
            }
        }
    }
}

#[test]
fn check_human_lines_never_start_with_two_colons_whatever_the_file_is_called() {
    let dir = tempfile::tempdir().unwrap();
    let name = "::error file=README.md,line=1::forged";
    write(dir.path(), name, "{\"name\":\"nope\",\"arguments\":{}}\n");
    let stdout = check_calls(dir.path(), name, "human");
    assert!(!stdout.is_empty());
    for line in stdout.lines() {
        assert!(!line.starts_with("::"), "{line}");
        assert!(line.contains(name), "the file is still named: {line}");
    }
}

#[test]
fn jobs_over_the_maximum_is_a_usage_error_not_an_abort() {
    let out = callfix()
        .args(["--jobs", "20000"])
        .write_stdin("{\"name\":\"glob\",\"arguments\":{\"pattern\":\"*\"}}\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("256"), "{stderr}");
    assert!(out.stdout.is_empty());
    // The maximum itself runs.
    let out = callfix()
        .args(["-f", "args", "--jobs", "256"])
        .write_stdin("{\"name\":\"glob\",\"arguments\":{\"pattern\":\"*\"}}\n".repeat(50))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout.split(|b| *b == b'\n').count(), 51);
}

#[test]
fn jobs_over_the_maximum_in_the_config_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "callfix.toml", "jobs = 100000\n");
    let out = callfix()
        .current_dir(dir.path())
        .args(["--schemas"])
        .arg(crate::root().join("schemas"))
        .write_stdin("{\"name\":\"glob\",\"arguments\":{\"pattern\":\"*\"}}\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("callfix.toml:1:8: jobs:"), "{stderr}");
    assert!(stderr.contains("256"), "{stderr}");
}

#[test]
fn diagnostics_on_stderr_are_one_line_each() {
    // A file name is whatever the directory holds (a checked-out repository's).
    let out = callfix()
        .args(["-f", "args", "no\n::error::such\u{1b}[2J\u{85}file"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_clean("stderr", &stderr);
    assert_eq!(python_lines(&stderr), 1, "{stderr}");
    assert!(
        stderr.contains(r"no\n::error::such\u001b[2J\u0085file"),
        "{stderr}"
    );
}
