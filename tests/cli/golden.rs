//! Golden file for the instruction messages: every wording the model reads is
//! reviewed in `tests/golden/messages.out`. Regenerate with `CALLFIX_BLESS=1`.
//!
//! `messages.jsonl` holds the argument errors; the sections after it hold the
//! rest of what a model reads, each input run with its own options: records
//! that never became a call, provider streams, the loop stop, a tool whose
//! schema does not compile, calls leaked into text (and argument text that
//! salvage refuses), every reason a leaked call cannot be read (each
//! `provider::leak::LeakProblem` the readers can reach, in full), and bare
//! arguments that are not UTF-8.

use std::fmt::Write as _;

use crate::{callfix, json_lines, root};

/// The inputs under `tests/golden/`, the options each runs with (after
/// `-f json`), and the exit code it must give.
const SECTIONS: &[(&str, &[&str], i32)] = &[
    (
        "messages.jsonl",
        &["--repair", "none", "-s", "tests/fixtures/schemas"],
        1,
    ),
    (
        "records.jsonl",
        &[
            "--repair",
            "none",
            "-s",
            "tests/fixtures/schemas",
            "--max-record-bytes",
            "300",
            "--max-record-values",
            "20",
        ],
        1,
    ),
    (
        "streams.jsonl",
        &[
            "--repair",
            "none",
            "-s",
            "tests/fixtures/schemas",
            "--max-record-bytes",
            "400",
        ],
        1,
    ),
    (
        "loops.jsonl",
        &[
            "--repair",
            "none",
            "-s",
            "tests/fixtures/schemas",
            "--loop-limit",
            "2",
        ],
        1,
    ),
    (
        "broken-schema.jsonl",
        &["--repair", "none", "-s", "tests/golden/broken-schemas"],
        2,
    ),
    // Leaked calls are read by the repair stage: the default rules.
    ("leaks.jsonl", &["-s", "tests/fixtures/schemas"], 1),
    // Every reason a leaked call cannot be read, one record each, in full
    // (not cut to the default 100 characters); `read` and `read1` for the
    // Kimi id that names two declared tools.
    (
        "leak-words.jsonl",
        &[
            "-s",
            "tests/fixtures/schemas",
            "-s",
            "tests/golden/leak-tools.json",
            "--max-chars",
            "1000",
        ],
        1,
    ),
    (
        "bare-not-utf8.txt",
        &["-s", "tests/fixtures/schemas", "--tool", "kitchen"],
        1,
    ),
];

#[test]
fn instruction_messages() {
    let mut text = String::new();
    for (i, (file, args, code)) in SECTIONS.iter().enumerate() {
        let input = std::fs::read(root().join("tests/golden").join(file)).unwrap();
        let out = callfix()
            .args(["-f", "json"])
            .args(*args)
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(*code), "{file}: {out:?}");
        if i > 0 {
            writeln!(text, "\n## {file}: {}", args.join(" ")).unwrap();
        }
        for r in json_lines(&out.stdout) {
            let message = r["message"].as_str().unwrap_or("(valid)");
            let label = match r["id"].as_str() {
                Some(id) => id.to_owned(),
                None => format!("(record {})", r["index"]),
            };
            writeln!(text, "{label}\n    {message}").unwrap();
        }
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
