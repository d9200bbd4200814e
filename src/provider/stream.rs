//! Recorded streaming output, reassembled into the response it streams.
//!
//! A provider's stream is many records (SSE `data:` lines or JSON Lines), none of
//! which is a whole call. [`Streams`] takes every record: one that is no stream
//! event is handed back as it is; an event is kept until its stream completes,
//! and then the whole response comes out, as the provider would have sent it
//! without streaming:
//!
//! - OpenAI Chat Completions: `chat.completion.chunk`s (`delta.tool_calls[]` by
//!   `index`, argument fragments) → a `chat.completion`, complete at a
//!   `finish_reason`;
//! - OpenAI Responses: `response.*` events → the `response.completed` response
//!   (or, cut off, the items so far);
//! - Anthropic Messages: `message_start`, `content_block_*`, `message_delta`,
//!   `message_stop` (`input_json_delta` fragments) → the message, complete at
//!   `message_stop`.
//!
//! Gemini streams whole `functionCall` parts, so each of its chunks is already a
//! response and needs no reassembly.
//!
//! A stream that ends (or is followed by another stream) before it completes
//! comes out as far as it got, with the calls that were not complete listed:
//! they are rejected as cut off, never completed.
//!
//! Untrusted all through:
//!
//! - An event of the wrong shape (a field that is not the object, array, string
//!   or index it must be; a fragment for a call never started or already
//!   finished; a second start of one index) changes nothing and is handed back
//!   as a record, to be judged (and rejected) on its own. But it may have held a
//!   part of a call: the call it names, or every call open in its stream when
//!   it names none, is then listed as [`Unfinished::Lost`], rejected, never
//!   judged on what is left. So is every open call when a record that cannot
//!   be read at all comes ([`Streams::unreadable`]). Calls finished before
//!   are whole; a Responses item whose whole arguments come later is whole
//!   again.
//! - Chat chunks are keyed by choice and, within it, by call `index`: `n`
//!   choices give one choice each, as unstreamed.
//! - A `response.completed` output is held against the streamed items: each
//!   streamed call gives one result (see `responses::reconcile`).
//! - Fragments are appended in place and calls are found by index in a hash
//!   map: time and memory are linear in the stream's size.
//! - Every feed takes a byte limit (`--max-record-bytes`) on the bytes a stream
//!   keeps. An argument fragment that would take it past the limit drops its
//!   call's text instead (that call is listed as too large, the others stay);
//!   anything else that would (text, new calls) drops the whole stream at once
//!   (one [`TooLarge`] comes out in its place), and the rest of its events are
//!   read and discarded in constant memory. So no call's arguments, and no
//!   stream, keep more than the limit.
//!
//! Here is what every stream shares: the records fed in, the open stream, and
//! the limit. Each provider's reassembly is its own module (`chat`, `responses`,
//! `anthropic`), on `kept` (calls by index, capped fragments, the bytes kept)
//! and `shape` (the shapes of untrusted fields).

mod anthropic;
mod chat;
mod kept;
mod responses;
mod shape;

use crate::provider::fields::Fields;
use serde_json::{Map, Value};

use anthropic::Anthropic;
use chat::Chat;
use responses::Responses;

/// What became of one record.
#[derive(Debug, PartialEq)]
pub(crate) enum Fed {
    /// Not a stream event, or an event of the wrong shape: the record itself.
    Record(Value),
    /// An event, kept: nothing to judge yet.
    Kept,
    /// A stream ended (or grew past the limit); judge this instead.
    Done(Assembled),
}

/// A reassembled response.
#[derive(Debug, PartialEq)]
pub(crate) struct Assembled {
    /// The response, as a non-streaming request would have returned it; or, for
    /// a stream that grew past the limit, why there is none.
    pub record: Result<Value, TooLarge>,
    /// The record number, line and byte offset of the stream's first event.
    pub first: (u64, u64, u64),
    /// The calls (by their order in `record`, ascending) that the stream did not
    /// give whole, and why.
    pub incomplete: Vec<(usize, Unfinished)>,
    /// The argument text parsed here (Anthropic `partial_json`), one call a
    /// line: its number spellings are the ones to write back.
    pub spelled: String,
    /// Whether the message came to its end: the stream completed, and not
    /// because it ran out of tokens (`finish_reason: "length"`,
    /// `stop_reason: "max_tokens"`, an `incomplete` response). A call read
    /// from the text of a message that did not may have had more to come.
    pub whole: bool,
    /// An event that could not be used may have held a part of the message's
    /// text: a call read from that text may miss a part.
    pub text_lost: bool,
    /// An event of it held a lone surrogate escape, masked to read it
    /// ([`Streams::masked`]): its calls are judged as a masked record's.
    pub masked: bool,
}

/// Why a streamed call is not whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unfinished {
    /// The stream ended before the call did.
    CutOff,
    /// Its argument text grew past the limit, and was dropped.
    TooLarge,
    /// An event that may have held a part of it could not be used.
    Lost,
    /// `response.completed` gives it with other arguments than its events.
    Contradicted,
}

/// A stream whose kept text grew past the limit: dropped, not judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge;

/// The streams open while reading one input.
#[derive(Debug, Default)]
pub(crate) struct Streams {
    open: Option<Open>,
}

#[derive(Debug)]
struct Open {
    first: (u64, u64, u64),
    of: EventKind,
    /// A chat stream's `id` (chunks of one stream share it).
    id: Value,
    kind: Kind,
    /// An event taken held a lone surrogate escape, masked to read it.
    masked: bool,
}

#[derive(Debug)]
enum Kind {
    Chat(Box<Chat>),
    Responses(Box<Responses>),
    Anthropic(Box<Anthropic>),
    /// Grew past the limit: its events are read until it ends, and dropped.
    Dropped,
}

/// What one event did to its stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Kept,
    Complete,
    /// Past the limit (and whether this event also ended the stream).
    TooLarge(bool),
}

impl Streams {
    /// Takes `record`, the record numbered `index` at `line` and byte `offset`
    /// (`at`), with `limit` the most bytes one call's arguments, or one
    /// stream's kept text, may take. The first part is a stream that this
    /// record's stream ended before it completed.
    pub(crate) fn feed(
        &mut self,
        record: Value,
        at: (u64, u64, u64),
        limit: usize,
    ) -> (Option<Assembled>, Fed) {
        let Value::Object(map) = record else {
            return (None, Fed::Record(record));
        };
        let of = EventKind::of(&map);
        if of == EventKind::None {
            return (None, Fed::Record(Value::Object(map)));
        }
        // Another kind of stream, or a new one of the same kind, ends the open
        // one; an event of the wrong shape changes nothing.
        let continues = self.open.as_ref().is_some_and(|o| o.continues(of, &map));
        let (step, ended) = if continues {
            (self.open.as_mut().and_then(|o| o.feed(&map, limit)), None)
        } else {
            let mut fresh = Open::new(of, &map, at);
            match fresh.feed(&map, limit) {
                Some(step) => (Some(step), self.open.replace(fresh).and_then(Open::end)),
                None => (None, None),
            }
        };
        let fed = match step {
            None => {
                self.lose(of, &map);
                Fed::Record(Value::Object(map))
            }
            Some(step) => self.settle(step),
        };
        (ended, fed)
    }

    /// A record that could not be read at all (not JSON, cut, past the
    /// limit) came: it may have been an event of the open stream, so every call
    /// of it not finished may miss a part.
    pub(crate) fn unreadable(&mut self) {
        if let Some(open) = self.open.as_mut() {
            open.lose(None);
        }
    }

    /// An event `map` of kind `of` could not be used: if it is of the open
    /// stream's kind (and, for chat chunks, its `id`), the calls it may have
    /// held a part of are lost. A start of another stream of that kind is
    /// counted too: its events would have been taken as the open one's.
    fn lose(&mut self, of: EventKind, map: &Map<String, Value>) {
        if let Some(open) = self.open.as_mut()
            && open.of == of
            && (of != EventKind::Chat || open.id == chunk_id(map))
        {
            open.lose(Some(map));
        }
    }

    /// The event just fed (kept into the open stream) held a lone surrogate
    /// escape, masked to read it: the stream's calls are judged as a masked
    /// record's (a call holding one is rejected saying where).
    pub(crate) fn masked(&mut self) {
        if let Some(open) = self.open.as_mut() {
            open.masked = true;
        }
    }

    /// The input ended: a stream still open comes out as far as it got.
    pub(crate) fn finish(&mut self) -> Option<Assembled> {
        self.open.take().and_then(Open::end)
    }

    /// What the open stream gives after `step`.
    fn settle(&mut self, step: Step) -> Fed {
        match step {
            Step::Kept => Fed::Kept,
            Step::Complete => self
                .open
                .take()
                .and_then(Open::end)
                .map_or(Fed::Kept, Fed::Done),
            Step::TooLarge(complete) => {
                let Some(open) = self.open.as_mut() else {
                    return Fed::Kept;
                };
                // What was kept is freed now; the rest is read and dropped.
                open.kind = Kind::Dropped;
                let (first, masked) = (open.first, open.masked);
                if complete {
                    self.open = None;
                }
                Fed::Done(Assembled {
                    record: Err(TooLarge),
                    first,
                    incomplete: Vec::new(),
                    spelled: String::new(),
                    whole: false,
                    text_lost: false,
                    masked,
                })
            }
        }
    }
}

impl Open {
    fn new(of: EventKind, map: &Map<String, Value>, first: (u64, u64, u64)) -> Self {
        let id = match of {
            EventKind::Chat => chunk_id(map),
            _ => Value::Null,
        };
        let kind = match of {
            EventKind::Chat => Kind::Chat(Box::new(Chat::new(id.clone()))),
            EventKind::Responses => Kind::Responses(Box::default()),
            _ => Kind::Anthropic(Box::default()),
        };
        Open {
            first,
            of,
            id,
            kind,
            masked: false,
        }
    }

    /// Whether event `map` (of kind `of`) belongs to this stream.
    fn continues(&self, of: EventKind, map: &Map<String, Value>) -> bool {
        self.of == of
            && match of {
                EventKind::Chat => self.id == chunk_id(map),
                EventKind::Responses => type_of(map) != "response.created",
                EventKind::Anthropic => type_of(map) != "message_start",
                EventKind::None => false,
            }
    }

    /// Takes one event of this stream; `None` when it has the wrong shape (and
    /// then nothing changed).
    fn feed(&mut self, map: &Map<String, Value>, limit: usize) -> Option<Step> {
        let (complete, size) = match &mut self.kind {
            Kind::Chat(c) => (c.feed(map, limit)?, c.size),
            Kind::Responses(r) => (r.feed(map, limit)?, r.size),
            Kind::Anthropic(a) => (a.feed(map, limit)?, a.size),
            Kind::Dropped => (completes(self.of, map), 0),
        };
        Some(if size > limit {
            Step::TooLarge(complete)
        } else if complete {
            Step::Complete
        } else {
            Step::Kept
        })
    }

    /// An event that may be this stream's could not be used (see
    /// [`Streams::lose`]).
    fn lose(&mut self, map: Option<&Map<String, Value>>) {
        match &mut self.kind {
            Kind::Chat(c) => c.lose(map),
            Kind::Responses(r) => r.lose(map),
            Kind::Anthropic(a) => a.lose(map),
            Kind::Dropped => {}
        }
    }

    fn end(self) -> Option<Assembled> {
        let (whole, text_lost) = match &self.kind {
            Kind::Chat(c) => (c.whole(), c.text_lost),
            // Its text comes in whole items only.
            Kind::Responses(r) => (r.whole(), false),
            Kind::Anthropic(a) => (a.whole(), a.text_lost),
            Kind::Dropped => (false, false),
        };
        let (record, incomplete, spelled) = match self.kind {
            Kind::Chat(c) => c.end(),
            Kind::Responses(r) => r.end(),
            Kind::Anthropic(a) => a.end(),
            Kind::Dropped => return None,
        };
        Some(Assembled {
            record: Ok(record),
            first: self.first,
            incomplete,
            spelled,
            whole,
            text_lost,
            masked: self.masked,
        })
    }
}

const ANTHROPIC_EVENTS: [&str; 7] = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
];

/// Whether `record` is a stream event, which [`Streams::feed`] keeps (a record
/// that is not is handed back as it is, whatever streams are open).
pub(crate) fn is_event(record: &Value) -> bool {
    record
        .as_object()
        .is_some_and(|map| EventKind::of(map) != EventKind::None)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EventKind {
    None,
    Chat,
    Responses,
    Anthropic,
}

impl EventKind {
    fn of(map: &Map<String, Value>) -> Self {
        let t = type_of(map);
        if map.field("object").and_then(Value::as_str) == Some("chat.completion.chunk")
            || is_unnamed_chunk(map)
        {
            EventKind::Chat
        } else if t.starts_with("response.") {
            EventKind::Responses
        } else if ANTHROPIC_EVENTS.contains(&t) {
            EventKind::Anthropic
        } else {
            EventKind::None
        }
    }
}

/// Whether event `map` ends its stream, whatever else it holds.
fn completes(of: EventKind, map: &Map<String, Value>) -> bool {
    match of {
        EventKind::Chat => map
            .field("choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|c| c.field("finish_reason").is_some_and(|f| !f.is_null())),
        EventKind::Responses => type_of(map) == "response.completed",
        EventKind::Anthropic => type_of(map) == "message_stop",
        EventKind::None => false,
    }
}

/// A chat chunk some servers send without its `object`: no `object`, and
/// choices whose first holds a `delta` (a response's hold a `message`).
fn is_unnamed_chunk(map: &Map<String, Value>) -> bool {
    map.field("object").is_none_or(Value::is_null)
        && map
            .field("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .and_then(|c| c.field("delta"))
            .is_some_and(Value::is_object)
}

fn type_of(map: &Map<String, Value>) -> &str {
    map.field("type").and_then(Value::as_str).unwrap_or("")
}

fn chunk_id(map: &Map<String, Value>) -> Value {
    map.field("id").cloned().unwrap_or(Value::Null)
}

#[cfg(test)]
mod gaps;
#[cfg(test)]
mod tests;
