//! CLI tests: the binary as users and pipelines see it.

mod check;
mod check_calls;
mod config;
mod cut_streams;
mod diagnostics;
mod edges;
mod envelopes;
mod exact;
mod formats;
mod golden;
mod hardening;
mod heal;
mod heal_findings;
mod hook;
mod input_attacks;
mod jobs;
mod leak_attacks;
mod leak_fallback;
mod leak_families;
mod leaks;
mod live;
mod mcp_attacks;
#[cfg(feature = "mcp-http")]
mod mcp_http;
mod misc_attacks;
mod names;
mod parser_cases;
mod provider_names;
mod providers;
mod public_api;
mod pull;
mod readme;
mod refs;
mod render;
mod repair_findings;
mod repair_meaning;
mod repairs;
mod report;
mod report_html;
mod report_library;
mod report_progress;
mod report_tools;
mod robustness;
mod schemas;
mod scripts_fail;
mod stream_attacks;
mod stream_gaps;
mod streams;
mod terminal;
mod terminal_attacks;
mod tools;
mod typing;
mod util;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// `callfix` run from the repository root, with the shipped schemas, no colour and
/// no inherited configuration.
pub fn callfix() -> Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("callfix");
    cmd.current_dir(root())
        .env_remove("CALLFIX_SCHEMAS")
        .env_remove("CALLFIX_CONFIG")
        .env("CALLFIX_STATE_DIR", state_dir())
        .env("NO_COLOR", "1");
    cmd
}

/// Where the hook keeps its loop memory during the tests: a temporary
/// directory of this run's own (a test that counts sets one of its own).
pub fn state_dir() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// `callfix ARGS` as a running co-process, its stdin, stdout and stderr piped
/// (from the repository root, no colour, no inherited configuration).
pub fn spawn(args: &[&str]) -> std::process::Child {
    use std::process::Stdio;
    std::process::Command::new(assert_cmd::cargo::cargo_bin!("callfix"))
        .current_dir(root())
        .env_remove("CALLFIX_SCHEMAS")
        .env_remove("CALLFIX_CONFIG")
        .env("CALLFIX_STATE_DIR", state_dir())
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(path: &str) -> PathBuf {
    root().join("tests/fixtures").join(path)
}

/// Runs `callfix -f json` on `stdin` and returns (exit code, one value per line).
pub fn run_json(args: &[&str], stdin: &str) -> (i32, Vec<Value>) {
    let out = callfix()
        .args(["-f", "json"])
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap(), json_lines(&out.stdout))
}

pub fn json_lines(out: &[u8]) -> Vec<Value> {
    std::str::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Runs `callfix -f args` on `stdin`; returns (exit code, stdout lines).
pub fn run_args(args: &[&str], stdin: impl Into<Vec<u8>>) -> (i32, Vec<String>) {
    let out = callfix()
        .args(["-f", "args"])
        .args(args)
        .write_stdin(stdin.into())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    (
        out.status.code().unwrap(),
        stdout.lines().map(str::to_owned).collect(),
    )
}

pub fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}
