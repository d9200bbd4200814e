//! `scripts/public_api.py`, the public-API snapshot check: it passes on the list
//! it wrote, and fails with a diff and the way to accept the change when the list
//! and the crate differ. It writes only into the test's own directory (`--list`).

use std::process::{Command, Output};

use crate::root;

fn public_api(args: &[&std::ffi::OsStr]) -> Output {
    Command::new("python3")
        .arg(root().join("scripts/public_api.py"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn public_api_check_fails_when_the_list_differs_from_the_crate() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("public-api.txt");
    let hint = "the public API changed: if on purpose, run python3 scripts/public_api.py --write";

    // No list yet: a failure that says how to make one.
    let out = public_api(&["--list".as_ref(), list.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(hint), "{stderr}");

    // The list of the crate as it is: the check passes on it.
    let out = public_api(&["--write".as_ref(), "--list".as_ref(), list.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read_to_string(&list).unwrap();
    assert!(written.lines().any(|l| l == "pub mod callfix"), "{written}");
    let out = public_api(&["--list".as_ref(), list.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // One item gone from the list, one the crate does not have: exit 1, both
    // shown in the diff (list → crate), and the hint.
    let tampered: String = written
        .lines()
        .filter(|l| *l != "pub mod callfix")
        .chain(["pub fn callfix::no_such_function()"])
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&list, tampered).unwrap();
    let out = public_api(&["--list".as_ref(), list.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("\n+pub mod callfix\n"), "{stdout}");
    assert!(
        stdout.contains("\n-pub fn callfix::no_such_function()\n"),
        "{stdout}"
    );
    assert!(stderr.contains(hint), "{stderr}");
}
