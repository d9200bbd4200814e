//! The project's checking scripts can fail: a case they cannot judge, or a command
//! that crashes, is a failure, never a pass.

use crate::root;

/// `scripts/conformance.py` on a one-case suite whose schema does not compile:
/// callfix rejects every call to that tool, which must not count as the case's
/// invalid instance being caught.
#[test]
fn conformance_fails_a_schema_that_does_not_compile() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    let draft = suite.join("tests/draft7");
    std::fs::create_dir_all(&draft).unwrap();
    std::fs::create_dir_all(suite.join("remotes")).unwrap();
    std::fs::write(
        draft.join("broken.json"),
        r#"[{"description": "type names no type", "schema": {"type": "strng"},
             "tests": [{"description": "an instance the schema would reject", "data": 1, "valid": false}]}]"#,
    )
    .unwrap();
    let known = dir.path().join("known.md");
    std::fs::write(
        &known,
        "| draft | file | case | why |\n| --- | --- | --- | --- |\n",
    )
    .unwrap();
    let out = std::process::Command::new("python3")
        .arg(root().join("scripts/conformance.py"))
        .arg("--callfix")
        .arg(assert_cmd::cargo::cargo_bin!("callfix"))
        .arg("--suite")
        .arg(&suite)
        .arg("--known")
        .arg(&known)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "UNEXPECTED draft7 broken.json: 'type names no type' / 'an instance the schema would reject': \
             expected invalid, got a schema that does not compile"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n1 tests, 0 passed, 1 failed "),
        "{stdout}"
    );
}

/// `scripts/bench.sh` times commands with its `best` function: one that crashes
/// (here a shell killing itself with SIGSEGV) ends the bench with its exit code,
/// never timed as a fast run.
#[test]
fn bench_fails_a_timed_command_that_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, "{}\n").unwrap();
    // The bench's own helper functions, taken from the script, then one timed run.
    let script = format!(
        "set -euo pipefail\n\
         eval \"$(sed -n '/^checked() {{/,/^}}/p;/^best() {{/,/^}}/p' '{bench}')\"\n\
         t=$(best 1 '{input}' sh -c 'kill -SEGV $$')\n\
         echo \"timed: $t\"\n",
        bench = root().join("scripts/bench.sh").display(),
        input = input.display(),
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("error: bench: exit 139 from: sh -c kill -SEGV $$"),
        "{stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}
