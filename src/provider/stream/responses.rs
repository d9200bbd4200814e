//! OpenAI Responses: `response.*` events → the `response.completed` response
//! (or, cut off, the items so far, each function call not done listed).

use crate::provider::fields::Fields;
use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::kept::{Key, SLOT, push_capped, text_len};
use super::shape::{index, object};
use super::{Unfinished, type_of};

#[derive(Debug, Default)]
pub(super) struct Responses {
    /// The response from `response.created`, and finally `response.completed`.
    response: Option<Map<String, Value>>,
    /// Output items, in the order they were added.
    items: Vec<Item>,
    /// Each item's place in `items`, by its `output_index`.
    at: HashMap<Key, usize>,
    completed: bool,
    /// Bytes kept.
    pub(super) size: usize,
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
    pub(super) fn feed(&mut self, event: &Map<String, Value>, limit: usize) -> Option<bool> {
        let kind = type_of(event);
        let output_index = || index(event.field("output_index")).flatten();
        match kind {
            "response.created" | "response.in_progress" | "response.completed" => {
                let response = object(event.field("response"))?;
                self.response = response.cloned();
                self.completed |= kind == "response.completed";
            }
            "response.output_item.added" | "response.output_item.done" => {
                let i = output_index()?;
                let item = event.field("item").and_then(Value::as_object)?;
                self.put(i, item, kind == "response.output_item.done");
            }
            "response.function_call_arguments.delta" => {
                let delta = event.field("delta").and_then(Value::as_str)?;
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
                if let Some(args) = event.field("arguments") {
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

    /// Whether the response came to its end (`response.completed`, and not
    /// `incomplete`).
    pub(super) fn whole(&self) -> bool {
        let status = self.response.as_ref().and_then(|r| r.field("status"));
        self.completed && status.and_then(Value::as_str) != Some("incomplete")
    }

    pub(super) fn end(self) -> (Value, Vec<(usize, Unfinished)>, String) {
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
            if item.item.field("type").and_then(Value::as_str) == Some("function_call") {
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
    match slot.item.field_mut("arguments") {
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
