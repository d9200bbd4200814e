//! Pythonic call lists, `[read(file_path="/a", offset=120), glob(pattern="*")]`
//! (Llama 3.2 and 4, and what vLLM's `pythonic` parser reads), and call
//! notation, `read(file_path: "/a")`:
//! - after a sentinel (Llama 4's `<|python_start|>`, ended by
//!   `<|python_end|>`; `<|python_tag|>`; `<tool_call>`), a list or one call in
//!   call notation;
//! - with no sentinel, only a list that is the whole message, every name in it
//!   a declared tool, or one call in call notation that starts the message
//!   and names a declared tool (see [`super::bare`]).
//!
//! Values are Python literals: strings (`'…'` or `"…"`), numbers, `True`,
//! `False`, `None`, lists and dicts of them. Call notation reads more: an
//! argument named with `:` as well as `=`, positional arguments (kept in
//! order in [`super::Written::positional`], before the named ones, for the
//! schema to name), and JavaScript object literals (unquoted keys, read by
//! [`crate::tolerant`]); one object as the only argument is the arguments.
//! Anything else — expressions, raw or triple-quoted strings — is not read: a
//! sentinel call holding it is malformed, a bare call holding it is no call.
//! Lists and dicts nest at most [`MAX_DEPTH`] levels: deeper is rejected
//! (malformed), before the stack of any thread could run out.

use serde_json::{Map, Number, Value};

use super::cursor::Cursor;
use super::scan::Read;
use super::{LeakProblem, Leaked, PythonProblem, enclosed, leaked, malformed};

const OPEN: &str = "<|python_start|>";
const CLOSE: &str = "<|python_end|>";

/// How deep lists and dicts may nest in an argument value (serde_json's own
/// limit for JSON text).
pub(super) const MAX_DEPTH: usize = 128;

/// `<|python_start|>[…]` (or another `opening`) at the start of `text`: the
/// call list after the sentinel, or one call in call notation.
pub(super) fn read(text: &str, opening: &str) -> Read {
    let mut p = Parser::notation(text);
    p.c.eat(opening);
    p.space();
    let calls = if p.c.starts_with("[") {
        p.calls()
    } else {
        p.call().map(|call| vec![call])
    };
    match calls {
        Ok(calls) => {
            let markup = p.c.done();
            (leaked_calls(calls, markup), markup.len())
        }
        Err(Stop::Cut) => malformed(text, "", LeakProblem::NotClosed),
        Err(Stop::Deep) => malformed(to_close(text), "", too_deep()),
        Err(Stop::Bad(why)) => malformed(to_close(text), "", LeakProblem::NotPythonCalls(why)),
    }
}

/// The text up to and including its closing sentinel, or all of it.
fn to_close(text: &str) -> &str {
    enclosed(text, OPEN, CLOSE).map_or(text, |(markup, _)| markup)
}

pub(super) fn too_deep() -> LeakProblem {
    LeakProblem::TooDeep(MAX_DEPTH)
}

/// One call in call notation inside a sentinel's body (all of `body`,
/// perhaps with space around): the call, or why it is not one.
pub(super) fn body_call(body: &str, markup: &str) -> Vec<Leaked> {
    let mut p = Parser::notation(body);
    let call = p.call().and_then(|call| {
        p.space();
        if p.c.is_at_end() {
            Ok(call)
        } else {
            Err(Stop::Bad(PythonProblem::TextAfterCall(p.c.at())))
        }
    });
    // The name, when `name(` was written: the call is rejected under it.
    let name = call_name(body.trim_start()).unwrap_or_default();
    match call {
        Ok(call) => leaked_calls(vec![call], markup),
        Err(Stop::Deep) => malformed(markup, name, too_deep()).0,
        Err(Stop::Cut | Stop::Bad(_)) => malformed(markup, name, LeakProblem::NotCallNotation).0,
    }
}

/// The name of a call in call notation at the start of `text` (`name(`).
pub(super) fn call_name(text: &str) -> Option<&str> {
    let mut p = Parser::notation(text);
    let name = p.name()?;
    p.c.starts_with("(").then_some(name)
}

/// Whether the call in call notation at the start of `text` starts its
/// arguments with a number in digits (`grep(1)`, `write(1, "hi", 2)`): a
/// manual page or a C call in prose, never a call without a sentinel.
pub(super) fn digits_first(text: &str) -> bool {
    let mut p = Parser::notation(text);
    if p.name().is_none() || !p.eat('(') {
        return false;
    }
    p.space();
    let digits = p.c.take_while(|b| b.is_ascii_digit());
    p.space();
    !digits.is_empty() && (p.c.is_at_end() || p.c.starts_with(",") || p.c.starts_with(")"))
}

/// One call in call notation at the start of `text`, and where it ends.
pub(super) fn leading_call(text: &str) -> Parsed<(Named, usize)> {
    let mut p = Parser::notation(text);
    let call = p.call()?;
    Ok((call, p.c.at()))
}

/// The calls read from `markup`: one call holds the whole markup; several,
/// each its own `name(…)`.
pub(super) fn leaked_calls(calls: Vec<Named>, markup: &str) -> Vec<Leaked> {
    let one = calls.len() == 1;
    calls
        .into_iter()
        .map(|c| {
            let own = if one {
                markup
            } else {
                markup.get(c.span.0..c.span.1).unwrap_or_default()
            };
            let mut call = leaked(c.name, Ok(c.args), own);
            call.written.positional = c.positional;
            call
        })
        .collect()
}

/// The whole of `text` as a call list: `Ok(None)` when it is not one. Read
/// as the list after `<|python_start|>` is, call notation included
/// (`[glob('*.rs')]`: a positional value, for the schema to name).
pub(super) fn whole(text: &str) -> Parsed<Option<Vec<Named>>> {
    let mut p = Parser::notation(text);
    let calls = p.calls()?;
    p.space();
    Ok(p.c.is_at_end().then_some(calls))
}

/// The name of the first call in `text` if it starts like a call list
/// (`[name(`).
pub(super) fn first_name(text: &str) -> Option<&str> {
    let mut p = Parser::new(text);
    if !p.eat('[') {
        return None;
    }
    p.space();
    let name = p.name()?;
    p.space();
    p.eat('(').then_some(name)
}

/// Why reading stopped.
#[derive(Debug)]
pub(super) enum Stop {
    /// The text ended inside the list.
    Cut,
    /// Lists or dicts nested deeper than [`MAX_DEPTH`].
    Deep,
    /// Something that is not a Python literal call.
    Bad(PythonProblem),
}

struct Parser<'t> {
    c: Cursor<'t>,
    /// Call notation: `:` for `=`, positional arguments, JS object literals.
    notation: bool,
}

type Parsed<T> = Result<T, Stop>;

/// A call: its name, its arguments, and the bytes `name(…)` takes in the text.
#[derive(Debug)]
pub(super) struct Named {
    pub(super) name: String,
    pub(super) args: Map<String, Value>,
    /// Arguments given by position, in order (call notation only).
    pub(super) positional: Vec<Value>,
    span: (usize, usize),
}

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Self {
        Parser {
            c: Cursor::new(text),
            notation: false,
        }
    }

    fn notation(text: &'t str) -> Self {
        Parser {
            c: Cursor::new(text),
            notation: true,
        }
    }

    fn space(&mut self) {
        self.c.skip_ascii_space();
    }

    fn eat(&mut self, ch: char) -> bool {
        self.c.eat_any(&[ch]).is_some()
    }

    /// The next non-space character, which must be one of `want`.
    fn expect(&mut self, want: &'static [char]) -> Parsed<char> {
        self.space();
        let at = self.c.at();
        let Some(found) = self.c.peek() else {
            return Err(Stop::Cut);
        };
        self.c
            .eat_any(want)
            .ok_or(Stop::Bad(PythonProblem::Expected { want, at, found }))
    }

    /// An identifier (a tool name may hold `.` and `-` as well).
    fn name(&mut self) -> Option<&'t str> {
        let name = self
            .c
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, '_' | '.' | '-'));
        (!name.is_empty() && !name.starts_with(|b: char| b.is_ascii_digit())).then_some(name)
    }

    fn calls(&mut self) -> Parsed<Vec<Named>> {
        self.space();
        self.expect(&['['])?;
        let mut calls = Vec::new();
        loop {
            self.space();
            if calls.is_empty() && self.eat(']') {
                return Err(Stop::Bad(PythonProblem::EmptyList));
            }
            calls.push(self.call()?);
            if self.expect(&[',', ']'])? == ']' {
                return Ok(calls);
            }
        }
    }

    /// `name(…)`.
    fn call(&mut self) -> Parsed<Named> {
        self.space();
        let start = self.c.at();
        let Some(name) = self.name() else {
            return Err(self.at_end_or(PythonProblem::ExpectedName));
        };
        self.expect(&['('])?;
        let (args, positional) = self.arguments()?;
        Ok(Named {
            name: name.to_owned(),
            args,
            positional,
            span: (start, self.c.at()),
        })
    }

    /// `Cut` at the end of the text, else `Bad(what)` at the cursor's byte.
    fn at_end_or(&self, what: fn(usize) -> PythonProblem) -> Stop {
        if self.c.is_at_end() {
            Stop::Cut
        } else {
            Stop::Bad(what(self.c.at()))
        }
    }

    /// `name=value, …)` after the opening parenthesis; in call notation also
    /// `name: value` and positional values (before the named ones). One
    /// object as the only argument is the arguments.
    fn arguments(&mut self) -> Parsed<(Map<String, Value>, Vec<Value>)> {
        let mut args = Map::new();
        let mut positional = Vec::new();
        loop {
            self.space();
            if self.eat(')') {
                break;
            }
            let start = self.c.at();
            let mut probe = Parser {
                c: self.c,
                notation: self.notation,
            };
            let keyword = probe.name().filter(|_| {
                probe.space();
                probe.c.starts_with("=") || (self.notation && probe.c.starts_with(":"))
            });
            if let Some(key) = keyword {
                if key.contains(['.', '-']) {
                    return Err(Stop::Bad(PythonProblem::NotAnArgumentName(key.to_owned())));
                }
                self.c = probe.c;
                self.expect(&['=', ':'])?;
                let value = self.value(1)?;
                if args.insert(key.to_owned(), value).is_some() {
                    return Err(Stop::Bad(PythonProblem::ArgumentTwice {
                        name: key.to_owned(),
                        at: start,
                    }));
                }
            } else if self.notation && args.is_empty() {
                positional.push(self.value(1)?);
            } else if self.notation {
                return Err(Stop::Bad(PythonProblem::PositionalAfterNamed(start)));
            } else if probe.c.is_at_end() {
                return Err(Stop::Cut);
            } else {
                return Err(self.at_end_or(PythonProblem::ExpectedKeyword));
            }
            if self.expect(&[',', ')'])? == ')' {
                break;
            }
        }
        if args.is_empty()
            && positional.len() == 1
            && let Some(Value::Object(object)) = positional.first()
        {
            return Ok((object.clone(), Vec::new()));
        }
        Ok((args, positional))
    }

    /// A literal at nesting `depth` (1 for an argument's value); lists and
    /// dicts deeper than [`MAX_DEPTH`] stop the reading.
    fn value(&mut self, depth: usize) -> Parsed<Value> {
        self.space();
        match self.c.peek() {
            None => Err(Stop::Cut),
            Some(q @ ('"' | '\'')) => self.string(q).map(Value::String),
            Some('[' | '{') if depth > MAX_DEPTH => Err(Stop::Deep),
            // An argument's own value only: nested under lists the depth
            // limit would count twice.
            Some('{') if self.notation && depth == 1 => self.object_literal(),
            Some('[') => {
                self.eat('[');
                let mut items = Vec::new();
                loop {
                    self.space();
                    if self.eat(']') {
                        return Ok(Value::Array(items));
                    }
                    items.push(self.value(depth + 1)?);
                    if self.expect(&[',', ']'])? == ']' {
                        return Ok(Value::Array(items));
                    }
                }
            }
            Some('{') => {
                self.eat('{');
                let mut map = Map::new();
                loop {
                    self.space();
                    if self.eat('}') {
                        return Ok(Value::Object(map));
                    }
                    let key = match self.value(depth + 1)? {
                        Value::String(k) => k,
                        _ => return Err(Stop::Bad(PythonProblem::DictKeyNotString)),
                    };
                    self.expect(&[':'])?;
                    // Python keeps a repeated key's last value; which one the
                    // model meant, no reader knows.
                    if map.contains_key(&key) {
                        return Err(Stop::Bad(PythonProblem::KeyTwice(key)));
                    }
                    map.insert(key, self.value(depth + 1)?);
                    if self.expect(&[',', '}'])? == '}' {
                        return Ok(Value::Object(map));
                    }
                }
            }
            Some(b) if b == '-' || b.is_ascii_digit() => self.number(),
            Some(_) => {
                let start = self.c.at();
                match self.name() {
                    Some("True") => Ok(Value::Bool(true)),
                    Some("False") => Ok(Value::Bool(false)),
                    Some("None") => Ok(Value::Null),
                    // Call notation is written with JSON's (JavaScript's)
                    // literals too: each has one reading.
                    Some("true") if self.notation => Ok(Value::Bool(true)),
                    Some("false") if self.notation => Ok(Value::Bool(false)),
                    Some("null") if self.notation => Ok(Value::Null),
                    // A keyword cut short (`Tr`) or a name: the text ended.
                    Some(_) if self.c.is_at_end() => Err(Stop::Cut),
                    _ => Err(Stop::Bad(PythonProblem::NotALiteral(start))),
                }
            }
        }
    }

    /// A JavaScript object literal (unquoted keys, single quotes, Python
    /// literals), read by the crate's tolerant parser (depth-limited too).
    fn object_literal(&mut self) -> Parsed<Value> {
        match crate::tolerant::parse_prefix(self.c.rest()) {
            Ok((value, _, end)) => {
                self.c
                    .take(end)
                    .ok_or(Stop::Bad(PythonProblem::ObjectLiteralSplitsChar))?;
                Ok(value)
            }
            Err(crate::tolerant::Failure::Truncated) => Err(Stop::Cut),
            Err(crate::tolerant::Failure::Invalid { what, .. }) if what.starts_with("nesting") => {
                Err(Stop::Deep)
            }
            // JavaScript keeps a repeated key's last value; which one the
            // model meant, no reader knows.
            Err(crate::tolerant::Failure::Repeated { path, .. }) => {
                Err(Stop::Bad(PythonProblem::KeyTwice(path)))
            }
            Err(_) => Err(Stop::Bad(PythonProblem::NotAnObjectLiteral(self.c.at()))),
        }
    }

    /// A number, kept as written when JSON spells it the same way (`120`,
    /// `-1.5`, `2e3`); Python-only spellings (`1_000`, `.5`, `0x1f`) are not read.
    fn number(&mut self) -> Parsed<Value> {
        let text = self
            .c
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, '-' | '+' | '.' | '_'));
        if self.c.is_at_end() {
            return Err(Stop::Cut);
        }
        // Checked by JSON's grammar, then kept as written: parsing re-spells
        // an exponent (`1e2` as `1e+2`, `1E400` as `1e+400`).
        match serde_json::from_str::<Number>(text) {
            Ok(_) => Ok(Value::Number(Number::from_string_unchecked(
                text.to_owned(),
            ))),
            Err(_) => Err(Stop::Bad(PythonProblem::NotANumber(text.to_owned()))),
        }
    }

    /// A quoted string with Python's escapes; raw, byte and triple-quoted
    /// strings are not read.
    fn string(&mut self, q: char) -> Parsed<String> {
        self.eat(q);
        if self.eat(q) {
            // `''` is empty; `'''` opens a triple-quoted string.
            if self.c.peek() == Some(q) {
                return Err(Stop::Bad(PythonProblem::TripleQuoted));
            }
            return Ok(String::new());
        }
        let mut out = String::new();
        loop {
            out.push_str(self.c.take_while(|ch| ch != q && ch != '\\' && ch != '\n'));
            match self.c.eat_any(&[q, '\\', '\n']) {
                None => return Err(Stop::Cut),
                Some('\n') => {
                    return Err(Stop::Bad(PythonProblem::StringPastLine));
                }
                Some('\\') => self.escape(&mut out)?,
                Some(_) => return Ok(out),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Parsed<()> {
        let Some(c) = self.c.peek() else {
            return Err(Stop::Cut);
        };
        self.eat(c);
        let simple = match c {
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '"' => Some('"'),
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\n' => return Ok(()),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            return Ok(());
        }
        // Octal: one to three digits (`\0`, `\012`, `\101`), up to `\777`.
        if let Some(first) = c.to_digit(8) {
            let mut code = first;
            for _ in 0..2 {
                let Some(d) = self.c.peek() else { break };
                let Some(value) = d.to_digit(8) else { break };
                self.eat(d);
                code = code * 8 + value;
            }
            // At most 0o777: always a character.
            out.extend(char::from_u32(code));
            return Ok(());
        }
        // A character by its Unicode name: no table of names here.
        if c == 'N' {
            return Err(Stop::Bad(PythonProblem::NamedEscape));
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
        let mut probe = self.c;
        let hex = probe.take_while(|h| h.is_ascii_hexdigit());
        let Some(hex) = hex.get(..digits) else {
            return Err(if probe.is_at_end() {
                Stop::Cut
            } else {
                Stop::Bad(PythonProblem::EscapeDigits { escape: c, digits })
            });
        };
        let code = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
        let Some(ch) = code else {
            return Err(Stop::Bad(PythonProblem::NotACharacter {
                escape: c,
                hex: hex.to_owned(),
            }));
        };
        self.c.take(digits);
        out.push(ch);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
