//! Anthropic Messages: `message_start`, `content_block_*`, `message_delta`,
//! `message_stop` (`input_json_delta` fragments) → the message, complete at
//! `message_stop`.

use crate::provider::fields::Fields;
use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::kept::{Fragments, Key, SLOT, text_len};
use super::shape::{index, object};
use super::{Unfinished, type_of};

#[derive(Debug, Default)]
pub(super) struct Anthropic {
    message: Option<Map<String, Value>>,
    /// Content blocks, in the order they started.
    blocks: Vec<Block>,
    /// Each block's place in `blocks`, by its `index` (the first of that index).
    at: HashMap<Key, usize>,
    stopped: bool,
    /// Events taken or refused so far; a block's `serial` is this when it
    /// started.
    serial: u64,
    /// The `serial` of the last unusable event that named no block: every
    /// block started before it and not stopped then may miss a part.
    lost: u64,
    /// An unusable event may have held a part of a text block.
    pub(super) text_lost: bool,
    /// Bytes kept.
    pub(super) size: usize,
}

#[derive(Debug)]
struct Block {
    /// Always an object.
    block: Map<String, Value>,
    /// Its `partial_json`, joined.
    json: Fragments,
    stopped: bool,
    serial: u64,
    /// An unusable event may have held a part of it.
    lost: bool,
}

/// Whether a content block is a call, its input streamed as
/// `input_json_delta` fragments: a client tool's, a server tool's or an MCP
/// tool's use (what the provider reads as calls, in this order).
fn is_call(block: &Map<String, Value>) -> bool {
    matches!(
        block.field("type").and_then(Value::as_str),
        Some("tool_use" | "server_tool_use" | "mcp_tool_use")
    )
}

impl Anthropic {
    /// The block `event` is about, if it names one that started.
    fn slot(&self, event: &Map<String, Value>) -> Option<usize> {
        let i = index(event.field("index")).flatten()?;
        self.at.get(&Key(i)).copied()
    }

    /// Takes one event; true once the message stopped. `None` (and nothing
    /// taken) when it has the wrong shape.
    pub(super) fn feed(&mut self, event: &Map<String, Value>, limit: usize) -> Option<bool> {
        self.serial = self.serial.saturating_add(1);
        match type_of(event) {
            "message_start" => {
                let message = event.field("message").and_then(Value::as_object)?;
                self.message = Some(message.clone());
            }
            "content_block_start" => {
                let i = index(event.field("index")).flatten()?;
                let block = event.field("content_block").and_then(Value::as_object)?;
                // A second start of one index: its deltas could not be told
                // from the first one's.
                if self.at.contains_key(&Key(i)) {
                    return None;
                }
                let size = SLOT.saturating_add(text_len(block));
                self.size = self.size.saturating_add(size);
                self.at.insert(Key(i), self.blocks.len());
                self.blocks.push(Block {
                    block: block.clone(),
                    json: Fragments::default(),
                    stopped: false,
                    serial: self.serial,
                    lost: false,
                });
            }
            "content_block_delta" => {
                let at = self.slot(event)?;
                let delta = event.field("delta").and_then(Value::as_object)?;
                let slot = self.blocks.get_mut(at)?;
                // Nothing comes after a block's stop.
                if slot.stopped {
                    return None;
                }
                match delta.field("type").and_then(Value::as_str) {
                    Some("input_json_delta") => {
                        let json = delta.field("partial_json").and_then(Value::as_str)?;
                        slot.json.push(json, limit, &mut self.size);
                    }
                    // A call's input comes in `input_json_delta` fragments
                    // only: any other part of it, unread, may be a part of
                    // the input (its call is then rejected as incomplete).
                    Some("text_delta") => {
                        let text = delta.field("text").and_then(Value::as_str)?;
                        if is_call(&slot.block) {
                            slot.lost = true;
                            return Some(self.stopped);
                        }
                        match slot.block.field_mut("text") {
                            Some(Value::String(kept)) => kept.push_str(text),
                            _ => {
                                slot.block.insert("text".into(), json!(text));
                            }
                        }
                        self.size = self.size.saturating_add(text.len());
                    }
                    _ if is_call(&slot.block) => slot.lost = true,
                    _ => {}
                }
            }
            "content_block_stop" => {
                let at = self.slot(event)?;
                let block = self.blocks.get_mut(at)?;
                if !block.stopped {
                    block.stopped = true;
                    block.lost |= self.lost > block.serial;
                }
            }
            "message_delta" => {
                let delta = object(event.field("delta"))?;
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

    /// An event of this stream could not be used (`event`, if it could be
    /// read at all): the block it names, if not stopped, may miss a part; when
    /// it names none, every block not stopped. Constant time.
    pub(super) fn lose(&mut self, event: Option<&Map<String, Value>>) {
        self.serial = self.serial.saturating_add(1);
        let named = event
            .filter(|e| type_of(e) != "message_start")
            .and_then(|e| index(e.field("index")).flatten());
        match named {
            Some(i) => {
                let at = self.at.get(&Key(i)).copied();
                match at.and_then(|at| self.blocks.get_mut(at)) {
                    Some(block) if !block.stopped => {
                        block.lost = true;
                        self.text_lost |= !is_call(&block.block);
                    }
                    Some(_) => {}
                    // A block whose start never came: text or not.
                    None => self.text_lost = true,
                }
            }
            None => {
                self.lost = self.serial;
                self.text_lost = true;
            }
        }
    }

    /// Whether the message came to its end (`message_stop`, and not for
    /// `max_tokens`).
    pub(super) fn whole(&self) -> bool {
        let reason = self.message.as_ref().and_then(|m| m.field("stop_reason"));
        self.stopped && reason.and_then(Value::as_str) != Some("max_tokens")
    }

    pub(super) fn end(self) -> (Value, Vec<(usize, Unfinished)>, String) {
        let mut incomplete = Vec::new();
        let mut spelled = String::new();
        let mut calls = 0;
        let mut content = Vec::with_capacity(self.blocks.len());
        for Block {
            mut block,
            json,
            stopped,
            serial,
            lost,
        } in self.blocks
        {
            if is_call(&block) {
                if json.too_large {
                    incomplete.push((calls, Unfinished::TooLarge));
                } else if lost || (!stopped && self.lost > serial) {
                    incomplete.push((calls, Unfinished::Lost));
                } else if !stopped {
                    incomplete.push((calls, Unfinished::CutOff));
                }
                calls += 1;
                // The input is the fragments joined; text that does not parse,
                // or names a key twice, stays text, for salvage to judge
                // (never completed here). Its numbers are written back as
                // spelled here.
                if !json.text.is_empty() {
                    spelled.push_str(&json.text);
                    spelled.push('\n');
                    let input = match crate::json::parse_str_unrepeated(&json.text) {
                        Ok(Ok(value)) => value,
                        _ => Value::String(json.text),
                    };
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
