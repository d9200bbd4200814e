//! Number spellings, so that a number comes out as it came in.
//!
//! With serde_json's `arbitrary_precision` a number keeps its digits exactly
//! (`0.1000000000000000055511151231257827`, `12345678901234567890123`, `1.0`,
//! `-0.0`), but its parser writes an exponent in one form: `1e2` and `1E2` become
//! `1e+2`. [`Spellings`] remembers, per record, how each such number was spelled
//! in the source, and the output writes it back that way. When one record spells
//! the same number two ways (`1e2` and `1E2`), that number is written in the
//! parser's form: its value is exact, its spelling is not guessed.

use std::collections::HashMap;
use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use serde_json::{Serializer, Value};

/// Source spellings of the numbers whose parsed text differs from the source.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Spellings {
    /// Parsed text → source text; `None` where the source spelled it two ways.
    map: HashMap<String, Option<String>>,
    /// The record was read with its lone surrogate escapes masked
    /// (`crate::surrogates`): strings write them back as sent.
    pub masked: bool,
}

impl Spellings {
    /// The spellings of the numbers in JSON (or near-JSON) `text`. Strings are
    /// skipped; costs one pass, and nothing is allocated unless a number has an
    /// exponent that the parser writes differently.
    pub(crate) fn scan(text: &[u8]) -> Self {
        let mut out = Self::default();
        out.add(text);
        out
    }

    /// Adds the spellings found in `text`.
    pub(crate) fn add(&mut self, text: &[u8]) {
        // Most text has no exponent at all: one cheap pass says so.
        if !digit_then_e(text) {
            return;
        }
        let mut i = 0;
        let mut prev = b' ';
        while let Some(&b) = text.get(i) {
            if b == b'"' {
                i = skip_string(text, i + 1);
                prev = b'"';
                continue;
            }
            let starts_number = (b == b'-' || b.is_ascii_digit())
                && !(prev.is_ascii_alphanumeric() || prev == b'_');
            if !starts_number {
                prev = b;
                i += 1;
                continue;
            }
            let start = i;
            while text
                .get(i)
                .is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            {
                i += 1;
            }
            // At least `b` itself: a sign or a digit.
            let token = text.get(start..i).unwrap_or_default();
            prev = token.last().copied().unwrap_or(b);
            if let Some(parsed) = parsed_form(token) {
                let source = String::from_utf8_lossy(token).into_owned();
                match self.map.get(&parsed) {
                    None => {
                        self.map.insert(parsed, Some(source));
                    }
                    Some(Some(seen)) if *seen != source => {
                        self.map.insert(parsed, None);
                    }
                    Some(_) => {}
                }
            }
        }
    }

    fn source<'a>(&'a self, parsed: &'a str) -> &'a str {
        match self.map.get(parsed) {
            Some(Some(source)) => source,
            _ => parsed,
        }
    }

    /// `value` as compact JSON with the source spellings.
    pub(crate) fn write<W: io::Write, T: Serialize + ?Sized>(
        &self,
        out: W,
        value: &T,
    ) -> io::Result<()> {
        let mut ser = Serializer::with_formatter(out, Spelled(CompactFormatter, self));
        value.serialize(&mut ser).map_err(io::Error::from)
    }

    /// `value` as pretty JSON with the source spellings.
    pub(crate) fn write_pretty<W: io::Write>(&self, out: W, value: &Value) -> io::Result<()> {
        let mut ser = Serializer::with_formatter(out, Spelled(PrettyFormatter::new(), self));
        value.serialize(&mut ser).map_err(io::Error::from)
    }

    /// `value` as compact JSON text with the source spellings.
    pub fn to_text(&self, value: &Value) -> String {
        let mut out = Vec::with_capacity(128);
        self.write_value(&mut out, value);
        // What is written is UTF-8: the strings' own text, and ASCII.
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`Spellings::write`] of a [`Value`] into memory, byte for byte, without
    /// serde's serializer: each call's arguments are written so, and through
    /// the serializer a value cost twice as much (a formatter call for each
    /// token and string fragment, a struct for each number).
    pub(crate) fn write_value(&self, out: &mut Vec<u8>, value: &Value) {
        self.write_at(out, value, 0);
    }

    fn write_at(&self, out: &mut Vec<u8>, value: &Value, depth: usize) {
        match value {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(true) => out.extend_from_slice(b"true"),
            Value::Bool(false) => out.extend_from_slice(b"false"),
            Value::Number(n) => out.extend_from_slice(self.source(n.as_str()).as_bytes()),
            Value::String(s) => self.write_str(out, s),
            // Deeper than any value callfix parses (128 levels): the
            // serializer's own recursion, as before.
            Value::Array(_) | Value::Object(_) if depth >= WRITE_DEPTH => {
                let _ = self.write(&mut *out, value);
            }
            Value::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.write_at(out, item, depth + 1);
                }
                out.push(b']');
            }
            Value::Object(members) => {
                out.push(b'{');
                for (i, (key, item)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.write_str(out, key);
                    out.push(b':');
                    self.write_at(out, item, depth + 1);
                }
                out.push(b'}');
            }
        }
    }

    /// A string, escaped as serde_json escapes it and as [`Spelled`] escapes
    /// what serde_json leaves raw.
    pub(crate) fn write_str(&self, out: &mut Vec<u8>, s: &str) {
        if self.masked && s.contains(crate::surrogates::MARK) {
            let _ = self.write(&mut *out, s);
            return;
        }
        out.push(b'"');
        let bytes = s.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            // A `u8` always indexes a 256-entry table.
            let class = ESCAPE.get(usize::from(b)).copied().unwrap_or(0);
            if class == 0 {
                i += 1;
                continue;
            }
            // How many bytes the escape stands for, and the escape.
            let (len, escape): (usize, Escape) = match class {
                b'C' => match bytes.get(i + 1) {
                    Some(&c1 @ 0x80..=0x9f) => (2, Escape::Control(c1)),
                    _ => {
                        i += 1;
                        continue;
                    }
                },
                b'L' => match (bytes.get(i + 1), bytes.get(i + 2)) {
                    (Some(0x80), Some(0xa8)) => (3, Escape::Text(b"\\u2028")),
                    (Some(0x80), Some(0xa9)) => (3, Escape::Text(b"\\u2029")),
                    _ => {
                        i += 1;
                        continue;
                    }
                },
                b'u' => (1, Escape::Control(b)),
                b'b' => (1, Escape::Text(b"\\b")),
                b't' => (1, Escape::Text(b"\\t")),
                b'n' => (1, Escape::Text(b"\\n")),
                b'f' => (1, Escape::Text(b"\\f")),
                b'r' => (1, Escape::Text(b"\\r")),
                b'"' => (1, Escape::Text(b"\\\"")),
                _ => (1, Escape::Text(b"\\\\")),
            };
            out.extend_from_slice(bytes.get(start..i).unwrap_or_default());
            match escape {
                Escape::Control(c) => control(out, c),
                Escape::Text(text) => out.extend_from_slice(text),
            }
            i += len;
            start = i;
        }
        out.extend_from_slice(bytes.get(start..).unwrap_or_default());
        out.push(b'"');
    }
}

/// How a byte (or character) of a string is escaped.
enum Escape {
    /// `\\u00XX` for this control character.
    Control(u8),
    /// These bytes.
    Text(&'static [u8]),
}

/// Nesting [`Spellings::write_value`] follows itself.
const WRITE_DEPTH: usize = 256;

/// `\u00XX` for a control character (C0, DEL or C1), in lower case as
/// serde_json writes it.
fn control(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(b"\\u00");
    out.push(HEX.get(usize::from(byte >> 4)).copied().unwrap_or(b'0'));
    out.push(HEX.get(usize::from(byte & 0xf)).copied().unwrap_or(b'0'));
}

/// What a string's byte needs when written ([`Spellings::write_str`]): 0
/// nothing; `u` a `\u00XX` escape (C0 controls other than the five with a
/// short escape, and DEL); a short escape's letter, `"` or `\\`; `C` and `L`
/// lead bytes of characters that may need one (C1 controls; U+2028, U+2029).
#[allow(clippy::indexing_slicing)] // Every index is a byte: in the table (a const block).
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[0x7f] = b'u';
    table[0xc2] = b'C';
    table[0xe2] = b'L';
    table
};

/// How serde_json's parser writes a number with an exponent: `e` in lower case,
/// and a `+` where the source had no sign. (A token already in that form is
/// recorded too, so that `1e+2` beside `1e2` is seen as two spellings.)
fn parsed_form(token: &[u8]) -> Option<String> {
    let at = token.iter().position(|&b| b == b'e' || b == b'E')?;
    let (mantissa, rest) = (token.get(..at)?, token.get(at + 1..)?);
    let (sign, digits) = match rest.split_first() {
        Some((&sign @ (b'+' | b'-'), digits)) => (sign, digits),
        _ => (b'+', rest),
    };
    if mantissa.is_empty() || digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut parsed = Vec::with_capacity(token.len() + 1);
    parsed.extend_from_slice(mantissa);
    parsed.push(b'e');
    parsed.push(sign);
    parsed.extend_from_slice(digits);
    Some(String::from_utf8_lossy(&parsed).into_owned())
}

/// Whether `text` has a digit followed by `e` or `E` anywhere (a number with an
/// exponent has one). Branch-free over blocks, so the compiler vectorises it:
/// English text is full of `e`s, and stopping at each cost more than this pass.
fn digit_then_e(text: &[u8]) -> bool {
    const BLOCK: usize = 64;
    let mut prev_digit = false;
    for block in text.chunks(BLOCK) {
        let mut found = false;
        let mut before = prev_digit;
        for &b in block {
            let digit = b.wrapping_sub(b'0') < 10;
            found |= before & (b | 0x20 == b'e');
            before = digit;
        }
        if found {
            return true;
        }
        prev_digit = before;
    }
    false
}

/// The index just past the string whose body starts at `i`.
fn skip_string(text: &[u8], mut i: usize) -> usize {
    while let Some(b) = text.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    text.len()
}

/// A formatter that writes numbers in their source spelling, and escapes the
/// characters serde_json leaves raw that can still end or redraw a line (DEL, C1
/// controls, U+2028, U+2029): every result is one line for any reader. The string
/// is the same; only its escaping differs.
struct Spelled<'a, F>(F, &'a Spellings);

/// Characters serde_json writes raw that can end or redraw a line.
fn risky(c: char) -> bool {
    c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) || matches!(c, '\u{2028}' | '\u{2029}')
}

impl<F: Formatter> Formatter for Spelled<'_, F> {
    fn write_number_str<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        value: &str,
    ) -> io::Result<()> {
        w.write_all(self.1.source(value).as_bytes())
    }
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let unmasked;
        let fragment = if self.1.masked && fragment.contains(crate::surrogates::MARK) {
            // Back to the escapes they were (valid JSON, as sent).
            let mut plain = Vec::with_capacity(fragment.len());
            crate::surrogates::unmask(fragment, &mut plain)?;
            unmasked = String::from_utf8(plain).unwrap_or_default();
            unmasked.as_str()
        } else {
            fragment
        };
        // Fast paths: ASCII without DEL (nearly every string: std's checks,
        // a word or a vector at a time), else only bytes 0x7f, 0xc2 (C1)
        // and 0xe2 (U+2028/9) can start one.
        let plain = fragment.is_ascii() && !fragment.as_bytes().contains(&0x7f);
        if plain
            || !fragment.bytes().any(|b| matches!(b, 0x7f | 0xc2 | 0xe2))
            || !fragment.contains(risky)
        {
            return w.write_all(fragment.as_bytes());
        }
        let bytes = fragment.as_bytes();
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if risky(c) {
                w.write_all(bytes.get(start..i).unwrap_or_default())?;
                write!(w, "\\u{:04x}", u32::from(c))?;
                start = i + c.len_utf8();
            }
        }
        w.write_all(bytes.get(start..).unwrap_or_default())
    }
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> String {
        let v: Value = serde_json::from_str(text).unwrap();
        Spellings::scan(text.as_bytes()).to_text(&v)
    }

    #[test]
    fn every_number_comes_out_as_it_came_in() {
        let text = r#"{"a":1.0,"b":1e2,"c":-0.0,"d":1234567890123456789012345,"e":0.100000000000000005551115123125782702,"f":1E-7,"g":2.50e+10,"h":[3E5,-1e0]}"#;
        assert_eq!(round_trip(text), text);
    }

    #[test]
    fn an_exponent_is_a_digit_then_e_anywhere_in_the_text() {
        let long = "x".repeat(200);
        for (text, want) in [
            ("1e5", true),
            ("1E5", true),
            ("e5", false),
            ("the end", false),
            ("9", false),
            ("", false),
        ] {
            assert_eq!(digit_then_e(text.as_bytes()), want, "{text}");
            // Across and at the edges of the blocks the pass works in.
            for cut in [62, 63, 64, 65, 127, 128] {
                let pad = long.get(..cut).unwrap_or_default();
                let padded = format!("{pad}{text}{pad}");
                assert_eq!(digit_then_e(padded.as_bytes()), want, "{cut} {text}");
            }
        }
    }

    #[test]
    fn strings_are_not_numbers() {
        let s = Spellings::scan(br#"{"a":"1e2 \" 2E3","k1e2":1}"#);
        assert!(s.map.is_empty(), "{s:?}");
    }

    #[test]
    fn one_value_spelled_two_ways_is_written_in_the_parsed_form() {
        let text = r#"[1e2,1E2,1e+2]"#;
        assert_eq!(round_trip(text), "[1e+2,1e+2,1e+2]");
    }

    #[test]
    fn characters_that_break_lines_are_escaped_and_the_string_is_the_same() {
        let v = serde_json::json!({"k\u{2028}": "a\u{85}b\u{7f}c\u{2029}é\u{9b}"});
        let text = Spellings::default().to_text(&v);
        assert_eq!(text, r#"{"k\u2028":"a\u0085b\u007fc\u2029é\u009b"}"#);
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
    }

    #[test]
    fn pretty_output_keeps_spellings() {
        let text = r#"{"a":1E3}"#;
        let v: Value = serde_json::from_str(text).unwrap();
        let mut out = Vec::new();
        Spellings::scan(text.as_bytes())
            .write_pretty(&mut out, &v)
            .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "{\n  \"a\": 1E3\n}");
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_number_text_round_trips(
            numbers in prop::collection::vec("-?(0|[1-9][0-9]{0,40})(\\.[0-9]{1,40})?([eE][+-]?[0-9]{1,4})?", 1..8)
        ) {
            let text = format!("{{\"n\":[{}],\"s\":\"1e2\"}}", numbers.join(","));
            let v: Value = serde_json::from_str(&text).unwrap();
            let spellings = Spellings::scan(text.as_bytes());
            let got = spellings.to_text(&v);
            // Exact unless one value is spelled two ways in the record.
            if spellings.map.values().all(Option::is_some) {
                prop_assert_eq!(got, text);
            } else {
                let back: Value = serde_json::from_str(&got).unwrap();
                prop_assert_eq!(back, v);
            }
        }
    }

    /// A string heavy in what is escaped: controls, quotes, backslashes,
    /// DEL, C1 controls, U+2028/9 and the characters around them that are not.
    fn nasty_string() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "a", "\"", "\\", "\n", "\t", "\u{8}", "\u{c}", "\r", "\u{0}", "\u{1f}", "\u{7f}",
            "\u{80}", "\u{85}", "\u{9f}", "\u{a0}", "é", "\u{2027}", "\u{2028}", "\u{2029}",
            "\u{202a}", "\u{20ac}", "😀", " ", "/", "ab", "\u{e2}",
        ]);
        prop::collection::vec(piece, 0..8).prop_map(|p| p.concat())
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,2})?"
                .prop_map(|n| serde_json::from_str::<Value>(&n).unwrap()),
            nasty_string().prop_map(Value::String),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((nasty_string(), inner), 0..5)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        #[test]
        fn the_direct_writer_writes_what_the_serializer_writes(v in value(), spelled in any::<bool>()) {
            // The spellings of the value's own source text, or none.
            let text = serde_json::to_string(&v).unwrap().replace("e+", "E");
            let parsed: Value = serde_json::from_str(&text).unwrap();
            let spellings = if spelled { Spellings::scan(text.as_bytes()) } else { Spellings::default() };
            let mut want = Vec::new();
            spellings.write(&mut want, &parsed).unwrap();
            let mut got = Vec::new();
            spellings.write_value(&mut got, &parsed);
            prop_assert_eq!(String::from_utf8(got).unwrap(), String::from_utf8(want).unwrap());
        }
    }

    #[test]
    fn the_direct_writer_unmasks_and_goes_deeper_than_its_own_depth() {
        let text = r#"{"a":"x\ud800y","b":1E2}"#;
        let masked = crate::surrogates::mask(text.as_bytes()).unwrap();
        let v: Value = serde_json::from_slice(&masked).unwrap();
        let mut spellings = Spellings::scan(text.as_bytes());
        spellings.masked = true;
        let mut got = Vec::new();
        spellings.write_value(&mut got, &v);
        assert_eq!(String::from_utf8(got).unwrap(), text);
        let mut deep = Value::from(1);
        for _ in 0..WRITE_DEPTH + 10 {
            deep = Value::Array(vec![deep]);
        }
        let mut got = Vec::new();
        Spellings::default().write_value(&mut got, &deep);
        let mut want = Vec::new();
        Spellings::default().write(&mut want, &deep).unwrap();
        assert_eq!(got, want);
    }
}
