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
//! - a line that starts with an SSE field (`data:`, `event:`, `id:`, `retry:`;
//!   no JSON value goes on there) ends any record, valid so far or broken, and
//!   any open top-level array: a broken `data:` line is one record, and the
//!   next `data:` line is framed on its own (a `[` whose array ends this way,
//!   or at the end of the input, before any element is one record too);
//! - otherwise the broken record runs to the end of its line (or, if it left
//!   brackets open, of the line where they close), so one bad line is one result.
//!
//! JSON Lines is safe by the column-0 rule: its records start in column 0 with
//! `{` or `[`, so no unterminated string, bracket or truncated value takes the
//! next line's record (an indented record is not line-framed evidence: a broken
//! record before it may follow its brackets over it). A `:` comment line does
//! not end a record (`:` can start a line of valid JSON).
//!
//! A bare scalar outside a top-level array (`2`, `"x"`, `true`) is checked
//! against the rest of its line: if anything there is not whole values (or a
//! value left open at the line end), the line is one broken record (`2 cats`);
//! otherwise the scalar is a record and the rest of the line is framed again,
//! as a parser would (`1 2`). A line is checked once.
//!
//! When a record breaks after a `{` or `[` in column 0 that it had taken in while
//! still valid (a truncated JSON Lines record, then whole ones), it ends before
//! that bracket and framing resumes there, so the whole records after it come out.
//! Each byte is scanned at most twice this way, and at most twice for a bare
//! scalar's line.
//!
//! One exception keeps a truncated element from swallowing a whole array: inside a
//! top-level array, a `{` in column 0 always starts a new record. (An array of
//! records pretty-printed with no indentation and a nested `{` in column 0 is the
//! one valid layout this splits.)
//!
//! A record whole on one line and in the buffer (JSON Lines) is checked in one
//! pass (`scan::one_line_value`); the byte scanner takes every other record.
//! Within one line the rules above are JSON's grammar alone, so both frame alike.
//! A caller that parses every record on the framer's thread asks it to parse
//! such a line instead of checking it ([`Framer::parsing_lines`]): a line that
//! parses as one value is that value's record, with its parse; any other goes
//! the ways above.
//!
//! Live: before any read that may block, the framer calls the `idle` callback it is
//! given (the filter flushes its results there), so every result is written before
//! callfix waits for more input. Records already in the buffer are batched.

use std::io::{self, Read};

/// Where a record came from, for messages that name the file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RecordMeta {
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
    /// The record may hold a number with an exponent (`1e5`) outside its
    /// strings: false only when the framer read every number and saw none, so
    /// that its number spellings need no scan of their own.
    pub exponent: bool,
    /// The record already parsed, when the framer was asked to parse whole
    /// lines ([`Framer::parsing_lines`]) and this record is one.
    pub parsed: Option<crate::json::Line>,
}

/// How the framer ended a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The value closed, or a broken record ended at its line end.
    Complete,
    /// The input ended inside the record.
    Eof,
    /// The record was valid so far but was cut off: a newline inside a string, or
    /// a new record starting in column 0.
    Resync,
}

mod scan;

pub(crate) use self::scan::STRING_STOP;

use scan::{Scan, Step};

/// Splits a reader into records. Reuse one `Framer` for the whole stream.
pub(crate) struct Framer<R> {
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
    /// The line whose rest, after a bare scalar, was checked and found to hold
    /// values: the records there are not checked again.
    checked_line: Option<u64>,
    /// The `[` (input offset, line) that opened the current top-level array,
    /// while no element has been framed.
    empty_array: Option<(u64, u64)>,
    /// Parse each record that is a whole line, holding at most this many
    /// values ([`Framer::parsing_lines`]).
    parse_lines: Option<u64>,
}

/// A record that is the whole of its line in `rest` (an object or array, then
/// only spaces before the newline), at most `limit` bytes (and
/// [`crate::json::parse_line`]'s `max_values`): its length and its parse. Such a line frames as one record (it is
/// one JSON value; see the module above), so the parse is all the check it
/// needs; any other line is left to the framer's scanners.
fn parsed_line(rest: &[u8], limit: usize, max_values: u64) -> Option<(usize, crate::json::Line)> {
    if !matches!(rest.first(), Some(b'{' | b'[')) {
        return None;
    }
    let line = rest.get(..memchr::memchr(b'\n', rest)?)?;
    let value = line.trim_ascii_end();
    // `trim_ascii_end` also trims a form feed, which is no JSON space.
    if value.len() > limit || line.get(value.len()..)?.contains(&0x0c) {
        return None;
    }
    Some((value.len(), crate::json::parse_line(value, max_values)?))
}

/// What follows the skipped bytes.
enum Next {
    Record,
    End,
    /// A top-level array ended with no element and no `]` (at an SSE field, or
    /// at the end of the input): its `[` (input offset, line) is one broken
    /// record, ended this way.
    LoneBracket(u64, u64, Ending),
}

/// Bytes read from the input at a time.
pub(crate) const CHUNK: usize = 1 << 16;

/// The smallest buffer: room to recognise an SSE field (`data: [DONE]`).
const MIN_BUFFER: usize = 16;

impl<R: Read> Framer<R> {
    /// A framer over `reader` that keeps at most `limit` bytes of one record.
    /// `first_index` continues the record numbering across several inputs.
    #[cfg(test)]
    pub(crate) fn new(reader: R, limit: usize, first_index: u64) -> Self {
        Self::with_capacity(reader, limit, first_index, CHUNK)
    }

    /// As [`Framer::new`], reading `capacity` bytes at a time (at least 16): less
    /// than 64 KiB for a small input in memory.
    pub(crate) fn with_capacity(
        reader: R,
        limit: usize,
        first_index: u64,
        capacity: usize,
    ) -> Self {
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
            checked_line: None,
            empty_array: None,
            parse_lines: None,
        }
    }

    /// Parses each record that is a line of its own (JSON Lines) as it frames
    /// it, instead of checking its syntax first and leaving the parse to the
    /// caller: one pass over the line where there were two. A line that does
    /// not parse (or is longer in bytes than `max_values`, so that a record
    /// over the value limit is counted before anything is built) is framed as
    /// without this, and comes without a value. For a caller that parses
    /// every record on the framer's thread (not `--jobs`, whose workers
    /// parse).
    pub(crate) fn parsing_lines(mut self, max_values: u64) -> Self {
        self.parse_lines = Some(max_values);
        self
    }

    /// Counts lines from `line` (the input is part of a larger file).
    pub(crate) fn first_line(mut self, line: u64) -> Self {
        self.line = line;
        self
    }

    /// The index the next record will get.
    pub(crate) fn next_index(&self) -> u64 {
        self.next_index
    }

    /// Makes at least `want` unread bytes available, unless the input ends first;
    /// returns how many there are. Calls `idle` before a read that may block.
    fn fill(&mut self, want: usize, idle: &mut dyn FnMut()) -> io::Result<usize> {
        let want = want.min(self.buf.len());
        if self.end.saturating_sub(self.pos) >= want || self.eof {
            return Ok(self.end - self.pos);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        while self.end < want && !self.eof {
            idle();
            match self
                .reader
                .read(self.buf.get_mut(self.end..).unwrap_or_default())
            {
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
        while have < want.min(self.buf.len()) && !self.eof && !self.unread().contains(&b'\n') {
            have = self.fill(have + 1, idle)?;
        }
        Ok(self.unread())
    }

    /// The unread bytes of the buffer.
    fn unread(&self) -> &[u8] {
        self.buf.get(self.pos..self.end).unwrap_or_default()
    }

    /// Reads the next record into `out` (cleared first). Returns `None` at the end
    /// of the stream. `idle` is called before any read that may block.
    pub(crate) fn next_record(
        &mut self,
        out: &mut Vec<u8>,
        idle: &mut dyn FnMut(),
    ) -> io::Result<Option<RecordMeta>> {
        out.clear();
        match self.skip_to_record(idle)? {
            Next::End => return Ok(None),
            Next::Record => {}
            Next::LoneBracket(offset, line, ending) => {
                // A top-level array that ended (at an SSE field or the end of
                // the input) with no element and no `]`: one broken record.
                out.push(b'[');
                let index = self.next_index;
                self.next_index += 1;
                return Ok(Some(RecordMeta {
                    index,
                    line,
                    offset,
                    ending,
                    oversized: None,
                    values: 1,
                    exponent: true,
                    parsed: None,
                }));
            }
        }
        self.empty_array = None;
        let meta_line = self.line;
        let offset = self.read - (self.end - self.pos) as u64;
        let index = self.next_index;
        let meta = |ending, oversized, values, exponent| RecordMeta {
            index,
            line: meta_line,
            offset,
            ending,
            oversized,
            values,
            exponent,
            parsed: None,
        };
        // JSON Lines: a record that is whole on its line and in the buffer.
        let rest = self.unread();
        if let Some(max_values) = self.parse_lines
            && let Some((len, parsed)) = parsed_line(rest, self.limit, max_values)
        {
            // What `one_line_value` frames from a line that is one value:
            // that value, the spaces after it left for the next record.
            out.extend_from_slice(rest.get(..len).unwrap_or_default());
            self.consume(len);
            self.next_index += 1;
            let (values, exponent) = (parsed.values, parsed.exponent);
            return Ok(Some(RecordMeta {
                parsed: Some(parsed),
                ..meta(Ending::Complete, None, values, exponent)
            }));
        }
        if let Some(line) = scan::one_line_value(rest)
            && line.len <= self.limit
        {
            out.extend_from_slice(rest.get(..line.len).unwrap_or_default());
            self.consume(line.len);
            self.next_index += 1;
            return Ok(Some(meta(
                Ending::Complete,
                None,
                line.values,
                line.exponent,
            )));
        }
        let in_array = self.in_array;
        let mut scan = Scan::checking_line(self.checked_line != Some(meta_line));
        let mut size = 0usize;
        // The last `{` or `[` in column 0 inside the record while it was still
        // valid: (offset in the record, its line).
        let mut candidate: Option<(usize, u64)> = None;
        // A `{` or `[` in column 0 after the record broke by nesting too deep:
        // (offset in the record, its line). If the next byte ends its line, it
        // is a bracket of the record printed one to a line, and the record goes
        // on; anything else there begins a record of its own, so framing
        // resumes at the bracket (a line of 70,000 `[` must not swallow every
        // record after it).
        let mut deep_candidate: Option<(usize, u64)> = None;
        // Where a bare top-level scalar ended (offset in the record).
        let mut scalar_end: Option<usize> = None;
        // Bytes wanted at the next read: more than one to tell whether a line
        // starts with an SSE field.
        let mut want = 1;
        let ending = 'record: loop {
            if self.fill_line(want, idle)?.is_empty() {
                // A bare scalar: it is the record, and what followed it on its
                // line (values, or values left open) is framed again.
                if let (Some(cut), Some(seen)) = (scalar_end, scan.after_scalar())
                    && size <= self.limit
                {
                    if seen {
                        self.resume_at(out, 0, cut, None);
                        self.checked_line = Some(meta_line);
                    } else {
                        out.truncate(cut);
                    }
                    size = cut;
                    break Ending::Complete;
                }
                if scan.complete_at_eof() {
                    break Ending::Complete;
                }
                // The input ended: the record cannot be valid any more.
                if let Some((at, line)) = candidate
                    && size <= self.limit
                {
                    self.resume_at(out, 0, at, Some(line));
                    break Ending::Resync;
                }
                break Ending::Eof;
            }
            want = 1;
            let chunk = self.buf.get(self.pos..self.end).unwrap_or_default();
            // (bytes to take, how the record ended); a byte that ends a record
            // without belonging to it is left for the next one.
            let mut end: Option<(usize, Ending)> = None;
            // The record broke at this index after a candidate.
            let mut backtrack = None;
            // Only this many bytes are taken before more are read.
            let mut pause = None;
            let mut newlines = 0;
            let mut i = 0;
            while let Some(&b) = chunk.get(i) {
                let line_start = self.at_line_start && size + i > 0;
                // A line that starts with an SSE field ends any record: no JSON
                // value goes on there.
                if line_start && matches!(b, b'd' | b'e' | b'i' | b'r') {
                    match sse_field(chunk.get(i..).unwrap_or_default(), self.eof) {
                        None => {
                            want = MIN_BUFFER;
                            pause = Some(i);
                            break;
                        }
                        Some(true) => {
                            if scan.is_broken() {
                                end = Some((i, Ending::Complete));
                            } else if candidate.is_some() && size + i < self.limit {
                                backtrack = Some(i);
                            } else {
                                end = Some((i, Ending::Resync));
                            }
                            break;
                        }
                        Some(false) => {}
                    }
                }
                if let Some((at, line)) = deep_candidate.take()
                    && !matches!(b, b'\n' | b'\r')
                    && size + i < self.limit
                {
                    self.resume_at(out, i, at, Some(line));
                    break 'record Ending::Resync;
                }
                let was_valid = !scan.is_broken();
                let step = scan.step(b, line_start, in_array);
                if line_start && matches!(b, b'{' | b'[') && scan.too_deep() {
                    deep_candidate = Some((size + i, self.line + newlines));
                }
                // Did the record just become invalid (not: end by the array rule)?
                let broke = was_valid
                    && !scan.too_deep()
                    && match step {
                        Step::Continue | Step::ScalarEnd(_) => scan.is_broken(),
                        Step::EndBefore(Ending::Resync) => !(in_array && b == b'{' && line_start),
                        _ => false,
                    };
                if broke && candidate.is_some() && size + i < self.limit {
                    backtrack = Some(i);
                    break;
                }
                match step {
                    Step::Continue => {
                        if line_start && matches!(b, b'{' | b'[') && !scan.is_broken() {
                            candidate = Some((size + i, self.line + newlines));
                        }
                    }
                    Step::ScalarEnd(with_byte) => {
                        scalar_end = Some(size + i + usize::from(with_byte));
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
                i += 1 + scan.plain_string_run(chunk.get(i + 1..).unwrap_or_default());
            }
            if let (Some(i), Some((at, line))) = (backtrack, candidate) {
                self.resume_at(out, i + 1, at, Some(line));
                break Ending::Resync;
            }
            // A bare scalar, then its line end: the scalar is the record (see
            // the end of input above). No newline lies between the two.
            let mut trim_to = None;
            if let (Some((i, Ending::Complete)), Some(cut), Some(seen)) =
                (end, scalar_end, scan.after_scalar())
            {
                if seen {
                    self.checked_line = Some(meta_line);
                }
                if let Some(n) = cut.checked_sub(size) {
                    end = Some((n, Ending::Complete));
                } else if seen && size <= self.limit {
                    self.resume_at(out, i, cut, None);
                    size = cut;
                    break Ending::Complete;
                } else {
                    trim_to = Some(cut);
                }
            }
            let (take, done) = match end {
                Some((n, ending)) => (n, Some(ending)),
                None => (pause.unwrap_or(chunk.len()), None),
            };
            self.line += newlines;
            size += take;
            if size <= self.limit {
                out.extend_from_slice(chunk.get(..take).unwrap_or_default());
            } else if !out.is_empty() {
                out.clear();
                out.shrink_to(0);
            }
            if let Some(cut) = trim_to {
                out.truncate(cut);
                size = cut;
            }
            self.pos += take;
            if let Some(ending) = done {
                break ending;
            }
        };
        self.next_index += 1;
        let oversized = (size > self.limit).then_some(size);
        Ok(Some(meta(ending, oversized, scan.values, scan.exponent)))
    }

    /// The open record (`out`, then the next `taken` bytes of the buffer) ends
    /// before record offset `at`, and framing resumes there: on `line`, at its
    /// start, after a record that broke after a column-0 `{` or `[` at `at` that
    /// it took in while still valid; or (`None`) within the current line, after a
    /// bare scalar that ended at `at`. Each byte is scanned at most twice this
    /// way.
    fn resume_at(&mut self, out: &mut Vec<u8>, taken: usize, at: usize, line: Option<u64>) {
        let taken_end = (self.pos + taken).min(self.end);
        out.extend_from_slice(self.buf.get(self.pos..taken_end).unwrap_or_default());
        let mut rest = out.split_off(at.min(out.len()));
        rest.extend_from_slice(self.buf.get(taken_end..self.end).unwrap_or_default());
        self.end = rest.len();
        rest.resize(rest.len().max(self.buf.len()), 0);
        self.buf = rest;
        self.pos = 0;
        if let Some(line) = line {
            self.line = line;
            self.at_line_start = true;
        } else {
            self.at_line_start = false;
        }
    }

    /// Consumes `n` bytes that hold no newline.
    fn consume(&mut self, n: usize) {
        self.pos += n;
        self.at_line_start = false;
    }

    /// Skips whitespace, separators, byte-order marks, top-level array brackets
    /// and SSE lines that carry no record. Says what follows.
    fn skip_to_record(&mut self, idle: &mut dyn FnMut()) -> io::Result<Next> {
        loop {
            if self.fill(1, idle)? == 0 {
                self.in_array = false;
                return Ok(match self.empty_array.take() {
                    Some((offset, line)) => Next::LoneBracket(offset, line, Ending::Eof),
                    None => Next::End,
                });
            }
            let Some(&b) = self.buf.get(self.pos) else {
                return Ok(Next::End);
            };
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    self.pos += 1;
                    self.at_line_start = b == b'\n';
                    self.line += u64::from(b == b'\n');
                }
                b',' if self.in_array => self.consume(1),
                b']' if self.in_array => {
                    self.in_array = false;
                    self.empty_array = None;
                    self.consume(1);
                }
                b'[' if !self.in_array => {
                    self.in_array = true;
                    let offset = self.read - (self.end - self.pos) as u64;
                    self.empty_array = Some((offset, self.line));
                    self.consume(1);
                }
                0xEF => {
                    if !self.fill_line(3, idle)?.starts_with(b"\xEF\xBB\xBF") {
                        return Ok(Next::Record);
                    }
                    self.consume(3);
                }
                // In a top-level array too: an SSE field cannot be part of one, so
                // it ends the array, and a stray `[` does not hide the `data:`
                // lines after it.
                b'd' | b'e' | b'i' | b'r' | b':' if self.at_line_start => {
                    if self.in_array {
                        let rest = self.fill_line(MIN_BUFFER, idle)?;
                        if SSE_FIELDS.iter().any(|f| rest.starts_with(f)) {
                            self.in_array = false;
                            if let Some((offset, line)) = self.empty_array.take() {
                                return Ok(Next::LoneBracket(offset, line, Ending::Resync));
                            }
                        }
                    }
                    if !self.skip_sse_field(idle)? {
                        return Ok(Next::Record);
                    }
                }
                _ => return Ok(Next::Record),
            }
        }
    }

    /// At the start of a line: an SSE field. `data:` (and one space) is skipped so
    /// that its JSON is framed as a record, and so is a `data: [DONE]` line;
    /// `event:`, `id:`, `retry:` and `:` comment lines are skipped whole. An SSE
    /// field ends a top-level array left open, as the end of the input does.
    /// Returns false, consuming nothing, if the line is no SSE field.
    fn skip_sse_field(&mut self, idle: &mut dyn FnMut()) -> io::Result<bool> {
        let rest = self.fill_line(MIN_BUFFER, idle)?;
        let Some(field) = SSE_FIELDS.iter().find(|f| rest.starts_with(f)) else {
            return Ok(false);
        };
        let mut n = field.len();
        let data = *field == b"data:";
        if data {
            n += usize::from(rest.get(n) == Some(&b' '));
        }
        let line = rest.get(n..).unwrap_or_default();
        let done = line.starts_with(b"[DONE]") && matches!(line.get(6), None | Some(b'\n' | b'\r'));
        self.in_array = false;
        if data && !done {
            self.consume(n);
            return Ok(true);
        }
        // Skip the rest of the line.
        loop {
            let rest = self.buf.get(self.pos..self.end).unwrap_or_default();
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

/// SSE fields, `:` (a comment) last.
const SSE_FIELDS: [&[u8]; 5] = [b"data:", b"event:", b"id:", b"retry:", b":"];

/// Whether `rest`, at the start of a line inside a record, begins with an SSE
/// field other than a comment (`:` can begin a line of valid JSON); `None` when
/// `rest` is too short to tell and more input may follow (not at `eof`).
fn sse_field(rest: &[u8], eof: bool) -> Option<bool> {
    let mut open = false;
    for field in SSE_FIELDS.iter().filter(|f| f.len() > 1) {
        if rest.starts_with(field) {
            return Some(true);
        }
        open |= field.starts_with(rest);
    }
    if open && !eof { None } else { Some(false) }
}

#[cfg(test)]
mod tests;
