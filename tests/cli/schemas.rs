//! Schema sources: directories, tool lists, broken files, refs, hostile names.

use predicates::prelude::*;
use serde_json::json;

use crate::{callfix, run_args, write};

#[test]
fn unknown_tool_lists_the_tools_and_suggests() {
    let (code, lines) = run_args(&[], "{\"name\":\"todo_writer\",\"arguments\":{}}");
    assert_eq!(code, 1);
    assert_eq!(
        lines[0],
        "Unknown tool \"todo_writer\". Available tools: bash, edit, glob, grep, multiedit, read, todowrite, webfetch, write (did you mean \"todowrite\"?)"
    );
    // With rename-tool off, a name that differs only in case and separators is
    // unknown too, and suggested.
    let (code, lines) = run_args(
        &["--repair", "none"],
        "{\"name\":\"todo_write\",\"arguments\":{}}",
    );
    assert_eq!(code, 1);
    assert!(
        lines[0].ends_with("(did you mean \"todowrite\"?)"),
        "{}",
        lines[0]
    );
}

#[test]
fn path_traversal_tool_names_are_only_unknown_tools() {
    for name in [
        "../schemas/read",
        "/etc/passwd",
        "read.json",
        "_defs",
        "..",
        "read\u{0}",
    ] {
        let input = json!({"name": name, "arguments": {}}).to_string();
        let (code, lines) = run_args(&[], input);
        assert_eq!(code, 1, "{name}");
        assert!(
            lines[0].starts_with("Unknown tool "),
            "{name}: {}",
            lines[0]
        );
    }
}

#[test]
fn a_broken_schema_is_reported_and_other_tools_still_work() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.json", r#"{"type":"object"}"#);
    write(dir.path(), "bad.json", r#"{"type":"strng"}"#);
    write(dir.path(), "notjson.json", "{");
    let input = "{\"name\":\"bad\",\"arguments\":{}}\n{\"name\":\"good\",\"arguments\":{}}\n{\"name\":\"notjson\",\"arguments\":{}}\n";
    let out = callfix()
        .args(["-f", "args", "-s"])
        .arg(dir.path())
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let bad = dir.path().join("bad.json");
    assert!(
        lines[0].starts_with(&format!(
            "Tool \"bad\" cannot be checked: its schema is broken ({}: ",
            bad.display()
        )),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("\"strng\""), "{}", lines[0]);
    assert_eq!(lines[1], "{}");
    assert!(
        lines[2].contains("notjson.json: not valid JSON"),
        "{}",
        lines[2]
    );
}

#[test]
fn a_broken_schema_nobody_calls_costs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.json", r#"{"type":"object"}"#);
    write(dir.path(), "bad.json", "{");
    callfix()
        .arg("-s")
        .arg(dir.path())
        .write_stdin("{\"name\":\"good\",\"arguments\":{}}")
        .assert()
        .code(0)
        .stderr("");
}

#[test]
fn remote_ref_is_a_schema_error_naming_file_and_ref() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "fetch.json",
        r#"{"type":"object","properties":{"u":{"$ref":"https://example.com/url.json"}}}"#,
    );
    let start = std::time::Instant::now();
    let (code, lines) = run_args(
        &["-s", dir.path().to_str().unwrap()],
        "{\"name\":\"fetch\",\"arguments\":{\"u\":\"x\"}}",
    );
    assert_eq!(code, 2);
    assert!(lines[0].contains("fetch.json"), "{}", lines[0]);
    assert!(
        lines[0].contains("https://example.com/url.json"),
        "{}",
        lines[0]
    );
    // Refused, not attempted: no network time-out could have elapsed.
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn ref_escaping_the_directory_is_refused() {
    let outer = tempfile::tempdir().unwrap();
    write(outer.path(), "secret.json", r#"{"type":"string"}"#);
    let dir = outer.path().join("schemas");
    std::fs::create_dir(&dir).unwrap();
    write(
        &dir,
        "t.json",
        r#"{"type":"object","properties":{"p":{"$ref":"../secret.json"}}}"#,
    );
    let (code, lines) = run_args(
        &["-s", dir.to_str().unwrap()],
        "{\"name\":\"t\",\"arguments\":{\"p\":1}}",
    );
    assert_eq!(code, 2);
    assert!(
        lines[0].contains("outside the schema directory"),
        "{}",
        lines[0]
    );
}

#[test]
fn tool_list_files_from_each_provider() {
    let schema =
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
    let lists = [
        json!({"tools": [{"type": "function", "function": {"name": "search", "parameters": schema}}]}),
        json!([{"name": "search", "input_schema": schema}]),
        json!([{"functionDeclarations": [{"name": "search", "parameters": schema}]}]),
        json!({"tools": [{"name": "search", "inputSchema": schema}]}),
    ];
    for list in lists {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "tools.json", &list.to_string());
        let file = dir.path().join("tools.json");
        let (code, lines) = run_args(
            &["-s", file.to_str().unwrap()],
            "{\"name\":\"search\",\"arguments\":{}}",
        );
        assert_eq!(code, 1, "{list}");
        assert_eq!(
            lines[0],
            "Please rewrite the input with valid arguments. Errors: q: Required"
        );
    }
}

#[test]
fn several_sources_first_definition_wins() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    write(a.path(), "glob.json", r#"{"type":"object"}"#);
    write(b.path(), "extra.json", r#"{"type":"object"}"#);
    callfix()
        .arg("-s")
        .arg(a.path())
        .arg("-s")
        .arg("schemas")
        .arg("-s")
        .arg(b.path())
        .write_stdin("{\"name\":\"glob\",\"arguments\":{}}\n{\"name\":\"extra\",\"arguments\":{}}\n")
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "warning: tool \"glob\" in schemas/glob.json is already defined by an earlier source; ignored",
        ));
}

#[test]
fn drafts_and_sibling_refs_in_the_shipped_set() {
    // read.json takes file_path from _defs.json (minLength 1).
    let (code, lines) = run_args(
        &[],
        "{\"name\":\"read\",\"arguments\":{\"file_path\":\"\"}}",
    );
    assert_eq!(code, 1);
    assert_eq!(
        lines[0],
        "Please rewrite the input with valid arguments. Errors: file_path: must be at least 1 character"
    );
}

#[test]
fn idn_formats_are_asserted() {
    // Issue 9: without jsonschema's `idna` feature these accepted anything.
    let dir = tempfile::tempdir().unwrap();
    crate::write(
        dir.path(),
        "mail.json",
        r#"{"type":"object","properties":{"host":{"type":"string","format":"idn-hostname"},"to":{"type":"string","format":"idn-email"}}}"#,
    );
    let run = |args: &str| {
        let out = crate::callfix()
            .args(["-f", "json", "-s"])
            .arg(dir.path())
            .write_stdin(format!(r#"{{"name":"mail","arguments":{args}}}"#))
            .output()
            .unwrap();
        crate::json_lines(&out.stdout)[0]["status"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        run(r#"{"host":"bücher.example","to":"jürgen@bücher.example"}"#),
        "valid"
    );
    assert_eq!(run(r#"{"host":"-not a host-"}"#), "rejected");
    assert_eq!(run(r#"{"to":"not an email"}"#), "rejected");
}
