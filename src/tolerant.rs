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
}

/// Same limit as serde_json's: deeper input is rejected, not recursed into.
const MAX_DEPTH: usize = 128;

/// Parses one value from `text`; the whole text must be that value (plus
/// whitespace and comments).
pub(crate) fn parse(text: &str) -> Result<(Value, Leniency), Failure> {
    let mut p = Parser::new(text);
    let v = p.value()?;
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
    Ok((v, p.used, p.i))
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    used: Leniency,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            s: text.as_bytes(),
            text,
            i: 0,
            used: Leniency::default(),
            depth: 0,
        }
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
            let v = self.value()?;
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
            items.push(self.value()?);
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
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(text: &str) -> (Value, Vec<&'static str>) {
        let (v, used) = parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        (v, used.names())
    }

    #[test]
    fn strict_json_needs_no_leniency() {
        let text = r#"{"a": [1, -2.5e3, "x\u00e9\ud83d\ude00\n"], "b": {"c": null, "d": true}}"#;
        let (v, used) = ok(text);
        assert_eq!(v, serde_json::from_str::<Value>(text).unwrap());
        assert!(used.is_empty());
    }

    #[test]
    fn the_mastra_and_kimi_cases() {
        assert_eq!(ok(r#"{"a":1,}"#), (json!({"a": 1}), vec!["trailing comma"]));
        assert_eq!(
            ok(r#"{command:"ls"}"#),
            (json!({"command": "ls"}), vec!["unquoted key"])
        );
        assert_eq!(
            ok(r#"{'key':'val'}"#),
            (json!({"key": "val"}), vec!["single quotes"])
        );
        assert_eq!(
            ok("{'paths': ['app.py', 'b.py',],}"),
            (
                json!({"paths": ["app.py", "b.py"]}),
                vec!["trailing comma", "single quotes"]
            )
        );
    }

    #[test]
    fn python_literals_only_outside_strings() {
        assert_eq!(
            ok("{'theme': 'dark', 'size': 14, 'on': True, 'x': None, 's': 'True'}"),
            (
                json!({"theme": "dark", "size": 14, "on": true, "x": null, "s": "True"}),
                vec!["single quotes", "Python literal"]
            )
        );
    }

    #[test]
    fn comments() {
        assert_eq!(
            ok("{\n  // the file\n  \"a\": 1, /* two */ \"b\": 2\n}"),
            (json!({"a": 1, "b": 2}), vec!["comment"])
        );
        assert_eq!(ok(r#"{"url": "http://x//y"}"#).1, Vec::<&str>::new());
    }

    #[test]
    fn quotes_inside_other_quotes() {
        assert_eq!(
            ok(r#"{'say': "it's", 'q': 'a \'b\' "c"'}"#).0,
            json!({"say": "it's", "q": "a 'b' \"c\""})
        );
    }

    #[test]
    fn truncated_text_is_never_completed() {
        for text in [
            r#"{"command":"rm -rf /tmp/scra"#,
            r#"{"command":"#,
            r#"{"a":[1,2"#,
            r#"{"a":1,"#,
            r#"{"a":tr"#,
            r#"{"a":12"#,
            r#"{"a":"\u00"#,
            "{'a': 'b' /* open",
            "",
            "  ",
        ] {
            assert_eq!(parse(text), Err(Failure::Truncated), "{text:?}");
        }
    }

    #[test]
    fn dangling_key_is_invalid_not_null() {
        assert!(matches!(
            parse(r#"{"command":}"#),
            Err(Failure::Invalid { .. })
        ));
    }

    #[test]
    fn what_json5_would_allow_but_we_do_not() {
        for text in [
            "{a: NaN}",
            "{a: 0x10}",
            "{a: .5}",
            "{a: +1}",
            "{a: 01}",
            "{a: Infinity}",
            "[1,,2]",
            "{a: {1, 2}}",
        ] {
            assert!(
                matches!(parse(text), Err(Failure::Invalid { .. })),
                "{text}"
            );
        }
    }

    #[test]
    fn trailing_values_are_reported() {
        assert_eq!(
            parse(r#"{"a":1} {"a":1}"#),
            Err(Failure::Trailing { at: 8 })
        );
        let (v, _, end) = parse_prefix(r#"{"a":1}{"b":2}"#).unwrap();
        assert_eq!((v, end), (json!({"a": 1}), 7));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        // Issue 25: every recursive reader has a depth limit. 100,000 levels of
        // each container and leniency, on a thread with a quarter of a worker's stack (the
        // limit, not the stack, bounds the recursion).
        let n = 100_000;
        let texts = [
            format!("{}{}", "[".repeat(n), "]".repeat(n)),
            format!("{}1{}", "{a: ".repeat(n), "}".repeat(n)),
            format!("{}1{}", "{'a': [".repeat(n), "]}".repeat(n)),
            "[".repeat(n),
        ];
        let small = std::thread::Builder::new().stack_size(512 * 1024);
        let got = small
            .spawn(move || texts.iter().map(|t| parse(t)).collect::<Vec<_>>())
            .unwrap()
            .join()
            .unwrap();
        for g in got {
            assert_eq!(
                g,
                Err(Failure::Invalid {
                    at: match g {
                        Err(Failure::Invalid { at, .. }) => at,
                        _ => 0,
                    },
                    what: "nesting deeper than 128"
                })
            );
        }
        // 128 levels are read.
        let text = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&text).is_ok());
        let text = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(parse(&text).is_err());
    }
}
