//! `callfix render`.

use predicates::prelude::*;

use crate::{callfix, write};

fn template(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.txt", text);
    let path = dir.path().join("t.txt").display().to_string();
    (dir, path)
}

fn render(text: &str, args: &[&str]) -> std::process::Output {
    let (_dir, path) = template(text);
    callfix()
        .arg("render")
        .arg(&path)
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn each_builtin() {
    let out = render("<PLATFORM>|<ARCH>|<SHELL>|<CWD>|<HOME>|<DATE>|<YEAR>", &[]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let parts: Vec<&str> = text.split('|').collect();
    let platform = match std::env::consts::OS {
        "macos" => "darwin",
        os => os,
    };
    assert_eq!(parts[0], platform);
    assert_eq!(parts[1], std::env::consts::ARCH);
    assert!(
        !parts[2].is_empty() && !parts[2].contains('/'),
        "{}",
        parts[2]
    );
    assert_eq!(parts[3], crate::root().display().to_string());
    assert_eq!(parts[4], std::env::var("HOME").unwrap_or_default());
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .unwrap();
    assert_eq!(parts[5], String::from_utf8(date.stdout).unwrap().trim());
    assert_eq!(parts[6], &parts[5][..4]);
}

#[test]
fn shell_is_the_basename_of_shell_or_sh() {
    let (_dir, path) = template("<SHELL>");
    callfix()
        .arg("render")
        .arg(&path)
        .env("SHELL", "/usr/bin/zsh")
        .assert()
        .stdout("zsh");
    callfix()
        .arg("render")
        .arg(&path)
        .env_remove("SHELL")
        .assert()
        .stdout("sh");
}

#[test]
fn overrides_and_vars_files() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "vars.json",
        r#"{"MAX_LINES": 2000, "TOOL_NAME": "grep", "PLATFORM": "plan9"}"#,
    );
    let vars = dir.path().join("vars.json");
    let out = render(
        "<PLATFORM> <MAX_LINES> <TOOL_NAME>",
        &[
            "--vars",
            vars.to_str().unwrap(),
            "--var",
            "PLATFORM=windows",
        ],
    );
    assert_eq!(stdout(&out), "windows 2000 grep");
    write(dir.path(), "bad.json", r#"{"X": [1]}"#);
    callfix()
        .args(["render", "descriptions/bash.txt", "--vars"])
        .arg(dir.path().join("bad.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "\"X\" is array, not a string or number",
        ));
}

#[test]
fn prose_in_angle_brackets_is_untouched() {
    let text = "<important-rules>\n- Vec<T> and a < b > c and <a href=\"x\">link</a>\n<example>\n</important-rules>\n";
    let out = render(text, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), text);
}

#[test]
fn escapes() {
    let out = render("literal \\<PLATFORM>, real <YEAR>", &["--var", "YEAR=2026"]);
    assert_eq!(stdout(&out), "literal <PLATFORM>, real 2026");
}

#[test]
fn unknown_variables_all_reported_with_location_and_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "bash.txt",
        "Shell on <PLATFROM>.\nUse <SHEL>.\n",
    );
    write(
        dir.path(),
        "read.txt",
        "ok <DATE>\nbad <NO_SUCH_THING_AT_ALL>\n",
    );
    let out_dir = dir.path().join("out");
    let out = callfix()
        .args([
            "render",
            dir.path().to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let bash = dir.path().join("bash.txt").display().to_string();
    let read = dir.path().join("read.txt").display().to_string();
    assert_eq!(
        stderr,
        format!(
            "callfix: error: unknown variable <PLATFROM> at {bash}:1:10 (did you mean <PLATFORM>?)\n\
             callfix: error: unknown variable <SHEL> at {bash}:2:5 (did you mean <SHELL>?)\n\
             callfix: error: unknown variable <NO_SUCH_THING_AT_ALL> at {read}:2:5\n"
        )
    );
    // Nothing is written when any template fails.
    assert!(!out_dir.exists());
}

#[test]
fn several_templates_to_a_directory_or_json() {
    let out = tempfile::tempdir().unwrap();
    callfix()
        .args(["render", "descriptions", "--out"])
        .arg(out.path())
        .assert()
        .code(0);
    let bash = std::fs::read_to_string(out.path().join("bash.txt")).unwrap();
    assert!(bash.starts_with("Runs a command in a "), "{bash}");
    assert!(!bash.contains("<SHELL>"));
    let json = callfix()
        .args(["render", "descriptions", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 9);
    callfix()
        .args(["render", "descriptions"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out DIR or --format json"));
}

#[test]
fn unused_var_is_a_warning() {
    let out = render("<YEAR>", &["--var", "UNUSED_ONE=1", "--var", "YEAR=1999"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "callfix: warning: --var UNUSED_ONE is not used by any template\n"
    );
}

#[test]
fn each_syntax() {
    let cases = [
        ("brace", "{NAME} {a,b}", "x {a,b}"),
        ("dollar", "${NAME} $NAME", "x $NAME"),
        ("mustache", "{{NAME}} {{ NAME }} {NAME}", "x x {NAME}"),
        ("angle", "<NAME> {NAME}", "x {NAME}"),
    ];
    for (syntax, text, want) in cases {
        let out = render(text, &["--syntax", syntax, "--var", "NAME=x"]);
        assert_eq!(stdout(&out), want, "{syntax}");
    }
    // Same strictness in every syntax.
    let out = render("${nmae}", &["--syntax", "dollar", "--var", "name=x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("unknown variable ${nmae}")
    );
}

#[test]
fn a_value_holding_a_placeholder_is_an_error() {
    let out = render("<A_B>", &["--var", "A_B=<C_D>"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("the value of <A_B> holds the placeholder <C_D>")
    );
}
