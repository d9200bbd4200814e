//! `callfix check`: every finding, the formats and the exit codes.

use predicates::prelude::*;

use crate::{callfix, write};

/// A tool set with one of each problem.
fn broken_set() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("schemas");
    let d = dir.path().join("descriptions");
    std::fs::create_dir_all(&s).unwrap();
    std::fs::create_dir_all(&d).unwrap();
    write(
        &s,
        "good.json",
        r#"{"type":"object","properties":{"q":{"type":"string","description":"Query."}},"required":["q"]}"#,
    );
    write(
        &s,
        "notjson.json",
        "{\n  \"type\": \"object\",\n  \"properties\": {\n",
    );
    write(
        &s,
        "meta.json",
        "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"a\": {\"type\": \"strng\"}\n  }\n}",
    );
    write(
        &s,
        "req.json",
        "{\n  \"type\": \"object\",\n  \"description\": \"Own.\",\n  \"properties\": {\"a\": {\"type\": \"string\", \"description\": \"A.\"}},\n  \"required\": [\"a\", \"b\"]\n}",
    );
    write(
        &s,
        "bare.json",
        "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"x\": {\"type\": \"string\"}\n  }\n}",
    );
    write(&s, "uber.ride.json", r#"{"type":"object","properties":{}}"#);
    for t in ["good", "notjson", "meta", "bare", "uber.ride"] {
        write(&d, &format!("{t}.txt"), "Fine on <PLATFORM>.\n");
    }
    write(&d, "good.txt", "Search.\nOn <PLATFROM>.\n");
    write(&d, "orphan.txt", "No schema for me.\n");
    write(
        dir.path(),
        "calls.jsonl",
        "{\"name\":\"good\",\"arguments\":{\"q\":\"x\"}}\n{\"name\":\"good\",\"arguments\":{\"q\":1}}\nnot json\n",
    );
    dir
}

#[test]
fn every_finding_linter_style() {
    let dir = broken_set();
    let p = dir.path().display().to_string();
    let out = callfix()
        .current_dir(dir.path())
        .args(["check", "--calls", "calls.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = stdout.lines().collect();
    let want = [
        "calls.jsonl:2: error: recorded call 1.0 to \"good\" is not valid: q: expected string, got number".to_owned(),
        "calls.jsonl:3: error: record at calls.jsonl:3 is not valid JSON: expected ident at line 3 column 2".to_owned(),
        "descriptions/good.txt:2: error: unknown variable <PLATFROM> (column 4); did you mean <PLATFORM>?".to_owned(),
        "descriptions/orphan.txt:1: error: description of \"orphan\", which has no schema".to_owned(),
        "schemas/bare.json:4: warning: property x has no description (the model learns the tool from them)".to_owned(),
        "schemas/meta.json:4: error: \"strng\" is not valid under any of the schemas listed in the 'anyOf' keyword (at /properties/a/type)".to_owned(),
        "schemas/notjson.json:4: error: not valid JSON: EOF while parsing an object at line 4 column 0".to_owned(),
        "schemas/req.json:1: warning: no descriptions/req.txt: the schema's own description is used".to_owned(),
        "schemas/req.json:5: error: \"required\" names \"b\", which is not a declared property".to_owned(),
        "schemas/uber.ride.json:1: warning: tool name \"uber.ride\" is not accepted by OpenAI, Anthropic and Gemini ([a-zA-Z0-9_-], at most 64); `callfix tools` sends it as \"uber_ride\"".to_owned(),
    ];
    assert_eq!(got, want, "in {p}");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "callfix: check: 7 errors, 3 warnings\n"
    );
}

#[test]
fn a_tool_without_any_description_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.json", r#"{"type":"object","properties":{}}"#);
    let d = dir.path().join("d");
    std::fs::create_dir(&d).unwrap();
    callfix()
        .args(["check", "-s"])
        .arg(dir.path())
        .arg("--descriptions")
        .arg(&d)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "error: tool \"t\" has no description: add {}",
            d.join("t.txt").display()
        )));
}

#[test]
fn json_format_and_deny_warnings() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "t.json",
        r#"{"type":"object","properties":{"x":{"type":"string"}}}"#,
    );
    let d = dir.path().join("d");
    std::fs::create_dir(&d).unwrap();
    write(&d, "t.txt", "T.");
    let run = |extra: &[&str]| {
        callfix()
            .args(["check", "-s"])
            .arg(dir.path())
            .arg("--descriptions")
            .arg(&d)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let f: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["line"], 1);
    assert_eq!(
        f["message"],
        "property x has no description (the model learns the tool from them)"
    );
    assert_eq!(run(&["--deny-warnings"]).status.code(), Some(1));
}

#[test]
fn the_shipped_tool_set_passes() {
    callfix()
        .arg("check")
        .assert()
        .code(0)
        .stdout("")
        .stderr("callfix: check: 0 errors, 0 warnings\n");
}

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
            "calls.jsonl:1: error: recorded call 0.0 to \"read\" is not valid: offset: expected integer, got string",
        ));
}

/// `check --provider`: what that provider's API would refuse, found before
/// `tools` or the API refuses it.
#[test]
fn provider_findings_predict_what_the_api_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("schemas");
    std::fs::create_dir_all(&s).unwrap();
    let described = r#""description": "D.""#;
    write(
        &s,
        "range.json",
        &format!(
            "{{\n  {described},\n  \"type\": \"object\",\n  \"properties\": {{\n    \"n\": {{\n      \"type\": \"integer\",\n      \"description\": \"N.\",\n      \"exclusiveMinimum\": 0\n    }},\n    \"env\": {{\n      \"type\": \"object\",\n      \"description\": \"E.\",\n      \"additionalProperties\": {{\"type\": \"string\"}}\n    }}\n  }}\n}}"
        ),
    );
    write(
        &s,
        "list.json",
        &format!("{{{described}, \"type\": \"array\"}}"),
    );
    write(
        &s,
        "a.b.json",
        &format!("{{{described}, \"type\": \"object\", \"properties\": {{}}}}"),
    );
    write(
        &s,
        "a_b.json",
        &format!("{{{described}, \"type\": \"object\", \"properties\": {{}}}}"),
    );
    let run = |args: &[&str]| {
        let out = callfix()
            .current_dir(dir.path())
            .arg("check")
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        )
    };
    let (code, out) = run(&["--provider", "gemini"]);
    assert_eq!(code, 1, "{out}");
    let range = "schemas/range.json";
    assert!(out.contains(&format!(
        "{range}:8: warning: tool \"range\": exclusiveMinimum at /properties/n: gemini does not take it"
    )), "{out}");
    assert!(out.contains("schemas/list.json:1: error: tool \"list\": the top-level schema must be {\"type\": \"object\"} for gemini"), "{out}");
    assert!(
        out.contains("error: tools \"a.b\", \"a_b\" all become \"a_b\""),
        "{out}"
    );
    // OpenAI strict mode cannot express the open map.
    let (code, out) = run(&["--provider", "openai", "--openai-strict"]);
    assert_eq!(code, 1);
    assert!(out.contains(&format!(
        "{range}:13: error: tool \"range\": additionalProperties at /properties/env: strict mode takes only closed objects"
    )), "{out}");
    // Without --provider, only the name collision (it breaks every provider).
    let (_, out) = run(&[]);
    assert!(
        !out.contains("gemini") && out.contains("all become \"a_b\""),
        "{out}"
    );
}
