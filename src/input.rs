//! Stage 1: the input stream.
//!
//! Splits a byte stream into *records* without parsing them, so that one broken
//! record never takes the rest of the stream with it. A stream may be JSON Lines,
//! concatenated (possibly pretty-printed) JSON values, or one top-level JSON array
//! whose elements are the records. Memory is bounded by the largest record, not by
//! the length of the stream.
//!
//! How a record ends:
//! - an object or array ends when its brackets balance (strings and escapes are
//!   respected);
//! - a top-level string ends at its closing quote;
//! - anything else (a number, `true`, garbage) ends at the end of its line, or at
//!   `,`/`]` inside a top-level array.
//!
//! Resynchronisation, so a truncated record does not swallow the next ones:
//! - a raw newline inside a string cannot occur in valid JSON, so it ends the record;
//! - a line that starts in column 0 with `{` or `[` while a record is still open
//!   starts a new record (pretty-printers indent nested lines; JSON Lines never
//!   splits a record).

use std::io::{self, BufRead};

/// Where a record came from, for messages that name the file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMeta {
    /// Record number in the whole run, from 0.
    pub index: u64,
    /// 1-based line on which the record starts.
    pub line: u64,
    /// How the framer ended the record.
    pub ending: Ending,
    /// The record's full size when it was larger than the limit (its bytes were
    /// discarded).
    pub oversized: Option<usize>,
}

/// How the framer ended a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The value closed normally (or a bare token ended at its line end).
    Complete,
    /// The input ended inside the record.
    Eof,
    /// A newline inside a string, or a new record starting in column 0, cut it off.
    Resync,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `{…}` or `[…]`.
    Nested {
        depth: u32,
        in_string: bool,
        escaped: bool,
    },
    /// `"…"` at the top level.
    Str { escaped: bool },
    /// Anything else, up to the end of the line.
    Bare,
}

/// Splits a reader into records. Reuse one `Framer` for the whole stream.
pub struct Framer<R> {
    reader: R,
    limit: usize,
    next_index: u64,
    line: u64,
    at_line_start: bool,
    in_array: bool,
    at_start: bool,
}

impl<R: BufRead> Framer<R> {
    /// A framer over `reader` that keeps at most `limit` bytes of one record.
    /// `first_index` continues the record numbering across several inputs.
    pub fn new(reader: R, limit: usize, first_index: u64) -> Self {
        Self {
            reader,
            limit,
            next_index: first_index,
            line: 1,
            at_line_start: true,
            in_array: false,
            at_start: true,
        }
    }

    /// The index the next record will get.
    pub fn next_index(&self) -> u64 {
        self.next_index
    }

    /// Reads the next record into `out` (cleared first). Returns `None` at the end
    /// of the stream.
    pub fn next_record(&mut self, out: &mut Vec<u8>) -> io::Result<Option<RecordMeta>> {
        out.clear();
        let Some(first) = self.skip_to_record()? else {
            return Ok(None);
        };
        let mut shape = match first {
            b'{' | b'[' => Shape::Nested {
                depth: 0,
                in_string: false,
                escaped: false,
            },
            b'"' => Shape::Str { escaped: false },
            _ => Shape::Bare,
        };
        let meta_line = self.line;
        let mut size = 0usize;
        let mut first_byte = true;
        let ending = loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                break Ending::Eof;
            }
            // (bytes to take, how the record ended); a byte that ends a record
            // without belonging to it is left in the reader for the next one.
            let mut end: Option<(usize, Ending)> = None;
            let mut i = 0;
            while i < buf.len() {
                let b = buf[i];
                let line_start = self.at_line_start;
                self.at_line_start = b == b'\n';
                let step = step(&mut shape, b, first_byte, line_start, self.in_array);
                first_byte = false;
                match step {
                    Step::Continue => i += 1,
                    Step::EndAfter => {
                        end = Some((i + 1, Ending::Complete));
                        break;
                    }
                    Step::EndBefore(ending) => {
                        self.at_line_start = line_start;
                        end = Some((i, ending));
                        break;
                    }
                }
            }
            let (take, done) = match end {
                Some((n, ending)) => (n, Some(ending)),
                None => (buf.len(), None),
            };
            self.line += count_newlines(&buf[..take]);
            size += take;
            if size <= self.limit {
                out.extend_from_slice(&buf[..take]);
            } else if !out.is_empty() {
                out.clear();
                out.shrink_to(0);
            }
            self.reader.consume(take);
            if let Some(ending) = done {
                break ending;
            }
        };
        let index = self.next_index;
        self.next_index += 1;
        Ok(Some(RecordMeta {
            index,
            line: meta_line,
            ending,
            oversized: (size > self.limit).then_some(size),
        }))
    }

    /// Skips whitespace, separators and top-level array brackets. Returns the first
    /// byte of the next record (not consumed) or `None` at the end of input.
    fn skip_to_record(&mut self) -> io::Result<Option<u8>> {
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(None);
            }
            if self.at_start {
                self.at_start = false;
                if buf.starts_with(b"\xEF\xBB\xBF") {
                    self.reader.consume(3);
                    continue;
                }
            }
            let mut i = 0;
            let mut found = None;
            while i < buf.len() {
                let b = buf[i];
                match b {
                    b' ' | b'\t' | b'\r' | b'\n' => {
                        if b == b'\n' {
                            self.line += 1;
                        }
                        self.at_line_start = b == b'\n';
                    }
                    b',' if self.in_array => self.at_line_start = false,
                    b']' if self.in_array => {
                        self.in_array = false;
                        self.at_line_start = false;
                    }
                    b'[' if !self.in_array => {
                        self.in_array = true;
                        self.at_line_start = false;
                    }
                    _ => {
                        found = Some(b);
                        break;
                    }
                }
                i += 1;
            }
            self.reader.consume(i);
            if found.is_some() {
                return Ok(found);
            }
        }
    }
}

enum Step {
    Continue,
    /// The byte closes the record.
    EndAfter,
    /// The record ended just before this byte.
    EndBefore(Ending),
}

/// Advances the scanner over one byte of a record.
fn step(shape: &mut Shape, b: u8, first_byte: bool, line_start: bool, in_array: bool) -> Step {
    match shape {
        Shape::Nested {
            depth,
            in_string,
            escaped,
        } => {
            if *in_string {
                // A raw newline is invalid in a JSON string, escaped or not.
                if b == b'\n' {
                    return Step::EndBefore(Ending::Resync);
                } else if *escaped {
                    *escaped = false;
                } else if b == b'\\' {
                    *escaped = true;
                } else if b == b'"' {
                    *in_string = false;
                }
                return Step::Continue;
            }
            match b {
                b'"' => *in_string = true,
                b'{' | b'[' => {
                    if line_start && !first_byte && *depth > 0 {
                        return Step::EndBefore(Ending::Resync);
                    }
                    *depth += 1;
                }
                b'}' | b']' => {
                    *depth = depth.saturating_sub(1);
                    if *depth == 0 {
                        return Step::EndAfter;
                    }
                }
                _ => {}
            }
            Step::Continue
        }
        Shape::Str { escaped } => {
            if first_byte {
                // the opening quote
            } else if b == b'\n' {
                return Step::EndBefore(Ending::Resync);
            } else if *escaped {
                *escaped = false;
            } else if b == b'\\' {
                *escaped = true;
            } else if b == b'"' {
                return Step::EndAfter;
            }
            Step::Continue
        }
        Shape::Bare => {
            if b == b'\n' || b == b'\r' || (in_array && (b == b',' || b == b']')) {
                Step::EndBefore(Ending::Complete)
            } else {
                Step::Continue
            }
        }
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(input: &[u8]) -> Vec<(String, RecordMeta)> {
        frame_with_limit(input, usize::MAX)
    }

    fn frame_with_limit(input: &[u8], limit: usize) -> Vec<(String, RecordMeta)> {
        // A tiny buffer exercises records that span many reads.
        let reader = io::BufReader::with_capacity(3, input);
        let mut framer = Framer::new(reader, limit, 0);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(meta) = framer.next_record(&mut buf).unwrap() {
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
    fn deep_nesting_is_framed_without_recursion() {
        let mut input = vec![b'['; 100_000];
        input.extend(vec![b']'; 100_000]);
        input.extend_from_slice(b"\n{}");
        // A top-level `[` opens array mode; the inner arrays form one record.
        let out = frame(&input);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].0, "{}");
    }
}

#[cfg(test)]
mod properties {
    use super::*;
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

    fn records(input: &[u8]) -> Vec<(Vec<u8>, RecordMeta)> {
        let mut framer = Framer::new(io::BufReader::with_capacity(7, input), usize::MAX, 0);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(meta) = framer.next_record(&mut buf).unwrap() {
            out.push((buf.clone(), meta));
        }
        out
    }

    proptest! {
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
        fn arbitrary_bytes_terminate_without_panicking(input in prop::collection::vec(any::<u8>(), 0..2000)) {
            let got = records(&input);
            let total: usize = got.iter().map(|(b, _)| b.len()).sum();
            prop_assert!(total <= input.len());
        }
    }
}
