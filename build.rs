//! Sets `CALLFIX_VERSION`: the package version, and the commit it was built from
//! (`0.1.0 (1a2b3c4d5e)`), for `callfix --version`. The commit is
//! `$CALLFIX_COMMIT` when set (a build from a copy without `.git`: an sdist, a
//! container, a distribution's package), else what git says when the package
//! sits in a checkout, else none. The Python module's build (`pip install .`,
//! maturin) runs this same script (`build = "../build.rs"` in python/Cargo.toml),
//! so a pip-built `callfix --version` names the commit too.

use std::path::Path;
use std::process::Command;

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    println!("cargo:rerun-if-env-changed=CALLFIX_COMMIT");
    println!("cargo:rerun-if-changed=build.rs");
    let given = std::env::var("CALLFIX_COMMIT")
        .ok()
        .map(|c| clean(&c))
        .filter(|c| !c.is_empty());
    let commit = given.or_else(|| git(&dir, &["rev-parse", "--short=10", "HEAD"]));
    let full = match commit {
        Some(c) => format!("{version} ({c})"),
        None => version,
    };
    println!("cargo:rustc-env=CALLFIX_VERSION={full}");
    // A new commit changes HEAD, or the branch it names (in a worktree, that
    // branch's file is in the main checkout's git directory).
    let mut watch = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    watch.extend(git(&dir, &["symbolic-ref", "-q", "HEAD"]));
    for name in watch {
        if let Some(path) = git(
            &dir,
            &["rev-parse", "--path-format=absolute", "--git-path", &name],
        ) && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}

/// What git prints for `args`, run in `dir`, trimmed; `None` when there is no
/// git or no checkout.
fn git(dir: &str, args: &[&str]) -> Option<String> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// A commit as given: letters, digits, `.`, `_`, `-`, at most 40 of them (it
/// goes into one line of `--version`).
fn clean(given: &str) -> String {
    given
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        .take(40)
        .collect()
}
