//! The parser-parity matrix: every call syntax callfix reads, through every
//! bucket of NVIDIA Dynamo's parser taxonomy (`lib/parsers/PARSER_CASES.md`),
//! with fixtures of our own in `tests/fixtures/parser-cases/BUCKET.jsonl`.
//!
//! A row is one assistant message (`content`, or `chunks` streamed as OpenAI
//! `delta.content` or Anthropic `text_delta` events, ending with `stop`
//! (`end_turn`) or the row's `finish`, `length` (`max_tokens`)), the family
//! it is written in, the calls callfix must give (`tool`, `status`, `args`,
//! the `repairs` besides `extract-from-text`, or the `error` a rejection
//! quotes; `tool` and `repairs` are checked when given) and the `text` left
//! in the message (`null` for none). The tools are the shipped `schemas/`
//! and `list_todos` (no arguments, in `tools.json`).
//!
//! - `"pending": "why"` states the right outcome of something not read yet
//!   (a bug, or a family being added): the row is run and listed, never
//!   failed. Deleting the key enables it.
//! - `"design": "KEY"` marks an outcome that is a rejection (or text) by
//!   design, footnoted in the matrix (`DESIGNS`).
//! - `"syntax"` is the family `--stats` counts, where it differs from
//!   `family`; every bucket checks those counts.
//! - `"na": "why"` (no content) marks a bucket that cannot apply.
//!
//! A family is added by a name in `FAMILIES` and its rows in every bucket
//! file (`every_family_has_a_row_in_every_bucket` says which are missing).
//!
//! Each bucket file runs as one `callfix -f json --stats` and one
//! `callfix -f call --to openai` over all its rows, a real call between rows
//! telling their results apart. The matrix in docs/providers.md is rendered
//! from the rows (`CALLFIX_BLESS=1` rewrites it).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::{callfix, json_lines, root};

/// A bucket: its file, its heading in the matrix, Dynamo's labels, what
/// callfix does, and where inference engines do otherwise.
struct Bucket {
    id: &'static str,
    dynamo: &'static str,
    callfix: &'static str,
    engines: &'static str,
}

const BUCKETS: &[Bucket] = &[
    Bucket {
        id: "happy",
        dynamo: "PARSER.1",
        callfix: "the call, its arguments exactly as written; the prose stays as text",
        engines: "the same",
    },
    Bucket {
        id: "parallel",
        dynamo: "PARSER.2, PARSER.15",
        callfix: "every call, in order; the same call twice is two calls",
        engines: "the same (Dynamo: duplicates untested anywhere)",
    },
    Bucket {
        id: "no-call",
        dynamo: "PARSER.3",
        callfix: "no call; markup quoted in a code span or fenced block is text",
        engines: "vLLM and SGLang look for their start token anywhere in the output, code fences included",
    },
    Bucket {
        id: "malformed",
        dynamo: "PARSER.4",
        callfix: "rejected with an instruction to resend; the rest of the message stays",
        engines: "vLLM (hermes, non-streaming) returns the whole output as text and drops every call in it; Dynamo's DSML keeps an unparseable JSON value as a string; SGLang drops a call to an undeclared name",
    },
    Bucket {
        id: "truncated",
        dynamo: "PARSER.5",
        callfix: "a call cut off is rejected, never completed; a complete call whose closing token is missing is read where nothing could follow it",
        engines: "vLLM and SGLang stream a call's name and argument fragments as partial-JSON parsing finds them, so a cut call has reached the client as a call with incomplete arguments; vLLM's hermes reads a complete call whose `</tool_call>` is missing; Dynamo recovers complete calls without the section end (Kimi K2) and lists the other families as known broken",
    },
    Bucket {
        id: "empty-args",
        dynamo: "PARSER.6",
        callfix: "the call with `{}`, judged by the schema (a required key missing is rejected)",
        engines: "the same, without the schema check",
    },
    Bucket {
        id: "typed-args",
        dynamo: "PARSER.7, PARSER.xml2",
        callfix: "JSON values as written; XML parameter text typed by the schema (`\"02134\"` stays a string)",
        engines: "engines type XML parameter text by the schema too, each with a converter of its own; a string parameter written as digits (`02134`) is a bug each has had to fix",
    },
    Bucket {
        id: "interleaved",
        dynamo: "PARSER.13",
        callfix: "each call taken out, the prose around and between them kept",
        engines: "vLLM (hermes) keeps only the text before the first call",
    },
    Bucket {
        id: "streaming",
        dynamo: "PARSER.8",
        callfix: "the stream reassembled first, then read as the whole message: a sentinel split across deltas is one sentinel",
        engines: "engines parse each delta as it comes and emit partial arguments",
    },
    Bucket {
        id: "format",
        dynamo: "PARSER.fmt1–4, PARSER.xml1, PARSER.harmony1–2",
        callfix: "each family's spellings (token variants, whitespace, empty sections, name prefixes); XML entities kept as written",
        engines: "Dynamo's taxonomy asks XML parsers to decode `&lt;` and friends (PARSER.xml1); callfix keeps them, since what models write between the tags is code, not XML",
    },
];

/// Rejections (or text) by design, footnoted in the matrix.
const DESIGNS: &[(&str, &str)] = &[
    (
        "cut",
        "markup cut off (the stream or `max_tokens` ended inside it) is rejected with \"not closed\", never completed: a completed call would run with arguments the model never wrote.",
    ),
    (
        "broken",
        "arguments that do not parse, or markup broken inside, are rejected with the reason, never guessed at; the other calls of the message stand.",
    ),
    (
        "bare",
        "a syntax with no sentinel (a bare JSON object or Python list) is a call only as the whole message, every name in it declared: prose around it makes it text.",
    ),
    (
        "prose",
        "markup named in a sentence (an opening with prose after it on its line and no closing, Granite's list or `function=` mid-line) and call notation explaining Python or C (positional arguments with prose after, `name(1)`) are text, not calls.",
    ),
    (
        "open-list",
        "markup whose end cannot be told from a cut (arguments listed until a closing tag that never came) is rejected as cut off.",
    ),
];

/// Every family, in the matrix's order: a row per syntax users recognise.
/// Where `--stats` counts it under another name, its rows say so by
/// `"syntax"`: `granite-3.1` is counted as `granite` (as `hermes` when cut
/// off, since `<tool_call>[` is both), `json-wrapped` (a `{name, arguments}`
/// object in a wrapper of another name, a fence or a `[Tool Use: NAME]`
/// line) as `json`, a pasted `tool_use` block as `tool_use`.
const FAMILIES: &[&str] = &[
    "dsml",
    "qwen-coder",
    "qwen3-coder",
    "hermes",
    "glm",
    "kimi-k2",
    "deepseek-v3",
    "mistral",
    "llama3",
    "granite",
    "cohere",
    "harmony",
    "pythonic",
    "json",
    "granite-3.1",
    "minicpm",
    "seed",
    "call",
    "json-wrapped",
];

/// One row of a bucket file.
struct Row {
    bucket: &'static str,
    line: usize,
    value: Value,
}

impl Row {
    fn family(&self) -> &str {
        self.value["family"].as_str().unwrap()
    }
    fn syntax(&self) -> &str {
        self.value["syntax"]
            .as_str()
            .unwrap_or_else(|| self.family())
    }
    fn pending(&self) -> Option<&str> {
        self.value["pending"].as_str()
    }
    fn design(&self) -> Option<&str> {
        self.value["design"].as_str()
    }
    fn na(&self) -> bool {
        self.value.get("na").is_some()
    }
    fn name(&self) -> String {
        format!(
            "{}.jsonl:{} [{}] {}",
            self.bucket,
            self.line,
            self.family(),
            self.value["case"].as_str().unwrap_or("")
        )
    }
    fn calls(&self) -> &[Value] {
        self.value["calls"].as_array().map_or(&[], Vec::as_slice)
    }
    /// The message's whole text: `content`, or the chunks joined.
    fn content(&self) -> String {
        match self.value.get("chunks") {
            Some(Value::Array(chunks)) => chunks.iter().map(|c| c.as_str().unwrap()).collect(),
            _ => self.value["content"].as_str().unwrap().to_owned(),
        }
    }
    /// The records that carry the message to callfix.
    fn records(&self) -> Vec<String> {
        let Some(Value::Array(chunks)) = self.value.get("chunks") else {
            return vec![json!({"role": "assistant", "content": self.content()}).to_string()];
        };
        let chunks = chunks.iter().map(|c| c.as_str().unwrap());
        let finish = self.value["finish"].as_str().unwrap_or("stop");
        match self.value["stream"].as_str() {
            Some("anthropic") => {
                let mut records = vec![
                    json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "stop_reason": null}}),
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ];
                records.extend(chunks.map(|c| json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": c}})));
                records.extend([
                    json!({"type": "content_block_stop", "index": 0}),
                    json!({"type": "message_delta", "delta": {"stop_reason": if finish == "length" { "max_tokens" } else { "end_turn" }}}),
                    json!({"type": "message_stop"}),
                ]);
                records
                    .iter()
                    .map(|r| format!("event: {}\ndata: {r}\n", r["type"].as_str().unwrap()))
                    .collect()
            }
            _ => {
                let chunk = |delta: Value, finish: Value| {
                    let c = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
                    format!("data: {c}\n")
                };
                let mut records = vec![chunk(
                    json!({"role": "assistant", "content": ""}),
                    Value::Null,
                )];
                records.extend(chunks.map(|c| chunk(json!({"content": c}), Value::Null)));
                records.push(chunk(json!({}), json!(finish)));
                records
            }
        }
    }
}

fn load(bucket: &'static str) -> Vec<Row> {
    let path = root().join(format!("tests/fixtures/parser-cases/{bucket}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| Row {
            bucket,
            line: i + 1,
            value: serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{bucket}.jsonl:{}: {e}", i + 1)),
        })
        .collect()
}

/// What callfix made of one row: its results and the text left.
struct Outcome {
    results: Vec<Value>,
    text: Option<Value>,
}

/// The separator between rows: a real call with an id that names the row.
fn separator(n: usize) -> String {
    json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("row-{n}"), "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\":\"*\"}"}}]}).to_string()
}

fn separator_of(v: &Value) -> Option<usize> {
    let id = v["id"]
        .as_str()
        .or_else(|| v["tool_calls"][0]["id"].as_str())?;
    id.strip_prefix("row-")?.parse().ok()
}

/// Runs the rows through callfix (two processes): one outcome per row, and
/// the calls `--stats` counts per syntax.
fn run(rows: &[&Row]) -> (Vec<Outcome>, BTreeMap<String, usize>) {
    let mut input = String::new();
    for (n, row) in rows.iter().enumerate() {
        for r in row.records() {
            input.push_str(&r);
            input.push('\n');
        }
        input.push_str(&separator(n));
        input.push('\n');
    }
    let tools = root().join("tests/fixtures/parser-cases/tools.json");
    let go = |args: &[&str]| {
        let out = callfix()
            .args(args)
            .args(["--loop-limit", "0", "-s", "schemas", "-s"])
            .arg(&tools)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(!stderr.contains("panicked"), "{stderr}");
        (json_lines(&out.stdout), stderr)
    };
    let (json_out, stats) = go(&["-f", "json", "--stats"]);
    let (call_out, _) = go(&["-f", "call", "--to", "openai"]);
    let mut outcomes: Vec<Outcome> = rows
        .iter()
        .map(|_| Outcome {
            results: Vec::new(),
            text: None,
        })
        .collect();
    let mut n = 0;
    for r in json_out {
        match separator_of(&r) {
            Some(s) => n = s + 1,
            None => outcomes[n].results.push(r),
        }
    }
    n = 0;
    for m in call_out {
        match separator_of(&m) {
            Some(s) => n = s + 1,
            None if m["role"] == "assistant" => outcomes[n].text = Some(m["content"].clone()),
            None => {}
        }
    }
    let mut found = BTreeMap::new();
    if let Some(line) = stats
        .lines()
        .find_map(|l| l.trim().strip_prefix("calls written in text, by syntax: "))
    {
        for part in line.split(", ") {
            let (name, count) = part.rsplit_once(' ').unwrap();
            found.insert(name.to_owned(), count.parse().unwrap());
        }
    }
    (outcomes, found)
}

/// How the outcome differs from what the row expects (empty: it holds).
fn differences(row: &Row, outcome: &Outcome) -> Vec<String> {
    let mut diffs = Vec::new();
    let want = row.calls();
    if want.len() != outcome.results.len() {
        diffs.push(format!(
            "{} calls, expected {}: {:?}",
            outcome.results.len(),
            want.len(),
            outcome.results
        ));
    }
    for (i, (want, got)) in want.iter().zip(&outcome.results).enumerate() {
        for key in ["tool", "status"] {
            if want.get(key).is_some_and(|w| *w != got[key]) {
                diffs.push(format!(
                    "call {i}: {key} {} (expected {})",
                    got[key], want[key]
                ));
            }
        }
        if let Some(args) = want.get("args")
            && *args != got["args"]
        {
            diffs.push(format!("call {i}: args {} (expected {args})", got["args"]));
        }
        if let Some(error) = want["error"].as_str() {
            let message = got["message"].as_str().unwrap_or("");
            if !message.contains(error) {
                diffs.push(format!("call {i}: message {message:?} lacks {error:?}"));
            }
        }
        let kinds: Vec<&str> = got["repairs"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|r| r["kind"].as_str())
            .collect();
        if want["status"] != "rejected" {
            if kinds.first() != Some(&"extract-from-text") {
                diffs.push(format!("call {i}: not taken from the text: {kinds:?}"));
            }
            let rest: Vec<&str> = kinds.iter().skip(1).copied().collect();
            if let Some(expected) = want["repairs"].as_array() {
                let expected: Vec<&str> = expected.iter().map(|k| k.as_str().unwrap()).collect();
                if rest != expected {
                    diffs.push(format!(
                        "call {i}: repairs {rest:?} (expected {expected:?})"
                    ));
                }
            }
        }
    }
    let text = outcome
        .text
        .clone()
        .unwrap_or_else(|| Value::String(row.content()));
    if text != row.value["text"] {
        diffs.push(format!("text {text} (expected {})", row.value["text"]));
    }
    diffs
}

fn all_rows() -> Vec<Row> {
    BUCKETS.iter().flat_map(|b| load(b.id)).collect()
}

#[test]
fn every_row_of_every_bucket_holds() {
    let mut failures = Vec::new();
    for bucket in BUCKETS {
        let rows = load(bucket.id);
        let enabled: Vec<&Row> = rows
            .iter()
            .filter(|r| r.pending().is_none() && !r.na())
            .collect();
        let (outcomes, found) = run(&enabled);
        let mut expected: BTreeMap<String, usize> = BTreeMap::new();
        for (row, outcome) in enabled.iter().zip(&outcomes) {
            for d in differences(row, outcome) {
                failures.push(format!("{}: {d}", row.name()));
            }
            if !row.calls().is_empty() {
                *expected.entry(row.syntax().to_owned()).or_default() += row.calls().len();
            }
        }
        if found != expected {
            failures.push(format!(
                "{}: calls per syntax (--stats) {found:?}, expected {expected:?}",
                bucket.id
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs the pending rows and lists them, saying which hold already (those
/// can be enabled); never fails on them.
#[test]
#[allow(clippy::print_stderr)]
fn pending_rows_are_listed() {
    let rows = all_rows();
    let pending: Vec<&Row> = rows.iter().filter(|r| r.pending().is_some()).collect();
    let (outcomes, _) = run(&pending);
    for (row, outcome) in pending.iter().zip(&outcomes) {
        let state = if differences(row, outcome).is_empty() {
            "HOLDS NOW (calls and text; its --stats syntax is checked once enabled)"
        } else {
            "pending"
        };
        eprintln!("{state}: {} ({})", row.name(), row.pending().unwrap_or(""));
    }
}

#[test]
fn every_family_has_a_row_in_every_bucket() {
    let rows = all_rows();
    let mut missing = Vec::new();
    for family in FAMILIES {
        for bucket in BUCKETS {
            if !rows
                .iter()
                .any(|r| r.bucket == bucket.id && r.family() == *family)
            {
                missing.push(format!("{family} × {}", bucket.id));
            }
        }
    }
    for row in &rows {
        assert!(
            FAMILIES.contains(&row.family()),
            "{}: unknown family",
            row.name()
        );
        if let Some(d) = row.design() {
            assert!(
                DESIGNS.iter().any(|(k, _)| *k == d),
                "{}: unknown design {d}",
                row.name()
            );
        }
    }
    assert!(
        missing.is_empty(),
        "no row (use \"na\" where none can apply): {missing:?}"
    );
}

/// The matrix section of docs/providers.md, rendered from the rows.
fn matrix() -> String {
    let rows = all_rows();
    let mut out = String::new();
    out.push_str(
        "Rendered from `tests/fixtures/parser-cases/` by `tests/cli/parser_cases.rs`, \
         which runs every row through the binary (`CALLFIX_BLESS=1` rewrites this section). \
         ✓ covered and passing; ✗ⁿ covered and passing, and the outcome is a rejection \
         (or text) by design, see note n; ◌ rows written, pending (the syntax or fix \
         is not in yet); — cannot apply.\n\n",
    );
    let _ = write!(out, "| family |");
    for b in BUCKETS {
        let _ = write!(out, " {} |", b.id);
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(BUCKETS.len()));
    out.push('\n');
    let superscript = ["¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"];
    for family in FAMILIES {
        let _ = write!(out, "| `{family}` |");
        for b in BUCKETS {
            let cell: Vec<&Row> = rows
                .iter()
                .filter(|r| r.bucket == b.id && r.family() == *family)
                .collect();
            let mut marks = Vec::new();
            if cell.iter().any(|r| r.na()) {
                marks.push("—".to_owned());
            }
            let live = cell.iter().filter(|r| r.pending().is_none() && !r.na());
            if live.clone().any(|r| r.design().is_none()) {
                marks.push("✓".to_owned());
            }
            for (i, (key, _)) in DESIGNS.iter().enumerate() {
                if live.clone().any(|r| r.design() == Some(key)) {
                    marks.push(format!("✗{}", superscript[i]));
                }
            }
            if cell.iter().any(|r| r.pending().is_some()) {
                marks.push("◌".to_owned());
            }
            let _ = write!(out, " {} |", marks.join(" "));
        }
        out.push('\n');
    }
    out.push('\n');
    for (i, (_, text)) in DESIGNS.iter().enumerate() {
        let _ = writeln!(out, "{} {text}", superscript[i]);
    }
    out.push_str("\n| bucket | Dynamo | callfix | inference engines |\n|---|---|---|---|\n");
    for b in BUCKETS {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            b.id, b.dynamo, b.callfix, b.engines
        );
    }
    let mut reasons: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in &rows {
        if let Some(why) = r.pending() {
            let families = reasons.entry(why).or_default();
            if !families.contains(&r.family()) {
                families.push(r.family());
            }
        }
    }
    if !reasons.is_empty() {
        out.push_str("\nPending (◌):\n\n");
        for (why, families) in &reasons {
            let _ = writeln!(out, "- {why}: `{}`", families.join("`, `"));
        }
    }
    let pending = rows.iter().filter(|r| r.pending().is_some()).count();
    let live = rows
        .iter()
        .filter(|r| r.pending().is_none() && !r.na())
        .count();
    if pending == 0 {
        let _ = writeln!(out, "\n{live} rows run, none pending.");
    } else {
        let _ = writeln!(
            out,
            "\n{live} rows run today; {pending} pending rows state the outcome of work in progress."
        );
    }
    out
}

const BEGIN: &str = "<!-- parser-cases: begin (rendered by tests/cli/parser_cases.rs) -->\n";
const END: &str = "<!-- parser-cases: end -->";

#[test]
fn the_matrix_in_providers_md_is_the_rendered_one() {
    let path = root().join("docs/providers.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let want = matrix();
    let (before, rest) = page
        .split_once(BEGIN)
        .expect("docs/providers.md lacks the begin marker");
    let (got, after) = rest
        .split_once(END)
        .expect("docs/providers.md lacks the end marker");
    if std::env::var_os("CALLFIX_BLESS").is_some() {
        std::fs::write(&path, format!("{before}{BEGIN}{want}{END}{after}")).unwrap();
        return;
    }
    assert!(
        got == want,
        "the matrix in docs/providers.md is not the rendered one (CALLFIX_BLESS=1 to rewrite); it should read:\n{want}"
    );
}
