//! A call's arguments checked without building a [`serde_json::Value`]: the
//! JSON text read into a borrowed tape (strings without escapes and every
//! number's text stay where they are) and validated by the tool's one
//! validator, which reads a tape as it reads a `Value` (`instance`).
//!
//! Only a plain subset of JSON is read (see [`read`]): anything else, and
//! every call the validator does not find valid on the tape, is left to the one
//! path that parses, salvages and repairs (`verdict::judge`). So this is a
//! shortcut to the verdict "valid as sent", never a second opinion: what it
//! accepts is text that `crate::json` parses, without a repeated key, into a
//! value the tool's validator accepts, and its compact text is what
//! `Spellings::to_text` writes for that value (`tests` and the property test
//! in `toolset/tests.rs` pin both).

use std::borrow::Cow;

use jsonschema::json::cmp;
use serde_json::Value;

pub(crate) mod instance;

/// Containers nested deeper than this are left to the full path.
const MAX_DEPTH: usize = 64;

/// Objects with more members than this are left to the full path (each key
/// is compared with the ones before it, to find a repeated one).
const MAX_MEMBERS: usize = 32;

/// Integers with more digits than this are left to the full path: up to it
/// every reading (`u64`, `i64`, `f64`, the text) agrees.
const MAX_DIGITS: usize = 15;

/// The keys serde_json reserves for itself (`$serde_json::private::Number`,
/// with `arbitrary_precision`): an object with one is left to the full path.
const SERDE_PRIVATE: &str = "$serde_json::private::";

/// A JSON value over its text.
#[derive(Debug, Default, PartialEq)]
pub(crate) enum Tape<'t> {
    #[default]
    Null,
    Bool(bool),
    /// An integer's text: `-?(0|[1-9][0-9]*)`, at most [`MAX_DIGITS`]
    /// digits, never `-0`.
    Integer(&'t str),
    String(Cow<'t, str>),
    Array(Vec<Tape<'t>>),
    Object(Vec<(Cow<'t, str>, Tape<'t>)>),
}

/// Text [`read`]: its value, and whether the text is already compact (no
/// white space between tokens), i.e. what `Spellings::to_text` writes for it.
#[derive(Debug)]
pub(crate) struct Read<'t> {
    pub value: Tape<'t>,
    pub compact: bool,
}

/// `text` as a [`Tape`], when it is one JSON value in the plain subset this
/// module reads, and `None` otherwise: strings whose escapes are only
/// `\" \\ \n \r \t \b \f` and that hold no DEL, C1 control character,
/// U+2028 or U+2029 (which callfix writes escaped: `spelling.rs`); integers
/// of at most 15 digits (no fraction, no exponent, not `-0`); objects of at
/// most 32 members, none named twice and none named as serde_json names its
/// private ones; at most 64 levels of nesting. Linear in the text's length.
pub(crate) fn read(text: &str) -> Option<Read<'_>> {
    let mut reader = Reader {
        text,
        at: 0,
        spaced: false,
    };
    let value = reader.value(0)?;
    reader.space();
    (reader.at == text.len()).then_some(Read {
        value,
        compact: !reader.spaced,
    })
}

/// `text`, which [`read`] accepted, without the white space between its
/// tokens.
pub(crate) fn compact(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    // Where the run not yet copied starts: runs are copied whole, between
    // the white space left out (ASCII, so every run is whole characters).
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            out.push_str(text.get(from..i).unwrap_or_default());
            from = i + 1;
        } else if b == b'"' {
            in_string = true;
        }
    }
    out.push_str(text.get(from..).unwrap_or_default());
    out
}

/// The bytes [`Reader::string`] passes without a look: all but those that
/// end a string's plain run for every reader of JSON text in callfix
/// ([`STRING_STOP`](crate::input::STRING_STOP): `"`, `\\`, control
/// characters) and those the tape leaves to the full path: DEL, and the first
/// bytes of U+0080..U+009F (`0xc2`) and of U+2028 and U+2029 (`0xe2`).
#[allow(clippy::indexing_slicing)] // Cannot fail: indexes below 256.
const PLAIN: [bool; 256] = {
    let mut plain = [true; 256];
    let mut b = 0;
    while b < 256 {
        plain[b] = !crate::input::STRING_STOP[b];
        b += 1;
    }
    plain[0x7f] = false;
    plain[0xc2] = false;
    plain[0xe2] = false;
    plain
};

/// Whether [`Reader::string`] passes `b` without a look ([`PLAIN`]).
#[allow(clippy::indexing_slicing)] // Cannot fail: a byte indexes a 256-entry table.
fn plain(b: u8) -> bool {
    PLAIN[usize::from(b)]
}

struct Reader<'t> {
    text: &'t str,
    at: usize,
    /// White space was skipped somewhere.
    spaced: bool,
}

impl<'t> Reader<'t> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
            self.spaced = true;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.space();
        let found = self.peek() == Some(byte);
        if found {
            self.at += 1;
        }
        found
    }

    fn value(&mut self, depth: usize) -> Option<Tape<'t>> {
        self.space();
        match self.peek()? {
            b'{' if depth < MAX_DEPTH => {
                self.at += 1;
                if self.eat(b'}') {
                    return Some(Tape::Object(Vec::new()));
                }
                // Room for most calls' arguments at once.
                let mut members: Vec<(Cow<'t, str>, Tape<'t>)> = Vec::with_capacity(8);
                loop {
                    self.space();
                    let key = self.string()?;
                    // serde_json's own key for a number's text (`src/json.rs`
                    // reads such an object as a number).
                    if members.len() >= MAX_MEMBERS
                        || key.starts_with(SERDE_PRIVATE)
                        || members.iter().any(|(k, _)| *k == key)
                    {
                        return None;
                    }
                    if !self.eat(b':') {
                        return None;
                    }
                    let value = self.value(depth + 1)?;
                    members.push((key, value));
                    if !self.eat(b',') {
                        return self.eat(b'}').then_some(Tape::Object(members));
                    }
                }
            }
            b'[' if depth < MAX_DEPTH => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Tape::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if !self.eat(b',') {
                        return self.eat(b']').then_some(Tape::Array(items));
                    }
                }
            }
            b'"' => self.string().map(Tape::String),
            b't' => self.word("true", Tape::Bool(true)),
            b'f' => self.word("false", Tape::Bool(false)),
            b'n' => self.word("null", Tape::Null),
            b'-' | b'0'..=b'9' => self.integer(),
            _ => None,
        }
    }

    fn word(&mut self, word: &str, value: Tape<'t>) -> Option<Tape<'t>> {
        let rest = self.text.get(self.at..)?;
        rest.starts_with(word).then(|| {
            self.at += word.len();
            value
        })
    }

    /// An integer: `-?(0|[1-9][0-9]*)` of at most [`MAX_DIGITS`] digits, not
    /// `-0`, followed by no more of a number.
    fn integer(&mut self) -> Option<Tape<'t>> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let digits = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        let count = self.at - digits;
        let first = self.text.as_bytes().get(digits).copied();
        let plain = match (first, count) {
            (Some(b'0'), 1) => digits == start,
            (Some(b'1'..=b'9'), 1..=MAX_DIGITS) => true,
            _ => false,
        };
        if !plain || matches!(self.peek(), Some(b'.' | b'e' | b'E' | b'+' | b'-')) {
            return None;
        }
        self.text.get(start..self.at).map(Tape::Integer)
    }

    /// A string at `"`: borrowed when it holds no escape, else unescaped.
    fn string(&mut self) -> Option<Cow<'t, str>> {
        let bytes = self.text.as_bytes();
        if bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        let start = self.at + 1;
        let mut i = start;
        let mut owned: Option<String> = None;
        // Where the text not yet copied into `owned` starts.
        let mut from = start;
        loop {
            // Past the bytes that need no look (most of a string), in a
            // tight loop: a table lookup a byte.
            i += bytes.get(i..)?.iter().position(|&b| !plain(b))?;
            match *bytes.get(i)? {
                b'"' => break,
                b'\\' => {
                    let unescaped = match *bytes.get(i + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        _ => return None,
                    };
                    let out = owned.get_or_insert_with(String::new);
                    out.push_str(self.text.get(from..i)?);
                    out.push(unescaped);
                    i += 2;
                    from = i;
                }
                // Control characters: invalid raw below U+0020; DEL written
                // as `\u007f`.
                0x00..=0x1f | 0x7f => return None,
                // U+0080..U+009F (written as `\u0080`..), U+2028 and U+2029
                // (written as `\u2028`, `\u2029`).
                0xc2 if matches!(bytes.get(i + 1), Some(0x80..=0x9f)) => return None,
                0xe2 if bytes.get(i + 1) == Some(&0x80)
                    && matches!(bytes.get(i + 2), Some(0xa8 | 0xa9)) =>
                {
                    return None;
                }
                _ => i += 1,
            }
        }
        self.at = i + 1;
        match owned {
            Some(mut out) => {
                out.push_str(self.text.get(from..i)?);
                Some(Cow::Owned(out))
            }
            None => self.text.get(start..i).map(Cow::Borrowed),
        }
    }
}

/// The number `text` (an integer [`read`] accepted) as serde_json holds it.
fn number(text: &str) -> serde_json::Number {
    text.parse().unwrap_or_else(|_| serde_json::Number::from(0))
}

/// Whether `tape` is `expected` as jsonschema compares them (`cmp::equal`:
/// numbers by value, objects whatever their order), without building a
/// [`Value`]: `enum` asks this of each of its items, so a large value against
/// many items costs one length check each, as for a `Value`.
fn equals(tape: &Tape<'_>, expected: &Value) -> bool {
    match (tape, expected) {
        (Tape::Null, Value::Null) => true,
        (Tape::Bool(a), Value::Bool(b)) => a == b,
        (Tape::Integer(text), Value::Number(n)) => {
            cmp::equal_numbers(&instance::Num::Integer(text), n)
        }
        (Tape::String(a), Value::String(b)) => a.as_ref() == b.as_str(),
        (Tape::Array(items), Value::Array(others)) => {
            items.len() == others.len() && items.iter().zip(others).all(|(a, b)| equals(a, b))
        }
        // Keys are unique on both sides: the same count, and each found equal.
        (Tape::Object(members), Value::Object(others)) => {
            members.len() == others.len()
                && members
                    .iter()
                    .all(|(key, a)| others.get(key.as_ref()).is_some_and(|b| equals(a, b)))
        }
        _ => false,
    }
}

/// The [`Value`] a tape stands for (its depth is bounded by [`read`]).
pub(crate) fn to_value(tape: &Tape<'_>) -> Value {
    match tape {
        Tape::Null => Value::Null,
        Tape::Bool(b) => Value::Bool(*b),
        Tape::Integer(text) => Value::Number(number(text)),
        Tape::String(s) => Value::String(s.to_string()),
        Tape::Array(items) => Value::Array(items.iter().map(to_value).collect()),
        Tape::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.to_string(), to_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests;
