//! Pythonic call lists, `[read(file_path="/a", offset=120), glob(pattern="*")]`
//! (Llama 3.2 and 4, and what vLLM's `pythonic` parser reads):
//! - after Llama 4's `<|python_start|>` sentinel (ended by `<|python_end|>`);
//! - with no sentinel, only when the whole message is one such list and every
//!   name in it is a declared tool (see [`super::bare`]).
//!
//! Values are Python literals: strings (`'…'` or `"…"`), numbers, `True`,
//! `False`, `None`, lists and dicts of them. Anything else — positional
//! arguments, expressions, raw or triple-quoted strings — is not read: a
//! sentinel call holding it is malformed, a bare list holding it is no call.

use serde_json::{Map, Number, Value};

use super::{Family, Leaked, leaked, malformed};

pub(super) struct Llama4;

const OPEN: &str = "<|python_start|>";
const CLOSE: &str = "<|python_end|>";

impl Family for Llama4 {
    fn name(&self) -> &'static str {
        "pythonic"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[OPEN]
    }

    fn closings(&self) -> &'static [&'static str] {
        &[CLOSE]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let body = &text[OPEN.len()..];
        let mut p = Parser::new(body);
        match p.calls() {
            Ok(calls) => {
                let end = OPEN.len() + p.at;
                let markup = &text[..end];
                let calls = calls
                    .into_iter()
                    .map(|(name, args)| leaked(name, Ok(args), markup))
                    .collect();
                (calls, end)
            }
            Err(Stop::Cut) => malformed(
                text,
                "",
                "the tool call written in the text is not closed".into(),
            ),
            Err(Stop::Bad(why)) => {
                let end = text.find(CLOSE).map_or(text.len(), |i| i + CLOSE.len());
                malformed(
                    &text[..end],
                    "",
                    format!("the tool call written in the text is not a Python call list: {why}"),
                )
            }
        }
    }
}

/// The whole of `text` as a call list: `Ok(None)` when it is not one.
pub(super) fn whole(text: &str) -> Parsed<Option<Vec<Named>>> {
    let mut p = Parser::new(text);
    let calls = p.calls()?;
    p.space();
    Ok((p.at == text.len()).then_some(calls))
}

/// The name of the first call in `text` if it starts like a call list
/// (`[name(`).
pub(super) fn first_name(text: &str) -> Option<&str> {
    let mut p = Parser::new(text);
    if !p.eat(b'[') {
        return None;
    }
    p.space();
    let name = p.name()?;
    p.space();
    p.eat(b'(').then_some(name)
}

/// Why reading stopped.
#[derive(Debug)]
pub(super) enum Stop {
    /// The text ended inside the list.
    Cut,
    /// Something that is not a Python literal call.
    Bad(String),
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
}

type Parsed<T> = Result<T, Stop>;

/// A call's name and arguments.
pub(super) type Named = (String, Map<String, Value>);

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Self {
        Parser { text, at: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        if hit {
            self.at += 1;
        }
        hit
    }

    /// The next non-space byte, which must be one of `want`.
    fn expect(&mut self, want: &[u8]) -> Parsed<u8> {
        self.space();
        match self.peek() {
            None => Err(Stop::Cut),
            Some(b) if want.contains(&b) => {
                self.at += 1;
                Ok(b)
            }
            Some(b) => Err(Stop::Bad(format!(
                "expected {} at byte {}, found {:?}",
                want.iter()
                    .map(|w| format!("'{}'", *w as char))
                    .collect::<Vec<_>>()
                    .join(" or "),
                self.at,
                b as char
            ))),
        }
    }

    /// An identifier (a tool name may hold `.` and `-` as well).
    fn name(&mut self) -> Option<&'t str> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        {
            self.at += 1;
        }
        let name = &self.text[start..self.at];
        (!name.is_empty() && !name.as_bytes()[0].is_ascii_digit()).then_some(name)
    }

    fn calls(&mut self) -> Parsed<Vec<Named>> {
        self.space();
        self.expect(b"[")?;
        let mut calls = Vec::new();
        loop {
            self.space();
            if calls.is_empty() && self.eat(b']') {
                return Err(Stop::Bad("the list is empty".into()));
            }
            let Some(name) = self.name() else {
                return Err(self.at_end_or("expected a function name"));
            };
            self.expect(b"(")?;
            calls.push((name.to_owned(), self.kwargs()?));
            if self.expect(b",]")? == b']' {
                return Ok(calls);
            }
        }
    }

    /// `Cut` at the end of the text, else `Bad(what)`.
    fn at_end_or(&self, what: &str) -> Stop {
        if self.at >= self.text.len() {
            Stop::Cut
        } else {
            Stop::Bad(format!("{what} at byte {}", self.at))
        }
    }

    /// `name=value, …)` after the opening parenthesis.
    fn kwargs(&mut self) -> Parsed<Map<String, Value>> {
        let mut args = Map::new();
        loop {
            self.space();
            if self.eat(b')') {
                return Ok(args);
            }
            let start = self.at;
            let Some(key) = self.name() else {
                return Err(self.at_end_or("expected a keyword argument (name=value)"));
            };
            if key.contains(['.', '-']) {
                return Err(Stop::Bad(format!("{key:?} is not an argument name")));
            }
            self.expect(b"=")?;
            let value = self.value()?;
            if args.insert(key.to_owned(), value).is_some() {
                return Err(Stop::Bad(format!(
                    "argument {key:?} is given twice (byte {start})"
                )));
            }
            if self.expect(b",)")? == b')' {
                return Ok(args);
            }
        }
    }

    fn value(&mut self) -> Parsed<Value> {
        self.space();
        match self.peek() {
            None => Err(Stop::Cut),
            Some(q @ (b'"' | b'\'')) => self.string(q).map(Value::String),
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.space();
                    if self.eat(b']') {
                        return Ok(Value::Array(items));
                    }
                    items.push(self.value()?);
                    if self.expect(b",]")? == b']' {
                        return Ok(Value::Array(items));
                    }
                }
            }
            Some(b'{') => {
                self.at += 1;
                let mut map = Map::new();
                loop {
                    self.space();
                    if self.eat(b'}') {
                        return Ok(Value::Object(map));
                    }
                    let key = match self.value()? {
                        Value::String(k) => k,
                        _ => return Err(Stop::Bad("a dict key is not a string".into())),
                    };
                    self.expect(b":")?;
                    map.insert(key, self.value()?);
                    if self.expect(b",}")? == b'}' {
                        return Ok(Value::Object(map));
                    }
                }
            }
            Some(b) if b == b'-' || b.is_ascii_digit() => self.number(),
            Some(_) => {
                let start = self.at;
                match self.name() {
                    Some("True") => Ok(Value::Bool(true)),
                    Some("False") => Ok(Value::Bool(false)),
                    Some("None") => Ok(Value::Null),
                    // A keyword cut short (`Tr`) or a name: the text ended.
                    Some(_) if self.at == self.text.len() => Err(Stop::Cut),
                    _ => Err(Stop::Bad(format!(
                        "byte {start} is not a literal (string, number, True, False, None, list or dict)"
                    ))),
                }
            }
        }
    }

    /// A number, kept as written when JSON spells it the same way (`120`,
    /// `-1.5`, `2e3`); Python-only spellings (`1_000`, `.5`, `0x1f`) are not read.
    fn number(&mut self) -> Parsed<Value> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.' | b'_'))
        {
            self.at += 1;
        }
        let text = &self.text[start..self.at];
        if self.at == self.text.len() {
            return Err(Stop::Cut);
        }
        match serde_json::from_str::<Number>(text) {
            Ok(n) => Ok(Value::Number(n)),
            Err(_) => Err(Stop::Bad(format!(
                "{text:?} is not a number JSON can hold as written"
            ))),
        }
    }

    /// A quoted string with Python's escapes; raw, byte and triple-quoted
    /// strings are not read.
    fn string(&mut self, quote: u8) -> Parsed<String> {
        self.at += 1;
        let q = quote as char;
        if let Some(after) = self.text[self.at..].strip_prefix(q) {
            // `''` is empty; `'''` opens a triple-quoted string.
            if after.starts_with(q) {
                return Err(Stop::Bad("triple-quoted strings are not read".into()));
            }
            self.at += 1;
            return Ok(String::new());
        }
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let Some(i) = rest.find([q, '\\', '\n']) else {
                return Err(Stop::Cut);
            };
            out.push_str(&rest[..i]);
            self.at += i + 1;
            match rest.as_bytes()[i] {
                b'\n' => return Err(Stop::Bad("a string runs past the end of its line".into())),
                b'\\' => self.escape(&mut out)?,
                _ => return Ok(out),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Parsed<()> {
        let Some(c) = self.text[self.at..].chars().next() else {
            return Err(Stop::Cut);
        };
        self.at += c.len_utf8();
        let simple = match c {
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '"' => Some('"'),
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '0' => Some('\0'),
            '\n' => return Ok(()),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            return Ok(());
        }
        let digits = match c {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => {
                // Python keeps an unknown escape as written.
                out.push('\\');
                out.push(c);
                return Ok(());
            }
        };
        let Some(hex) = self.text.get(self.at..self.at + digits) else {
            return Err(Stop::Cut);
        };
        let code = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
        let Some(ch) = code else {
            return Err(Stop::Bad(format!("\\{c}{hex} is not a character")));
        };
        self.at += digits;
        out.push(ch);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Parsed<Vec<(String, Value)>> {
        let mut p = Parser::new(text);
        p.calls()
            .map(|c| c.into_iter().map(|(n, a)| (n, Value::Object(a))).collect())
    }

    #[test]
    fn literals() {
        let calls = read(
            r#"[f(a=1, b=-2.5e3, c="x\"y", d='it\'s', e=True, f=None, g=[1, 'a'], h={"k": False}, i="\u00e9\d")]"#,
        )
        .unwrap();
        // Numbers keep their text (`-2.5e3`, not `-2500.0`).
        let want: Value = serde_json::from_str(
            r#"{"a": 1, "b": -2.5e3, "c": "x\"y", "d": "it's", "e": true, "f": null,
                "g": [1, "a"], "h": {"k": false}, "i": "\u00e9\\d"}"#,
        )
        .unwrap();
        assert_eq!(calls, [("f".to_owned(), want)]);
    }

    #[test]
    fn several_calls_and_no_arguments() {
        let calls = read("[a(), b.c(x='')]").unwrap();
        assert_eq!(
            calls,
            [
                ("a".to_owned(), json!({})),
                ("b.c".to_owned(), json!({"x": ""}))
            ]
        );
    }

    #[test]
    fn cut_anywhere_is_cut() {
        let text = r#"[read(file_path="/a", offset=120, flag=True, xs=[1, {"k": 'v'}])]"#;
        for end in 1..text.len() {
            match read(&text[..end]) {
                Err(Stop::Cut) => {}
                other => panic!("{:?}: {other:?}", &text[..end]),
            }
        }
        assert!(read(text).is_ok());
    }

    #[test]
    fn what_is_not_read() {
        for text in [
            "[f(1)]",
            "[f(a=b)]",
            "[f(a=1_000)]",
            "[f(a=.5)]",
            "[f(a=0x1f)]",
            "[f(a='''x''')]",
            "[f(a=1, a=2)]",
            "[]",
            "[f(a='x\ny')]",
        ] {
            assert!(matches!(read(text), Err(Stop::Bad(_))), "{text}");
        }
    }
}
