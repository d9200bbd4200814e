//! Sets `CALLFIX_VERSION`: the package version, and the git commit when built
//! from a git checkout (`0.1.0 (1a2b3c4)`), for `callfix --version`.

use std::process::Command;

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let commit = Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    let full = match commit {
        Some(c) => format!("{version} ({c})"),
        None => version.to_owned(),
    };
    println!("cargo:rustc-env=CALLFIX_VERSION={full}");
    // A new commit changes HEAD (or the branch it names).
    for path in [".git/HEAD", ".git/refs/heads"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
