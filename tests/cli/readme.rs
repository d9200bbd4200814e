//! The README's and the manual's (`docs/*.md`) examples are run: every
//! `$ command` in a ```console block is
//! executed with `sh` in a fresh temporary directory holding copies of the shipped
//! `schemas/`, `descriptions/` and `examples/` (with the built `callfix` first on
//! PATH and `TMPDIR` inside that directory), and its output compared with the
//! lines below it. An example can write files, but only there. `CALLFIX_BLESS=1`
//! rewrites the outputs in place.

use std::process::Command;

use crate::root;

struct Example {
    /// Line index of the `$ ` line in the README.
    line: usize,
    command: String,
    expected: Vec<String>,
}

fn examples(readme: &str) -> Vec<Example> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut in_block = false;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if l.starts_with("```console") {
            in_block = true;
        } else if l.starts_with("```") {
            in_block = false;
        } else if in_block && let Some(cmd) = l.strip_prefix("$ ") {
            let mut expected = Vec::new();
            let mut j = i + 1;
            while j < lines.len() && !lines[j].starts_with("$ ") && !lines[j].starts_with("```") {
                expected.push(lines[j].to_owned());
                j += 1;
            }
            out.push(Example {
                line: i,
                command: cmd.to_owned(),
                expected,
            });
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// A temporary copy of what the README's examples read.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["schemas", "descriptions", "examples"] {
        copy_dir(&root().join(sub), &dir.path().join(sub));
    }
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    dir
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn run(command: &str) -> Vec<String> {
    let work = workspace();
    let bin = assert_cmd::cargo::cargo_bin!("callfix");
    let dir = bin.parent().unwrap();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(work.path())
        .env("PATH", path)
        .env("TMPDIR", work.path().join("tmp"))
        // The hook's loop memory stays in the copy, not in the user's state dir.
        .env("CALLFIX_STATE_DIR", work.path().join("state"))
        .env("NO_COLOR", "1")
        .env_remove("CALLFIX_SCHEMAS")
        .env_remove("CALLFIX_CONFIG")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The README and every page of `docs/`.
fn pages() -> Vec<std::path::PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// Checks (or with `CALLFIX_BLESS`, rewrites) the examples of one page.
fn check_page(path: &std::path::Path, failures: &mut Vec<String>) -> usize {
    let name = path.strip_prefix(root()).unwrap().display().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let examples = examples(&text);
    // Examples run in their own temporary directory: none may name a fixed path
    // outside it, which a reader's machine (or a parallel test) may be using.
    for ex in &examples {
        assert!(
            !ex.command.contains("/tmp") && !ex.command.contains("rm -rf"),
            "{name}:{}: an example writes or deletes outside its own directory: {}",
            ex.line + 1,
            ex.command
        );
    }
    if std::env::var_os("CALLFIX_BLESS").is_some() {
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        for ex in examples.iter().rev() {
            let start = ex.line + 1;
            lines.splice(start..start + ex.expected.len(), run(&ex.command));
        }
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
        return examples.len();
    }
    for ex in &examples {
        let got = run(&ex.command);
        if got != ex.expected {
            failures.push(format!(
                "{name}:{}: $ {}\n--- got\n{}\n--- {name}\n{}",
                ex.line + 1,
                ex.command,
                got.join("\n"),
                ex.expected.join("\n")
            ));
        }
    }
    examples.len()
}

#[test]
fn readme_and_docs_examples_are_true() {
    let mut failures = Vec::new();
    let readme = check_page(&root().join("README.md"), &mut failures);
    assert!(readme >= 5, "the README has too few examples");
    let mut total = readme;
    for page in pages().iter().skip(1) {
        total += check_page(page, &mut failures);
    }
    assert!(total >= 20, "the manual has too few examples ({total})");
    assert!(
        failures.is_empty(),
        "{}\n(CALLFIX_BLESS=1 to update)",
        failures.join("\n\n")
    );
}

#[test]
fn readme_is_a_front_page() {
    let size = std::fs::metadata(root().join("README.md")).unwrap().len();
    assert!(
        size <= 15 * 1024,
        "README.md is {size} bytes (at most 15 KB)"
    );
}
