//! The framer on hand-written streams: JSON lines, concatenated and pretty-printed
//! values, top-level arrays, server-sent events, garbage, and the caps.

use super::super::scan::MAX_SCAN_DEPTH;
use super::super::*;

fn frame(input: &[u8]) -> Vec<(String, RecordMeta)> {
    frame_with_limit(input, usize::MAX)
}

fn frame_with_limit(input: &[u8], limit: usize) -> Vec<(String, RecordMeta)> {
    // A tiny buffer exercises records that span many reads.
    let mut framer = Framer::with_capacity(input, limit, 0, 3);
    let mut buf = Vec::new();
    let mut out = Vec::new();
    while let Some(meta) = framer.next_record(&mut buf, &mut || {}).unwrap() {
        out.push((String::from_utf8_lossy(&buf).into_owned(), meta));
    }
    out
}

fn texts(input: &[u8]) -> Vec<String> {
    frame(input).into_iter().map(|(t, _)| t).collect()
}

#[test]
fn json_lines_are_one_record_each() {
    assert_eq!(
        texts(b"{\"a\":1}\n{\"b\":\"}\"}\n\n{\"c\":[1,{}]}\n"),
        ["{\"a\":1}", "{\"b\":\"}\"}", "{\"c\":[1,{}]}"]
    );
}

#[test]
fn concatenated_and_pretty_printed_values() {
    let input = b"{\"a\":1}{\"b\":2}\n{\n  \"c\": {\n    \"d\": 3\n  }\n}\n";
    assert_eq!(
        texts(input),
        [
            "{\"a\":1}",
            "{\"b\":2}",
            "{\n  \"c\": {\n    \"d\": 3\n  }\n}"
        ]
    );
}

#[test]
fn top_level_array_elements_are_records() {
    let input = b"[\n{\"a\":1},\n{\"b\":[2]} ,\n3\n]\n{\"c\":3}";
    let out = frame(input);
    let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(t, ["{\"a\":1}", "{\"b\":[2]}", "3", "{\"c\":3}"]);
    let lines: Vec<_> = out.iter().map(|(_, m)| m.line).collect();
    assert_eq!(lines, [2, 3, 4, 6]);
    let idx: Vec<_> = out.iter().map(|(_, m)| m.index).collect();
    assert_eq!(idx, [0, 1, 2, 3]);
}

#[test]
fn long_strings_frame_the_same_in_one_read_as_in_many() {
    // Plain runs are passed over in one go; what ends them (a quote, an
    // escape, a control character, a raw newline) is still seen.
    let long = "é-x".repeat(200);
    let input = format!(
        "{{\"a\":\"{long}\\\"{long}\\u00e9{long}\"}}\n\
         {{\"b\":\"{long}\n{{\"c\":\"{long}\\t\"}}\n\
         {{\"d\":\"{long}\t\"}}\n"
    );
    let mut framer = Framer::new(input.as_bytes(), usize::MAX, 0);
    let mut buf = Vec::new();
    let mut whole = Vec::new();
    while let Some(meta) = framer.next_record(&mut buf, &mut || {}).unwrap() {
        whole.push((String::from_utf8_lossy(&buf).into_owned(), meta));
    }
    assert_eq!(whole, frame(input.as_bytes()));
    let endings: Vec<_> = whole.iter().map(|(_, m)| m.ending).collect();
    assert_eq!(
        endings,
        [
            Ending::Complete,
            Ending::Resync,
            Ending::Complete,
            Ending::Complete
        ]
    );
    assert!(whole[0].0.ends_with(&format!("\\u00e9{long}\"}}")));
    assert_eq!(whole[1].0, format!("{{\"b\":\"{long}"));
    let lines: Vec<_> = whole.iter().map(|(_, m)| m.line).collect();
    assert_eq!(lines, [1, 2, 3, 4]);
}

#[test]
fn escaped_quotes_and_backslashes_do_not_confuse_strings() {
    let input = br#"{"a":"x\"}\\"}
{"b":"\\"}"#;
    assert_eq!(texts(input), [r#"{"a":"x\"}\\"}"#, r#"{"b":"\\"}"#]);
}

#[test]
fn truncated_line_does_not_swallow_the_next_record() {
    let input = b"{\"name\":\"bash\",\"arguments\":{\"command\":\"rm -rf /tmp/scra\n{\"ok\":1}\n";
    let out = frame(input);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].1.ending, Ending::Resync);
    assert_eq!(out[1].0, "{\"ok\":1}");
    assert_eq!(out[1].1.line, 2);
}

#[test]
fn backslash_before_newline_in_a_string_does_not_escape_the_newline() {
    for bad in [&b"{\"a\":\"x\\\n"[..], b"\"x\\\n"] {
        let mut input = bad.to_vec();
        input.extend_from_slice(b"{\"ok\":1}\n");
        let out = frame(&input);
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0].1.ending, Ending::Resync);
        assert_eq!(out[1].0, "{\"ok\":1}");
    }
}

#[test]
fn unclosed_brackets_resync_at_a_column_zero_brace() {
    let input = b"{\"a\":{\"b\":1}\n{\"ok\":1}\n";
    let out = frame(input);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].0, "{\"a\":{\"b\":1}\n");
    assert_eq!(out[0].1.ending, Ending::Resync);
    assert_eq!(out[1].0, "{\"ok\":1}");
    assert_eq!(out[1].1.ending, Ending::Complete);
}

#[test]
fn garbage_is_one_record_per_line() {
    let input = b"not json at all\n\x00\xff\xfe}}\n{\"ok\":1}";
    let out = frame(input);
    assert_eq!(out.len(), 3);
    assert_eq!(out[2].0, "{\"ok\":1}");
}

#[test]
fn eof_inside_a_record_is_reported() {
    let out = frame(b"{\"a\":[1,2");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1.ending, Ending::Eof);
    // A broken line is not cut off by the end of the input: it ends there
    // as it would at a newline. One that left brackets open is.
    for (text, ending) in [
        ("hello", Ending::Complete),
        ("2 cats", Ending::Complete),
        ("x \"abc", Ending::Complete),
        ("x {", Ending::Eof),
    ] {
        let out = frame(text.as_bytes());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].1.ending, ending, "{text}");
    }
}

#[test]
fn oversized_records_are_measured_and_dropped() {
    let input = b"{\"a\":\"0123456789\"}\n{\"b\":1}";
    let out = frame_with_limit(input, 10);
    assert_eq!(out[0].1.oversized, Some(18));
    assert!(out[0].0.is_empty());
    assert_eq!(out[1].0, "{\"b\":1}");
    assert_eq!(out[1].1.oversized, None);
}

#[test]
fn byte_order_mark_is_skipped() {
    assert_eq!(texts(b"\xEF\xBB\xBF{\"a\":1}"), ["{\"a\":1}"]);
}

#[test]
fn pretty_printing_with_no_indentation_is_one_record() {
    // Issue 9: a nested `{` in column 0 used to split a valid record.
    let input = b"{\n\"name\": \"todowrite\",\n\"arguments\": {\n\"todos\": [\n{\n\"content\": \"a\"\n}\n]\n}\n}\n{\"ok\":1}\n";
    let out = frame(input);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0].1.ending, Ending::Complete);
    let v: serde_json::Value = serde_json::from_str(&out[0].0).unwrap();
    assert_eq!(v["arguments"]["todos"][0]["content"], "a");
    assert_eq!(out[1].1.line, 11);
}

#[test]
fn a_garbage_line_in_an_open_array_is_one_record() {
    // Issue 9: `x,y,z , 1 2 3` after an unclosed `[` gave up to 7 results.
    let out = frame(b"[\nx,y,z , 1 2 3\n{\"ok\":1}\n");
    let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(t, ["x,y,z , 1 2 3", "{\"ok\":1}"]);
}

#[test]
fn valid_values_of_every_kind_frame_as_a_parser_would() {
    assert_eq!(
        texts(b"\"a b\" 12 -0.5e+3 true null {\"k\":[1,{}]}\n\"x\""),
        [
            "\"a b\"",
            "12",
            "-0.5e+3",
            "true",
            "null",
            "{\"k\":[1,{}]}",
            "\"x\""
        ]
    );
}

#[test]
fn a_record_that_can_still_be_valid_is_not_cut_at_column_zero() {
    // `{"a":` may go on with a value on the next line: it does.
    let out = frame(b"{\"a\":\n{\"b\":1}}\n");
    assert_eq!(out.len(), 1);
    // But once it cannot, the column-0 brace starts the next record.
    let out = frame(b"{\"a\":1,\n{\"b\":1}\n");
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].1.ending, Ending::Resync);
    assert_eq!(out[1].0, "{\"b\":1}");
}

#[test]
fn a_record_that_breaks_after_a_column_zero_brace_ends_before_it() {
    // A truncated JSON Lines record, then whole ones: none of them is lost.
    let good = "{\"b\":[1]}";
    for cut in ["{\"a\":", "{\"a\":[", "{\"a\":[1,", "{\"a\":{\"c\":"] {
        let input = format!("{cut}\n{good}\n{good}\nnot json\n{good}\n");
        let out = frame(input.as_bytes());
        let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            t,
            [&format!("{cut}\n"), good, good, "not json", good],
            "{cut}"
        );
        assert_eq!(out[0].1.ending, Ending::Resync);
        let lines: Vec<_> = out.iter().map(|(_, m)| m.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5]);
    }
}

#[test]
fn inside_a_top_level_array_a_column_zero_brace_starts_a_record() {
    let out = frame(b"[\n{\"a\":[1,\n{\"b\":2},\n{\"c\":3}\n]\n");
    let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(t, ["{\"a\":[1,\n", "{\"b\":2}", "{\"c\":3}"]);
    assert_eq!(out[0].1.ending, Ending::Resync);
}

#[test]
fn server_sent_events_frame_their_data() {
    let input = b"event: message\nid: 7\n: keep-alive\ndata: {\"a\":1}\n\ndata:{\"b\":2}\nretry: 10\ndata: [DONE]\n";
    assert_eq!(texts(input), ["{\"a\":1}", "{\"b\":2}"]);
    // A line that only looks like a field is a record like any other.
    assert_eq!(texts(b"database\n"), ["database"]);
}

#[test]
fn byte_order_marks_before_any_record_are_skipped() {
    assert_eq!(
        texts(b"{\"a\":1}\n\xEF\xBB\xBF{\"b\":2}"),
        ["{\"a\":1}", "{\"b\":2}"]
    );
}

#[test]
fn broken_records_end_where_their_brackets_close_or_their_line_ends() {
    let out = frame(b"{\"a\": 1 2}{\"b\":1}\nnot json {\nstill\n{\"ok\":2}\n{\n  \"a\": 1 2,\n  \"b\": {}\n}\n3");
    let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        t,
        [
            "{\"a\": 1 2}{\"b\":1}",
            "not json {\nstill\n",
            "{\"ok\":2}",
            "{\n  \"a\": 1 2,\n  \"b\": {}\n}",
            "3"
        ]
    );
    assert!(out.iter().all(|(_, m)| m.ending == Ending::Complete));
}

#[test]
fn idle_is_called_before_each_read_and_not_between_buffered_records() {
    let mut calls = 0;
    let mut framer = Framer::with_capacity(&b"{}\n{}\n{}\n"[..], usize::MAX, 0, 1024);
    let mut buf = Vec::new();
    let mut records = 0;
    while framer
        .next_record(&mut buf, &mut || calls += 1)
        .unwrap()
        .is_some()
    {
        records += 1;
    }
    assert_eq!(records, 3);
    // One read for the data, one that finds the end.
    assert_eq!(calls, 2);
}

#[test]
fn deep_nesting_is_framed_without_recursion() {
    let mut input = vec![b'['; 100_000];
    input.extend(vec![b']'; 100_000]);
    input.extend_from_slice(b"\n{}");
    // A top-level `[` opens array mode; the inner arrays form one record.
    let out = frame(&input);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].0, "{}");
}

#[test]
fn nesting_past_the_cap_holds_no_more_memory() {
    // 200 MB of `[` held 200 MB of open-bracket stack, whatever
    // --max-record-bytes said.
    let mut scan = Scan::new();
    for _ in 0..4 * MAX_SCAN_DEPTH {
        assert!(matches!(scan.step(b'[', false, false), Step::Continue));
    }
    assert!(scan.is_broken() && scan.too_deep());
    assert!(scan.held() <= 2 * MAX_SCAN_DEPTH, "{}", scan.held());
    // Framed: one record to the end of its line, the next one intact, and
    // no resync inside it at a column-0 bracket.
    let deep = "[\n".repeat(3 * MAX_SCAN_DEPTH) + &"]".repeat(3 * MAX_SCAN_DEPTH);
    let out = frame(format!("{{\"a\":{deep}}}\n{GOOD}\n").as_bytes());
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].0, GOOD);
}

#[test]
fn a_line_nested_past_the_cap_never_swallows_the_records_after_it() {
    // A line of more open brackets than the scanner stacks, never closed:
    // every record after it was taken into it and lost.
    // (A record that starts with `[` opens a top-level array instead: the
    // CLI test covers that one.)
    for open in ["{\"a\":[", "{\"b\":{\"c\":"] {
        let deep = open.repeat(MAX_SCAN_DEPTH + 1000);
        for next in [GOOD, "{\"x\":[1]}", "{}"] {
            let input = format!("{GOOD}\n{deep}\n{next}\n{GOOD}\n\n{GOOD}\n");
            let out = frame(input.as_bytes());
            // (length, start) of each record: the deep one is too long to print.
            let short = |t: &str| (t.len(), t.chars().take(12).collect::<String>());
            let got: Vec<_> = out
                .iter()
                .map(|(t, m)| (short(t.trim_end()), m.line))
                .collect();
            let want: Vec<_> = [GOOD, deep.as_str(), next, GOOD, GOOD]
                .iter()
                .zip([1, 2, 3, 4, 6])
                .map(|(t, line)| (short(t), line))
                .collect();
            assert_eq!(got, want, "{open} then {next}");
        }
    }
    // Brackets one to a line (a record printed without indentation) are the
    // record's own, however deep: it is still one record.
    let deep = "[\n".repeat(2 * MAX_SCAN_DEPTH) + &"]\n".repeat(2 * MAX_SCAN_DEPTH);
    let out = frame(format!("{deep}{GOOD}\n").as_bytes());
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].0, GOOD);
}

const GOOD: &str = r#"{"name":"glob","arguments":{"pattern":"*"}}"#;

#[test]
fn a_broken_sse_record_ends_at_the_next_data_line() {
    // Issue 25 item 9: `{"t":"f"x` swallowed every later `data:` record.
    for bad in ["{\"t\":\"f\"x", "{", "{{{{", "x {", "} {", "{\"a\":[1,"] {
        let mut input = format!("data: {bad}\n\n");
        for _ in 0..3 {
            input.push_str(&format!("event: m\ndata: {GOOD}\n\n: ping\n"));
        }
        let out = frame(input.as_bytes());
        let t: Vec<_> = out.iter().map(|(t, _)| t.trim_end()).collect();
        assert_eq!(t, [bad, GOOD, GOOD, GOOD], "{bad}");
        let lines: Vec<_> = out.iter().map(|(_, m)| m.line).collect();
        assert_eq!(lines, [1, 4, 8, 12], "{bad}");
    }
}

#[test]
fn a_record_still_valid_at_a_data_line_is_cut_off_there() {
    let out = frame(format!("data: {{\"a\":[1,\n\ndata: {GOOD}\n").as_bytes());
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0].1.ending, Ending::Resync);
    assert_eq!(out[1].0, GOOD);
    // Every SSE field at a line start ends a record; a comment line does
    // not (a `:` there can be valid JSON).
    for field in ["event: x", "id: 1", "retry: 5"] {
        let out = frame(format!("{{\"a\":\n{field}\n{GOOD}\n").as_bytes());
        let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(t, ["{\"a\":\n", GOOD], "{field}");
    }
    assert_eq!(texts(b"{\"a\"\n: 1}\n"), ["{\"a\"\n: 1}"]);
}

#[test]
fn a_stray_bracket_does_not_turn_later_data_lines_into_garbage() {
    // Issue 25 item 9: a `[` line opened a top-level array, and SSE fields
    // were not recognised inside one.
    // The bracket is one broken record, cut off at the SSE field.
    for bracket in ["[", "data: ["] {
        let input = format!("{bracket}\n\ndata: {GOOD}\n\ndata: {GOOD}\n\ndata: [DONE]\n");
        let out = frame(input.as_bytes());
        let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(t, ["[", GOOD, GOOD], "{bracket}");
        assert_eq!((out[0].1.line, out[0].1.ending), (1, Ending::Resync));
    }
    // So is a bracket that the input ends, but not an array that framed
    // elements or was closed.
    let out = frame(b"{}\n  [\n");
    assert_eq!(out.len(), 2);
    assert_eq!((out[1].0.as_str(), out[1].1.line), ("[", 2));
    assert_eq!((out[1].1.offset, out[1].1.ending), (5, Ending::Eof));
    assert_eq!(texts(b"[\n{}\ndata: {}\n"), ["{}", "{}"]);
    assert_eq!(texts(b"[]\ndata: {}\n[ ]"), ["{}"]);
}

#[test]
fn in_json_lines_no_broken_line_takes_a_later_record() {
    // JSON Lines records start in column 0 with `{` or `[`, and a column-0
    // bracket always ends a broken record: an unterminated string or
    // bracket, or a truncated value, never takes the next line's record.
    for bad in [
        "{\"t\":\"f\"x",
        "{",
        "x {",
        "{\"a\": [1, x",
        "\"abc",
        "{\"a\":\"b",
        "2 x {",
        "{\"a\":",
        "{\"a\":[{",
    ] {
        let input = format!("{GOOD}\n{bad}\n{GOOD}\n[{GOOD}]\n{GOOD}\n");
        let out = texts(input.as_bytes());
        let good = out.iter().filter(|t| t.as_str() == GOOD).count();
        assert_eq!(good, 4, "{bad}: {out:?}");
        assert_eq!(out.len(), 5, "{bad}: {out:?}");
    }
}

#[test]
fn a_record_that_breaks_after_a_column_zero_bracket_ends_before_it() {
    // A JSON Lines batch (`[…]`) after a truncated line is not lost either.
    for cut in ["{\"a\":", "{\"a\":[1,", "{\"a\":{\"b\":"] {
        let input = format!("{cut}\n[{GOOD}]\n{GOOD}\n");
        let out = frame(input.as_bytes());
        let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(t, [format!("{cut}\n").as_str(), GOOD, GOOD], "{cut}");
        assert_eq!(out[0].1.ending, Ending::Resync);
    }
}

#[test]
fn a_bare_scalar_with_more_text_on_its_line_is_one_record() {
    // Issue 25 item 10b: `2 cats` was framed as `2`, then `cats`.
    for line in [
        "2 x {",
        "2 [x",
        "2 cats",
        "-1.5 x",
        "\"a b\" c",
        "true nope",
        "null ]",
        "7 tr",
        "2 {\"a\": x",
        "\"s\" \"t",
    ] {
        // The broken line ends with its line, whatever it left open.
        let out = frame(format!("{line}\n {GOOD}\n").as_bytes());
        let t: Vec<_> = out.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(t, [line, GOOD], "{line}");
    }
    // More values on the line are values, as a parser reads them, and a
    // scalar record never takes the spaces after it.
    assert_eq!(
        texts(b"1 2  \"x\" {\"a\":1}  \n3 \t\n4"),
        ["1", "2", "\"x\"", "{\"a\":1}", "3", "4"]
    );
    // A value left open at the line end may go on: the scalar stands alone.
    assert_eq!(texts(b"1 {\n\"a\":1}\n"), ["1", "{\n\"a\":1}"]);
    // A line is checked once: a long line of values frames in linear time.
    let n = 100_000;
    let line = "1 ".repeat(n);
    let out = frame(line.as_bytes());
    assert_eq!(out.len(), n);
    assert!(out.iter().all(|(t, m)| t == "1" && m.line == 1));
    // Inside a top-level array, elements end at their commas as before.
    assert_eq!(texts(b"[1, 2, \"x\"]\n"), ["1", "2", "\"x\""]);
}

#[test]
fn parsing_lines_parses_only_lines_that_cannot_hold_too_many_values() {
    // 9 bytes, 3 values: parsed under a limit of 9 values, not under 8 (a
    // longer line is checked and counted first, so a record over the limit
    // is never built), nor when the limit is below its count.
    let input = b"{\"a\":[1]}\n";
    for (max_values, parsed) in [(u64::MAX, true), (9, true), (8, false), (2, false)] {
        let mut framer = Framer::new(&input[..], usize::MAX, 0).parsing_lines(max_values);
        let mut buf = Vec::new();
        let meta = framer.next_record(&mut buf, &mut || {}).unwrap().unwrap();
        assert_eq!(meta.parsed.is_some(), parsed, "limit {max_values}");
        assert_eq!((buf.as_slice(), meta.values), (&input[..9], 3));
    }
}
