//! Output formats, options and exit codes.

use predicates::prelude::*;
use serde_json::{Value, json};

use crate::{callfix, json_lines, run_args, run_json};

const EXAMPLE: &str = "examples/calls.jsonl";

#[test]
fn the_readme_example_prints_one_line_per_call_in_order() {
    let out = callfix().arg(EXAMPLE).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // 20 records: 19 calls, one broken record, one record without calls.
    assert_eq!(lines.len(), 20);
    assert_eq!(
        lines[0],
        r#"{"file_path":"/work/app/src/main.rs","offset":120,"limit":80}"#
    );
    assert_eq!(
        lines[1],
        "Please rewrite the input with valid arguments. Errors: file_path: Required; limit: expected integer, got string"
    );
    assert!(lines[10].starts_with("record at examples/calls.jsonl:10 is incomplete"));
}

#[test]
fn json_format_has_exactly_the_documented_fields() {
    let out = callfix().args(["-f", "json", EXAMPLE]).output().unwrap();
    for r in json_lines(&out.stdout) {
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "index", "call", "id", "tool", "status", "args", "repairs", "errors", "message",
                "loop"
            ]
        );
        match r["status"].as_str().unwrap() {
            "valid" | "repaired" => {
                assert!(r["args"].is_object());
                assert!(r["message"].is_null());
                assert_eq!(r["errors"], json!([]));
            }
            "rejected" => {
                assert!(r["args"].is_null());
                assert!(r["message"].is_string());
                assert!(!r["errors"].as_array().unwrap().is_empty());
            }
            other => panic!("unexpected status {other}"),
        }
    }
}

#[test]
fn valid_args_come_out_equal_to_the_input() {
    let args =
        json!({"command": "printf 'é\\n' | wc -c", "description": "Count bytes", "timeout": 5000});
    let input = format!("{}\n", json!({"name": "bash", "arguments": args}));
    let (code, out) = run_json(&[], &input);
    assert_eq!(code, 0);
    assert_eq!(out[0]["args"], args);
    // Key order is kept too.
    let (_, lines) = run_args(&[], input);
    assert_eq!(lines[0], args.to_string());
}

#[test]
fn call_format_writes_each_provider_back() {
    let input = [
        json!({"id": "call_1", "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\": \"*\"}"}}),
        json!({"type": "tool_use", "id": "toolu_1", "name": "glob", "input": {"pattern": [1]}}),
        json!({"functionCall": {"name": "glob", "args": {}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "glob", "arguments": {"pattern": "*"}}}),
        json!({"type": "function_call", "call_id": "c9", "name": "glob", "arguments": "{}"}),
        json!({"id": "call_2", "type": "function", "function": {"name": "nope", "arguments": "{}"}}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    let out = callfix()
        .args(["-f", "call"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = json_lines(&out.stdout);
    let msg = |e: &str| format!("Please rewrite the input with valid arguments. Errors: {e}");
    assert_eq!(
        out[0],
        json!({"id": "call_1", "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\":\"*\"}"}})
    );
    assert_eq!(
        out[1],
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
               "content": msg("pattern: expected string, got array")})
    );
    assert_eq!(
        out[2],
        json!({"functionResponse": {"name": "glob", "response": {"error": msg("pattern: Required")}}})
    );
    assert_eq!(
        out[3],
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "glob", "arguments": {"pattern": "*"}}})
    );
    assert_eq!(
        out[4],
        json!({"type": "function_call_output", "call_id": "c9", "output": msg("pattern: Required")})
    );
    assert_eq!(out[5]["role"], "tool");
    assert_eq!(out[5]["tool_call_id"], "call_2");
    assert!(
        out[5]["content"]
            .as_str()
            .unwrap()
            .starts_with("Unknown tool \"nope\"")
    );
}

#[test]
fn human_format_shows_status_args_and_errors() {
    callfix()
        .args(["-f", "human", "--color", "never"])
        .write_stdin("{\"id\":\"c1\",\"name\":\"read\",\"arguments\":{\"limit\":\"5\"}}")
        .assert()
        .code(1)
        .stdout(
            "#0.0 read rejected id=c1\n    {\n      \"limit\": \"5\"\n    }\n  \
             ✗ file_path: Required\n  ✗ limit: expected integer, got string\n  \
             → Please rewrite the input with valid arguments. Errors: file_path: Required; limit: expected integer, got string\n",
        );
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let input = "{\"name\":\"glob\",\"arguments\":{\"pattern\":\"*\"}}";
    let colored = |args: &[&str], no_color: bool| {
        let mut cmd = callfix();
        if !no_color {
            cmd.env_remove("NO_COLOR");
        }
        let out = cmd
            .args(["-f", "human"])
            .args(args)
            .write_stdin(input)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().contains("\x1b[")
    };
    assert!(colored(&["--color", "always"], true));
    assert!(!colored(&["--color", "never"], false));
    // Not a terminal: auto means no colour.
    assert!(!colored(&[], false));
}

#[test]
fn prefix_max_errors_and_max_chars() {
    let input = "{\"name\":\"todowrite\",\"arguments\":{\"todos\":[{},{},{}]}}";
    let (_, lines) = run_args(&["--prefix", "Fix:", "--max-errors", "2"], input);
    assert_eq!(
        lines[0],
        "Fix: todos.0.content: Required; todos.0.status: Required; (+7 more)"
    );
    let (_, lines) = run_args(&["--max-chars", "12", "--max-errors", "1"], input);
    assert_eq!(
        lines[0],
        "Please rewrite the input with valid arguments. Errors: todos.0.con…; (+8 more)"
    );
}

#[test]
fn exit_codes() {
    let valid = "{\"name\":\"glob\",\"arguments\":{\"pattern\":\"*\"}}\n";
    let invalid = "{\"name\":\"glob\",\"arguments\":{}}\n";
    callfix().write_stdin(valid).assert().code(0);
    callfix()
        .write_stdin(format!("{valid}{invalid}"))
        .assert()
        .code(1);
    callfix().write_stdin("").assert().code(0).stdout("");
    callfix().write_stdin("not json\n").assert().code(1);
    // --strict has nothing to add while no call is repaired.
    callfix()
        .arg("--strict")
        .write_stdin(valid)
        .assert()
        .code(0);
    // Usage errors and unreadable sources.
    callfix().arg("--format=xml").assert().code(2);
    callfix()
        .args(["-s", "/no/such/dir"])
        .write_stdin(valid)
        .assert()
        .code(2)
        .stderr("callfix: schema source /no/such/dir: no such file or directory\n");
    callfix()
        .args(["/no/such/file.jsonl", "examples/calls.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "callfix: error: cannot read /no/such/file.jsonl: no such file or directory",
        ))
        .stdout(predicate::str::contains("/work/app/src/main.rs"));
}

#[test]
fn help_documents_the_exit_codes() {
    callfix()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "Exit codes:\n  0  every call valid",
        ));
}

#[test]
fn stats_go_to_stderr() {
    callfix()
        .args(["--stats", EXAMPLE])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "callfix: 20 records: 19 calls (5 valid, 7 repaired, 7 rejected), 1 broken record, 1 record without calls\n  tool ",
        ))
        .stderr(predicate::str::contains(
            "\n  read             4        1         2         1        50.0%\n",
        ));
}

#[test]
fn schemas_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    crate::write(
        dir.path(),
        "ping.json",
        r#"{"type":"object","required":["host"]}"#,
    );
    callfix()
        .env("CALLFIX_SCHEMAS", dir.path())
        .write_stdin("{\"name\":\"ping\",\"arguments\":{\"host\":\"a\"}}")
        .assert()
        .code(0);
}

#[test]
fn colour_follows_no_color_and_clicolor_force() {
    let run = |env: &[(&str, &str)]| {
        let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("callfix");
        cmd.current_dir(crate::root())
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CALLFIX_SCHEMAS")
            .args(["-f", "human"])
            .write_stdin(r#"{"name":"glob","arguments":{"pattern":"*"}}"#);
        for (k, v) in env {
            cmd.env(k, v);
        }
        String::from_utf8(cmd.output().unwrap().stdout)
            .unwrap()
            .contains('\u{1b}')
    };
    // Piped: no colour, unless forced.
    assert!(!run(&[]));
    assert!(run(&[("CLICOLOR_FORCE", "1")]));
    assert!(!run(&[("CLICOLOR_FORCE", "0")]));
    // NO_COLOR set and not empty wins, "0" too; set but empty it is ignored.
    assert!(!run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(!run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "0")]));
    assert!(run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "")]));
}

#[test]
fn json_results_validate_against_the_published_schema() {
    let text = std::fs::read_to_string(crate::root().join("docs/result.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut input = std::fs::read_to_string(crate::root().join("examples/calls.jsonl")).unwrap();
    input.push_str("garbage\n{\"name\":\"nope\",\"arguments\":{}}\n");
    let mut checked = 0;
    for extra in [&[][..], &["--to", "mistral"], &["--repair", "none"]] {
        let (_, results) = crate::run_json(extra, &input);
        for r in &results {
            let errors: Vec<String> = validator.iter_errors(r).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{r}\n{errors:?}");
            checked += 1;
        }
    }
    assert!(checked >= 60, "{checked}");
}
