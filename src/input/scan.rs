//! The byte scanner behind the framer: JSON syntax checked one byte at a time,
//! across reads, and the loose bracket-and-string tracking of a broken record
//! (see the module above for the framing rules). [`one_line_value`] (in
//! `scan/line.rs`) is the JSON Lines fast path: a whole record on one line,
//! checked in one pass over the buffer.

use super::Ending;

mod line;

#[cfg(test)]
pub(super) use line::OneLine;
pub(super) use line::one_line_value;

/// What the syntax checker expects next inside a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object.
    Key,
    Colon,
    /// After a value inside a container.
    CommaOrEnd,
}

/// A number or literal being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    /// Number grammar states (RFC 8259): after `-`, after a leading `0`, in the
    /// integer digits, after `.`, in the fraction, after `e`, after its sign, in
    /// the exponent.
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
    /// `true`, `false` or `null`, and how many bytes of it were read.
    Literal(&'static [u8], usize),
}

impl Token {
    fn start(b: u8) -> Option<Token> {
        Some(match b {
            b'-' => Token::Minus,
            b'0' => Token::Zero,
            b'1'..=b'9' => Token::Int,
            b't' => Token::Literal(b"true", 1),
            b'f' => Token::Literal(b"false", 1),
            b'n' => Token::Literal(b"null", 1),
            _ => return None,
        })
    }

    /// The token after `b`, or `None` if `b` cannot continue it.
    fn next(self, b: u8) -> Option<Token> {
        use Token::*;
        Some(match (self, b) {
            (Minus, b'0') => Zero,
            (Minus, b'1'..=b'9') | (Int, b'0'..=b'9') => Int,
            (Zero | Int, b'.') => Dot,
            (Dot | Frac, b'0'..=b'9') => Frac,
            (Zero | Int | Frac, b'e' | b'E') => Exp,
            (Exp, b'+' | b'-') => ExpSign,
            (Exp | ExpSign | ExpDigits, b'0'..=b'9') => ExpDigits,
            (Literal(word, n), b) if word.get(n) == Some(&b) => Literal(word, n + 1),
            _ => return None,
        })
    }

    fn complete(self) -> bool {
        match self {
            Token::Zero | Token::Int | Token::Frac | Token::ExpDigits => true,
            Token::Literal(word, n) => n == word.len(),
            _ => false,
        }
    }

    /// Bytes that may follow a token within a record.
    fn is_token_byte(b: u8) -> bool {
        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')
    }
}

/// The scanner's state inside one record.
#[derive(Debug)]
pub(super) struct Scan {
    /// Open containers, `{` or `[`.
    stack: Vec<u8>,
    expect: Expect,
    /// Inside a string: whether the next byte is escaped, and how many hex digits
    /// of a `\u` escape are still due.
    string: Option<(bool, u8)>,
    pub(super) token: Option<Token>,
    /// Set once the record can no longer be valid JSON.
    broken: Option<Loose>,
    /// Values begun so far.
    pub(super) values: u64,
    /// A number with an exponent was read (see `RecordMeta::exponent`).
    pub(super) exponent: bool,
    /// Whether a bare top-level scalar is checked against the rest of its line.
    check_line: bool,
    /// Broken by nesting deeper than [`MAX_SCAN_DEPTH`].
    too_deep: bool,
    /// After a bare top-level scalar: the rest of its line, read as more values.
    trailer: Option<Trailer>,
}

/// The rest of a bare scalar's line. If it holds anything but whole values (or
/// values left open at the line end), the line is one broken record; otherwise
/// the scalar is a record of its own, and the framer frames the rest again.
#[derive(Debug)]
struct Trailer {
    scan: Box<Scan>,
    /// Anything but whitespace came after the scalar.
    seen: bool,
}

/// A broken record is followed loosely: brackets and strings only.
#[derive(Debug)]
struct Loose {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The record ends with its line, whatever brackets it leaves open.
    line: bool,
}

pub(super) enum Step {
    Continue,
    /// A bare top-level scalar ended: before this byte (`false`), or with it (a
    /// closing quote, `true`). The rest of its line is checked from here on.
    ScalarEnd(bool),
    /// The byte closes the record.
    EndAfter,
    /// The record ended just before this byte.
    EndBefore(Ending),
}

impl Scan {
    pub(super) fn new() -> Self {
        Scan {
            stack: Vec::new(),
            expect: Expect::Value,
            string: None,
            token: None,
            broken: None,
            values: 0,
            exponent: false,
            check_line: false,
            too_deep: false,
            trailer: None,
        }
    }

    /// Whether the record broke by nesting deeper than [`MAX_SCAN_DEPTH`] (it did
    /// not stop being JSON: it is no place to resynchronise).
    pub(super) fn too_deep(&self) -> bool {
        self.too_deep
    }

    /// The bytes held for open containers.
    #[cfg(test)]
    pub(super) fn held(&self) -> usize {
        self.stack.capacity()
    }

    /// A scanner for a record outside a top-level array: a bare scalar there is
    /// checked against the rest of its line (`check_line`: the framer has not
    /// checked that line already).
    pub(super) fn checking_line(check_line: bool) -> Self {
        Scan {
            check_line,
            ..Scan::new()
        }
    }

    /// After a bare top-level scalar whose line is not (yet) broken: whether
    /// anything but whitespace followed it.
    pub(super) fn after_scalar(&self) -> Option<bool> {
        match (&self.trailer, &self.broken) {
            (Some(t), None) => Some(t.seen),
            _ => None,
        }
    }

    /// A bare top-level scalar ended (before `b`, or with it): checks the rest of
    /// the line from `b` on if asked to.
    fn scalar_done(&mut self, b: u8, with_byte: bool, in_array: bool) -> Option<Step> {
        if !self.check_line || in_array {
            return None;
        }
        self.expect = Expect::CommaOrEnd;
        self.trailer = Some(Trailer {
            scan: Box::new(Scan::new()),
            seen: false,
        });
        if !with_byte && let Step::EndBefore(e) = self.trail(b) {
            return Some(Step::EndBefore(e));
        }
        Some(Step::ScalarEnd(with_byte))
    }

    /// A byte of the rest of a bare scalar's line.
    fn trail(&mut self, b: u8) -> Step {
        let Some(t) = self.trailer.as_mut() else {
            return Step::Continue;
        };
        let mut step = t.scan.step(b, false, false);
        // A number or literal that `b` ended: `b` begins what follows it.
        if matches!(step, Step::EndBefore(Ending::Complete)) && !t.scan.is_broken() {
            *t.scan = Scan::new();
            step = t.scan.step(b, false, false);
        }
        let broke = t.scan.is_broken() || matches!(step, Step::EndBefore(_));
        if broke {
            // The line is one broken record, ending with the line.
            self.trailer = None;
            self.broken = Some(Loose {
                depth: 0,
                in_string: false,
                escaped: false,
                line: true,
            });
            return self.loose(b, false);
        }
        if matches!(step, Step::EndAfter) {
            *t.scan = Scan::new();
        }
        if b == b'\n' {
            return Step::EndBefore(Ending::Complete);
        }
        t.seen |= !matches!(b, b' ' | b'\t' | b'\r');
        Step::Continue
    }

    /// Whether the record can no longer be valid JSON.
    pub(super) fn is_broken(&self) -> bool {
        self.broken.is_some()
    }

    /// A value closed; at depth 0 that is the end of the record.
    fn value_done(&mut self) -> bool {
        self.expect = Expect::CommaOrEnd;
        self.stack.is_empty()
    }

    /// The record became invalid at `b`.
    fn break_at(&mut self, b: u8, line_start: bool) -> Step {
        if line_start && matches!(b, b'{' | b'[') {
            return Step::EndBefore(Ending::Resync);
        }
        if b == b'\n' && self.string.is_some() {
            return Step::EndBefore(Ending::Resync);
        }
        self.broken = Some(Loose {
            depth: self.stack.len(),
            in_string: false,
            escaped: false,
            line: false,
        });
        self.token = None;
        self.string = None;
        self.loose(b, false)
    }

    /// A byte of a broken record: it ends at the end of the line where the
    /// brackets it opened are closed (or at once, if it opened none), or at a
    /// column-0 bracket (not when it broke by nesting too deep: a column-0
    /// bracket continues such a record as it would a valid one).
    fn loose(&mut self, b: u8, line_start: bool) -> Step {
        let Some(l) = self.broken.as_mut() else {
            return Step::Continue;
        };
        if b == b'\n' && (l.in_string || l.depth == 0 || l.line) {
            return Step::EndBefore(Ending::Complete);
        }
        if line_start && matches!(b, b'{' | b'[') && !self.too_deep {
            return Step::EndBefore(Ending::Complete);
        }
        if l.in_string {
            if l.escaped {
                l.escaped = false;
            } else if b == b'\\' {
                l.escaped = true;
            } else if b == b'"' {
                l.in_string = false;
            }
            return Step::Continue;
        }
        match b {
            b'"' => l.in_string = true,
            b'{' | b'[' => l.depth += 1,
            b'}' | b']' => l.depth = l.depth.saturating_sub(1),
            _ => {}
        }
        Step::Continue
    }

    /// Advances over one byte. `line_start`: the byte is the first of its line.
    /// `in_array`: the record is an element of a top-level array.
    pub(super) fn step(&mut self, b: u8, line_start: bool, in_array: bool) -> Step {
        if self.broken.is_some() {
            return self.loose(b, line_start);
        }
        if self.trailer.is_some() {
            return self.trail(b);
        }
        if let Some((escaped, hex)) = self.string {
            if b < 0x20 {
                return self.break_at(b, line_start);
            }
            self.string = if hex > 0 {
                if !b.is_ascii_hexdigit() {
                    return self.break_at(b, line_start);
                }
                Some((false, hex - 1))
            } else if escaped {
                match b {
                    b'u' => Some((false, 4)),
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some((false, 0)),
                    _ => return self.break_at(b, line_start),
                }
            } else if b == b'\\' {
                Some((true, 0))
            } else if b == b'"' {
                let key = self.expect == Expect::Colon;
                self.string = None;
                if key {
                    return Step::Continue;
                }
                if !self.value_done() {
                    return Step::Continue;
                }
                return self
                    .scalar_done(b, true, in_array)
                    .unwrap_or(Step::EndAfter);
            } else {
                Some((false, 0))
            };
            return Step::Continue;
        }
        if let Some(token) = self.token {
            if let Some(next) = token.next(b) {
                self.exponent |= next == Token::Exp;
                self.token = Some(next);
                return Step::Continue;
            }
            if Token::is_token_byte(b) || !token.complete() {
                return self.break_at(b, line_start);
            }
            self.token = None;
            if self.value_done() {
                return self
                    .scalar_done(b, false, in_array)
                    .unwrap_or(Step::EndBefore(Ending::Complete));
            }
        }
        // A record of a top-level array never runs past a `{` in column 0.
        if line_start && in_array && b == b'{' && !self.stack.is_empty() {
            return Step::EndBefore(Ending::Resync);
        }
        match (self.expect, b) {
            (_, b' ' | b'\t' | b'\r' | b'\n') => {}
            // Past the cap the record is broken (no parser reads it): its
            // brackets are counted, not stacked, so memory stays bounded.
            (Expect::Value | Expect::ValueOrEnd, b'{' | b'[')
                if self.stack.len() >= MAX_SCAN_DEPTH =>
            {
                self.too_deep = true;
                self.broken = Some(Loose {
                    depth: self.stack.len(),
                    in_string: false,
                    escaped: false,
                    line: false,
                });
                self.stack = Vec::new();
                return self.loose(b, false);
            }
            (Expect::Value | Expect::ValueOrEnd, b'{') => {
                self.values += 1;
                self.stack.push(b'{');
                self.expect = Expect::KeyOrEnd;
            }
            (Expect::Value | Expect::ValueOrEnd, b'[') => {
                self.values += 1;
                self.stack.push(b'[');
                self.expect = Expect::ValueOrEnd;
            }
            (Expect::Value | Expect::ValueOrEnd | Expect::KeyOrEnd | Expect::Key, b'"') => {
                if matches!(self.expect, Expect::KeyOrEnd | Expect::Key) {
                    self.expect = Expect::Colon;
                } else {
                    self.values += 1;
                }
                self.string = Some((false, 0));
            }
            (Expect::Value | Expect::ValueOrEnd, _) if Token::start(b).is_some() => {
                self.values += 1;
                self.token = Token::start(b);
            }
            (Expect::Colon, b':') => self.expect = Expect::Value,
            (Expect::CommaOrEnd, b',') => {
                self.expect = if self.stack.last() == Some(&b'{') {
                    Expect::Key
                } else {
                    Expect::Value
                };
            }
            (Expect::CommaOrEnd, b'}') | (Expect::KeyOrEnd, b'}')
                if self.stack.last() == Some(&b'{') =>
            {
                self.stack.pop();
                if self.value_done() {
                    return Step::EndAfter;
                }
            }
            (Expect::CommaOrEnd | Expect::ValueOrEnd, b']') if self.stack.last() == Some(&b'[') => {
                self.stack.pop();
                if self.value_done() {
                    return Step::EndAfter;
                }
            }
            _ => return self.break_at(b, line_start),
        }
        Step::Continue
    }

    /// Inside a valid string, after its quote or an escape: how many of the
    /// bytes `rest` starts with are plain characters that [`Scan::step`] would
    /// only pass over (none is a quote, a backslash, a control character or a
    /// newline, so none ends a line or the record).
    pub(super) fn plain_string_run(&self, rest: &[u8]) -> usize {
        if self.string != Some((false, 0)) || self.broken.is_some() {
            return 0;
        }
        rest.iter()
            .position(|&b| string_stop(b))
            .unwrap_or(rest.len())
    }

    /// Whether the record holds a whole value at the end of the input, or is a
    /// broken record that a line end would have ended there (the input ending
    /// is no more a cut than a newline).
    pub(super) fn complete_at_eof(&self) -> bool {
        if let Some(l) = &self.broken {
            return l.in_string || l.depth == 0 || l.line;
        }
        if self.trailer.is_some() {
            return true;
        }
        self.broken.is_none()
            && self.string.is_none()
            && self.stack.is_empty()
            && self.token.is_some_and(Token::complete)
    }
}

/// Bytes that end the plain run of a string: a quote, a backslash or a control
/// character (a newline among them). Both scanners skip the others in one loop,
/// and the tape reader (`src/tape.rs`) starts its own table from this one.
#[allow(clippy::indexing_slicing)] // Every index is below 0x20, or `"` or `\\`: in the table.
pub(crate) const STRING_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Whether `b` ends the plain run of a string (see [`STRING_STOP`]).
#[inline(always)]
fn string_stop(b: u8) -> bool {
    // A `u8` always indexes a 256-entry table; `get` compiles to the same load.
    STRING_STOP.get(usize::from(b)).copied().unwrap_or(true)
}

/// Nesting the byte scanner follows exactly: one byte of memory a level. A
/// deeper record is broken (every parser in callfix stops at 128 levels), and
/// its brackets are only counted from there on.
pub(super) const MAX_SCAN_DEPTH: usize = 1 << 16;
