//! The JSON Lines fast path: a record whole on one line and in the buffer,
//! checked in one pass over it; [`Scan`](super::Scan), the byte scanner, takes
//! every other record.

use super::string_stop;

/// Nesting beyond this leaves a record to [`Scan`](super::Scan).
const MAX_LINE_DEPTH: u32 = 64;

/// The JSON Lines fast path. When `bytes` starts with an object or array that
/// closes before any newline, returns its length and how many values it holds:
/// exactly what [`Scan`](super::Scan) frames from the same bytes, since inside
/// one line the framing rules are JSON's grammar alone. Returns `None` for
/// anything else (a newline before the value closes, a syntax error, the end of
/// `bytes`, nesting deeper than 64); the framer then scans the record byte by
/// byte.
pub(in crate::input) fn one_line_value(bytes: &[u8]) -> Option<OneLine> {
    let mut line = Line {
        bytes,
        at: 0,
        exponent: false,
    };
    let mut values = 0u64;
    // One bit per open container, set for an object; `depth` of them are open.
    let mut objects = 0u64;
    let mut depth = 0u32;
    if !matches!(bytes.first(), Some(b'{' | b'[')) {
        return None;
    }
    loop {
        // A value.
        match line.skip_space()? {
            open @ (b'{' | b'[') => {
                if depth == MAX_LINE_DEPTH {
                    return None;
                }
                values += 1;
                line.at += 1;
                objects = objects << 1 | u64::from(open == b'{');
                depth += 1;
                let close = if open == b'{' { b'}' } else { b']' };
                if line.skip_space()? != close {
                    if open == b'{' {
                        line.key()?;
                    }
                    continue;
                }
                line.at += 1;
                objects >>= 1;
                depth -= 1;
            }
            b'"' => {
                values += 1;
                line.string()?;
            }
            b'-' | b'0'..=b'9' => {
                values += 1;
                line.number()?;
            }
            b't' | b'f' | b'n' => {
                values += 1;
                line.literal()?;
            }
            _ => return None,
        }
        // After a value: a comma, or the end of its container.
        loop {
            if depth == 0 {
                return Some(OneLine {
                    len: line.at,
                    values,
                    exponent: line.exponent,
                });
            }
            let in_object = objects & 1 == 1;
            match line.skip_space()? {
                b',' => {
                    line.at += 1;
                    if in_object {
                        line.skip_space()?;
                        line.key()?;
                    }
                    break;
                }
                b'}' if in_object => {}
                b']' if !in_object => {}
                _ => return None,
            }
            line.at += 1;
            objects >>= 1;
            depth -= 1;
        }
    }
}

/// A record whole on one line, as [`one_line_value`] read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::input) struct OneLine {
    /// Its length in bytes.
    pub len: usize,
    /// How many values it holds.
    pub values: u64,
    /// Whether a number in it has an exponent.
    pub exponent: bool,
}

/// A cursor over one line for [`one_line_value`]; each method returns `None` where
/// the line stops being valid JSON.
struct Line<'a> {
    bytes: &'a [u8],
    at: usize,
    /// A number with an exponent was read.
    exponent: bool,
}

impl Line<'_> {
    /// Skips spaces, tabs and carriage returns; returns the next byte.
    fn skip_space(&mut self) -> Option<u8> {
        loop {
            let b = *self.bytes.get(self.at)?;
            if !matches!(b, b' ' | b'\t' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
    }

    fn next(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// At a key's opening quote: the key, the space after it and its colon.
    fn key(&mut self) -> Option<()> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        self.string()?;
        (self.skip_space()? == b':').then(|| self.at += 1)
    }

    /// At an opening quote: the string through its closing quote.
    fn string(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            let rest = self.bytes.get(self.at..)?;
            self.at += rest.iter().position(|&b| string_stop(b))?;
            match self.next()? {
                b'"' => return Some(()),
                b'\\' => match self.next()? {
                    b'u' => {
                        for _ in 0..4 {
                            if !self.next()?.is_ascii_hexdigit() {
                                return None;
                            }
                        }
                    }
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    _ => return None,
                },
                _ => return None,
            }
        }
    }

    /// One or more digits.
    fn digits(&mut self) -> Option<()> {
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        (self.at > start).then_some(())
    }

    /// A number (RFC 8259). What follows a number or a literal is checked as
    /// what follows any value: a byte that could continue a token is no comma,
    /// bracket or space, so the line is no longer valid there.
    fn number(&mut self) -> Option<()> {
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        if self.bytes.get(self.at) == Some(&b'0') {
            self.at += 1;
        } else {
            self.digits()?;
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.digits()?;
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.exponent = true;
            self.at += 1;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.digits()?;
        }
        Some(())
    }

    /// `true`, `false` or `null`.
    fn literal(&mut self) -> Option<()> {
        let word: &[u8] = match self.bytes.get(self.at) {
            Some(b't') => b"true",
            Some(b'f') => b"false",
            _ => b"null",
        };
        if !self.bytes.get(self.at..)?.starts_with(word) {
            return None;
        }
        self.at += word.len();
        Some(())
    }
}
