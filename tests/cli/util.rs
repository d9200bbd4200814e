//! Helpers that more than one test module uses: an assistant message run
//! through the binary, one record judged against a schema directory, the
//! kinds of a result's repairs, a schema directory written from a list.

use std::fmt::Display;
use std::path::Path;

use serde_json::{Value, json};

use crate::{callfix, json_lines, write};

/// One assistant message whose text is `text`, as a JSON line.
pub(crate) fn assistant_line(text: &str) -> String {
    format!("{}\n", json!({"role": "assistant", "content": text}))
}

/// `callfix ARGS` on one assistant message whose text is `text`: (exit
/// code, the results, stderr). It never panics.
pub(crate) fn on_text(text: &str, args: &[&str]) -> (i32, Vec<Value>, String) {
    let out = callfix()
        .args(args)
        .write_stdin(assistant_line(text))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap(), json_lines(&out.stdout), stderr)
}

/// [`on_text`] with `-f json --stats` (the leak families' runs).
pub(crate) fn json_stats(text: &str) -> (i32, Vec<Value>, String) {
    on_text(text, &["-f", "json", "--stats"])
}

/// `callfix -s DIR -f json` on one record: its one result.
pub(crate) fn one_in(dir: &Path, record: impl Display) -> Value {
    let out = callfix()
        .arg("-s")
        .arg(dir)
        .args(["-f", "json"])
        .write_stdin(format!("{record}\n"))
        .output()
        .unwrap();
    let mut lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 1, "{record}");
    lines.remove(0)
}

/// The kinds of a result's repairs, in order.
pub(crate) fn repair_kinds(result: &Value) -> Vec<&str> {
    result["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect()
}

/// A temporary directory holding each (file name, text) of `files`.
pub(crate) fn schema_dir(files: &[(&str, impl Display)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        write(dir.path(), name, &text.to_string());
    }
    dir
}
