//! Golden file for the instruction messages: every wording the model reads is
//! reviewed in `tests/golden/messages.out`. Regenerate with `CALLFIX_BLESS=1`.

use std::fmt::Write as _;

use crate::{callfix, fixture, json_lines, root};

#[test]
fn instruction_messages() {
    let input = std::fs::read_to_string(root().join("tests/golden/messages.jsonl")).unwrap();
    let out = callfix()
        .args(["-f", "json", "--repair", "none", "-s"])
        .arg(fixture("schemas"))
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let mut text = String::new();
    for r in json_lines(&out.stdout) {
        let message = r["message"].as_str().unwrap_or("(valid)");
        writeln!(text, "{}\n    {message}", r["id"].as_str().unwrap()).unwrap();
    }
    let path = root().join("tests/golden/messages.out");
    if std::env::var_os("CALLFIX_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if text != expected {
        let diff: Vec<String> = text
            .lines()
            .zip(expected.lines().chain(std::iter::repeat("<missing>")))
            .filter(|(a, b)| a != b)
            .map(|(got, want)| format!("got:  {got}\nwant: {want}"))
            .collect();
        panic!(
            "messages differ from tests/golden/messages.out (CALLFIX_BLESS=1 to accept):\n{}",
            diff.join("\n")
        );
    }
}
