//! `callfix.toml`: found upward or named, paths relative to it, and the
//! precedence flag > environment > config > default.

use predicates::prelude::*;

use crate::{callfix, write};

/// A project with four schema directories, one tool each, to tell which one a
/// run used: `schemas` (the default), `conf` (the config's), `env` and `flag`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (sub, tool) in [
        ("schemas", "from_default"),
        ("conf", "from_config"),
        ("env", "from_env"),
        ("flag", "from_flag"),
    ] {
        let d = dir.path().join(sub);
        std::fs::create_dir(&d).unwrap();
        write(
            &d,
            &format!("{tool}.json"),
            r#"{"type":"object","description":"T.","properties":{}}"#,
        );
    }
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    dir
}

/// The one tool `callfix tools` printed, run in `cwd` with `args` and `env`.
fn tool_used(cwd: &std::path::Path, args: &[&str], env: Option<&str>) -> String {
    let mut cmd = callfix();
    cmd.current_dir(cwd).arg("tools").args(args);
    if let Some(e) = env {
        cmd.env("CALLFIX_SCHEMAS", e);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let payload: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    payload[0]["function"]["name"].as_str().unwrap().to_owned()
}

#[test]
fn flag_over_environment_over_config_over_default() {
    let dir = project();
    let p = dir.path();
    assert_eq!(tool_used(p, &[], None), "from_default");
    write(p, "callfix.toml", "schemas = [\"conf\"]\n");
    assert_eq!(tool_used(p, &[], None), "from_config");
    assert_eq!(tool_used(p, &[], Some("env")), "from_env");
    assert_eq!(tool_used(p, &["-s", "flag"], Some("env")), "from_flag");
    assert_eq!(tool_used(p, &["--no-config"], None), "from_default");
}

#[test]
fn found_upward_with_paths_relative_to_it() {
    let dir = project();
    write(dir.path(), "callfix.toml", "schemas = \"conf\"\n");
    let sub = dir.path().join("sub");
    assert_eq!(tool_used(&sub, &[], None), "from_config");
    // Named instead: --config, before or after the subcommand, or CALLFIX_CONFIG.
    let other = tempfile::tempdir().unwrap();
    let named = dir.path().join("callfix.toml");
    let named = named.to_str().unwrap();
    assert_eq!(
        tool_used(other.path(), &["--config", named], None),
        "from_config"
    );
    callfix()
        .current_dir(other.path())
        .args(["--config", named, "check"])
        .assert()
        .code(0)
        .stderr("callfix: check: 1 tool: 0 errors, 0 warnings\n");
    callfix()
        .current_dir(other.path())
        .env("CALLFIX_CONFIG", named)
        .arg("check")
        .assert()
        .code(0);
}

#[test]
fn judging_settings_and_vars_are_shared_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir(p.join("schemas")).unwrap();
    write(
        &p.join("schemas"),
        "read.json",
        r#"{"type":"object","description":"Read.","properties":{"file_path":{"type":"string","description":"F."},"limit":{"type":"integer","description":"L."}},"required":["file_path"]}"#,
    );
    std::fs::create_dir(p.join("descriptions")).unwrap();
    write(
        &p.join("descriptions"),
        "read.txt",
        "Read up to <LIMIT> lines on <PLATFORM>.\n",
    );
    write(
        p,
        "callfix.toml",
        "prefix = \"Fix the call.\"\nmax-errors = 1\nrepair = \"none\"\n\n[vars]\nPLATFORM = \"plan9\"\nLIMIT = 5\n",
    );
    let calls = "{\"name\":\"read\",\"arguments\":{\"limit\":\"5\"}}\n\
                 {\"name\":\"read\",\"arguments\":{\"file_path\":\"/a\",\"limit\":\"5\"}}\n";
    let filter = |args: &[&str]| {
        let out = callfix()
            .current_dir(p)
            .args(["-f", "args"])
            .args(args)
            .write_stdin(calls)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    // repair = none: "5" is not coerced; max-errors = 1; the config's prefix.
    assert_eq!(
        filter(&[]),
        "Fix the call. file_path: Required; (+1 more)\n\
         Fix the call. limit: expected integer, got string\n"
    );
    // Flags override each setting.
    assert_eq!(
        filter(&["--prefix", "Again.", "--max-errors", "5", "--repair", "all"]),
        "Again. file_path: Required; limit: expected integer, got string\n\
         {\"file_path\":\"/a\",\"limit\":5}\n"
    );
    let rendered = |args: &[&str]| {
        let out = callfix()
            .current_dir(p)
            .arg("tools")
            .args(args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v[0]["function"]["description"].as_str().unwrap().to_owned()
    };
    assert_eq!(rendered(&[]), "Read up to 5 lines on plan9.");
    assert_eq!(
        rendered(&["--var", "PLATFORM=linux"]),
        "Read up to 5 lines on linux."
    );
}

#[test]
fn check_reports_a_config_it_cannot_use_and_other_commands_stop() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(
        p,
        "callfix.toml",
        "schemas = \"schemas\"\n\nmax-error = 3\n",
    );
    callfix()
        .current_dir(p)
        .arg("check")
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "callfix.toml:3:1: error[config-invalid]: unknown field `max-error`, expected one of",
        ));
    callfix()
        .current_dir(p)
        .args(["check", "--format", "github"])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "::error file=callfix.toml,line=3,col=1,title=callfix config-invalid::unknown field `max-error`",
        ));
    // A value its flag would refuse, at the value.
    write(p, "callfix.toml", "max-chars = 3\n");
    callfix()
        .current_dir(p)
        .arg("check")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "callfix.toml:1:13: error[config-invalid]: max-chars: invalid value '3' for '--max-chars <N>': 3 is not in 10..=65535",
        ));
    callfix()
        .current_dir(p)
        .args(["-t", "read"])
        .write_stdin("{}")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "callfix: error: callfix.toml:1:13: max-chars: invalid value '3'",
        ));
    callfix()
        .current_dir(p)
        .args(["--config", "missing.toml", "check"])
        .assert()
        .code(1)
        .stdout("missing.toml:1:1: error[config-invalid]: config file not found\n");
}

/// The example in docs/config.md is a config callfix takes.
#[test]
fn the_documented_example_is_valid() {
    let page = std::fs::read_to_string(crate::root().join("docs/config.md")).unwrap();
    let start = page.find("```toml\n").unwrap() + "```toml\n".len();
    let example = &page[start..start + page[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("callfix.toml");
    std::fs::write(
        &file,
        example
            .replace(
                "[\"schemas\"]",
                &format!("[{:?}]", crate::root().join("schemas")),
            )
            .replace(
                "\"descriptions\"",
                &format!("{:?}", crate::root().join("descriptions")),
            ),
    )
    .unwrap();
    callfix()
        .arg("--config")
        .arg(&file)
        .arg("check")
        .assert()
        .code(0)
        .stderr("callfix: check: 9 tools: 0 errors, 0 warnings\n");
}

/// `jobs` sets the filter's `--jobs`: the output is the same, a negative value
/// is refused at the value, and the flag wins.
#[test]
fn jobs_from_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let schemas = crate::root().join("schemas");
    let calls = crate::root().join("examples/calls.jsonl");
    let run = |args: &[&str]| {
        callfix()
            .current_dir(p)
            .args(["-f", "json", "-s"])
            .arg(&schemas)
            .args(args)
            .arg(&calls)
            .output()
            .unwrap()
    };
    let one = run(&["--no-config"]);
    write(p, "callfix.toml", "jobs = 2\n");
    assert_eq!(run(&[]).stdout, one.stdout);
    assert_eq!(run(&["--jobs", "1"]).stdout, one.stdout);
    write(p, "callfix.toml", "jobs = -1\n");
    let refused = run(&[]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("callfix.toml:1:8: jobs: "), "{stderr}");
}
