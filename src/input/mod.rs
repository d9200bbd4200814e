//! Stage 1: the input stream.
//!
//! Splits a byte stream into *records* without building values, so that one
//! broken record never takes the rest of the stream with it. A stream may be JSON
//! Lines, concatenated JSON values in any layout (pretty-printed with any
//! indentation, or none), one top-level JSON array whose elements are the records,
//! or Server-Sent Events (`data:` lines; `event:`, `id:`, `retry:`, comments and
//! `data: [DONE]` are skipped). Memory is bounded by the largest record.
//!
//! The framer checks JSON syntax as it goes, so a stream of valid JSON values
//! frames exactly as a strict parser would. Only once the open record can no
//! longer be valid JSON does it look for where the next record starts:
//! - a raw newline inside a string (never valid) ends the record there: a
//!   truncated line does not swallow the next one;
//! - a `{` or `[` in column 0 that cannot continue the record starts a new one;
//! - otherwise the broken record runs to the end of its line (or, if it left
//!   brackets open, of the line where they close), so one bad line is one result.
//!
//! When a record breaks after a `{` in column 0 that it had taken in while still
//! valid (a truncated JSON Lines record, then whole ones), it ends before that
//! brace and framing resumes there, so the whole records after it come out.
//!
//! One exception keeps a truncated element from swallowing a whole array: inside a
//! top-level array, a `{` in column 0 always starts a new record. (An array of
//! records pretty-printed with no indentation and a nested `{` in column 0 is the
//! one valid layout this splits.)
//!
//! Live: before any read that may block, the framer calls the `idle` callback it is
//! given (the filter flushes its results there), so every result is written before
//! callfix waits for more input. Records already in the buffer are batched.

use std::io::{self, Read};

/// Where a record came from, for messages that name the file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMeta {
    /// Record number in the whole run, from 0.
    pub index: u64,
    /// 1-based line on which the record starts.
    pub line: u64,
    /// Byte offset in the input at which the record starts.
    pub offset: u64,
    /// How the framer ended the record.
    pub ending: Ending,
    /// The record's full size when it was larger than the limit (its bytes were
    /// discarded).
    pub oversized: Option<usize>,
    /// How many JSON values (objects, arrays, strings, numbers, literals) the
    /// record holds, counted as it was framed.
    pub values: u64,
}

/// How the framer ended a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The value closed, or a broken record ended at its line end.
    Complete,
    /// The input ended inside the record.
    Eof,
    /// The record was valid so far but was cut off: a newline inside a string, or
    /// a new record starting in column 0.
    Resync,
}

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
enum Token {
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
            (Literal(word, n), b) if n < word.len() && word[n] == b => Literal(word, n + 1),
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
struct Scan {
    /// Open containers, `{` or `[`.
    stack: Vec<u8>,
    expect: Expect,
    /// Inside a string: whether the next byte is escaped, and how many hex digits
    /// of a `\u` escape are still due.
    string: Option<(bool, u8)>,
    token: Option<Token>,
    /// Set once the record can no longer be valid JSON.
    broken: Option<Loose>,
    /// Values begun so far.
    values: u64,
}

/// A broken record is followed loosely: brackets and strings only.
#[derive(Debug)]
struct Loose {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

enum Step {
    Continue,
    /// The byte closes the record.
    EndAfter,
    /// The record ended just before this byte.
    EndBefore(Ending),
}

impl Scan {
    fn new() -> Self {
        Scan {
            stack: Vec::new(),
            expect: Expect::Value,
            string: None,
            token: None,
            broken: None,
            values: 0,
        }
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
        });
        self.token = None;
        self.string = None;
        self.loose(b, false)
    }

    /// A byte of a broken record: it ends at the end of the line where the
    /// brackets it opened are closed (or at once, if it opened none), or at a
    /// column-0 bracket.
    fn loose(&mut self, b: u8, line_start: bool) -> Step {
        let Some(l) = self.broken.as_mut() else {
            return Step::Continue;
        };
        if b == b'\n' && (l.in_string || l.depth == 0) {
            return Step::EndBefore(Ending::Complete);
        }
        if line_start && matches!(b, b'{' | b'[') {
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
    fn step(&mut self, b: u8, line_start: bool, in_array: bool) -> Step {
        if self.broken.is_some() {
            return self.loose(b, line_start);
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
                return if self.value_done() {
                    Step::EndAfter
                } else {
                    Step::Continue
                };
            } else {
                Some((false, 0))
            };
            return Step::Continue;
        }
        if let Some(token) = self.token {
            if let Some(next) = token.next(b) {
                self.token = Some(next);
                return Step::Continue;
            }
            if Token::is_token_byte(b) || !token.complete() {
                return self.break_at(b, line_start);
            }
            self.token = None;
            if self.value_done() {
                return Step::EndBefore(Ending::Complete);
            }
        }
        // A record of a top-level array never runs past a `{` in column 0.
        if line_start && in_array && b == b'{' && !self.stack.is_empty() {
            return Step::EndBefore(Ending::Resync);
        }
        match (self.expect, b) {
            (_, b' ' | b'\t' | b'\r' | b'\n') => {}
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
    fn plain_string_run(&self, rest: &[u8]) -> usize {
        if self.string != Some((false, 0)) || self.broken.is_some() {
            return 0;
        }
        rest.iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(rest.len())
    }

    /// Whether the record holds a whole value at the end of the input.
    fn complete_at_eof(&self) -> bool {
        self.broken.is_none()
            && self.string.is_none()
            && self.stack.is_empty()
            && self.token.is_some_and(Token::complete)
    }
}

/// Splits a reader into records. Reuse one `Framer` for the whole stream.
pub struct Framer<R> {
    reader: R,
    /// Read buffer; `pos..end` is unread.
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Bytes read from `reader` so far: the next unread byte is at input offset
    /// `read - (end - pos)` (the buffer always holds the unconsumed rest).
    read: u64,
    limit: usize,
    next_index: u64,
    line: u64,
    at_line_start: bool,
    in_array: bool,
}

/// Bytes read from the input at a time.
pub(crate) const CHUNK: usize = 1 << 16;

/// The smallest buffer: room to recognise an SSE field (`data: [DONE]`).
const MIN_BUFFER: usize = 16;

impl<R: Read> Framer<R> {
    /// A framer over `reader` that keeps at most `limit` bytes of one record.
    /// `first_index` continues the record numbering across several inputs.
    pub fn new(reader: R, limit: usize, first_index: u64) -> Self {
        Self::with_capacity(reader, limit, first_index, CHUNK)
    }

    /// As [`Framer::new`], reading `capacity` bytes at a time (at least 16): less
    /// than 64 KiB for a small input in memory.
    pub fn with_capacity(reader: R, limit: usize, first_index: u64, capacity: usize) -> Self {
        Self {
            reader,
            buf: vec![0; capacity.max(MIN_BUFFER)],
            pos: 0,
            end: 0,
            eof: false,
            read: 0,
            limit,
            next_index: first_index,
            line: 1,
            at_line_start: true,
            in_array: false,
        }
    }

    /// Counts lines from `line` (the input is part of a larger file).
    pub fn first_line(mut self, line: u64) -> Self {
        self.line = line;
        self
    }

    /// The index the next record will get.
    pub fn next_index(&self) -> u64 {
        self.next_index
    }

    /// Makes at least `want` unread bytes available, unless the input ends first;
    /// returns how many there are. Calls `idle` before a read that may block.
    fn fill(&mut self, want: usize, idle: &mut dyn FnMut()) -> io::Result<usize> {
        let want = want.min(self.buf.len());
        if self.end - self.pos >= want || self.eof {
            return Ok(self.end - self.pos);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        while self.end < want && !self.eof {
            idle();
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.end += n;
                    self.read += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.end - self.pos)
    }

    /// Like [`Framer::fill`], but content with a line that ends within `want`
    /// bytes: peeking never waits for input beyond the current line.
    fn fill_line(&mut self, want: usize, idle: &mut dyn FnMut()) -> io::Result<&[u8]> {
        let mut have = self.fill(1, idle)?;
        while have < want.min(self.buf.len())
            && !self.eof
            && !self.buf[self.pos..self.end].contains(&b'\n')
        {
            have = self.fill(have + 1, idle)?;
        }
        Ok(&self.buf[self.pos..self.end])
    }

    /// Reads the next record into `out` (cleared first). Returns `None` at the end
    /// of the stream. `idle` is called before any read that may block.
    pub fn next_record(
        &mut self,
        out: &mut Vec<u8>,
        idle: &mut dyn FnMut(),
    ) -> io::Result<Option<RecordMeta>> {
        out.clear();
        if !self.skip_to_record(idle)? {
            return Ok(None);
        }
        let meta_line = self.line;
        let offset = self.read - (self.end - self.pos) as u64;
        let in_array = self.in_array;
        let mut scan = Scan::new();
        let mut size = 0usize;
        // The last `{` in column 0 inside the record while it was still valid:
        // (offset in the record, its line).
        let mut candidate: Option<(usize, u64)> = None;
        let ending = loop {
            if self.fill(1, idle)? == 0 {
                if scan.complete_at_eof() {
                    break Ending::Complete;
                }
                // The input ended: the record cannot be valid any more.
                if let Some((at, line)) = candidate
                    && size <= self.limit
                {
                    self.resume_at(out, 0, at, line);
                    break Ending::Resync;
                }
                break Ending::Eof;
            }
            let chunk = &self.buf[self.pos..self.end];
            // (bytes to take, how the record ended); a byte that ends a record
            // without belonging to it is left for the next one.
            let mut end: Option<(usize, Ending)> = None;
            // The record broke at this index after a candidate.
            let mut backtrack = None;
            let mut newlines = 0;
            let mut i = 0;
            while i < chunk.len() {
                let b = chunk[i];
                let line_start = self.at_line_start && size + i > 0;
                let was_valid = scan.broken.is_none();
                let step = scan.step(b, line_start, in_array);
                // Did the record just become invalid (not: end by the array rule)?
                let broke = was_valid
                    && match step {
                        Step::Continue => scan.broken.is_some(),
                        Step::EndBefore(Ending::Resync) => !(in_array && b == b'{' && line_start),
                        _ => false,
                    };
                if broke && candidate.is_some() {
                    backtrack = Some(i);
                    break;
                }
                match step {
                    Step::Continue => {
                        if line_start && b == b'{' && scan.broken.is_none() {
                            candidate = Some((size + i, self.line + newlines));
                        }
                    }
                    Step::EndAfter => {
                        end = Some((i + 1, Ending::Complete));
                        newlines += u64::from(b == b'\n');
                        self.at_line_start = b == b'\n';
                        break;
                    }
                    Step::EndBefore(ending) => {
                        end = Some((i, ending));
                        break;
                    }
                }
                self.at_line_start = b == b'\n';
                newlines += u64::from(b == b'\n');
                i += 1 + scan.plain_string_run(&chunk[i + 1..]);
            }
            if let (Some(i), Some((at, line))) = (backtrack, candidate)
                && size + i < self.limit
            {
                self.resume_at(out, i + 1, at, line);
                break Ending::Resync;
            }
            let (take, done) = match end {
                Some((n, ending)) => (n, Some(ending)),
                None => (chunk.len(), None),
            };
            self.line += newlines;
            size += take;
            if size <= self.limit {
                out.extend_from_slice(&chunk[..take]);
            } else if !out.is_empty() {
                out.clear();
                out.shrink_to(0);
            }
            self.pos += take;
            if let Some(ending) = done {
                break ending;
            }
        };
        let index = self.next_index;
        self.next_index += 1;
        Ok(Some(RecordMeta {
            index,
            line: meta_line,
            offset,
            ending,
            oversized: (size > self.limit).then_some(size),
            values: scan.values,
        }))
    }

    /// The open record (`out`, then the next `taken` bytes of the buffer) broke
    /// after a column-0 `{` at record offset `at`, on `line`, that it took in while
    /// still valid: the record ends before that brace, and framing resumes there.
    /// Each byte is scanned at most twice this way.
    fn resume_at(&mut self, out: &mut Vec<u8>, taken: usize, at: usize, line: u64) {
        out.extend_from_slice(&self.buf[self.pos..self.pos + taken]);
        let mut rest = out.split_off(at);
        rest.extend_from_slice(&self.buf[self.pos + taken..self.end]);
        self.end = rest.len();
        rest.resize(rest.len().max(self.buf.len()), 0);
        self.buf = rest;
        self.pos = 0;
        self.line = line;
        self.at_line_start = true;
    }

    /// Consumes `n` bytes that hold no newline.
    fn consume(&mut self, n: usize) {
        self.pos += n;
        self.at_line_start = false;
    }

    /// Skips whitespace, separators, byte-order marks, top-level array brackets
    /// and SSE lines that carry no record. Returns whether a record follows.
    fn skip_to_record(&mut self, idle: &mut dyn FnMut()) -> io::Result<bool> {
        loop {
            if self.fill(1, idle)? == 0 {
                return Ok(false);
            }
            let b = self.buf[self.pos];
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    self.pos += 1;
                    self.at_line_start = b == b'\n';
                    self.line += u64::from(b == b'\n');
                }
                b',' if self.in_array => self.consume(1),
                b']' if self.in_array => {
                    self.in_array = false;
                    self.consume(1);
                }
                b'[' if !self.in_array => {
                    self.in_array = true;
                    self.consume(1);
                }
                0xEF => {
                    if !self.fill_line(3, idle)?.starts_with(b"\xEF\xBB\xBF") {
                        return Ok(true);
                    }
                    self.consume(3);
                }
                b'd' | b'e' | b'i' | b'r' | b':' if self.at_line_start && !self.in_array => {
                    if !self.skip_sse_field(idle)? {
                        return Ok(true);
                    }
                }
                _ => return Ok(true),
            }
        }
    }

    /// At the start of a line: an SSE field. `data:` (and one space) is skipped so
    /// that its JSON is framed as a record, and so is a `data: [DONE]` line;
    /// `event:`, `id:`, `retry:` and `:` comment lines are skipped whole. Returns
    /// false, consuming nothing, if the line is no SSE field.
    fn skip_sse_field(&mut self, idle: &mut dyn FnMut()) -> io::Result<bool> {
        const FIELDS: [&[u8]; 5] = [b"data:", b"event:", b"id:", b"retry:", b":"];
        let rest = self.fill_line(MIN_BUFFER, idle)?;
        let Some(field) = FIELDS.iter().find(|f| rest.starts_with(f)) else {
            return Ok(false);
        };
        let mut n = field.len();
        if *field == b"data:" {
            n += usize::from(rest.get(n) == Some(&b' '));
            let line = &rest[n..];
            let done =
                line.starts_with(b"[DONE]") && matches!(line.get(6), None | Some(b'\n' | b'\r'));
            if !done {
                self.consume(n);
                return Ok(true);
            }
        }
        // Skip the rest of the line.
        loop {
            let rest = &self.buf[self.pos..self.end];
            if let Some(at) = rest.iter().position(|&b| b == b'\n') {
                self.pos += at;
                return Ok(true);
            }
            self.pos = self.end;
            if self.fill(1, idle)? == 0 {
                return Ok(true);
            }
        }
    }
}

#[cfg(test)]
mod tests;
