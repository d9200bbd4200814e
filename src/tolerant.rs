//! A small tolerant JSON parser for argument text that strict JSON rejects.
//!
//! It accepts JSON plus exactly these leniencies, and reports which it used:
//! trailing commas, single-quoted strings, unquoted keys, `//` and `/* */`
//! comments, Python's `True`/`False`/`None` outside strings, and raw newlines,
//! carriage returns and tabs inside strings (JSON whose escapes were already
//! decoded by the JSON around it: they stand for exactly those characters). Everything else
//! is an error, and running out of input is always an error: truncated text is
//! never completed.

use serde_json::{Map, Number, Value};

/// The leniencies a parse needed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leniency {
    /// A comma before `}` or `]`.
    pub trailing_comma: bool,
    /// Single-quoted strings.
    pub single_quotes: bool,
    /// Keys without quotes.
    pub unquoted_key: bool,
    /// `//` or `/* */` comments.
    pub comment: bool,
    /// `True`, `False` or `None`.
    pub python_literal: bool,
    /// Raw newlines or tabs inside a string.
    pub raw_control: bool,
}

impl Leniency {
    /// The leniencies used, by name, for messages and repair records.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (on, name) in [
            (self.trailing_comma, "trailing comma"),
            (self.single_quotes, "single quotes"),
            (self.unquoted_key, "unquoted key"),
            (self.comment, "comment"),
            (self.python_literal, "Python literal"),
            (self.raw_control, "raw newline or tab in a string"),
        ] {
            if on {
                v.push(name);
            }
        }
        v
    }
}

/// Why tolerant parsing failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The text ended before the value did.
    Truncated,
    /// Something else is wrong at this byte offset.
    Invalid {
        /// The byte offset.
        at: usize,
        /// What was expected there.
        what: &'static str,
    },
    /// A complete value was followed by more text, starting at this offset.
    Trailing {
        /// The byte offset where the rest starts.
        at: usize,
    },
    /// A complete value, ending at this offset, in which an object names a
    /// key twice: which of its values a reader keeps depends on the reader,
    /// so the value is no reading of the text.
    Repeated {
        /// The byte offset where the value ends.
        at: usize,
        /// The dotted path of the first key named twice (in the order of
        /// the text: `options.limit`, `items.0.name`).
        path: String,
    },
}

/// Same limit as serde_json's: deeper input is rejected, not recursed into.
const MAX_DEPTH: usize = 128;

/// Parses one value from `text`; the whole text must be that value (plus
/// whitespace and comments).
pub(crate) fn parse(text: &str) -> Result<(Value, Leniency), Failure> {
    let mut p = Parser::new(text);
    let v = p.value()?;
    p.unrepeated()?;
    p.skip_space()?;
    if p.i < p.s.len() {
        return Err(Failure::Trailing { at: p.i });
    }
    Ok((v, p.used))
}

/// Parses the first value of `text`; returns it and the offset where it ends.
pub(crate) fn parse_prefix(text: &str) -> Result<(Value, Leniency, usize), Failure> {
    let mut p = Parser::new(text);
    let v = p.value()?;
    p.unrepeated()?;
    Ok((v, p.used, p.i))
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    used: Leniency,
    depth: usize,
    /// The path of the first key named twice, innermost segment first (each
    /// container that holds it adds its own segment as the parse returns).
    repeated: Option<Vec<String>>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            s: text.as_bytes(),
            text,
            i: 0,
            used: Leniency::default(),
            depth: 0,
            repeated: None,
        }
    }

    /// After a whole value: a key named twice in it is a failure.
    fn unrepeated(&mut self) -> Result<(), Failure> {
        match self.repeated.take() {
            None => Ok(()),
            Some(mut path) => {
                path.reverse();
                Err(Failure::Repeated {
                    at: self.i,
                    path: path.join("."),
                })
            }
        }
    }

    /// A member's or item's value, adding `segment` to the path of the first
    /// repeated key when that is in it.
    fn value_at(&mut self, segment: impl FnOnce() -> String) -> Result<Value, Failure> {
        let before = self.repeated.is_some();
        let v = self.value()?;
        if !before && let Some(path) = &mut self.repeated {
            path.push(segment());
        }
        Ok(v)
    }

    /// The text from `start` to the cursor. The parser only stops at ASCII
    /// bytes, so both ends are character boundaries.
    fn slice(&self, start: usize) -> &'a str {
        self.text.get(start..self.i).unwrap_or_default()
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn invalid<T>(&self, what: &'static str) -> Result<T, Failure> {
        Err(Failure::Invalid { at: self.i, what })
    }

    /// Skips whitespace and comments.
    fn skip_space(&mut self) -> Result<(), Failure> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.i += 1,
                Some(b'/') => match self.s.get(self.i + 1) {
                    Some(b'/') => {
                        self.used.comment = true;
                        while let Some(b) = self.peek() {
                            if b == b'\n' {
                                break;
                            }
                            self.i += 1;
                        }
                    }
                    Some(b'*') => {
                        self.used.comment = true;
                        let rest = self.text.get(self.i + 2..).unwrap_or_default();
                        match rest.find("*/") {
                            Some(n) => self.i += 2 + n + 2,
                            None => return Err(Failure::Truncated),
                        }
                    }
                    None => return Err(Failure::Truncated),
                    _ => return self.invalid("a stray '/'"),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Value, Failure> {
        self.skip_space()?;
        match self.peek() {
            None => Err(Failure::Truncated),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(q @ (b'"' | b'\'')) => self.string(q).map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b) if b.is_ascii_alphabetic() => self.word(),
            Some(_) => self.invalid("an unexpected character"),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<Value, Failure>) -> Result<Value, Failure> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.invalid("nesting deeper than 128");
        }
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn object(&mut self) -> Result<Value, Failure> {
        self.i += 1; // {
        let mut map = Map::new();
        loop {
            if self.closes(b'}')? {
                return Ok(Value::Object(map));
            }
            let key = match self.peek() {
                Some(q @ (b'"' | b'\'')) => self.string(q)?,
                Some(b) if is_ident_start(b) => {
                    self.used.unquoted_key = true;
                    let start = self.i;
                    while self.peek().is_some_and(is_ident_char) {
                        self.i += 1;
                    }
                    self.slice(start).to_owned()
                }
                _ => return self.invalid("a key"),
            };
            self.skip_space()?;
            match self.peek() {
                None => return Err(Failure::Truncated),
                Some(b':') => self.i += 1,
                _ => return self.invalid("':' after a key"),
            }
            // A key named twice is noticed before its second value is read,
            // as the text orders them.
            if self.repeated.is_none() && map.contains_key(&key) {
                self.repeated = Some(vec![key.clone()]);
            }
            let v = self.value_at(|| key.clone())?;
            map.insert(key, v);
            self.after_item(b'}', "',' or '}'")?;
        }
    }

    /// Skips space; consumes `close` and says so when it comes next.
    fn closes(&mut self, close: u8) -> Result<bool, Failure> {
        self.skip_space()?;
        match self.peek() {
            None => Err(Failure::Truncated),
            Some(b) if b == close => {
                self.i += 1;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// After an object member or array element: a comma (perhaps trailing before
    /// `close`) or `close` itself, which is left for the caller.
    fn after_item(&mut self, close: u8, expected: &'static str) -> Result<(), Failure> {
        self.skip_space()?;
        match self.peek() {
            None => Err(Failure::Truncated),
            Some(b',') => {
                self.i += 1;
                self.skip_space()?;
                if self.peek() == Some(close) {
                    self.used.trailing_comma = true;
                }
                Ok(())
            }
            Some(b) if b == close => Ok(()),
            _ => self.invalid(expected),
        }
    }

    fn array(&mut self) -> Result<Value, Failure> {
        self.i += 1; // [
        let mut items = Vec::new();
        loop {
            if self.closes(b']')? {
                return Ok(Value::Array(items));
            }
            let index = items.len();
            items.push(self.value_at(|| index.to_string())?);
            self.after_item(b']', "',' or ']'")?;
        }
    }

    fn string(&mut self, quote: u8) -> Result<String, Failure> {
        if quote == b'\'' {
            self.used.single_quotes = true;
        }
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(b) = self.peek() {
                if b == quote || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(self.slice(start));
            match self.peek() {
                None => return Err(Failure::Truncated),
                Some(b) if b == quote => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let Some(e) = self.peek() else {
                        return Err(Failure::Truncated);
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\'' => out.push('\''),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape()?),
                        _ => {
                            self.i -= 1;
                            return self.invalid("a valid escape");
                        }
                    }
                }
                Some(b @ (b'\n' | b'\r' | b'\t')) => {
                    self.used.raw_control = true;
                    self.i += 1;
                    out.push(char::from(b));
                }
                Some(_) => return self.invalid("no control characters in a string"),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Failure> {
        let Some(digits) = self.text.get(self.i..self.i + 4) else {
            return if self.s.len() < self.i + 4 {
                Err(Failure::Truncated)
            } else {
                self.invalid("four hex digits")
            };
        };
        let n = u32::from_str_radix(digits, 16).or_else(|_| self.invalid("four hex digits"))?;
        self.i += 4;
        Ok(n)
    }

    fn unicode_escape(&mut self) -> Result<char, Failure> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) {
            if self.s.get(self.i..self.i + 2) != Some(b"\\u") {
                return self.invalid("a low surrogate");
            }
            self.i += 2;
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return self.invalid("a low surrogate");
            }
            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            return char::from_u32(c).map_or_else(|| self.invalid("a valid code point"), Ok);
        }
        char::from_u32(hi).map_or_else(|| self.invalid("a valid code point"), Ok)
    }

    fn number(&mut self) -> Result<Value, Failure> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let digits = |p: &mut Self| {
            let s = p.i;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.i += 1;
            }
            p.i - s
        };
        if digits(self) == 0 {
            return if self.peek().is_none() {
                Err(Failure::Truncated)
            } else {
                self.invalid("a digit")
            };
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return if self.peek().is_none() {
                    Err(Failure::Truncated)
                } else {
                    self.invalid("a digit after '.'")
                };
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return if self.peek().is_none() {
                    Err(Failure::Truncated)
                } else {
                    self.invalid("an exponent")
                };
            }
        }
        // A number that runs to the end of the text may have been cut off.
        if self.i == self.s.len() && self.depth > 0 {
            return Err(Failure::Truncated);
        }
        let text = self.slice(start);
        match serde_json::from_str::<Number>(text) {
            Ok(n) => Ok(Value::Number(n)),
            Err(_) => Err(Failure::Invalid {
                at: start,
                what: "a number JSON can hold (leading zeros are not allowed)",
            }),
        }
    }

    fn word(&mut self) -> Result<Value, Failure> {
        let start = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric()) {
            self.i += 1;
        }
        let word = self.slice(start);
        let v = match word {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            "True" | "False" | "None" => {
                self.used.python_literal = true;
                match word {
                    "True" => Value::Bool(true),
                    "False" => Value::Bool(false),
                    _ => Value::Null,
                }
            }
            _ => {
                if self.i == self.s.len()
                    && ["true", "false", "null"]
                        .iter()
                        .any(|w| w.starts_with(word))
                {
                    return Err(Failure::Truncated);
                }
                self.i = start;
                return self.invalid("a value");
            }
        };
        Ok(v)
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'-'
}

#[cfg(test)]
mod tests;
