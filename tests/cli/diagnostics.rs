//! Diagnostics for the operator: on stderr, naming what to fix (issue 9).

use crate::{callfix, write};

#[test]
fn a_broken_schema_is_reported_on_stderr_once() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.json", r#"{"type":"strng"}"#);
    let out = callfix()
        .arg("-s")
        .arg(dir.path())
        .write_stdin("{\"name\":\"bad\",\"arguments\":{}}\n{\"name\":\"bad\",\"arguments\":{}}\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let file = dir.path().join("bad.json");
    let want = format!(
        "callfix: error: schema of tool \"bad\" is broken: {}: \"strng\" is not valid",
        file.display()
    );
    assert_eq!(stderr.matches(&want).count(), 1, "{stderr}");
    // The model is told too, once per call.
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 2);
    assert!(
        stdout.starts_with("Tool \"bad\" cannot be checked"),
        "{stdout}"
    );
}

#[test]
fn a_missing_default_schema_directory_says_how_to_point_elsewhere() {
    let empty = tempfile::tempdir().unwrap();
    let out = callfix()
        .current_dir(empty.path())
        .write_stdin("{}")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("pass --schemas PATH or set CALLFIX_SCHEMAS"),
        "{stderr}"
    );
}

#[test]
fn a_missing_file_named_like_a_subcommand_suggests_it() {
    let out = callfix().arg("chek").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "callfix: error: cannot read chek: no such file or directory (did you mean the `check` subcommand?)\n"
    );
}

#[test]
fn a_bare_callfix_at_a_terminal_says_it_is_reading_stdin() {
    // `script` gives callfix a terminal for stdin; its own stdin ends at once.
    let bin = assert_cmd::cargo::cargo_bin!("callfix");
    let out = std::process::Command::new("script")
        .args(["-qec", &bin.display().to_string(), "/dev/null"])
        .current_dir(crate::root())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("`script` (util-linux) runs a command on a terminal");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("callfix: note: reading tool calls from stdin (end with Ctrl-D)"),
        "{text}"
    );
    // Piped, it says nothing.
    let out = callfix().write_stdin("").output().unwrap();
    assert!(out.stderr.is_empty());
}

/// A schema file name that is not UTF-8 is warned about when the directory is
/// listed: a run whose calls all name a tool's own file may never list it
/// (then nothing is skipped that it needed); a call to an unknown tool lists
/// it, and the warning comes once, after the results.
#[cfg(target_os = "linux")]
#[test]
fn a_file_name_that_is_not_utf8_is_warned_about_when_the_directory_is_listed() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "read.json", r#"{"type":"object"}"#);
    let bad = std::ffi::OsStr::from_bytes(b"bad\xff.json");
    std::fs::write(dir.path().join(bad), "{}").unwrap();
    let run = |stdin: &str| {
        let out = callfix()
            .arg("-s")
            .arg(dir.path())
            .write_stdin(stdin.to_owned())
            .output()
            .unwrap();
        String::from_utf8(out.stderr).unwrap()
    };
    let known = run("{\"name\":\"read\",\"arguments\":{}}\n");
    assert!(known.matches("not UTF-8").count() <= 1, "{known}");
    let unknown =
        run("{\"name\":\"nope\",\"arguments\":{}}\n{\"name\":\"nope2\",\"arguments\":{}}\n");
    assert_eq!(
        unknown.matches("file name is not UTF-8; skipped").count(),
        1,
        "{unknown}"
    );
    assert!(unknown.starts_with("callfix: warning: "), "{unknown}");
    // `report` tells it too, once, when its calls list the directory.
    let report = |calls: &str| {
        let file = dir.path().join("log.jsonl");
        std::fs::write(&file, calls).unwrap();
        let out = callfix()
            .arg("report")
            .arg("-s")
            .arg(dir.path())
            .arg(&file)
            .output()
            .unwrap();
        String::from_utf8(out.stderr).unwrap()
    };
    let said = report("{\"name\":\"nope\",\"arguments\":{}}\n");
    assert_eq!(said.matches("not UTF-8; skipped").count(), 1, "{said}");
    let said = report("{\"name\":\"read\",\"arguments\":{}}\n");
    assert!(said.matches("not UTF-8").count() <= 1, "{said}");
    // A run that fails to write still tells what its lookups found.
    let calls = dir.path().join("calls.jsonl");
    std::fs::write(&calls, "{\"name\":\"nope\",\"arguments\":{}}\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_callfix"))
        .arg("-s")
        .arg(dir.path())
        .arg(&calls)
        .current_dir(dir.path())
        .env_remove("CALLFIX_CONFIG")
        .env("NO_COLOR", "1")
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("cannot write results"), "{stderr}");
    assert_eq!(stderr.matches("not UTF-8; skipped").count(), 1, "{stderr}");
}
