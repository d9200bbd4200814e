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
//!   or index it must be; a fragment for a call never started) changes nothing
//!   and is handed back as a record, to be judged (and rejected) on its own.
//! - Fragments are appended in place and calls are found by index in a hash
//!   map: time and memory are linear in the stream's size.
//! - Every feed takes a byte limit (`--max-record-bytes`) on the bytes a stream
//!   keeps. An argument fragment that would take it past the limit drops its
//!   call's text instead (that call is listed as too large, the others stay);
//!   anything else that would (text, new calls) drops the whole stream at once
//!   (one [`TooLarge`] comes out in its place), and the rest of its events are
//!   read and discarded in constant memory. So no call's arguments, and no
//!   stream, keep more than the limit.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io;

use serde::Serialize;
use serde_json::{Map, Value, json};

/// What became of one record.
#[derive(Debug, PartialEq)]
pub enum Fed {
    /// Not a stream event, or an event of the wrong shape: the record itself.
    Record(Value),
    /// An event, kept: nothing to judge yet.
    Kept,
    /// A stream ended (or grew past the limit); judge this instead.
    Done(Assembled),
}

/// A reassembled response.
#[derive(Debug, PartialEq)]
pub struct Assembled {
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
}

/// Why a streamed call is not whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfinished {
    /// The stream ended before the call did.
    CutOff,
    /// Its argument text grew past the limit, and was dropped.
    TooLarge,
}

/// A stream whose kept text grew past the limit: dropped, not judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// The streams open while reading one input.
#[derive(Debug, Default)]
pub struct Streams {
    open: Option<Open>,
}

#[derive(Debug)]
struct Open {
    first: (u64, u64, u64),
    of: EventKind,
    /// A chat stream's `id` (chunks of one stream share it).
    id: Value,
    kind: Kind,
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
    pub fn feed(
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
            None => Fed::Record(Value::Object(map)),
            Some(step) => self.settle(step),
        };
        (ended, fed)
    }

    /// The input ended: a stream still open comes out as far as it got.
    pub fn finish(&mut self) -> Option<Assembled> {
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
                let first = open.first;
                if complete {
                    self.open = None;
                }
                Fed::Done(Assembled {
                    record: Err(TooLarge),
                    first,
                    incomplete: Vec::new(),
                    spelled: String::new(),
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

    fn end(self) -> Option<Assembled> {
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
pub fn is_event(record: &Value) -> bool {
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
        if map.get("object").and_then(Value::as_str) == Some("chat.completion.chunk") {
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
            .get("choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|c| c.get("finish_reason").is_some_and(|f| !f.is_null())),
        EventKind::Responses => type_of(map) == "response.completed",
        EventKind::Anthropic => type_of(map) == "message_stop",
        EventKind::None => false,
    }
}

fn type_of(map: &Map<String, Value>) -> &str {
    map.get("type").and_then(Value::as_str).unwrap_or("")
}

fn chunk_id(map: &Map<String, Value>) -> Value {
    map.get("id").cloned().unwrap_or(Value::Null)
}

// ------------------------------------------------------------ shapes

/// A field that may be absent (or `null`): `Some(None)`; present with the
/// shape asked for: `Some(Some(_))`; present with another: `None`.
fn object(field: Option<&Value>) -> Option<Option<&Map<String, Value>>> {
    match field {
        None | Some(Value::Null) => Some(None),
        Some(Value::Object(map)) => Some(Some(map)),
        Some(_) => None,
    }
}

/// An array field; absent or `null` is empty.
fn array(field: Option<&Value>) -> Option<&[Value]> {
    match field {
        None | Some(Value::Null) => Some(&[]),
        Some(Value::Array(items)) => Some(items),
        Some(_) => None,
    }
}

/// A string field (see [`object`]).
fn string(field: Option<&Value>) -> Option<Option<&str>> {
    match field {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s)),
        Some(_) => None,
    }
}

/// An `index` field: a non-negative integer (see [`object`]).
fn index(field: Option<&Value>) -> Option<Option<u64>> {
    match field {
        None | Some(Value::Null) => Some(None),
        Some(v) => v.as_u64().map(Some),
    }
}

/// The bytes `value` takes as JSON text. Linear in its size; values come from
/// the parser, whose depth limit bounds the recursion.
fn text_len<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0 = self.0.saturating_add(bytes.len());
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Counting cannot fail, and a `Value` always serialises.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// A call's `index` (`output_index`) as a map key. In tests it counts its
/// comparisons: finding a call costs about one, never a scan of the calls so
/// far.
#[derive(Debug, Clone, Copy, Eq)]
struct Key(u64);

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        #[cfg(test)]
        tests::compared();
        self.0 == other.0
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// What a kept slot costs beyond its text (its place in the response).
const SLOT: usize = 64;

/// Argument text that arrives in fragments, capped: a fragment that would take
/// the stream's kept bytes past the limit drops the text instead (and the rest
/// of its fragments with it), so that one call too large never takes the
/// stream's other calls with it.
#[derive(Debug, Default)]
struct Fragments {
    text: String,
    too_large: bool,
}

impl Fragments {
    /// Appends `fragment` in place, or drops the text once the stream's kept
    /// bytes (`size`, which it follows) would grow past `limit`.
    fn push(&mut self, fragment: &str, limit: usize, size: &mut usize) {
        push_capped(&mut self.text, &mut self.too_large, fragment, limit, size);
    }
}

/// [`Fragments::push`] on a text kept elsewhere.
fn push_capped(
    text: &mut String,
    too_large: &mut bool,
    fragment: &str,
    limit: usize,
    size: &mut usize,
) {
    if *too_large {
        return;
    }
    if size.saturating_add(fragment.len()) > limit {
        *size = size.saturating_sub(text.len());
        *text = String::new();
        *too_large = true;
        return;
    }
    text.push_str(fragment);
    *size = size.saturating_add(fragment.len());
}

// ------------------------------------------------------------ OpenAI chat

#[derive(Debug)]
struct Chat {
    id: Value,
    model: Value,
    role: Value,
    content: Option<String>,
    calls: Vec<ChatCall>,
    /// Each call's place in `calls`, by its `index`.
    at: HashMap<Key, usize>,
    finish: Value,
    /// Bytes kept.
    size: usize,
}

#[derive(Debug, Default)]
struct ChatCall {
    id: Value,
    name: String,
    args: Fragments,
}

impl Chat {
    fn new(id: Value) -> Self {
        Chat {
            id,
            model: Value::Null,
            role: json!("assistant"),
            content: None,
            calls: Vec::new(),
            at: HashMap::new(),
            finish: Value::Null,
            size: 0,
        }
    }

    /// Whether `chunk` has the shape of a chunk.
    fn fits(chunk: &Map<String, Value>) -> Option<()> {
        for choice in array(chunk.get("choices"))? {
            let choice = choice.as_object()?;
            let Some(delta) = object(choice.get("delta"))? else {
                continue;
            };
            for call in array(delta.get("tool_calls"))? {
                let call = call.as_object()?;
                index(call.get("index"))?;
                if let Some(function) = object(call.get("function"))? {
                    string(function.get("name"))?;
                    string(function.get("arguments"))?;
                }
            }
        }
        Some(())
    }

    /// Takes one chunk; true once a choice has finished. `None` (and nothing
    /// taken) when it has the wrong shape.
    fn feed(&mut self, chunk: &Map<String, Value>, limit: usize) -> Option<bool> {
        Self::fits(chunk)?;
        if let Some(m) = chunk.get("model") {
            self.model = m.clone();
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            if let Some(delta) = choice.get("delta") {
                self.delta(delta, limit);
            }
            if let Some(finish) = choice.get("finish_reason").filter(|f| !f.is_null()) {
                self.finish = finish.clone();
            }
        }
        Some(!self.finish.is_null())
    }

    fn delta(&mut self, delta: &Value, limit: usize) {
        if let Some(role) = delta.get("role").filter(|r| r.is_string()) {
            self.role = role.clone();
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.content.get_or_insert_with(String::new).push_str(text);
            self.size = self.size.saturating_add(text.len());
        }
        let calls = delta.get("tool_calls").and_then(Value::as_array);
        for call in calls.into_iter().flatten() {
            let index = call
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(self.calls.len() as u64);
            let at = *self.at.entry(Key(index)).or_insert_with(|| {
                self.calls.push(ChatCall::default());
                self.size = self.size.saturating_add(SLOT);
                self.calls.len() - 1
            });
            let Some(slot) = self.calls.get_mut(at) else {
                continue;
            };
            if let Some(id) = call.get("id").filter(|v| !v.is_null()) {
                self.size =
                    (self.size.saturating_sub(text_len(&slot.id))).saturating_add(text_len(id));
                slot.id = id.clone();
            }
            let function = call.get("function");
            if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str) {
                slot.name.push_str(name);
                self.size = self.size.saturating_add(name.len());
            }
            if let Some(args) = function
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
            {
                slot.args.push(args, limit, &mut self.size);
            }
        }
    }

    fn end(self) -> (Value, Vec<(usize, Unfinished)>, String) {
        // Cut off: the last call may have had more to come (earlier ones were
        // followed by another, so they were whole).
        let cut = self.finish.is_null();
        let last = self.calls.len().saturating_sub(1);
        let mut incomplete = Vec::new();
        let calls: Vec<Value> = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(i, call)| {
                if call.args.too_large {
                    incomplete.push((i, Unfinished::TooLarge));
                } else if cut && i == last {
                    incomplete.push((i, Unfinished::CutOff));
                }
                json!({"id": call.id, "type": "function",
                    "function": {"name": call.name, "arguments": call.args.text}})
            })
            .collect();
        let mut message = Map::new();
        message.insert("role".into(), self.role);
        message.insert("content".into(), json!(self.content));
        if !calls.is_empty() {
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        let record = json!({"id": self.id, "object": "chat.completion", "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish}]});
        (record, incomplete, String::new())
    }
}

// ------------------------------------------------------------ OpenAI Responses

#[derive(Debug, Default)]
struct Responses {
    /// The response from `response.created`, and finally `response.completed`.
    response: Option<Map<String, Value>>,
    /// Output items, in the order they were added.
    items: Vec<Item>,
    /// Each item's place in `items`, by its `output_index`.
    at: HashMap<Key, usize>,
    completed: bool,
    /// Bytes kept.
    size: usize,
}

#[derive(Debug)]
struct Item {
    index: u64,
    /// Always an object.
    item: Map<String, Value>,
    done: bool,
    /// Bytes it takes.
    size: usize,
    /// Its arguments grew past the limit.
    too_large: bool,
}

impl Responses {
    /// Takes one event; true once the response completed. `None` (and nothing
    /// taken) when it has the wrong shape.
    fn feed(&mut self, event: &Map<String, Value>, limit: usize) -> Option<bool> {
        let kind = type_of(event);
        let output_index = || index(event.get("output_index")).flatten();
        match kind {
            "response.created" | "response.in_progress" | "response.completed" => {
                let response = object(event.get("response"))?;
                self.response = response.cloned();
                self.completed |= kind == "response.completed";
            }
            "response.output_item.added" | "response.output_item.done" => {
                let i = output_index()?;
                let item = event.get("item").and_then(Value::as_object)?;
                self.put(i, item, kind == "response.output_item.done");
            }
            "response.function_call_arguments.delta" => {
                let delta = event.get("delta").and_then(Value::as_str)?;
                let at = *self.at.get(&Key(output_index()?))?;
                let slot = self.items.get_mut(at)?;
                let mut size = self.size;
                append_arguments(slot, delta, limit, &mut size);
                slot.size = slot.size.saturating_add(size).saturating_sub(self.size);
                self.size = size;
            }
            "response.function_call_arguments.done" => {
                let at = *self.at.get(&Key(output_index()?))?;
                let slot = self.items.get_mut(at)?;
                if let Some(args) = event.get("arguments") {
                    // The whole arguments, in one record the framer capped.
                    let old = slot.item.insert("arguments".into(), args.clone());
                    let size = slot
                        .size
                        .saturating_sub(old.as_ref().map_or(0, text_len))
                        .saturating_add(text_len(args));
                    self.size = self.size.saturating_sub(slot.size).saturating_add(size);
                    slot.size = size;
                    slot.too_large = false;
                }
            }
            _ => {}
        }
        Some(self.completed)
    }

    /// Adds item `index`, or replaces it.
    fn put(&mut self, index: u64, item: &Map<String, Value>, done: bool) {
        let size = SLOT.saturating_add(text_len(item));
        let item = Item {
            index,
            item: item.clone(),
            done,
            size,
            too_large: false,
        };
        match self
            .at
            .get(&Key(index))
            .and_then(|&at| self.items.get_mut(at))
        {
            Some(slot) => {
                self.size = self.size.saturating_sub(slot.size).saturating_add(size);
                *slot = item;
            }
            None => {
                self.at.insert(Key(index), self.items.len());
                self.items.push(item);
                self.size = self.size.saturating_add(size);
            }
        }
    }

    fn end(self) -> (Value, Vec<(usize, Unfinished)>, String) {
        if self.completed
            && let Some(response) = self.response
        {
            return (Value::Object(response), Vec::new(), String::new());
        }
        let mut items = self.items;
        items.sort_by_key(|x| x.index);
        let mut incomplete = Vec::new();
        let mut calls = 0;
        for item in &items {
            if item.item.get("type").and_then(Value::as_str) == Some("function_call") {
                if item.too_large {
                    incomplete.push((calls, Unfinished::TooLarge));
                } else if !item.done {
                    incomplete.push((calls, Unfinished::CutOff));
                }
                calls += 1;
            }
        }
        let mut response = self.response.unwrap_or_else(|| {
            let mut m = Map::new();
            m.insert("object".into(), json!("response"));
            m
        });
        let output = items.into_iter().map(|x| Value::Object(x.item)).collect();
        response.insert("output".into(), Value::Array(output));
        (Value::Object(response), incomplete, String::new())
    }
}

/// Appends `delta` to `slot`'s `arguments` in place (text that is not a string
/// is replaced), capped by [`push_capped`]; `size` is the stream's.
fn append_arguments(slot: &mut Item, delta: &str, limit: usize, size: &mut usize) {
    match slot.item.get_mut("arguments") {
        Some(Value::String(text)) => {
            push_capped(text, &mut slot.too_large, delta, limit, size);
        }
        _ => {
            let mut text = String::new();
            push_capped(&mut text, &mut slot.too_large, delta, limit, size);
            slot.item.insert("arguments".into(), Value::String(text));
        }
    }
}

// ------------------------------------------------------------ Anthropic

#[derive(Debug, Default)]
struct Anthropic {
    message: Option<Map<String, Value>>,
    /// Content blocks, in the order they started.
    blocks: Vec<Block>,
    /// Each block's place in `blocks`, by its `index` (the first of that index).
    at: HashMap<Key, usize>,
    stopped: bool,
    /// Bytes kept.
    size: usize,
}

#[derive(Debug)]
struct Block {
    /// Always an object.
    block: Map<String, Value>,
    /// Its `partial_json`, joined.
    json: Fragments,
    stopped: bool,
}

impl Anthropic {
    /// The block `event` is about, if it names one that started.
    fn slot(&self, event: &Map<String, Value>) -> Option<usize> {
        let i = index(event.get("index")).flatten()?;
        self.at.get(&Key(i)).copied()
    }

    /// Takes one event; true once the message stopped. `None` (and nothing
    /// taken) when it has the wrong shape.
    fn feed(&mut self, event: &Map<String, Value>, limit: usize) -> Option<bool> {
        match type_of(event) {
            "message_start" => {
                let message = event.get("message").and_then(Value::as_object)?;
                self.message = Some(message.clone());
            }
            "content_block_start" => {
                let i = index(event.get("index")).flatten()?;
                let block = event.get("content_block").and_then(Value::as_object)?;
                let size = SLOT.saturating_add(text_len(block));
                self.size = self.size.saturating_add(size);
                self.at.entry(Key(i)).or_insert(self.blocks.len());
                self.blocks.push(Block {
                    block: block.clone(),
                    json: Fragments::default(),
                    stopped: false,
                });
            }
            "content_block_delta" => {
                let at = self.slot(event)?;
                let delta = event.get("delta").and_then(Value::as_object)?;
                let slot = self.blocks.get_mut(at)?;
                match delta.get("type").and_then(Value::as_str) {
                    Some("input_json_delta") => {
                        let json = delta.get("partial_json").and_then(Value::as_str)?;
                        slot.json.push(json, limit, &mut self.size);
                    }
                    Some("text_delta") => {
                        let text = delta.get("text").and_then(Value::as_str)?;
                        match slot.block.get_mut("text") {
                            Some(Value::String(kept)) => kept.push_str(text),
                            _ => {
                                slot.block.insert("text".into(), json!(text));
                            }
                        }
                        self.size = self.size.saturating_add(text.len());
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let at = self.slot(event)?;
                self.blocks.get_mut(at)?.stopped = true;
            }
            "message_delta" => {
                let delta = object(event.get("delta"))?;
                if let (Some(m), Some(delta)) = (self.message.as_mut(), delta) {
                    for (k, v) in delta {
                        let size = k.len().saturating_add(text_len(v));
                        if let Some(old) = m.insert(k.clone(), v.clone()) {
                            self.size = self.size.saturating_sub(k.len() + text_len(&old));
                        }
                        self.size = self.size.saturating_add(size);
                    }
                }
            }
            "message_stop" => self.stopped = true,
            _ => {}
        }
        Some(self.stopped)
    }

    fn end(self) -> (Value, Vec<(usize, Unfinished)>, String) {
        let mut incomplete = Vec::new();
        let mut spelled = String::new();
        let mut calls = 0;
        let mut content = Vec::with_capacity(self.blocks.len());
        for Block {
            mut block,
            json,
            stopped,
        } in self.blocks
        {
            if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                if json.too_large {
                    incomplete.push((calls, Unfinished::TooLarge));
                } else if !stopped {
                    incomplete.push((calls, Unfinished::CutOff));
                }
                calls += 1;
                // The input is the fragments joined; text that does not parse
                // stays text, for salvage to judge (never completed here). Its
                // numbers are written back as spelled here.
                if !json.text.is_empty() {
                    spelled.push_str(&json.text);
                    spelled.push('\n');
                    let input =
                        serde_json::from_str(&json.text).unwrap_or(Value::String(json.text));
                    block.insert("input".into(), input);
                }
            }
            content.push(Value::Object(block));
        }
        let mut message = self.message.unwrap_or_else(|| {
            let mut m = Map::new();
            m.insert("type".into(), json!("message"));
            m.insert("role".into(), json!("assistant"));
            m
        });
        message.insert("content".into(), Value::Array(content));
        (Value::Object(message), incomplete, spelled)
    }
}

#[cfg(test)]
mod tests;
