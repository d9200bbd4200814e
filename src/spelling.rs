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
        // Writing to a Vec cannot fail, and serde_json writes UTF-8.
        let _ = self.write(&mut out, value);
        String::from_utf8(out).unwrap_or_default()
    }
}

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
}
