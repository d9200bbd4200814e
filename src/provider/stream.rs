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

use serde_json::{Map, Value, json};

/// What became of one record.
#[derive(Debug, PartialEq)]
pub enum Fed {
    /// Not a stream event: the record itself.
    Record(Value),
    /// An event, kept: nothing to judge yet.
    Kept,
    /// A stream ended; judge this instead.
    Done(Assembled),
}

/// A reassembled response.
#[derive(Debug, PartialEq)]
pub struct Assembled {
    /// The response, as a non-streaming request would have returned it.
    pub record: Value,
    /// The record number, line and byte offset of the stream's first event.
    pub first: (u64, u64, u64),
    /// The calls (by their order in `record`) that the stream did not finish.
    pub incomplete: Vec<usize>,
}

/// The streams open while reading one input.
#[derive(Debug, Default)]
pub struct Streams {
    open: Option<Open>,
}

#[derive(Debug)]
struct Open {
    first: (u64, u64, u64),
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Chat(Box<Chat>),
    Responses(Responses),
    Anthropic(Anthropic),
}

impl Streams {
    /// Takes `record`, the record numbered `index` at `line` and byte `offset`
    /// (`at`). The first part is a stream that this record's stream ended before
    /// it completed.
    pub fn feed(&mut self, record: Value, at: (u64, u64, u64)) -> (Option<Assembled>, Fed) {
        let Value::Object(map) = record else {
            return (None, Fed::Record(record));
        };
        let event = match Event::of(map) {
            Event::None(map) => return (None, Fed::Record(Value::Object(map))),
            event => event,
        };
        // Another kind of stream, or a new one of the same kind, ends the open one.
        let same = match (&self.open, &event) {
            (
                Some(Open {
                    kind: Kind::Chat(c),
                    ..
                }),
                Event::Chat(m),
            ) => c.id == chunk_id(m),
            (
                Some(Open {
                    kind: Kind::Responses(_),
                    ..
                }),
                Event::Responses(m),
            ) => type_of(m) != "response.created",
            (
                Some(Open {
                    kind: Kind::Anthropic(_),
                    ..
                }),
                Event::Anthropic(m),
            ) => type_of(m) != "message_start",
            _ => false,
        };
        let ended = if same {
            None
        } else {
            self.open.take().map(Open::end)
        };
        let open = self.open.get_or_insert_with(|| Open {
            first: at,
            kind: match &event {
                Event::Chat(m) => Kind::Chat(Box::new(Chat::new(chunk_id(m)))),
                Event::Responses(_) => Kind::Responses(Responses::default()),
                _ => Kind::Anthropic(Anthropic::default()),
            },
        });
        let complete = match (&mut open.kind, event) {
            (Kind::Chat(c), Event::Chat(m)) => c.feed(m),
            (Kind::Responses(r), Event::Responses(m)) => r.feed(m),
            (Kind::Anthropic(a), Event::Anthropic(m)) => a.feed(m),
            _ => false,
        };
        let fed = match self.open.take_if(|_| complete) {
            Some(open) => Fed::Done(open.end()),
            None => Fed::Kept,
        };
        (ended, fed)
    }

    /// The input ended: a stream still open comes out as far as it got.
    pub fn finish(&mut self) -> Option<Assembled> {
        self.open.take().map(Open::end)
    }
}

impl Open {
    fn end(self) -> Assembled {
        let (record, incomplete) = match self.kind {
            Kind::Chat(c) => c.end(),
            Kind::Responses(r) => r.end(),
            Kind::Anthropic(a) => a.end(),
        };
        Assembled {
            record,
            first: self.first,
            incomplete,
        }
    }
}

enum Event {
    None(Map<String, Value>),
    Chat(Map<String, Value>),
    Responses(Map<String, Value>),
    Anthropic(Map<String, Value>),
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

impl Event {
    fn of(map: Map<String, Value>) -> Event {
        match EventKind::of(&map) {
            EventKind::Chat => Event::Chat(map),
            EventKind::Responses => Event::Responses(map),
            EventKind::Anthropic => Event::Anthropic(map),
            EventKind::None => Event::None(map),
        }
    }
}

fn type_of(map: &Map<String, Value>) -> &str {
    map.get("type").and_then(Value::as_str).unwrap_or("")
}

fn chunk_id(map: &Map<String, Value>) -> Value {
    map.get("id").cloned().unwrap_or(Value::Null)
}

// ------------------------------------------------------------ OpenAI chat

#[derive(Debug)]
struct Chat {
    id: Value,
    model: Value,
    role: Value,
    content: Option<String>,
    /// Calls by `index`: id, name, argument text.
    calls: Vec<(u64, Value, String, String)>,
    finish: Value,
}

impl Chat {
    fn new(id: Value) -> Self {
        Chat {
            id,
            model: Value::Null,
            role: json!("assistant"),
            content: None,
            calls: Vec::new(),
            finish: Value::Null,
        }
    }

    /// Takes one chunk; true once a choice has finished.
    fn feed(&mut self, chunk: Map<String, Value>) -> bool {
        if let Some(m) = chunk.get("model") {
            self.model = m.clone();
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            let delta = &choice["delta"];
            if let Some(role) = delta.get("role").filter(|r| r.is_string()) {
                self.role = role.clone();
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.content.get_or_insert_with(String::new).push_str(text);
            }
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let index = call["index"].as_u64().unwrap_or(self.calls.len() as u64);
                let at = match self.calls.iter().position(|c| c.0 == index) {
                    Some(at) => at,
                    None => {
                        self.calls
                            .push((index, Value::Null, String::new(), String::new()));
                        self.calls.len() - 1
                    }
                };
                let slot = &mut self.calls[at];
                if let Some(id) = call.get("id").filter(|v| !v.is_null()) {
                    slot.1 = id.clone();
                }
                let function = &call["function"];
                if let Some(name) = function.get("name").and_then(Value::as_str) {
                    slot.2.push_str(name);
                }
                if let Some(args) = function.get("arguments").and_then(Value::as_str) {
                    slot.3.push_str(args);
                }
            }
            if !choice["finish_reason"].is_null() {
                self.finish = choice["finish_reason"].clone();
            }
        }
        !self.finish.is_null()
    }

    fn end(self) -> (Value, Vec<usize>) {
        // Cut off: the last call may have had more to come (earlier ones were
        // followed by another, so they were whole).
        let incomplete = match (self.finish.is_null(), self.calls.len()) {
            (true, n) if n > 0 => vec![n - 1],
            _ => Vec::new(),
        };
        let calls: Vec<Value> = self
            .calls
            .into_iter()
            .map(|(_, id, name, args)| {
                json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
            })
            .collect();
        let mut message = json!({"role": self.role, "content": self.content});
        if !calls.is_empty() {
            message["tool_calls"] = Value::Array(calls);
        }
        let record = json!({"id": self.id, "object": "chat.completion", "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish}]});
        (record, incomplete)
    }
}

// ------------------------------------------------------------ OpenAI Responses

#[derive(Debug, Default)]
struct Responses {
    /// The response from `response.created`, and finally `response.completed`.
    response: Option<Value>,
    /// Output items by `output_index`, and whether each is done.
    items: Vec<(u64, Value, bool)>,
    completed: bool,
}

impl Responses {
    fn feed(&mut self, event: Map<String, Value>) -> bool {
        let index = event.get("output_index").and_then(Value::as_u64);
        match type_of(&event) {
            "response.created" | "response.in_progress" => {
                self.response = event.get("response").cloned();
            }
            "response.completed" => {
                self.response = event.get("response").cloned();
                self.completed = true;
            }
            "response.output_item.added" | "response.output_item.done" => {
                let done = type_of(&event) == "response.output_item.done";
                if let (Some(i), Some(item)) = (index, event.get("item")) {
                    match self.items.iter_mut().find(|x| x.0 == i) {
                        Some(slot) => *slot = (i, item.clone(), done),
                        None => self.items.push((i, item.clone(), done)),
                    }
                }
            }
            "response.function_call_arguments.delta" => {
                let delta = event.get("delta").and_then(Value::as_str).unwrap_or("");
                if let Some(slot) = self.items.iter_mut().find(|x| Some(x.0) == index) {
                    let args = slot.1["arguments"].as_str().unwrap_or("").to_owned() + delta;
                    slot.1["arguments"] = Value::String(args);
                }
            }
            "response.function_call_arguments.done" => {
                if let (Some(slot), Some(args)) = (
                    self.items.iter_mut().find(|x| Some(x.0) == index),
                    event.get("arguments"),
                ) {
                    slot.1["arguments"] = args.clone();
                }
            }
            _ => {}
        }
        self.completed
    }

    fn end(self) -> (Value, Vec<usize>) {
        if self.completed
            && let Some(response) = self.response
        {
            return (response, Vec::new());
        }
        let mut items = self.items;
        items.sort_by_key(|x| x.0);
        let mut incomplete = Vec::new();
        let mut calls = 0;
        for (_, item, done) in &items {
            if item["type"] == "function_call" {
                if !done {
                    incomplete.push(calls);
                }
                calls += 1;
            }
        }
        let mut response = self
            .response
            .unwrap_or_else(|| json!({"object": "response"}));
        response["output"] = Value::Array(items.into_iter().map(|x| x.1).collect());
        (response, incomplete)
    }
}

// ------------------------------------------------------------ Anthropic

#[derive(Debug, Default)]
struct Anthropic {
    message: Option<Value>,
    /// Content blocks by `index`: the block, its `partial_json`, and whether it
    /// stopped.
    blocks: Vec<(u64, Value, String, bool)>,
    stopped: bool,
}

impl Anthropic {
    fn feed(&mut self, event: Map<String, Value>) -> bool {
        let index = event.get("index").and_then(Value::as_u64);
        match type_of(&event) {
            "message_start" => self.message = event.get("message").cloned(),
            "content_block_start" => {
                if let (Some(i), Some(block)) = (index, event.get("content_block")) {
                    self.blocks.push((i, block.clone(), String::new(), false));
                }
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                if let Some(slot) = self.blocks.iter_mut().find(|x| Some(x.0) == index) {
                    match delta["type"].as_str() {
                        Some("input_json_delta") => {
                            slot.2
                                .push_str(delta["partial_json"].as_str().unwrap_or(""));
                        }
                        Some("text_delta") => {
                            let text = slot.1["text"].as_str().unwrap_or("").to_owned()
                                + delta["text"].as_str().unwrap_or("");
                            slot.1["text"] = Value::String(text);
                        }
                        _ => {}
                    }
                }
            }
            "content_block_stop" => {
                if let Some(slot) = self.blocks.iter_mut().find(|x| Some(x.0) == index) {
                    slot.3 = true;
                }
            }
            "message_delta" => {
                if let (Some(m), Some(delta)) = (self.message.as_mut(), event.get("delta")) {
                    for (k, v) in delta.as_object().into_iter().flatten() {
                        m[k] = v.clone();
                    }
                }
            }
            "message_stop" => self.stopped = true,
            _ => {}
        }
        self.stopped
    }

    fn end(self) -> (Value, Vec<usize>) {
        let mut incomplete = Vec::new();
        let mut calls = 0;
        let mut content = Vec::new();
        for (_, mut block, json, stopped) in self.blocks {
            if block["type"] == "tool_use" {
                if !stopped {
                    incomplete.push(calls);
                }
                calls += 1;
                // The input is the fragments joined; text that does not parse
                // stays text, for salvage to judge (never completed here).
                if !json.is_empty() {
                    block["input"] = serde_json::from_str(&json).unwrap_or(Value::String(json));
                }
            }
            content.push(block);
        }
        let mut message = self
            .message
            .unwrap_or_else(|| json!({"type": "message", "role": "assistant"}));
        message["content"] = Value::Array(content);
        (message, incomplete)
    }
}

#[cfg(test)]
mod tests;
