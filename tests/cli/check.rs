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
        "calls.jsonl:2:1: error[call-invalid]: recorded call 1.0 to \"good\" is not valid: q: expected string, got number",
        "calls.jsonl:3:1: error[record-unusable]: record at calls.jsonl:3 is not valid JSON: expected ident at line 3 column 2",
        "descriptions/good.txt:2:4: error[description-render]: unknown variable <PLATFROM>; did you mean <PLATFORM>?",
        "descriptions/orphan.txt:1:1: error[description-orphan]: description of \"orphan\", which has no schema",
        "schemas/bare.json:4:5: warning[property-undescribed]: property x has no description (the model learns the tool from them)",
        "schemas/meta.json:4:11: error[schema-invalid]: properties.a.type: \"strng\" is not a type (one of array, boolean, integer, null, number, object, string)",
        "schemas/notjson.json:4:1: error[schema-invalid]: not valid JSON: EOF while parsing an object at line 4 column 0",
        "schemas/req.json:1:1: warning[description-file-missing]: no descriptions/req.txt: the tool's own description is used",
        "schemas/req.json:5:21: error[required-undeclared]: \"required\" names \"b\", which is not a declared property",
        "schemas/uber.ride.json:1:1: warning[name-sanitised]: tool name \"uber.ride\" is not accepted by OpenAI, Anthropic and Gemini ([a-zA-Z0-9_-], at most 64); `callfix tools` sends it as \"uber_ride\"",
    ];
    assert_eq!(got, want, "in {p}");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "callfix: check: 6 tools, 2 calls: 7 errors, 3 warnings\n"
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
            "error[description-missing]: tool \"t\" has no description: add one to its definition, or {}",
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
    assert_eq!((&f["line"], &f["col"]), (&1.into(), &32.into()));
    assert_eq!(f["rule"], "property-undescribed");
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
        .stderr("callfix: check: 9 tools: 0 errors, 0 warnings\n");
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
        "{range}:8:7: error[provider-keyword]: tool \"range\": exclusiveMinimum at /properties/n: gemini refuses it"
    )), "{out}");
    assert!(out.contains("schemas/list.json:1:23: error[top-level-not-object]: tool \"list\": the top-level schema must be {\"type\": \"object\"} for gemini"), "{out}");
    assert!(
        out.contains(
            "schemas/a_b.json:1:1: error[name-collision]: tools \"a.b\", \"a_b\" all become \"a_b\""
        ),
        "{out}"
    );
    // OpenAI strict mode cannot express the open map.
    let (code, out) = run(&["--provider", "openai", "--openai-strict"]);
    assert_eq!(code, 1);
    assert!(out.contains(&format!(
        "{range}:13:7: error[strict-inexpressible]: tool \"range\": additionalProperties at /properties/env: strict mode takes only closed objects"
    )), "{out}");
    // Without --provider, only the name collision (it breaks every provider).
    let (_, out) = run(&[]);
    assert!(
        !out.contains("gemini") && out.contains("all become \"a_b\""),
        "{out}"
    );
}

fn findings_fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/findings")
}

/// The property `limit` of tests/fixtures/findings/schemas/search.json is on line
/// 14, column 7: every format says so.
#[test]
fn a_finding_is_at_its_line_and_column_in_every_format() {
    let run = |format: &str| {
        let out = callfix()
            .current_dir(findings_fixture())
            .args(["check", "--format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        String::from_utf8(out.stdout).unwrap()
    };
    let human = run("human");
    assert!(human.contains("schemas/search.json:14:7: warning[property-undescribed]: property limit has no description"), "{human}");
    assert_eq!(run("text"), human, "text is human");
    let json: Vec<serde_json::Value> = run("json")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let limit = json
        .iter()
        .find(|f| f["rule"] == "property-undescribed")
        .unwrap();
    assert_eq!(
        (
            &limit["file"],
            &limit["line"],
            &limit["col"],
            &limit["severity"]
        ),
        (
            &"schemas/search.json".into(),
            &14.into(),
            &7.into(),
            &"warning".into()
        )
    );
    let github = run("github");
    assert!(github.lines().any(|l| l.starts_with("::warning file=schemas/search.json,line=14,col=7,title=callfix property-undescribed::property limit has no description")), "{github}");
    assert!(
        github
            .lines()
            .all(|l| l.starts_with("::error ") || l.starts_with("::warning ")),
        "{github}"
    );
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).unwrap();
    let run0 = &sarif["runs"][0];
    let result = run0["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "property-undescribed")
        .unwrap();
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "schemas/search.json");
    assert_eq!(
        location["region"],
        serde_json::json!({"startLine": 14, "startColumn": 7})
    );
    assert_eq!(result["level"], "warning");
    let index = result["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(
        run0["tool"]["driver"]["rules"][index]["id"],
        "property-undescribed"
    );
    assert_eq!(sarif["version"], "2.1.0");
}

#[test]
fn auto_is_github_only_under_github_actions() {
    let run = |actions: Option<&str>| {
        let mut cmd = callfix();
        cmd.current_dir(findings_fixture())
            .args(["check", "--format", "auto"])
            .env_remove("GITHUB_ACTIONS");
        if let Some(v) = actions {
            cmd.env("GITHUB_ACTIONS", v);
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    let text = "descriptions/list.txt:1:22: error[description-render]: unknown variable <PLATFROM>; did you mean <PLATFORM>?\n\
                schemas/search.json:1:1: warning[description-file-missing]: no descriptions/search.txt: the tool's own description is used\n\
                schemas/search.json:14:7: warning[property-undescribed]: property limit has no description (the model learns the tool from them)\n\
                schemas/search.json:16:27: error[required-undeclared]: \"required\" names \"glob\", which is not a declared property\n";
    let github = String::from_utf8(
        callfix()
            .current_dir(findings_fixture())
            .args(["check", "--format", "github"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        github.starts_with("::error file=descriptions/list.txt,line=1,col=22,"),
        "{github}"
    );
    assert_eq!(run(Some("true")), github);
    assert_eq!(run(None), text);
    assert_eq!(run(Some("false")), text);
}

/// A plain tool list with its descriptions inside needs no descriptions folder;
/// one that exists beside the list is read, wherever `check` runs from, and the
/// file a finding asks for is the file `tools` then reads.
#[test]
fn descriptions_are_inline_or_beside_the_schema_source() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("conf");
    std::fs::create_dir(&conf).unwrap();
    write(
        &conf,
        "tools.json",
        r#"[{"type":"function","function":{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string","description":"The city."}},"required":["city"]}}},
 {"type":"function","function":{"name":"get.time","parameters":{"type":"object","properties":{}}}}]"#,
    );
    let check = || {
        callfix()
            .current_dir(dir.path())
            .args(["check", "-s", "conf/tools.json"])
            .output()
            .unwrap()
    };
    let out = check();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "conf/tools.json:2:40: error[description-missing]: tool \"get.time\" has no description: add one to its definition, or conf/descriptions/get.time.txt\n\
         conf/tools.json:2:40: warning[name-sanitised]: tool name \"get.time\" is not accepted by OpenAI, Anthropic and Gemini ([a-zA-Z0-9_-], at most 64); `callfix tools` sends it as \"get_time\"\n"
    );
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "callfix: check: 2 tools: 1 error, 1 warning\n"
    );
    // The file it asked for is read by check and by tools.
    let descriptions = conf.join("descriptions");
    std::fs::create_dir(&descriptions).unwrap();
    write(&descriptions, "get.time.txt", "The time on <PLATFORM>.\n");
    let out = check();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let payload = callfix()
        .current_dir(dir.path())
        .args(["tools", "-s", "conf/tools.json", "--var", "PLATFORM=linux"])
        .output()
        .unwrap();
    let payload: serde_json::Value = serde_json::from_slice(&payload.stdout).unwrap();
    assert_eq!(payload[1]["function"]["description"], "The time on linux.");
    // A directory named with --descriptions must exist.
    callfix()
        .current_dir(dir.path())
        .args([
            "check",
            "-s",
            "conf/tools.json",
            "--descriptions",
            "nowhere",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "nowhere:1:1: error[descriptions-not-found]",
        ));
}

/// `check` in `dir` with `--schemas schemas`: stdout's lines.
fn check_lines(dir: &std::path::Path) -> Vec<String> {
    let out = callfix()
        .current_dir(dir)
        .args(["check", "--schemas", "schemas"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout.lines().map(str::to_owned).collect()
}

#[test]
fn every_schema_error_in_a_file_is_reported_at_its_keyword() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("schemas");
    std::fs::create_dir_all(&s).unwrap();
    write(
        &s,
        "multi.json",
        "{\n  \"type\": \"object\",\n  \"description\": \"M.\",\n  \"properties\": {\n    \"a\": {\"type\": \"strng\", \"description\": \"A.\"},\n    \"b\": {\"type\": \"string\", \"pattern\": \"([a-z\", \"description\": \"B.\"}\n  },\n  \"required\": \"a\"\n}\n",
    );
    assert_eq!(
        check_lines(dir.path()),
        [
            "schemas/multi.json:5:11: error[schema-invalid]: properties.a.type: \"strng\" is not a type (one of array, boolean, integer, null, number, object, string)",
            "schemas/multi.json:6:29: error[schema-invalid]: properties.b.pattern: \"([a-z\" is not a regular expression callfix can compile (its engine runs in linear time: no look-around, no backreferences)",
            "schemas/multi.json:8:3: error[schema-invalid]: required: \"a\" is not of type \"array\"",
        ]
    );
}

#[test]
fn a_ref_that_does_not_resolve_is_reported_at_its_ref_in_callfix_words() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("schemas");
    std::fs::create_dir_all(&s).unwrap();
    write(
        &s,
        "_defs.json",
        r#"{"$defs": {"path": {"type": "string"}}}"#,
    );
    let schema = |r: &str| {
        format!(
            "{{\n  \"type\": \"object\",\n  \"description\": \"R.\",\n  \"properties\": {{\n    \"file_path\": {{\"$ref\": \"{r}\", \"description\": \"P.\"}}\n  }}\n}}\n"
        )
    };
    write(&s, "local.json", &schema("#/$defs/missing"));
    write(&s, "sibling.json", &schema("_defs.json#/$defs/nope"));
    write(&s, "absent.json", &schema("other.json"));
    write(&s, "remote.json", &schema("http://x/y.json"));
    // One file, two references that do not resolve: both are reported.
    write(
        &s,
        "two.json",
        "{\"type\": \"object\", \"description\": \"T.\", \"properties\": {\n \"a\": {\"$ref\": \"other.json\", \"description\": \"A.\"},\n \"b\": {\"$ref\": \"#/$defs/b\", \"description\": \"B.\"}}}\n",
    );
    let got = check_lines(dir.path());
    let want = [
        "schemas/absent.json:5:19: error[schema-invalid]: properties.file_path.$ref: \"other.json\" does not resolve: no such file or directory",
        "schemas/local.json:5:19: error[schema-invalid]: properties.file_path.$ref: \"#/$defs/missing\" does not resolve: no \"$defs/missing\" in this schema",
        "schemas/remote.json:5:19: error[schema-invalid]: properties.file_path.$ref: \"http://x/y.json\" does not resolve: callfix never fetches schemas over the network (serve it from a local directory with --ref-map PREFIX=DIR)",
        "schemas/sibling.json:5:19: error[schema-invalid]: properties.file_path.$ref: \"_defs.json#/$defs/nope\" does not resolve: no \"$defs/nope\" in _defs.json",
        "schemas/two.json:2:8: error[schema-invalid]: properties.a.$ref: \"other.json\" does not resolve: no such file or directory",
        "schemas/two.json:3:8: error[schema-invalid]: properties.b.$ref: \"#/$defs/b\" does not resolve: no \"$defs/b\" in this schema",
    ];
    // `_defs.json` is a tool too (a schema of no type): its findings are not
    // what this test is about.
    let got: Vec<&String> = got
        .iter()
        .filter(|l| !l.starts_with("schemas/_defs"))
        .collect();
    assert_eq!(got, want);
    assert!(!got.iter().any(|l| l.contains("registry")), "{got:?}");
}

#[test]
fn every_schema_error_of_a_tool_in_a_list_is_at_its_keyword() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "tools.json",
        r##"[
  {"type": "function", "function": {"name": "a", "description": "A.", "parameters": {
    "type": "object",
    "properties": {"x": {"$ref": "#/$defs/gone", "description": "X."}, "y": {"type": "nope", "description": "Y."}}
  }}}
]
"##,
    );
    callfix()
        .current_dir(dir.path())
        .args(["check", "--schemas", "tools.json"])
        .assert()
        .code(1)
        .stdout(concat!(
            "tools.json:4:26: error[schema-invalid]: tool \"a\": properties.x.$ref: \"#/$defs/gone\" does not resolve: no \"$defs/gone\" in this schema\n",
            "tools.json:4:78: error[schema-invalid]: tool \"a\": properties.y.type: \"nope\" is not a type (one of array, boolean, integer, null, number, object, string)\n",
        ));
}
