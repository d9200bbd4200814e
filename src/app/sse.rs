//! Server-sent events (the WHATWG `text/event-stream` format), read
//! incrementally and within bounds: what `callfix mcp --url` reads from a
//! Streamable HTTP server's event streams.
//!
//! [`Parser::feed`] takes the stream in chunks of any size (a line or a line
//! ending may be split between two) and calls back with each event whose data
//! is not empty: its data lines joined with `\n`, as the format says. What the
//! parser keeps is bounded whatever the stream holds: an event's data up to
//! `max` bytes (past it only the first `prefix` bytes and the length, reported
//! as [`Data::Oversized`]), the last event id and the event type up to
//! [`MAX_FIELD_BYTES`], nothing of comments and unknown fields. Each byte is
//! looked at once. An event not ended by a blank line when the stream ends is
//! discarded (`finish`), as the format says: nothing is completed.
//!
//! Not part of the library's API (the hidden `app` module); it is public for the
//! fuzz target (`tests/fuzz/sse.rs`).

/// The longest event type or event id kept; a longer one is ignored.
pub const MAX_FIELD_BYTES: usize = 1024;

/// An event's data, as the callback gets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Data<'a> {
    /// All of it, data lines joined with `\n`.
    Whole(&'a [u8]),
    /// Over the parser's `max`: its first bytes and its whole length.
    Oversized {
        /// The first bytes (at most the parser's `prefix`).
        prefix: &'a [u8],
        /// The data's whole length.
        len: usize,
    },
}

/// One event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<'a> {
    /// Its type: `message` unless an `event:` field said otherwise.
    pub kind: &'a [u8],
    /// Its data.
    pub data: Data<'a>,
}

/// Where in a line the parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of a line.
    Start,
    /// In the field name (its bytes so far in `name`).
    Name,
    /// Just after the colon: one space is skipped.
    Colon,
    /// In the value.
    Value,
    /// In a comment or a field that is ignored: up to the line's end.
    Skip,
}

/// The fields callfix reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Data,
    Event,
    Id,
    Retry,
    Other,
}

/// An incremental `text/event-stream` parser.
#[derive(Debug)]
pub struct Parser {
    max: usize,
    prefix: usize,
    state: State,
    /// The previous byte was a CR (a LF right after it ends nothing more).
    after_cr: bool,
    /// Bytes of a leading BOM seen (3 when done with it).
    bom: u8,
    name: [u8; 5],
    name_len: usize,
    field: Field,
    /// The event's data so far (capped).
    data: Vec<u8>,
    /// The data's whole length, newlines between lines included.
    data_len: usize,
    /// Data lines seen in this event.
    data_lines: usize,
    kind: Vec<u8>,
    kind_over: bool,
    /// The `id` field's value being read.
    id: Vec<u8>,
    id_over: bool,
    /// The last event id (the stream's, kept across events).
    last_id: Option<Vec<u8>>,
    retry: Option<u64>,
    /// The `retry` value being read, or `None` once it is not all digits.
    retry_value: Option<u64>,
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

impl Parser {
    /// A parser that keeps an event's data up to `max` bytes, and only its first
    /// `prefix` bytes past that.
    pub fn new(max: usize, prefix: usize) -> Self {
        Parser {
            max,
            prefix: prefix.min(max),
            state: State::Start,
            after_cr: false,
            bom: 0,
            name: [0; 5],
            name_len: 0,
            field: Field::Other,
            data: Vec::new(),
            data_len: 0,
            data_lines: 0,
            kind: Vec::new(),
            kind_over: false,
            id: Vec::new(),
            id_over: false,
            last_id: None,
            retry: None,
            retry_value: None,
        }
    }

    /// The last event id the stream set (for `Last-Event-ID`), if any.
    pub fn last_id(&self) -> Option<&[u8]> {
        self.last_id.as_deref()
    }

    /// The reconnection time the stream asked for, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Reads `chunk`, calling `each` with every event it completes.
    pub fn feed(&mut self, chunk: &[u8], mut each: impl FnMut(Event<'_>)) {
        let mut rest = chunk;
        while self.bom < 3 {
            match rest.split_first() {
                Some((&b, tail)) if BOM.get(usize::from(self.bom)) == Some(&b) => {
                    self.bom += 1;
                    rest = tail;
                }
                Some(_) => self.bom = 3,
                None => return,
            }
        }
        while let Some((&b, tail)) = rest.split_first() {
            if b == b'\n' && self.after_cr {
                self.after_cr = false;
                rest = tail;
                continue;
            }
            self.after_cr = false;
            if b == b'\n' || b == b'\r' {
                self.after_cr = b == b'\r';
                self.end_line(&mut each);
                rest = tail;
                continue;
            }
            // The bytes up to the next line end are taken together.
            let end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
            let (run, after) = rest.split_at(end);
            self.take(run);
            rest = after;
        }
    }

    /// The stream ended: an event not ended by a blank line is discarded.
    pub fn finish(&mut self) {
        self.state = State::Start;
        self.after_cr = false;
        self.clear_event();
    }

    /// Bytes of one line, no line end among them.
    fn take(&mut self, mut run: &[u8]) {
        while !run.is_empty() {
            match self.state {
                State::Start => {
                    self.state = if run.first() == Some(&b':') {
                        State::Skip
                    } else {
                        self.name_len = 0;
                        State::Name
                    };
                }
                State::Name => {
                    let end = memchr::memchr(b':', run);
                    let (name, after) = run.split_at(end.unwrap_or(run.len()));
                    self.add_name(name);
                    run = after;
                    if let Some(after) = run.strip_prefix(b":") {
                        run = after;
                        self.start_value();
                        self.state = match self.field {
                            Field::Other => State::Skip,
                            _ => State::Colon,
                        };
                    }
                }
                State::Colon => {
                    if let Some(after) = run.strip_prefix(b" ") {
                        run = after;
                    }
                    self.state = State::Value;
                }
                State::Value => {
                    self.add_value(run);
                    run = &[];
                }
                State::Skip => run = &[],
            }
        }
    }

    fn add_name(&mut self, name: &[u8]) {
        for &b in name {
            match self.name.get_mut(self.name_len) {
                Some(slot) => *slot = b,
                None => {
                    // Longer than any field callfix reads.
                    self.name_len = usize::MAX;
                    return;
                }
            }
            self.name_len += 1;
        }
    }

    fn field_name(&self) -> Field {
        match self.name.get(..self.name_len) {
            Some(b"data") => Field::Data,
            Some(b"event") => Field::Event,
            Some(b"id") => Field::Id,
            Some(b"retry") => Field::Retry,
            _ => Field::Other,
        }
    }

    /// A field's value begins (the name is complete).
    fn start_value(&mut self) {
        self.field = self.field_name();
        match self.field {
            Field::Data => self.start_data_line(),
            Field::Event => {
                self.kind.clear();
                self.kind_over = false;
            }
            Field::Id => {
                self.id.clear();
                self.id_over = false;
            }
            Field::Retry => self.retry_value = Some(0),
            Field::Other => {}
        }
    }

    fn start_data_line(&mut self) {
        if self.data_lines > 0 {
            self.add_data(b"\n");
        }
        self.data_lines += 1;
    }

    fn add_value(&mut self, bytes: &[u8]) {
        match self.field {
            Field::Data => self.add_data(bytes),
            Field::Event => add_capped(&mut self.kind, &mut self.kind_over, bytes),
            Field::Id => add_capped(&mut self.id, &mut self.id_over, bytes),
            Field::Retry => {
                for &b in bytes {
                    self.retry_value = self.retry_value.and_then(|v| {
                        let digit = b.checked_sub(b'0').filter(|d| *d <= 9)?;
                        v.checked_mul(10)?.checked_add(u64::from(digit))
                    });
                }
            }
            Field::Other => {}
        }
    }

    fn add_data(&mut self, bytes: &[u8]) {
        self.data_len = self.data_len.saturating_add(bytes.len());
        if self.data_len <= self.max {
            self.data.extend_from_slice(bytes);
        } else {
            let room = self.prefix.saturating_sub(self.data.len());
            self.data
                .extend_from_slice(bytes.get(..room.min(bytes.len())).unwrap_or_default());
            self.data.truncate(self.prefix);
        }
    }

    /// A line ended: a field is complete, or a blank line dispatches the event.
    fn end_line(&mut self, each: &mut impl FnMut(Event<'_>)) {
        match self.state {
            State::Start => self.dispatch(each),
            // A line of a name alone: the field with an empty value.
            State::Name => {
                self.start_value();
                self.end_field();
            }
            State::Colon | State::Value => self.end_field(),
            State::Skip => {}
        }
        self.state = State::Start;
    }

    fn end_field(&mut self) {
        match self.field {
            Field::Id if !self.id_over && !self.id.contains(&0) => {
                self.last_id = Some(self.id.clone());
            }
            Field::Retry => {
                if let Some(v) = self.retry_value.take() {
                    self.retry = Some(v);
                }
            }
            _ => {}
        }
        self.field = Field::Other;
    }

    fn dispatch(&mut self, each: &mut impl FnMut(Event<'_>)) {
        if self.data_lines > 0 && self.data_len > 0 {
            let data = if self.data_len <= self.max {
                Data::Whole(&self.data)
            } else {
                Data::Oversized {
                    prefix: &self.data,
                    len: self.data_len,
                }
            };
            let kind: &[u8] = if self.kind.is_empty() || self.kind_over {
                b"message"
            } else {
                &self.kind
            };
            each(Event { kind, data });
        }
        self.clear_event();
    }

    fn clear_event(&mut self) {
        if self.data.capacity() > self.prefix.max(64 * 1024) {
            self.data = Vec::new(); // a large event's buffer is not kept
        } else {
            self.data.clear();
        }
        self.data_len = 0;
        self.data_lines = 0;
        self.kind.clear();
        self.kind_over = false;
        self.field = Field::Other;
    }
}

fn add_capped(to: &mut Vec<u8>, over: &mut bool, bytes: &[u8]) {
    if *over || to.len().saturating_add(bytes.len()) > MAX_FIELD_BYTES {
        *over = true;
        to.clear();
    } else {
        to.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]], max: usize) -> Vec<(String, String)> {
        let mut p = Parser::new(max, 4);
        let mut out = Vec::new();
        for chunk in chunks {
            p.feed(chunk, |e| {
                let data = match e.data {
                    Data::Whole(d) => String::from_utf8_lossy(d).into_owned(),
                    Data::Oversized { prefix, len } => {
                        format!("{}..({len})", String::from_utf8_lossy(prefix))
                    }
                };
                out.push((String::from_utf8_lossy(e.kind).into_owned(), data));
            });
        }
        p.finish();
        out
    }

    fn one(text: &str) -> Vec<(String, String)> {
        events(&[text.as_bytes()], 1 << 20)
    }

    fn ev(kind: &str, data: &str) -> (String, String) {
        (kind.to_owned(), data.to_owned())
    }

    #[test]
    fn data_lines_are_joined_with_a_newline() {
        assert_eq!(
            one("data: {\"a\":\ndata:1}\n\n"),
            [ev("message", "{\"a\":\n1}")]
        );
    }

    #[test]
    fn every_line_ending_ends_a_line_and_a_split_crlf_is_one() {
        let want = [ev("message", "x"), ev("message", "y")];
        assert_eq!(one("data: x\r\n\r\ndata: y\r\rjunk"), want);
        assert_eq!(
            events(&[b"data: x\r", b"\n\r", b"\ndata: y\n", b"\n"], 99),
            want
        );
        // Byte by byte.
        let text = b"event: e\r\ndata: x\r\n\r\n";
        let chunks: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(events(&chunks, 99), [ev("e", "x")]);
    }

    #[test]
    fn comments_unknown_fields_and_empty_data_dispatch_nothing() {
        assert_eq!(one(": ping\n\nfoo: bar\n\nid: 7\n\ndata:\n\n"), []);
        assert_eq!(one("data\n\n"), []);
    }

    #[test]
    fn only_one_space_after_the_colon_is_dropped() {
        assert_eq!(one("data:  x\n\n"), [ev("message", " x")]);
        assert_eq!(one("data:x\n\n"), [ev("message", "x")]);
    }

    #[test]
    fn an_event_the_stream_does_not_end_is_discarded() {
        assert_eq!(one("data: {\"id\":1}\n"), []);
        assert_eq!(one("data: a\n\ndata: b"), [ev("message", "a")]);
    }

    #[test]
    fn the_last_id_and_retry_are_kept_and_bad_ones_ignored() {
        let mut p = Parser::new(99, 9);
        p.feed(
            b"id: 4\nretry: 250\ndata: x\n\nid: a\0b\nretry: 1x\n\n",
            |_| {},
        );
        assert_eq!(p.last_id(), Some(&b"4"[..]));
        assert_eq!(p.retry(), Some(250));
        let long = format!("id: {}\n\n", "i".repeat(MAX_FIELD_BYTES + 1));
        p.feed(long.as_bytes(), |_| {});
        assert_eq!(p.last_id(), Some(&b"4"[..]));
    }

    #[test]
    fn a_leading_bom_is_skipped() {
        assert_eq!(one("\u{feff}data: x\n\n"), [ev("message", "x")]);
    }

    #[test]
    fn data_over_the_limit_keeps_its_prefix_and_length_and_the_next_event_is_whole() {
        let got = events(&[b"data: 0123456789\ndata: ab\n\n", b"data: ok\n\n"], 8);
        assert_eq!(got, [ev("message", "0123..(13)"), ev("message", "ok")]);
    }

    #[test]
    fn a_huge_event_keeps_a_bounded_buffer() {
        let mut p = Parser::new(1000, 10);
        let chunk = vec![b'x'; 64 * 1024];
        p.feed(b"data: ", |_| {});
        for _ in 0..64 {
            p.feed(&chunk, |_| {});
        }
        assert!(p.data.capacity() <= 64 * 1024);
        let mut len = 0;
        p.feed(b"\n\n", |e| {
            if let Data::Oversized { len: l, .. } = e.data {
                len = l;
            }
        });
        assert_eq!(len, 64 * 64 * 1024);
    }
}
