mod unit {
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
        let input =
            b"{\"name\":\"bash\",\"arguments\":{\"command\":\"rm -rf /tmp/scra\n{\"ok\":1}\n";
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
}

mod properties {
    use super::super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[^\u{0}]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[a-z\"\\\\{}\\[\\]]{0,6}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// A line of garbage, heavy in the bytes that drive the framer.
    fn garbage_line() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            3 => prop::sample::select(b"{}[]\"\\,: \r\tax0".to_vec()),
            1 => any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
        ];
        prop::collection::vec(byte, 0..40)
    }

    /// A top-level value that is not an array (a top-level array is a batch).
    fn top_level_value() -> impl Strategy<Value = Value> {
        json_value().prop_filter("not an array", |v| !v.is_array())
    }

    /// Whether `line` leaves a value open that a following `{` could continue.
    fn open_prefix(line: &[u8]) -> bool {
        let mut scan = Scan::new();
        let trimmed = line.trim_ascii_start();
        if trimmed.first() == Some(&b'[') {
            return true;
        }
        for &b in trimmed {
            if !matches!(scan.step(b, false, false), Step::Continue) {
                return false;
            }
        }
        !scan.is_broken() && !trimmed.is_empty() && scan.token.is_none()
    }

    /// A compact JSON line, maybe with a few edits (a fragment that drives the
    /// framer inserted, or put in place of a byte, or a byte removed) and maybe cut
    /// short.
    fn mutated_line() -> impl Strategy<Value = Vec<u8>> {
        let fragment = prop::sample::select(vec![
            "{", "}", "[", "]", "\"", "\\", ":", ",", " ", "\n", "\r", "\t", "\u{1}", "\u{ff}",
            "0", "1", "-", ".", ".5", "e", "E+", "x", "a", "true", "nul", "\\u", "\\u123\"",
            "\\u00e9",
        ]);
        let edit = (0usize..3, any::<prop::sample::Index>(), fragment);
        let cut = prop::option::weighted(0.2, any::<prop::sample::Index>());
        (json_value(), prop::collection::vec(edit, 0..4), cut).prop_map(|(value, edits, cut)| {
            let mut line = serde_json::to_vec(&serde_json::json!({"v": value})).unwrap();
            for (how, at, fragment) in edits {
                let at = at.index(line.len());
                let fragment = fragment.bytes();
                match how {
                    0 => drop(line.splice(at..at, fragment)),
                    1 => drop(line.splice(at..at + 1, fragment)),
                    _ => drop(line.remove(at)),
                }
                if line.is_empty() {
                    line.push(b'{');
                }
            }
            if let Some(cut) = cut {
                line.truncate(cut.index(line.len() + 1));
            }
            line
        })
    }

    /// How many values the framer counts in `value`: containers, strings, numbers
    /// and literals, not keys.
    fn value_count(value: &Value) -> u64 {
        1 + match value {
            Value::Array(items) => items.iter().map(value_count).sum(),
            Value::Object(map) => map.values().map(value_count).sum(),
            _ => 0,
        }
    }

    fn records(input: &[u8]) -> Vec<(Vec<u8>, RecordMeta)> {
        records_with_capacity(input, 7)
    }

    fn records_with_capacity(input: &[u8], capacity: usize) -> Vec<(Vec<u8>, RecordMeta)> {
        let mut framer = Framer::with_capacity(input, usize::MAX, 0, capacity);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(meta) = framer.next_record(&mut buf, &mut || {}).unwrap() {
            out.push((buf.clone(), meta));
        }
        out
    }

    proptest! {
        // Garbage that opens a value is assumed away, about one case in five: a
        // soak's many cases need room for that many rejects.
        #![proptest_config(ProptestConfig { max_global_rejects: 1 << 20, ..ProptestConfig::default() })]

        #[test]
        fn any_stream_of_objects_round_trips(values in prop::collection::vec(json_value(), 0..8), pretty: bool) {
            // Objects only: a top-level array would be read as a batch of records.
            let values: Vec<Value> = values
                .into_iter()
                .map(|v| serde_json::json!({"v": v}))
                .collect();
            let mut input = Vec::new();
            for v in &values {
                if pretty {
                    serde_json::to_writer_pretty(&mut input, v).unwrap();
                } else {
                    serde_json::to_writer(&mut input, v).unwrap();
                }
                input.push(b'\n');
            }
            let got: Vec<Value> = records(&input)
                .iter()
                .map(|(b, _)| serde_json::from_slice(b).unwrap())
                .collect();
            prop_assert_eq!(got, values);
        }

        #[test]
        fn garbage_lines_never_swallow_the_next_record(
            garbage in prop::collection::vec(garbage_line(), 1..6)
        ) {
            // A line that is the open start of a value may go on with the next
            // line's record (that is what a parser would do): not garbage.
            prop_assume!(garbage.iter().all(|g| !open_prefix(g)));
            let good = br#"{"name":"glob","arguments":{"pattern":"*"}}"#;
            let mut input = Vec::new();
            for g in &garbage {
                input.extend_from_slice(g);
                input.push(b'\n');
                input.extend_from_slice(good);
                input.push(b'\n');
            }
            let got = records(&input);
            let intact = got.iter().filter(|(b, _)| b.as_slice() == good).count();
            prop_assert!(intact >= garbage.len(), "{} of {} intact", intact, garbage.len());
        }

        #[test]
        fn valid_json_in_any_layout_frames_to_the_same_values(
            values in prop::collection::vec(top_level_value(), 0..8),
            indent in prop::sample::select(vec!["", " ", "\t", "  ", "    "]),
            compact: bool,
            separators in prop::collection::vec(prop::sample::select(vec!["\n", " ", "\r\n", "\n\n", "\t", "\n  "]), 8),
        ) {
            let mut input = Vec::new();
            for (i, v) in values.iter().enumerate() {
                if compact {
                    serde_json::to_writer(&mut input, v).unwrap();
                } else {
                    let f = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                    let mut ser = serde_json::Serializer::with_formatter(&mut input, f);
                    serde::Serialize::serialize(v, &mut ser).unwrap();
                }
                input.extend_from_slice(separators[i].as_bytes());
            }
            let got = records(&input);
            prop_assert!(got.iter().all(|(_, m)| m.ending == Ending::Complete));
            let got: Vec<Value> = got
                .iter()
                .map(|(b, _)| serde_json::from_slice(b).unwrap())
                .collect();
            prop_assert_eq!(got, values);
        }

        #[test]
        fn a_top_level_array_frames_to_its_elements(
            values in prop::collection::vec(json_value().prop_map(|v| serde_json::json!({"v": v})), 0..6),
            pretty: bool,
        ) {
            let text = if pretty {
                serde_json::to_vec_pretty(&values).unwrap()
            } else {
                serde_json::to_vec(&values).unwrap()
            };
            let got: Vec<Value> = records(&text)
                .iter()
                .map(|(b, _)| serde_json::from_slice(b).unwrap())
                .collect();
            prop_assert_eq!(got, values);
        }

        #[test]
        fn a_garbage_line_is_one_record_and_the_next_is_intact(
            garbage in prop::collection::vec(
                (prop::sample::select(b"x}],#<".to_vec()), garbage_line()), 1..6),
        ) {
            let good = br#"{"name":"glob","arguments":{"pattern":"*"}}"#;
            let mut input = Vec::new();
            for (first, rest) in &garbage {
                input.push(*first);
                input.extend_from_slice(rest);
                input.push(b'\n');
                input.extend_from_slice(good);
                input.push(b'\n');
            }
            let got = records(&input);
            prop_assert_eq!(got.len(), 2 * garbage.len(), "{:?}", got);
            for pair in got.chunks(2) {
                prop_assert_eq!(pair[1].0.as_slice(), &good[..]);
            }
        }

        #[test]
        fn a_truncated_record_never_swallows_the_whole_ones_after_it(
            value in json_value(),
            cut in 0.0f64..1.0,
            n in 1usize..4,
        ) {
            let good = br#"{"name":"glob","arguments":{"pattern":"*"}}"#;
            let text = serde_json::to_string(&serde_json::json!({"v": value})).unwrap();
            let at = ((text.len() - 1) as f64 * cut) as usize;
            let mut input = text.as_bytes()[..at].to_vec();
            for _ in 0..n {
                input.push(b'\n');
                input.extend_from_slice(good);
            }
            input.push(b'\n');
            let got = records(&input);
            let intact = got.iter().filter(|(b, _)| b.as_slice() == good).count();
            prop_assert_eq!(intact, n, "{:?}", String::from_utf8_lossy(&input));
        }

        #[test]
        fn a_broken_data_line_never_takes_a_later_one(
            garbage in prop::collection::vec(garbage_line(), 1..6),
            comment: bool,
        ) {
            // Issue 25 item 9: whatever a `data:` line holds, every later
            // `data:` line is framed on its own.
            let good = br#"{"name":"glob","arguments":{"pattern":"*"}}"#;
            let mut input = Vec::new();
            for g in &garbage {
                input.extend_from_slice(b"data: ");
                input.extend_from_slice(g);
                input.extend_from_slice(if comment { b"\n: ping\n\n" } else { b"\n\n" });
                input.extend_from_slice(b"event: delta\ndata: ");
                input.extend_from_slice(good);
                input.extend_from_slice(b"\n\n");
            }
            let got = records(&input);
            let intact = got.iter().filter(|(b, _)| b.as_slice() == good).count();
            prop_assert!(intact >= garbage.len(), "{} of {} intact: {:?}", intact, garbage.len(), got);
        }

        #[test]
        fn a_scalar_then_text_is_one_record(
            scalar in prop::sample::select(vec!["0", "12", "-3.5e2", "true", "null", "\"s\""]),
            word in "[a-eg-mo-su-z#<}\\]]",
            rest in garbage_line(),
        ) {
            // Issue 25 item 10b: `2 cats` was two records.
            let good = br#"{"name":"glob","arguments":{"pattern":"*"}}"#;
            let mut input = format!("{scalar} {word}").into_bytes();
            input.extend_from_slice(&rest);
            input.push(b'\n');
            input.extend_from_slice(good);
            input.push(b'\n');
            let got = records(&input);
            prop_assert_eq!(got.len(), 2, "{:?}", got);
            prop_assert_eq!(got[1].0.as_slice(), &good[..]);
        }

        #[test]
        fn arbitrary_bytes_terminate_without_panicking(input in prop::collection::vec(any::<u8>(), 0..2000)) {
            let got = records(&input);
            let total: usize = got.iter().map(|(b, _)| b.len()).sum();
            prop_assert!(total <= input.len());
        }
    }

    // The fast path's equivalence rests on rare edits (a `]` become `}`, a
    // three-digit `\u`): many cheap cases.
    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn the_one_line_fast_path_frames_what_the_scanner_frames(
            line in mutated_line(),
        ) {
            let Some((len, values)) = scan::one_line_value(&line) else {
                return Ok(());
            };
            let mut scan = Scan::new();
            for (i, &b) in line.iter().enumerate() {
                match scan.step(b, false, false) {
                    Step::Continue => prop_assert!(i + 1 < len && !scan.is_broken()),
                    Step::EndAfter => {
                        prop_assert_eq!(i + 1, len);
                        break;
                    }
                    Step::EndBefore(_) | Step::ScalarEnd(_) => prop_assert!(false, "ended before byte {}", i),
                }
            }
            prop_assert_eq!(scan.values, values);
        }

        #[test]
        fn compact_json_takes_the_one_line_fast_path(value in json_value(), tail in "[ \n{x,]{0,3}") {
            let value = serde_json::json!([value]);
            let text = serde_json::to_string(&value).unwrap();
            let count = value_count(&value);
            let line = [text.as_bytes(), tail.as_bytes()].concat();
            prop_assert_eq!(scan::one_line_value(&line), Some((text.len(), count)));
        }

        #[test]
        fn sse_and_scalar_streams_frame_alike_in_any_buffer(
            parts in prop::collection::vec(prop::sample::select(vec![
                "data: ", "data:", "event: m", "id: 1", "retry: 3", ": c", "\n", "\n\n",
                "[", "]", "{", "}", "\"", ",", " ", "2", "-1.5", "true", "nul", "x",
                "[DONE]", "d", "da", "dat", "{\"a\":1}", "\"s\"", "\r\n",
            ]), 0..40),
        ) {
            let input = parts.concat().into_bytes();
            let tiny = records_with_capacity(&input, MIN_BUFFER);
            prop_assert_eq!(records_with_capacity(&input, CHUNK), tiny.clone());
            prop_assert_eq!(records_with_capacity(&input, 17), tiny);
        }

        #[test]
        fn any_buffer_size_frames_alike(
            lines in prop::collection::vec(mutated_line(), 0..12),
        ) {
            let input = lines.join(&b'\n');
            let tiny = records_with_capacity(&input, MIN_BUFFER);
            prop_assert_eq!(records_with_capacity(&input, CHUNK), tiny.clone());
            prop_assert_eq!(records_with_capacity(&input, 100), tiny);
        }
    }
}
