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
