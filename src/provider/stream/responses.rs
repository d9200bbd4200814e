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
    /// Events taken or refused so far; an item's `serial` is this when it was
    /// added.
    serial: u64,
    /// The `serial` of the last unusable event that named no item: every item
    /// added before it and not done then may miss a part.
    lost: u64,
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
    serial: u64,
    /// An unusable event may have held a part of it.
    lost: bool,
}

impl Responses {
    /// Takes one event; true once the response completed. `None` (and nothing
    /// taken) when it has the wrong shape.
    pub(super) fn feed(&mut self, event: &Map<String, Value>, limit: usize) -> Option<bool> {
        self.serial = self.serial.saturating_add(1);
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
                let done = kind == "response.output_item.done";
                // An item added twice: the deltas could not be told apart.
                if !done && self.at.contains_key(&Key(i)) {
                    return None;
                }
                self.put(i, item, done);
            }
            "response.function_call_arguments.delta" => {
                let delta = event.field("delta").and_then(Value::as_str)?;
                let at = *self.at.get(&Key(output_index()?))?;
                let slot = self.items.get_mut(at)?;
                // Nothing comes after an item's whole arguments.
                if slot.done {
                    return None;
                }
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
                    // Whole arguments: nothing lost before matters.
                    slot.lost = false;
                    slot.serial = self.serial;
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
            serial: self.serial,
            lost: false,
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

    /// An event of this stream could not be used (`event`, if it could be
    /// read at all): the item it names, if not done, may miss a part; when it
    /// names none, every item not done. Constant time.
    pub(super) fn lose(&mut self, event: Option<&Map<String, Value>>) {
        self.serial = self.serial.saturating_add(1);
        match event.and_then(|e| index(e.field("output_index")).flatten()) {
            Some(i) => {
                let at = self.at.get(&Key(i)).copied();
                if let Some(item) = at.and_then(|at| self.items.get_mut(at))
                    && !item.done
                {
                    item.lost = true;
                }
            }
            None => self.lost = self.serial,
        }
    }

    /// Whether the response came to its end (`response.completed`, and not
    /// `incomplete`).
    pub(super) fn whole(&self) -> bool {
        let status = self.response.as_ref().and_then(|r| r.field("status"));
        self.completed && status.and_then(Value::as_str) != Some("incomplete")
    }

    pub(super) fn end(self) -> (Value, Vec<(usize, Unfinished)>, String) {
        let lost = self.lost;
        let mut items = self.items;
        items.sort_by_key(|x| x.index);
        for item in &mut items {
            item.lost |= !item.done && lost > item.serial;
        }
        let mut response = self.response.unwrap_or_else(|| {
            let mut m = Map::new();
            m.insert("object".into(), json!("response"));
            m
        });
        // The completed response's own output, held against the items streamed.
        let given = match response.remove("output") {
            Some(Value::Array(given)) if self.completed => given,
            _ => Vec::new(),
        };
        let mut contradicted = vec![false; items.len()];
        let extra = reconcile(&mut items, given, &mut contradicted);
        let mut incomplete = Vec::new();
        let mut calls = 0;
        for (item, contradicted) in items.iter().zip(&contradicted) {
            if item.item.field("type").and_then(Value::as_str) == Some("function_call") {
                if item.too_large {
                    incomplete.push((calls, Unfinished::TooLarge));
                } else if *contradicted {
                    incomplete.push((calls, Unfinished::Contradicted));
                } else if item.lost {
                    incomplete.push((calls, Unfinished::Lost));
                } else if !item.done {
                    incomplete.push((calls, Unfinished::CutOff));
                }
                calls += 1;
            }
        }
        let output = (items.into_iter().map(|x| Value::Object(x.item)))
            .chain(extra)
            .collect();
        response.insert("output".into(), Value::Array(output));
        (Value::Object(response), incomplete, String::new())
    }
}

/// Holds `response.completed`'s `output` (`given`) against the items streamed
/// (`items`, by `output_index`), each given item found by its `id`, or else by
/// its place: an item the stream did not give whole (not done, an event of it
/// lost, too large) is taken as given; a function call done and given with
/// another name, call id or arguments is `contradicted`; an item only given is
/// returned, to follow the streamed ones. An empty or absent `output` changes
/// nothing. Linear in the items.
fn reconcile(items: &mut [Item], given: Vec<Value>, contradicted: &mut [bool]) -> Vec<Value> {
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    let mut by_index: HashMap<Key, usize> = HashMap::new();
    for (at, item) in items.iter().enumerate() {
        if let Some(id) = item.item.field("id").and_then(Value::as_str) {
            by_id.entry(id).or_insert(at);
        }
        by_index.entry(Key(item.index)).or_insert(at);
    }
    let mut found = Vec::with_capacity(given.len());
    let mut extra = Vec::new();
    for (k, value) in given.into_iter().enumerate() {
        let at = match value.field("id").and_then(Value::as_str) {
            Some(id) => by_id.get(id).copied(),
            None => by_index.get(&Key(k as u64)).copied(),
        };
        match (at, value) {
            (Some(at), Value::Object(value)) => found.push((at, value)),
            (_, value) => extra.push(value),
        }
    }
    for (at, value) in found {
        let (Some(item), Some(contra)) = (items.get_mut(at), contradicted.get_mut(at)) else {
            continue;
        };
        let call = item.item.field("type").and_then(Value::as_str) == Some("function_call");
        if item.done && !item.lost && !item.too_large && call {
            let differs = ["type", "name", "call_id", "arguments"]
                .iter()
                .any(|k| item.item.field(k) != value.field(k));
            *contra |= differs;
        } else if !*contra {
            item.item = value;
            item.done = true;
            item.lost = false;
            item.too_large = false;
        }
    }
    extra
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
