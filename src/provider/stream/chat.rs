//! OpenAI Chat Completions: `chat.completion.chunk`s (`delta.tool_calls[]` by
//! `index` within each of `choices[]` by its `index`, argument fragments) → a
//! `chat.completion` with one choice per choice streamed, complete once every
//! choice has a `finish_reason`.

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
    /// The choices, in the order they first came (by `index` at the end).
    choices: Vec<Choice>,
    /// Each choice's place in `choices`, by its `index`.
    at: HashMap<Key, usize>,
    /// How many choices have no `finish_reason` yet.
    open: usize,
    /// Events taken or refused so far; a call's `serial` is this when it began.
    serial: u64,
    /// The `serial` of the last unusable event that named no call: every call
    /// begun before it, in a choice not finished then, may miss a part.
    lost: u64,
    /// An unusable event may have held a part of a message's text.
    pub(super) text_lost: bool,
    /// Bytes kept.
    pub(super) size: usize,
}

#[derive(Debug)]
struct Choice {
    index: u64,
    role: Value,
    content: Option<String>,
    calls: Vec<ChatCall>,
    /// Each call's place in `calls`, by its `index`.
    at: HashMap<Key, usize>,
    finish: Value,
    /// Calls begun before this `serial` missed an event (the stream's `lost`
    /// when the choice finished; the stream's last one while it is open).
    lost: u64,
}

#[derive(Debug, Default)]
struct ChatCall {
    id: Value,
    name: String,
    args: Fragments,
    serial: u64,
    /// An unusable event named this call.
    lost: bool,
}

impl Choice {
    fn new(index: u64) -> Self {
        Choice {
            index,
            role: json!("assistant"),
            content: None,
            calls: Vec::new(),
            at: HashMap::new(),
            finish: Value::Null,
            lost: 0,
        }
    }

    fn finished(&self) -> bool {
        !self.finish.is_null()
    }
}

impl Chat {
    pub(super) fn new(id: Value) -> Self {
        Chat {
            id,
            model: Value::Null,
            choices: Vec::new(),
            at: HashMap::new(),
            open: 0,
            serial: 0,
            lost: 0,
            text_lost: false,
            size: 0,
        }
    }

    /// Whether `chunk` has the shape of a chunk.
    fn fits(chunk: &Map<String, Value>) -> Option<()> {
        for choice in array(chunk.field("choices"))? {
            let choice = choice.as_object()?;
            index(choice.field("index"))?;
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

    /// Takes one chunk; true once every choice has finished. `None` (and
    /// nothing taken) when it has the wrong shape.
    pub(super) fn feed(&mut self, chunk: &Map<String, Value>, limit: usize) -> Option<bool> {
        Self::fits(chunk)?;
        self.serial = self.serial.saturating_add(1);
        if let Some(m) = chunk.field("model") {
            self.model = m.clone();
        }
        let choices = chunk.field("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            let i = choice.field("index").and_then(Value::as_u64).unwrap_or(0);
            let at = *self.at.entry(Key(i)).or_insert_with(|| {
                self.choices.push(Choice::new(i));
                self.open = self.open.saturating_add(1);
                self.size = self.size.saturating_add(SLOT);
                self.choices.len() - 1
            });
            let Some(slot) = self.choices.get_mut(at) else {
                continue;
            };
            if let Some(delta) = choice.field("delta") {
                Self::delta(slot, delta, self.serial, limit, &mut self.size);
            }
            if let Some(finish) = choice.field("finish_reason").filter(|f| !f.is_null())
                && !slot.finished()
            {
                slot.finish = finish.clone();
                slot.lost = slot.lost.max(self.lost);
                self.open = self.open.saturating_sub(1);
            }
        }
        Some(!self.choices.is_empty() && self.open == 0)
    }

    fn delta(choice: &mut Choice, delta: &Value, serial: u64, limit: usize, size: &mut usize) {
        if let Some(role) = delta.field("role").filter(|r| r.is_string()) {
            choice.role = role.clone();
        }
        if let Some(text) = delta.field("content").and_then(Value::as_str) {
            choice
                .content
                .get_or_insert_with(String::new)
                .push_str(text);
            *size = size.saturating_add(text.len());
        }
        let calls = delta.field("tool_calls").and_then(Value::as_array);
        for call in calls.into_iter().flatten() {
            let index = call
                .field("index")
                .and_then(Value::as_u64)
                .unwrap_or(choice.calls.len() as u64);
            let at = *choice.at.entry(Key(index)).or_insert_with(|| {
                choice.calls.push(ChatCall {
                    serial,
                    ..ChatCall::default()
                });
                *size = size.saturating_add(SLOT);
                choice.calls.len() - 1
            });
            let Some(slot) = choice.calls.get_mut(at) else {
                continue;
            };
            if let Some(id) = call.field("id").filter(|v| !v.is_null()) {
                *size = (size.saturating_sub(text_len(&slot.id))).saturating_add(text_len(id));
                slot.id = id.clone();
            }
            let function = call.field("function");
            if let Some(name) = function
                .and_then(|f| f.field("name"))
                .and_then(Value::as_str)
            {
                slot.name.push_str(name);
                *size = size.saturating_add(name.len());
            }
            if let Some(args) = function
                .and_then(|f| f.field("arguments"))
                .and_then(Value::as_str)
            {
                slot.args.push(args, limit, size);
            }
        }
    }

    /// An event of this stream could not be used (`chunk`, if it could be
    /// read at all): the calls it names, in choices not finished, may miss a
    /// part; when it names none it can be told, every call of every choice
    /// not finished. Constant time per call named.
    pub(super) fn lose(&mut self, chunk: Option<&Map<String, Value>>) {
        self.serial = self.serial.saturating_add(1);
        let Some(named) = chunk.and_then(named) else {
            self.lost = self.serial;
            self.text_lost = true;
            return;
        };
        // Text of its own, or a choice it cannot tell the calls of.
        let content = chunk
            .and_then(|c| c.field("choices"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|c| c.field("delta").and_then(|d| d.field("content")).is_some());
        self.text_lost |= content || named.iter().any(|(_, call)| call.is_none());
        for (choice, call) in named {
            let Some(choice) = self
                .at
                .get(&Key(choice))
                .and_then(|&at| self.choices.get_mut(at))
            else {
                continue;
            };
            if choice.finished() {
                continue;
            }
            match call {
                Some(call) => {
                    let at = choice.at.get(&Key(call)).copied();
                    if let Some(call) = at.and_then(|at| choice.calls.get_mut(at)) {
                        call.lost = true;
                    }
                }
                // Every call begun so far in this choice.
                None => choice.lost = self.serial,
            }
        }
    }

    /// Whether the message came to its end (every choice finished, none for
    /// `length`).
    pub(super) fn whole(&self) -> bool {
        !self.choices.is_empty()
            && self
                .choices
                .iter()
                .all(|c| c.finished() && c.finish.as_str() != Some("length"))
    }

    pub(super) fn end(mut self) -> (Value, Vec<(usize, Unfinished)>, String) {
        let mut incomplete = Vec::new();
        let mut number = 0;
        // The order the unstreamed completion gives its choices in.
        self.choices.sort_by_key(|c| c.index);
        let lost = self.lost;
        let choices: Vec<Value> = self
            .choices
            .into_iter()
            .map(|choice| {
                // Cut off: the last call may have had more to come (earlier
                // ones were followed by another, so they were whole).
                let cut = !choice.finished();
                let before = if cut {
                    lost.max(choice.lost)
                } else {
                    choice.lost
                };
                let last = choice.calls.len().saturating_sub(1);
                let calls: Vec<Value> = (choice.calls.into_iter().enumerate())
                    .map(|(i, call)| {
                        if call.args.too_large {
                            incomplete.push((number, Unfinished::TooLarge));
                        } else if call.lost || call.serial < before {
                            incomplete.push((number, Unfinished::Lost));
                        } else if cut && i == last {
                            incomplete.push((number, Unfinished::CutOff));
                        }
                        number += 1;
                        json!({"id": call.id, "type": "function",
                            "function": {"name": call.name, "arguments": call.args.text}})
                    })
                    .collect();
                let mut message = Map::new();
                message.insert("role".into(), choice.role);
                message.insert("content".into(), json!(choice.content));
                if !calls.is_empty() {
                    message.insert("tool_calls".into(), Value::Array(calls));
                }
                json!({"index": choice.index, "message": message, "finish_reason": choice.finish})
            })
            .collect();
        let record = json!({"id": self.id, "object": "chat.completion", "model": self.model,
            "choices": choices});
        (record, incomplete, String::new())
    }
}

/// The calls an unusable `chunk` names, as (choice index, call index; `None`:
/// any call of that choice); `None` when it cannot be told which choices.
fn named(chunk: &Map<String, Value>) -> Option<Vec<(u64, Option<u64>)>> {
    let mut named = Vec::new();
    for choice in chunk.field("choices")?.as_array()? {
        let choice = choice.as_object()?;
        let i = index(choice.field("index"))?.unwrap_or(0);
        let calls = match choice.field("delta") {
            None | Some(Value::Null) => continue,
            Some(Value::Object(delta)) => match delta.field("tool_calls") {
                None | Some(Value::Null) => continue,
                Some(Value::Array(calls)) => calls,
                Some(_) => {
                    named.push((i, None));
                    continue;
                }
            },
            Some(_) => {
                named.push((i, None));
                continue;
            }
        };
        for call in calls {
            let call = call.as_object().and_then(|c| c.field("index")?.as_u64());
            named.push((i, call));
        }
    }
    Some(named)
}
