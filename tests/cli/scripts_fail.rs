//! The project's checking scripts can fail: a case they cannot judge is a failure,
//! never a pass.

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
