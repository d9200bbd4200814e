//! The fuzz targets (`docs/testing.md`).
//!
//! **Mutated records** (in process): the shipped example records, mutated
//! (bytes cut, flipped, inserted — sentinels and stream events among them —,
//! duplicated), around known-valid calls.
//!
//! **The grammar** (`fuzz/grammar/`): streams of valid calls in every
//! envelope among garbage written in the vocabulary of every surface — leak
//! sentinels and closings, provider stream events, pythonic lists (nested
//! deep by repetition) and call notation, SSE framing, MCP messages, hook
//! payloads, and streams cut short (`fuzz/cut.rs`: a call never closed is
//! never passed). `fuzz/heal.rs`: conversations for `heal`, with its own
//! invariants (every call paired, none lost, healing twice changes nothing).
//! `fuzz/report.rs`: the mixed grammar counted by `Report`, and those
//! conversations as request bodies with their own tools (or none, or
//! garbage) through `report --html` (tables add up, a valid call to a
//! declared tool counted valid, the page has no script or reference).
//! Each runs
//! through the binary (`-f args`, `-f json`, `--jobs 2`), `check --calls`, the
//! hook, and the MCP decision core in process. The event streams `mcp --url`
//! reads (`fuzz/sse.rs`: MCP messages framed as events among SSE garbage, cut
//! anywhere) go through its SSE parser in process.
//!
//! Invariants, against what the generator put in (never the run's counters):
//! - no panic, no abort: the binary exits 0, 1 or 2 (the hook 0 or 1), within
//!   [`bin::DEADLINE`];
//! - every valid call comes out byte-exact, once, in order: the output lines
//!   holding a nonce are exactly the expected ones;
//! - one line per result: `-f args` and `-f json` write as many lines, each
//!   `-f json` line one result object; `--jobs 2` writes what one job writes;
//! - `check --calls` on valid calls alone finds nothing.
//!
//! Cases per target: `PROPTEST_CASES` (CI gives a fixed budget; `scripts/soak.sh`
//! runs it long).

mod bin;
mod cut;
mod grammar;
mod heal;
mod mcp;
mod report;
mod report_library;
mod sse;

use std::path::PathBuf;
use std::sync::OnceLock;

use callfix::{Format, Input, Printer, Summary, Toolset};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::Value;

use grammar::{NONCE, Surface};

/// `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(n)
}

fn tools() -> &'static Toolset {
    static TOOLS: OnceLock<Toolset> = OnceLock::new();
    TOOLS.get_or_init(|| {
        Toolset::from_path(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")).unwrap()
    })
}

fn fail(why: String, input: &[u8]) -> TestCaseError {
    let shown = String::from_utf8_lossy(input);
    let shown: String = if shown.len() > 1500 {
        format!(
            "{}…{} ({} bytes)",
            shown.chars().take(1000).collect::<String>(),
            shown
                .chars()
                .skip(shown.chars().count() - 300)
                .collect::<String>(),
            input.len()
        )
    } else {
        shown.into_owned()
    };
    TestCaseError::fail(format!("{why}\ninput: {shown:?}"))
}

// ------------------------------------------------------------------ the grammar

/// Runs one grammar stream through the filter and `check --calls`; `human`
/// picks the fourth format run: `-f human` or `-f call`.
fn check_filter(parts: &[grammar::Part], human: bool) -> Result<(), TestCaseError> {
    check_case(&grammar::build(parts), human)
}

/// [`check_filter`] on a stream already built.
fn check_case(case: &grammar::Case, human: bool) -> Result<(), TestCaseError> {
    let input = &case.input;
    let schemas = bin::schemas();
    let base = ["--no-config", "--schemas", &schemas];
    let args = bin::run(&[&base[..], &["-f", "args"]].concat(), input);
    args.ended_well(&[0, 1, 2]).map_err(|e| fail(e, input))?;
    let lines = args.lines();
    grammar::exact(&lines, &case.want).map_err(|e| fail(e, input))?;

    let json = bin::run(&[&base[..], &["-f", "json"]].concat(), input);
    json.ended_well(&[0, 1, 2]).map_err(|e| fail(e, input))?;
    let results = json.lines();
    if results.len() != lines.len() {
        return Err(fail(
            format!(
                "-f args wrote {} lines, -f json {}: {lines:?} / {results:?}",
                lines.len(),
                results.len()
            ),
            input,
        ));
    }
    for r in &results {
        let ok = serde_json::from_str::<Value>(r)
            .ok()
            .is_some_and(|v| v.get("status").is_some_and(Value::is_string));
        if !ok {
            return Err(fail(
                format!("-f json wrote a line that is no result: {r}"),
                input,
            ));
        }
    }

    let jobs = bin::run(&[&base[..], &["-f", "args", "--jobs", "2"]].concat(), input);
    jobs.ended_well(&[0, 1, 2])
        .map_err(|e| fail(format!("--jobs 2: {e}"), input))?;
    if jobs.stdout != args.stdout || jobs.code != args.code {
        return Err(fail(
            format!(
                "--jobs 2 wrote something else (exit {:?} vs {:?}): {:?} vs {lines:?}",
                jobs.code,
                args.code,
                jobs.lines()
            ),
            input,
        ));
    }

    // One line per result in every format: `-f call` one JSON line each,
    // `-f human` one `#` header each and no raw control character.
    let format = if human { "human" } else { "call" };
    let other = bin::run(
        &[&base[..], &["-f", format, "--color", "never"]].concat(),
        input,
    );
    other
        .ended_well(&[0, 1, 2])
        .map_err(|e| fail(format!("-f {format}: {e}"), input))?;
    let text = String::from_utf8_lossy(&other.stdout);
    let results = if human {
        let raw = text
            .chars()
            .find(|&c| (c.is_control() && c != '\n') || matches!(c, '\u{2028}' | '\u{2029}'));
        if let Some(c) = raw {
            return Err(fail(format!("-f human wrote a raw {c:?}: {text}"), input));
        }
        text.lines().filter(|l| l.starts_with('#')).count()
    } else {
        for l in text.lines() {
            if serde_json::from_str::<Value>(l).is_err() {
                return Err(fail(
                    format!("-f call wrote a line that is not JSON: {l}"),
                    input,
                ));
            }
        }
        text.lines().count()
    };
    if results != lines.len() {
        return Err(fail(
            format!(
                "-f {format} wrote {results} results, -f args {}: {text}",
                lines.len()
            ),
            input,
        ));
    }

    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    std::fs::write(&calls, input).unwrap();
    let calls = calls.display().to_string();
    let check = bin::run(
        &[
            &base[..1],
            &[
                "check",
                "--schemas",
                &schemas,
                "--calls",
                &calls,
                "-f",
                "json",
            ],
        ]
        .concat(),
        b"",
    );
    check
        .ended_well(&[0, 1, 2])
        .map_err(|e| fail(format!("check --calls: {e}"), input))?;
    for l in check.lines() {
        if serde_json::from_str::<Value>(&l).is_err() {
            return Err(fail(format!("check -f json wrote {l:?}"), input));
        }
    }
    // Valid calls alone: those outside text pass; each one written into a
    // message's text is a `call-in-text` finding and nothing else is wrong
    // with it.
    let in_text = case.want.len() - case.recorded;
    let only_in_text = check.lines().iter().all(|l| {
        let f: Value = serde_json::from_str(l).unwrap_or_default();
        f["rule"] == "call-in-text" && !f["message"].as_str().unwrap_or("").contains("not valid")
    });
    let want_code = if in_text == 0 { 0 } else { 1 };
    if case.garbage == 0
        && !case.want.is_empty()
        && (check.code != Some(want_code) || !only_in_text)
    {
        return Err(fail(
            format!(
                "check --calls on valid calls alone ({in_text} in text): exit {:?}: {:?} {}",
                check.code,
                check.lines(),
                check.stderr
            ),
            input,
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(cases(16))]

    #[test]
    fn grammar_provider_stream_events(parts in grammar::parts(Surface::Streams), human: bool) {
        check_filter(&parts, human)?;
    }

    #[test]
    fn grammar_leaked_markup(parts in grammar::parts(Surface::Leaks), human: bool) {
        check_filter(&parts, human)?;
    }

    #[test]
    fn grammar_pythonic_lists(parts in grammar::parts(Surface::Pythonic), human: bool) {
        check_filter(&parts, human)?;
    }

    #[test]
    fn grammar_sse_framing(parts in grammar::parts(Surface::Sse), human: bool) {
        check_filter(&parts, human)?;
    }

    #[test]
    fn grammar_mcp_and_hook_records(parts in grammar::parts(Surface::McpAndHook), human: bool) {
        check_filter(&parts, human)?;
    }

    #[test]
    fn grammar_everything_mixed(parts in grammar::parts(Surface::All), human: bool) {
        check_filter(&parts, human)?;
    }

    #[test]
    fn grammar_everything_reported(parts in grammar::parts(Surface::All)) {
        report::check(&parts)?;
    }

    /// `Toolset::report` on the same: read whole, read in pieces cut
    /// anywhere, and `callfix report --format json`, one object.
    #[test]
    fn grammar_everything_reported_by_the_library(
        parts in grammar::parts(Surface::All),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        report_library::check(&parts, cuts)?;
    }

    /// A stream cut short (`cut.rs`) ending the input, after other parts:
    /// the invariants above, its call never passed, and alone one rejected
    /// result for its call.
    #[test]
    fn grammar_streams_cut_short(
        parts in grammar::parts(Surface::Streams),
        cut in cut::cut(),
        human: bool,
    ) {
        let nonce = format!("{NONCE}{}", parts.len());
        let stream = format!("{}\n", cut::render(&cut, &nonce));
        let mut case = grammar::build(&parts);
        case.input.extend_from_slice(stream.as_bytes());
        case.garbage += 1;
        check_case(&case, human)?;
        let schemas = bin::schemas();
        let ran = bin::run(&["--no-config", "--schemas", &schemas, "-f", "json"], stream.as_bytes());
        ran.ended_well(&[1, 2]).map_err(|e| fail(e, stream.as_bytes()))?;
        let results: Vec<Value> = ran
            .lines()
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_default())
            .collect();
        cut::alone(&results, &cut).map_err(|e| fail(e, stream.as_bytes()))?;
    }

    #[test]
    fn grammar_hook_payloads(
        payload in prop_oneof![
            1 => Just(None),
            3 => prop_oneof![
                grammar::hook_payload().prop_map(|v| v.to_string().into_bytes()),
                grammar::garbage(Surface::All),
            ].prop_map(|p| Some(grammar::Bytes(p))),
        ],
    ) {
        let valid = format!(
            r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"glob","tool_input":{{"pattern":"{NONCE}"}},"tool_use_id":"toolu_1"}}"#
        );
        let input = payload.clone().map_or_else(|| valid.into_bytes(), |p| p.0);
        let schemas = bin::schemas();
        let ran = bin::run(&["hook", "claude-code", "--no-config", "--schemas", &schemas], &input);
        // Exit 2 would block the tool call: never.
        ran.ended_well(&[0, 1]).map_err(|e| fail(e, &input))?;
        let lines = ran.lines();
        if payload.is_none() && (ran.code != Some(0) || !lines.is_empty()) {
            return Err(fail(format!("a valid call got exit {:?} and {lines:?}", ran.code), &input));
        }
        if lines.len() > 1 {
            return Err(fail(format!("more than one answer line: {lines:?}"), &input));
        }
        for l in &lines {
            let v: Value = serde_json::from_str(l).map_err(|e| fail(format!("{e}: {l}"), &input))?;
            let decision = v.pointer("/hookSpecificOutput/permissionDecision").and_then(Value::as_str);
            if !matches!(decision, Some("allow" | "ask" | "deny")) {
                return Err(fail(format!("an answer without a decision: {l}"), &input));
            }
        }
    }
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn grammar_mcp_proxy_sessions(session in mcp::session()) {
        mcp::check(&session).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn grammar_mcp_schema_pulls(lines in mcp::pull_session()) {
        mcp::check_pull(&lines).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn grammar_report_own_tools(records in report::own_tools(), garbage in grammar::plain_garbage()) {
        report::check_own_tools(&records, &garbage).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn grammar_heal_conversations(turns in heal::hostile_turns()) {
        heal::check(&turns).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn grammar_mcp_http_event_streams((pieces, cuts) in sse::stream()) {
        sse::check(&pieces, &cuts).map_err(TestCaseError::fail)?;
    }
}

// ------------------------------------------------------------------ findings

/// The minimal inputs the grammar targets shrank their first findings to
/// (issue 25), kept as plain tests through the same invariants.
fn finding(parts: Vec<grammar::Part>) {
    for human in [false, true] {
        if let Err(e) = check_filter(&parts, human) {
            panic!("{e}");
        }
    }
}

fn garbage(text: &str) -> grammar::Part {
    grammar::Part::Garbage(grammar::Bytes(text.as_bytes().to_vec()))
}

fn valid(shape: grammar::Shape, args: grammar::Args) -> grammar::Part {
    grammar::Part::Valid(shape, args)
}

#[test]
fn found_a_stream_event_whose_fields_are_not_objects() {
    for event in [
        r#"{"type":"content_block_delta"}"#,
        r#"{"type":"content_block_delta","index":0}"#,
        r#"{"type":"message_start","message":"x"}"#,
        concat!(
            r#"{"type":"content_block_start","index":0,"content_block":1}"#,
            "\n",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#,
        ),
        r#"{"type":"response.created","response":[]}"#,
        concat!(
            r#"{"type":"response.output_item.added","output_index":0,"item":"x"}"#,
            "\n",
            r#"{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{"}"#,
        ),
    ] {
        finding(vec![
            garbage(event),
            valid(grammar::Shape::Generic, grammar::Args::Glob),
        ]);
    }
}

#[test]
fn found_markup_whose_opening_tag_never_closes() {
    for text in [
        "<function=</function>",
        "<tool_call><function=</function></tool_call>",
        "<invoke name=\"\"</invoke>",
    ] {
        finding(vec![
            garbage(&serde_json::json!({"role": "assistant", "content": text}).to_string()),
            valid(grammar::Shape::Generic, grammar::Args::Glob),
        ]);
    }
}

#[test]
fn found_pythonic_nesting_deeper_than_a_stack() {
    // 760 levels overflowed a --jobs worker of the debug build; 5,000 the main
    // thread.
    for depth in [760, 20_000] {
        let list = format!("[glob(pattern={}{})]", "[".repeat(depth), "]".repeat(depth));
        finding(vec![
            garbage(&serde_json::json!({"role": "assistant", "content": list}).to_string()),
            valid(grammar::Shape::Generic, grammar::Args::Glob),
        ]);
    }
}

#[test]
fn found_a_broken_sse_line_swallowing_the_calls_after_it() {
    finding(vec![
        garbage(r#"data: {"t":"f"x"#),
        valid(grammar::Shape::SseData, grammar::Args::Glob),
    ]);
    finding(vec![
        garbage("data: {"),
        valid(
            grammar::Shape::AnthropicStream(true, 0),
            grammar::Args::Glob,
        ),
    ]);
}

#[test]
fn found_an_anthropic_stream_respelling_numbers() {
    finding(vec![valid(
        grammar::Shape::AnthropicStream(false, 0),
        grammar::Args::Read("1.50e1"),
    )]);
}

// ------------------------------------------------------------------ mutated records

#[test]
fn found_a_key_named_twice_in_a_written_call_read_as_its_last_value() {
    // Every family's markup with its one parameter given twice: no reader
    // knows which value the model meant, so no call is made with either.
    let twice: [(&str, &str); 8] = [
        (r#""pattern": "@""#, r#""pattern": "@", "pattern": "/w""#),
        (r#"pattern="@""#, r#"pattern="@", pattern="/w""#),
        ("pattern='@'", "pattern='@', pattern='/w'"),
        (
            "<parameter name=\"pattern\">@</parameter>",
            "<parameter name=\"pattern\">@</parameter><parameter name=\"pattern\">/w</parameter>",
        ),
        (
            "<parameter=pattern>\n@\n</parameter>",
            "<parameter=pattern>\n@\n</parameter>\n<parameter=pattern>\n/w\n</parameter>",
        ),
        (
            "<arg_key>pattern</arg_key>\n<arg_value>@</arg_value>",
            "<arg_key>pattern</arg_key>\n<arg_value>@</arg_value>\n<arg_key>pattern</arg_key>\n<arg_value>/w</arg_value>",
        ),
        (
            "<｜DSML｜parameter name=\"pattern\" string=\"true\">@</｜DSML｜parameter>",
            "<｜DSML｜parameter name=\"pattern\" string=\"true\">@</｜DSML｜parameter><｜DSML｜parameter name=\"pattern\" string=\"true\">/w</｜DSML｜parameter>",
        ),
        (
            r#"{"pattern": "@"}"#,
            r#"{"pattern": "@", "pattern": "/w"}"#,
        ),
    ];
    let templates = grammar::LEAK_TEMPLATES
        .iter()
        .chain(grammar::BARE_TEMPLATES);
    for template in templates {
        let (from, to) = twice
            .iter()
            .find(|(from, _)| template.contains(from))
            .unwrap_or_else(|| panic!("no way to name a key twice in {template}"));
        let markup = template.replacen(from, to, 1).replace('@', "/v");
        let record = serde_json::json!({"role": "assistant", "content": markup});
        let input = format!("{record}\n");
        let (lines, summary) = run(input.as_bytes());
        assert_eq!(
            lines.len() as u64,
            summary.total().calls + summary.broken_records()
        );
        for line in &lines {
            assert!(
                !line.contains(r#""pattern":"/v""#) && !line.contains(r#""pattern":"/w""#),
                "{markup}: {line}"
            );
        }
    }
}

fn examples() -> &'static Vec<Vec<u8>> {
    static EX: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    EX.get_or_init(|| {
        let text =
            std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/calls.jsonl"))
                .unwrap();
        text.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    })
}

/// Valid calls whose `-f args` output is known exactly; `N` is replaced by
/// the call's nonce, so no mutated example can stand in for it.
const VALID: [(&str, &str); 3] = [
    (
        r#"{"name":"glob","arguments":{"pattern":"src/N/*.rs"}}"#,
        r#"{"pattern":"src/N/*.rs"}"#,
    ),
    (
        r#"{"id":"c","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/N\",\"offset\":1.50e1}"}}"#,
        r#"{"file_path":"/N","offset":1.50e1}"#,
    ),
    (
        r#"{"type":"tool_use","id":"t","name":"bash","input":{"command":"ls -la","description":"List N \u2028 files"}}"#,
        r#"{"command":"ls -la","description":"List N \u2028 files"}"#,
    ),
];

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let mut tokens: Vec<Vec<u8>> = [
        "\n",
        "{",
        "}",
        "[",
        "\"",
        "\\",
        "\\ud83d",
        "1e400",
        "\u{feff}",
        "\n{",
        "data: ",
        "\ndata: ",
        "\u{2028}\u{1b}[2J",
        "[glob(pattern=[[[",
        "{\"type\":\"content_block_delta\",\"index\":0}",
        "\"object\":\"chat.completion.chunk\",",
        "\"type\":\"response.output_item.added\",",
        "\"type\":\"message_start\",",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    tokens.extend(grammar::LEAK_TOKENS.iter().map(|s| s.as_bytes().to_vec()));
    let token = prop_oneof![
        prop::collection::vec(any::<u8>(), 1..6),
        prop::sample::select(tokens),
    ];
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), token).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<usize>(), 1usize..20).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn apply(record: &[u8], m: &Mutation) -> Vec<u8> {
    let mut r = record.to_vec();
    let at = |i: usize| if r.is_empty() { 0 } else { i % r.len() };
    match m {
        Mutation::Truncate(i) => r.truncate(at(*i)),
        Mutation::Flip(i, b) => {
            if !r.is_empty() {
                let i = at(*i);
                r[i] ^= b | 1;
            }
        }
        Mutation::Insert(i, t) => {
            let i = at(*i);
            r.splice(i..i, t.iter().copied());
        }
        Mutation::Delete(i, n) => {
            let i = at(*i);
            let end = (i + n).min(r.len());
            r.drain(i..end);
        }
        Mutation::Duplicate(i, n) => {
            let i = at(*i);
            let end = (i + n).min(r.len());
            let piece = r[i..end].to_vec();
            r.splice(end..end, piece);
        }
    }
    r
}

/// One piece of a stream: a mutated example record, or a known-valid call.
#[derive(Debug, Clone)]
enum Piece {
    Mutated(usize, Vec<Mutation>),
    Valid(usize),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        3 => (any::<usize>(), prop::collection::vec(mutation(), 0..4)).prop_map(|(i, m)| Piece::Mutated(i, m)),
        2 => (0..VALID.len()).prop_map(Piece::Valid),
    ]
}

fn run(input: &[u8]) -> (Vec<String>, Summary) {
    let mut printer = Printer::new(Vec::new(), Format::Args);
    let mut summary = Summary::default();
    tools()
        .filter()
        .stream(Input::new(input, "fuzz"), &mut printer, &mut summary)
        .unwrap();
    let out = String::from_utf8(printer.into_inner()).unwrap();
    (
        out.split_terminator('\n').map(str::to_owned).collect(),
        summary,
    )
}

proptest! {
    #![proptest_config(cases(1000))]

    #[test]
    fn the_filter_holds_its_invariants_on_mutated_streams(pieces in prop::collection::vec(piece(), 1..12)) {
        let mut input = Vec::new();
        let mut wanted = Vec::new();
        for (n, p) in pieces.iter().enumerate() {
            match p {
                Piece::Mutated(i, ms) => {
                    let ex = examples();
                    let mut r = ex[i % ex.len()].clone();
                    for m in ms {
                        r = apply(&r, m);
                    }
                    input.extend_from_slice(&r);
                }
                Piece::Valid(v) => {
                    let nonce = format!("{NONCE}{n}");
                    input.extend_from_slice(VALID[*v].0.replace('N', &nonce).as_bytes());
                    wanted.push(VALID[*v].1.replace('N', &nonce));
                }
            }
            input.push(b'\n');
        }
        let (lines, summary) = run(&input);
        prop_assert_eq!(lines.len() as u64, summary.total().calls + summary.broken_records());
        // Every valid call comes out byte-exact, once, in order: the lines that
        // hold a nonce are exactly the expected ones.
        grammar::exact(&lines, &wanted).map_err(|e| fail(e, &input))?;
        prop_assert_eq!(run(&input).0, lines);
    }
}
