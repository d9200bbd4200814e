//! Properties of the framer on generated streams: what it frames is what a parser
//! reads, broken records never take the next one, and every buffer size and the
//! one-line fast path frame alike.

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
        "{", "}", "[", "]", "\"", "\\", ":", ",", " ", "\n", "\r", "\t", "\u{1}", "\u{ff}", "0",
        "1", "-", ".", ".5", "e", "E+", "x", "a", "true", "nul", "\\u", "\\u123\"", "\\u00e9",
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

/// A line holding objects spelled with serde_json's private number key
/// (which it reads as numbers): the framer counts their strings as values,
/// and sees no exponent in them.
fn number_key_line() -> impl Strategy<Value = Vec<u8>> {
    let key = prop::sample::select(vec![
        "$serde_json::private::Number",
        "\\u0024serde_json::private::Number",
    ]);
    let text = prop::sample::select(vec!["1", "1e5", "1E5", "-0.5", "x", ""]);
    let object = (key, text).prop_map(|(k, t)| format!("{{\"{k}\":\"{t}\"}}"));
    (
        prop::collection::vec(object, 1..3),
        prop::sample::select(vec!["", ",2e3", ",\"1e2\""]),
    )
        .prop_map(|(objects, tail)| format!("{{\"v\":[{}{tail}]}}", objects.join(",")).into_bytes())
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
    framed(Framer::with_capacity(input, usize::MAX, 0, capacity))
}

fn framed(mut framer: Framer<&[u8]>) -> Vec<(Vec<u8>, RecordMeta)> {
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

/// Whether a number in `value` was written with an exponent.
fn has_exponent(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.to_string().contains(['e', 'E']),
        Value::Array(items) => items.iter().any(has_exponent),
        Value::Object(map) => map.values().any(has_exponent),
        _ => false,
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
        let Some(scan::OneLine { len, values, exponent }) = scan::one_line_value(&line) else {
            return Ok(());
        };
        // The flag says whether a number has an exponent, as its parse says.
        if let Ok(parsed) = serde_json::from_slice::<Value>(line.get(..len).unwrap_or_default()) {
            prop_assert_eq!(exponent, has_exponent(&parsed));
        }
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
        let read = scan::one_line_value(&line);
        prop_assert_eq!(read.map(|l| (l.len, l.values)), Some((text.len(), count)));
        prop_assert_eq!(read.map(|l| l.exponent), Some(false));
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

    #[test]
    fn parsing_lines_frames_what_checking_them_frames(
        lines in prop::collection::vec(
            (
                prop_oneof![4 => mutated_line(), 1 => number_key_line()],
                prop::sample::select(vec!["", " ", "\r", " \t", "\x0c", " x"]),
            ),
            0..12,
        ),
        max_values in prop_oneof![Just(u64::MAX), 0..12u64],
        capacity in prop::sample::select(vec![MIN_BUFFER, 100, CHUNK]),
        limit in prop_oneof![Just(usize::MAX), 0..60usize],
    ) {
        let input: Vec<u8> = lines
            .iter()
            .flat_map(|(line, end)| [line.as_slice(), end.as_bytes(), b"\n"].concat())
            .collect();
        let checked = framed(Framer::with_capacity(&input[..], limit, 0, capacity));
        let parsed = framed(
            Framer::with_capacity(&input[..], limit, 0, capacity).parsing_lines(max_values),
        );
        prop_assert_eq!(checked.len(), parsed.len());
        for ((bytes, meta), (parsed_bytes, mut parsed_meta)) in checked.into_iter().zip(parsed) {
            prop_assert_eq!(&bytes, &parsed_bytes);
            if let Some(line) = parsed_meta.parsed.take() {
                // A parsed record is what the caller's parse would make of it.
                let (value, repeated) = crate::json::parse_once(&bytes).unwrap();
                prop_assert_eq!(&line.value, &value);
                prop_assert_eq!(line.repeated, repeated);
                prop_assert!(line.values <= max_values);
            } else if meta.ending == Ending::Complete && meta.oversized.is_none() && capacity == CHUNK {
                // With the whole input in the buffer, only a record the
                // caller's parse refuses, or one over the value limit, or not
                // alone on its line, comes unparsed.
                let after = &input[meta.offset as usize + bytes.len()..];
                let whole_line = after
                    .iter()
                    .position(|&b| b == b'\n')
                    .is_some_and(|n| after[..n].iter().all(|b| b" \t\r".contains(b)));
                prop_assert!(
                    crate::json::parse_once(&bytes).is_err()
                        || meta.values > max_values
                        || bytes.len() as u64 > max_values
                        || !whole_line
                        || bytes.contains(&b'\n')
                        || !matches!(bytes.first(), Some(b'{' | b'['))
                        || std::str::from_utf8(&bytes).is_err(),
                    "{:?} came unparsed", String::from_utf8_lossy(&bytes)
                );
            }
            prop_assert_eq!(meta, parsed_meta);
        }
    }
}
