//! `callfix completions SHELL` and `callfix man`: generated from the command
//! line's own definition, so they know every subcommand and flag.

use crate::callfix;

fn stdout(args: &[&str]) -> String {
    let out = callfix().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    assert!(out.stderr.is_empty(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn completions_for_each_shell_know_subcommands_and_flags() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(&["completions", shell]);
        for word in ["check", "tools", "openai-strict", "to"] {
            assert!(script.contains(word), "{shell}: {word}");
        }
    }
    // The bash script is valid bash.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("callfix.bash");
    std::fs::write(&path, stdout(&["completions", "bash"])).unwrap();
    let status = std::process::Command::new("bash")
        .arg("-n")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    callfix().args(["completions", "tcsh"]).assert().code(2);
}

#[test]
fn man_page_is_roff_with_every_subcommand() {
    let page = stdout(&["man"]);
    assert!(page.contains(".TH callfix 1"), "{page}");
    for word in ["completions", "check", "mcp", "hook"] {
        assert!(page.contains(word), "{word}");
    }
}

#[test]
fn version_names_the_commit_when_built_from_git() {
    let version = stdout(&["--version"]);
    let pkg = env!("CARGO_PKG_VERSION");
    let built_from_git = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".git")
        .exists();
    let rest = version.strip_prefix(&format!("callfix {pkg}")).unwrap();
    match built_from_git {
        true => {
            let hash = rest
                .trim()
                .strip_prefix('(')
                .unwrap()
                .strip_suffix(')')
                .unwrap();
            assert_eq!(hash.len(), 10, "{version}");
            assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{version}");
        }
        false => assert_eq!(rest, "\n"),
    }
}
