//! The `--format json` line is written field by field; each must come out
//! byte for byte as serde_json's serializer (with the record's spellings)
//! writes the same value.

use super::*;
use crate::{Input, Summary, Toolset};
use proptest::prelude::*;
use serde_json::json;

#[test]
fn whole_numbers_are_written_as_serde_json_writes_them() {
    for n in [
        0,
        1,
        9,
        10,
        99,
        100,
        12_345,
        u64::from(u32::MAX),
        u64::MAX - 1,
        u64::MAX,
    ] {
        let mut out = b"x".to_vec();
        write_decimal(&mut out, n);
        assert_eq!(
            out,
            format!("x{}", serde_json::to_string(&n).unwrap()).as_bytes()
        );
    }
}

/// A tool name heavy in what is escaped (controls, quotes, backslashes, DEL,
/// C1, U+2028/9), or the declared tool.
fn name() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a", "\"", "\\", "\n", "\u{1}", "\u{7f}", "\u{85}", "\u{2028}", "é", "😀", "/",
    ]);
    prop_oneof![
        Just("read".to_owned()),
        prop::collection::vec(piece, 0..6).prop_map(|p| p.concat()),
    ]
}

/// Argument text: valid, repaired, rejected, a number spelled with an
/// exponent (kept as sent), none.
fn arguments() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        r#"{"limit":2}"#,
        r#"{"limit":"2"}"#,
        r#"{"limit":"two"}"#,
        r#"{"limit":2.5}"#,
        r#"{"limit":1E2}"#,
        r#"{"limit":20,"x":1E2}"#,
        "{}",
    ])
}

proptest! {
    #[test]
    fn a_json_line_is_what_the_serializer_writes(
        calls in prop::collection::vec((name(), arguments(), any::<bool>()), 1..14),
    ) {
        let tools = Toolset::from_schemas([(
            "read".to_owned(),
            json!({"type": "object", "properties": {"limit": {"type": "integer"}}, "required": ["limit"]}),
        )]);
        let mut records = String::new();
        for (i, (name, args, with_id)) in calls.iter().enumerate() {
            let name = serde_json::to_string(name).unwrap();
            let id = if *with_id { format!(r#","id":"c{i}\u2029""#) } else { String::new() };
            records.push_str(&format!(r#"{{"name":{name},"arguments":{args}{id}}}"#));
            records.push('\n');
        }
        let mut printer = Printer::new(Vec::new(), Format::Json);
        tools
            .filter()
            .stream(Input::from_bytes(records.as_bytes(), "calls.jsonl"), &mut printer, &mut Summary::default())
            .unwrap();
        let out = String::from_utf8(printer.into_inner()).unwrap();
        prop_assert_eq!(out.lines().count(), calls.len());
        for line in out.lines() {
            let parsed: Value = serde_json::from_str(line).unwrap();
            let mut want = Vec::new();
            Spellings::scan(line.as_bytes()).write(&mut want, &parsed).unwrap();
            prop_assert_eq!(line, String::from_utf8(want).unwrap());
        }
    }
}

#[test]
fn a_status_is_quoted_as_its_name() {
    for status in [Status::Valid, Status::Repaired, Status::Rejected] {
        assert_eq!(
            quoted(status),
            serde_json::to_string(status.as_str()).unwrap()
        );
    }
}

/// Writes each result twice: once with its call as read, once with the call
/// cut to its id and name ([`Call::into_id_and_name`]).
struct Twice {
    whole: Printer<Vec<u8>>,
    cut: Printer<Vec<u8>>,
}

impl Sink for Twice {
    fn begin_record(&mut self, spellings: Spellings) {
        Sink::begin_record(&mut self.whole, spellings.clone());
        Sink::begin_record(&mut self.cut, spellings);
    }

    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        self.whole.call(at, &call, &verdict)?;
        self.cut.call(at, &call.into_id_and_name(), &verdict)
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        self.whole.record(at, &verdict)?;
        self.cut.record(at, &verdict)
    }
}

/// One record holding a call to `name` with `args`, in one of the envelopes.
fn record(shape: u8, name: &str, args: &str, i: usize) -> String {
    let quoted = serde_json::to_string(name).unwrap();
    let text = serde_json::to_string(args).unwrap();
    match shape % 4 {
        0 => format!(r#"{{"name":{quoted},"arguments":{args},"id":"c{i}"}}"#),
        1 => format!(
            r#"{{"id":"call_{i}","type":"function","function":{{"name":{quoted},"arguments":{text}}}}}"#
        ),
        2 => format!(r#"{{"type":"tool_use","id":"toolu_{i}","name":{quoted},"input":{args}}}"#),
        _ => {
            let markup =
                format!(r#"<tool_call>{{"name":{quoted},"arguments":{args}}}</tool_call>"#);
            let content = serde_json::to_string(&markup).unwrap();
            format!(r#"{{"role":"assistant","content":{content}}}"#)
        }
    }
}

proptest! {
    #[test]
    fn a_call_cut_to_its_id_and_name_writes_the_same_json_and_args_lines(
        calls in prop::collection::vec((any::<u8>(), name(), arguments()), 1..10),
    ) {
        let tools = Toolset::from_schemas([(
            "read".to_owned(),
            json!({"type": "object", "properties": {"limit": {"type": "integer"}}, "required": ["limit"]}),
        )]);
        let mut records = String::new();
        for (i, (shape, name, args)) in calls.iter().enumerate() {
            records.push_str(&record(*shape, name, args, i));
            records.push('\n');
        }
        for format in [Format::Json, Format::Args] {
            let mut twice = Twice {
                whole: Printer::new(Vec::new(), format),
                cut: Printer::new(Vec::new(), format),
            };
            tools
                .filter()
                .stream(Input::from_bytes(records.as_bytes(), "calls.jsonl"), &mut twice, &mut Summary::default())
                .unwrap();
            let whole = String::from_utf8(twice.whole.into_inner()).unwrap();
            prop_assert_eq!(whole, String::from_utf8(twice.cut.into_inner()).unwrap());
        }
    }
}
