//! OpenAI Chat Completions: `chat.completion.chunk`s (`delta.tool_calls[]` by
//! `index`, argument fragments) → a `chat.completion`, complete at a
//! `finish_reason`.

use crate::provider::fields::Fields;
use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::Unfinished;
use super::kept::{Fragments, Key, SLOT, text_len};
use super::shape::{array, index, object, string};

#[derive(Debug)]
pub(super) struct Chat {
    id: Value,
    model: Value,
    role: Value,
    content: Option<String>,
    calls: Vec<ChatCall>,
    /// Each call's place in `calls`, by its `index`.
    at: HashMap<Key, usize>,
    finish: Value,
    /// Bytes kept.
    pub(super) size: usize,
}

#[derive(Debug, Default)]
struct ChatCall {
    id: Value,
    name: String,
    args: Fragments,
}

impl Chat {
    pub(super) fn new(id: Value) -> Self {
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
        for choice in array(chunk.field("choices"))? {
            let choice = choice.as_object()?;
            let Some(delta) = object(choice.field("delta"))? else {
                continue;
            };
            for call in array(delta.field("tool_calls"))? {
                let call = call.as_object()?;
                index(call.field("index"))?;
                if let Some(function) = object(call.field("function"))? {
                    string(function.field("name"))?;
                    string(function.field("arguments"))?;
                }
            }
        }
        Some(())
    }

    /// Takes one chunk; true once a choice has finished. `None` (and nothing
    /// taken) when it has the wrong shape.
    pub(super) fn feed(&mut self, chunk: &Map<String, Value>, limit: usize) -> Option<bool> {
        Self::fits(chunk)?;
        if let Some(m) = chunk.field("model") {
            self.model = m.clone();
        }
        let choices = chunk.field("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            if let Some(delta) = choice.field("delta") {
                self.delta(delta, limit);
            }
            if let Some(finish) = choice.field("finish_reason").filter(|f| !f.is_null()) {
                self.finish = finish.clone();
            }
        }
        Some(!self.finish.is_null())
    }

    fn delta(&mut self, delta: &Value, limit: usize) {
        if let Some(role) = delta.field("role").filter(|r| r.is_string()) {
            self.role = role.clone();
        }
        if let Some(text) = delta.field("content").and_then(Value::as_str) {
            self.content.get_or_insert_with(String::new).push_str(text);
            self.size = self.size.saturating_add(text.len());
        }
        let calls = delta.field("tool_calls").and_then(Value::as_array);
        for call in calls.into_iter().flatten() {
            let index = call
                .field("index")
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
            if let Some(id) = call.field("id").filter(|v| !v.is_null()) {
                self.size =
                    (self.size.saturating_sub(text_len(&slot.id))).saturating_add(text_len(id));
                slot.id = id.clone();
            }
            let function = call.field("function");
            if let Some(name) = function
                .and_then(|f| f.field("name"))
                .and_then(Value::as_str)
            {
                slot.name.push_str(name);
                self.size = self.size.saturating_add(name.len());
            }
            if let Some(args) = function
                .and_then(|f| f.field("arguments"))
                .and_then(Value::as_str)
            {
                slot.args.push(args, limit, &mut self.size);
            }
        }
    }

    /// Whether the message came to its end (a `finish_reason` other than
    /// `length`).
    pub(super) fn whole(&self) -> bool {
        !self.finish.is_null() && self.finish.as_str() != Some("length")
    }

    pub(super) fn end(self) -> (Value, Vec<(usize, Unfinished)>, String) {
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
