//! Hostile schemas and inputs: clear errors or results, never a crash or a hang.
//! (The time-outs below bound a hang; they measure nothing.)

use std::time::Duration;

use serde_json::json;

use crate::{callfix, write};

const HANG: Duration = Duration::from_secs(20);

#[test]
fn catastrophic_backtracking_pattern_runs_in_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "t.json",
        r#"{"type":"object","properties":{"s":{"type":"string","pattern":"^(a+)+$"}}}"#,
    );
    let evil = format!("{}b", "a".repeat(100_000));
    let input = json!({"name": "t", "arguments": {"s": evil}}).to_string();
    let out = callfix()
        .args(["-f", "json", "-s"])
        .arg(dir.path())
        .timeout(HANG)
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["errors"][0]["message"], "must match pattern ^(a+)+$");
}

#[test]
fn backreference_patterns_make_a_schema_broken_not_slow() {
    // The linear-time engine has no look-around or back-references.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "t.json",
        r#"{"type":"object","properties":{"s":{"type":"string","pattern":"^(a|a?)+\\1$"}}}"#,
    );
    let out = callfix()
        .args(["-s"])
        .arg(dir.path())
        .timeout(HANG)
        .write_stdin(r#"{"name":"t","arguments":{"s":"aaaa"}}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("Tool \"t\" cannot be checked: its schema is broken"),
        "{stdout}"
    );
}

#[test]
fn ref_cycles_neither_hang_nor_crash() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "cycle.json",
        r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}}}"##,
    );
    // A legitimate recursive schema: a tree.
    write(
        dir.path(),
        "tree.json",
        r##"{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"$ref":"#/$defs/node"}"##,
    );
    let input = [
        json!({"name": "cycle", "arguments": {"x": 1}}),
        json!({"name": "tree", "arguments": {"name": "a", "kids": [{"name": "b", "kids": [{"kids": "[]"}]}]}}),
        json!({"name": "tree", "arguments": {"name": "a", "kids": [{"name": "b", "kids": "[]"}]}}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    let out = callfix()
        .args(["-f", "json", "-s"])
        .arg(dir.path())
        .timeout(HANG)
        .write_stdin(input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines = crate::json_lines(&out.stdout);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["errors"][0]["path"], "kids.0.kids.0.name");
    assert_eq!(lines[2]["status"], "repaired");
    // tools and check over the same directory finish too.
    callfix()
        .args(["tools", "-s"])
        .arg(dir.path())
        .timeout(HANG)
        .assert()
        .code(predicates::ord::lt(2));
    callfix()
        .args(["check", "-s"])
        .arg(dir.path())
        .timeout(HANG)
        .assert()
        .code(predicates::ord::lt(2));
}

#[cfg(unix)]
#[test]
fn symlinks_never_escape_the_schema_directory() {
    let outer = tempfile::tempdir().unwrap();
    write(
        outer.path(),
        "secret.json",
        r#"{"type":"object","properties":{"token":{"type":"string"}}}"#,
    );
    let dir = outer.path().join("schemas");
    std::fs::create_dir(&dir).unwrap();
    std::os::unix::fs::symlink(outer.path().join("secret.json"), dir.join("leak.json")).unwrap();
    std::os::unix::fs::symlink(outer.path().join("secret.json"), dir.join("_defs.json")).unwrap();
    write(
        &dir,
        "viaref.json",
        r#"{"type":"object","properties":{"t":{"$ref":"_defs.json"}}}"#,
    );
    let input =
        "{\"name\":\"leak\",\"arguments\":{}}\n{\"name\":\"viaref\",\"arguments\":{\"t\":{}}}\n";
    let out = callfix()
        .args(["-s"])
        .arg(&dir)
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].contains("outside the schema directory"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("outside the schema directory"),
        "{}",
        lines[1]
    );
}

#[test]
fn thousands_of_schema_files_cost_one_compile() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3000 {
        write(
            dir.path(),
            &format!("tool_{i:04}.json"),
            r#"{"type":"object","required":["x"]}"#,
        );
    }
    // One broken file among them is never read, because no call needs it.
    write(dir.path(), "tool_9999.json", "{ broken");
    callfix()
        .args(["-s"])
        .arg(dir.path())
        .timeout(HANG)
        .write_stdin(r#"{"name":"tool_1234","arguments":{"x":1}}"#)
        .assert()
        .code(0)
        .stderr("");
}

#[test]
fn a_reader_that_closes_early_gives_a_result_for_what_arrived() {
    // Input that stops in the middle of a record: the record is reported, nothing panics.
    let out = callfix()
        .write_stdin(
            "{\"name\":\"glob\",\"arguments\":{\"pattern\":\"*\"}}\n{\"name\":\"glob\",\"argu",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout,
        "{\"pattern\":\"*\"}\nrecord at stdin:2 is incomplete: it was cut off before its end\n"
    );
}

/// The library and the filter never reach the network: the library built
/// alone (`default-features = false`) has no HTTP client or TLS in its tree.
/// The one client is `ureq` (with rustls), for `callfix mcp --url` only
/// (feature `mcp-http`, docs/dependencies.md); no other is anywhere in the lock.
#[test]
fn only_mcp_url_brings_an_http_client() {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "--locked",
            "--offline",
            "-e",
            "normal",
            "--no-default-features",
            "-p",
            "callfix",
            "--prefix",
            "none",
        ])
        .current_dir(crate::root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    assert!(tree.contains("serde_json v"), "{tree}");
    for crate_ in ["ureq", "rustls", "ring", "webpki-roots", "http", "httparse"] {
        assert!(
            !tree.lines().any(|l| l.starts_with(&format!("{crate_} v"))),
            "{crate_} is in the library's tree: the library must never reach the network"
        );
    }
    let lock = std::fs::read_to_string(crate::root().join("Cargo.lock")).unwrap();
    for client in [
        "reqwest",
        "hyper",
        "curl",
        "isahc",
        "attohttpc",
        "native-tls",
    ] {
        assert!(
            !lock.contains(&format!("name = \"{client}\"")),
            "{client} is in Cargo.lock: ureq is the one HTTP client (mcp --url)"
        );
    }
}

#[test]
fn templates_are_text_not_code() {
    // Shell and template syntax in a description or a value is just text.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "t.txt",
        "$(touch pwned) `id` {{7*7}} ${HOME} <SHELL>",
    );
    let out = callfix()
        .arg("render")
        .arg(dir.path().join("t.txt"))
        .args(["--var", "SHELL=$(rm -rf /)"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "$(touch pwned) `id` {{7*7}} ${HOME} $(rm -rf /)"
    );
    assert!(!dir.path().join("pwned").exists());
}

/// Runs the filter over `stdin` with `dir` as the schemas; (exit code, results).
fn filter_in(dir: &std::path::Path, stdin: &str) -> (i32, Vec<serde_json::Value>) {
    let out = callfix()
        .args(["-f", "json", "-s"])
        .arg(dir)
        .timeout(HANG)
        .write_stdin(stdin.to_owned())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        crate::json_lines(&out.stdout),
    )
}

#[cfg(unix)]
#[test]
fn devices_fifos_and_multiplying_refs_are_broken_schemas_and_the_stream_goes_on() {
    // Issue 10: a symlink to /dev/zero was read until memory ran out, a FIFO hung
    // the filter, and references that double at each level hung the validator.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.json")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("fifo.json"))
        .status()
        .unwrap();
    assert!(made.success());
    write(
        dir.path(),
        "viafifo.json",
        r#"{"type":"object","properties":{"p":{"$ref":"fifo.json"}}}"#,
    );
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/a{}", i + 1);
        defs.insert(
            format!("a{i}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("a40".into(), json!({"type": "string"}));
    let exp = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a0"}}, "$defs": defs});
    write(dir.path(), "exp.json", &exp.to_string());
    write(dir.path(), "ok.json", r#"{"type":"object"}"#);
    let input: String = ["zero", "fifo", "viafifo", "exp", "ok"]
        .iter()
        .map(|t| format!("{{\"name\":\"{t}\",\"arguments\":{{\"p\":1,\"x\":1}}}}\n"))
        .collect();
    let (code, results) = filter_in(dir.path(), &input);
    assert_eq!(code, 2);
    let messages: Vec<&str> = results
        .iter()
        .map(|r| r["message"].as_str().unwrap_or(""))
        .collect();
    assert!(
        messages[0].contains("outside the schema directory"),
        "{}",
        messages[0]
    );
    assert!(
        messages[1].contains("not a regular file"),
        "{}",
        messages[1]
    );
    assert!(
        messages[2].contains("not a regular file"),
        "{}",
        messages[2]
    );
    assert!(
        messages[3].contains("expand to more than"),
        "{}",
        messages[3]
    );
    assert_eq!(results[4]["status"], "valid");
}

#[test]
fn a_schema_file_over_the_size_cap_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let big = format!(
        r#"{{"type":"object","description":"{}"}}"#,
        "x".repeat(17 << 20)
    );
    write(dir.path(), "big.json", &big);
    let (code, results) = filter_in(dir.path(), r#"{"name":"big","arguments":{}}"#);
    assert_eq!(code, 2);
    let message = results[0]["message"].as_str().unwrap();
    assert!(
        message.contains("over the limit of 16777216 bytes"),
        "{message}"
    );
}
