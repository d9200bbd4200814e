//! A healed conversation written in the other provider's request shape
//! (`heal --to`): OpenAI chat ↔ Anthropic messages. The system prompt, text
//! turns, calls ↔ `tool_use`, results ↔ `tool_result` and the tool list are
//! carried over; see docs/heal.md for the request fields that are and the
//! content that has no counterpart.

use serde_json::{Map, Value};

use super::{role, text_of, text_part};
use crate::provider::Provider;
use crate::provider::tool_list;
use crate::spelling::Spellings;

/// The request fields carried over as they are, by both directions.
const SAME: [&str; 5] = ["model", "max_tokens", "temperature", "top_p", "stream"];

/// `body` (a healed `from` request) in `to`'s shape; the same body when `to`
/// is `from`. Arguments written as text keep the record's number `spellings`.
/// Content with no counterpart in `to` is written as text of its JSON, or
/// (thinking, server tools) left out; `notes` gets one line for each, so that
/// nothing is lost silently. `moved_image` words the text put before an image
/// moved out of the result of a call (its id as JSON).
pub(crate) fn convert(
    body: Map<String, Value>,
    (from, to): (Provider, Provider),
    spellings: &Spellings,
    notes: &mut Vec<String>,
    moved_image: fn(&str) -> String,
) -> Map<String, Value> {
    match (from, to) {
        (Provider::OpenAi, Provider::Anthropic) => to_anthropic(body, spellings, notes),
        (Provider::Anthropic, Provider::OpenAi) => to_openai(body, spellings, notes, moved_image),
        _ => body,
    }
}

/// The type a part or block says it is, for notes.
fn kind(p: &Value) -> String {
    match p.get("type") {
        Some(Value::String(t)) => format!("{t:?}"),
        _ => "untyped".to_owned(),
    }
}

/// A part or block with no counterpart, as a text block of its JSON (noted).
fn as_text(p: &Value, at: &str, spellings: &Spellings, notes: &mut Vec<String>) -> Value {
    notes.push(format!("{at}: a part of type {}, written as text", kind(p)));
    text_part(&spellings.to_text(p))
}

fn carried(body: &Map<String, Value>, out: &mut Map<String, Value>) {
    for key in SAME {
        if let Some(v) = body.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
}

fn tools(
    body: &mut Map<String, Value>,
    to: Provider,
    out: &mut Map<String, Value>,
    notes: &mut Vec<String>,
) {
    let Some(mut list) = body.remove("tools") else {
        return;
    };
    if to == Provider::OpenAi
        && let Value::Array(items) = &mut list
    {
        // An Anthropic server tool (`web_search_20250305`, …) runs on
        // Anthropic's side: no OpenAI function stands for it.
        let mut i = 0;
        items.retain(|t| {
            let server = t.get("input_schema").is_none()
                && t.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|k| k != "custom");
            if server {
                notes.push(format!("tools[{i}]: the server tool {}, left out", kind(t)));
            }
            i += 1;
            !server
        });
    }
    let mut read = Vec::new();
    if !tool_list::read(list, &mut read) {
        return;
    }
    let api = to.api();
    let defs = read
        .into_iter()
        .map(|(name, schema, description)| {
            let mut d = api.tool_definition(
                &api.tool_name(&name),
                description.as_deref().unwrap_or(""),
                schema,
            );
            if description.is_none() {
                drop_description(&mut d);
            }
            d
        })
        .collect();
    out.insert("tools".into(), api.tools_payload(defs));
}

/// A definition made with an empty description loses it (none was given).
fn drop_description(d: &mut Value) {
    if let Some(m) = d.as_object_mut() {
        m.shift_remove("description");
        if let Some(Value::Object(f)) = m.get_mut("function") {
            f.shift_remove("description");
        }
    }
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn to_anthropic(
    mut body: Map<String, Value>,
    spellings: &Spellings,
    notes: &mut Vec<String>,
) -> Map<String, Value> {
    let mut out = Map::new();
    carried(&body, &mut out);
    if !out.contains_key("max_tokens")
        && let Some(v) = body.get("max_completion_tokens")
    {
        out.insert("max_tokens".into(), v.clone());
    }
    match body.get("stop") {
        Some(Value::String(s)) => {
            out.insert(
                "stop_sequences".into(),
                Value::Array(vec![Value::String(s.clone())]),
            );
        }
        Some(Value::Array(a)) => {
            out.insert("stop_sequences".into(), Value::Array(a.clone()));
        }
        _ => {}
    }
    let messages = match body.remove("messages") {
        Some(Value::Array(m)) => m,
        _ => Vec::new(),
    };
    let mut system = Vec::new();
    let mut turns = Turns::default();
    for (i, m) in messages.into_iter().enumerate() {
        let at = format!("messages[{i}]");
        let content = m.get("content").cloned().unwrap_or(Value::Null);
        match role(&m) {
            Some("system" | "developer") => {
                // Anthropic's system prompt is text only.
                let text = match &content {
                    Value::Array(parts) => {
                        let mut texts = Vec::with_capacity(parts.len());
                        for p in parts {
                            match p.get("type").and_then(Value::as_str) {
                                Some("text") => texts.push(
                                    p.get("text")
                                        .and_then(Value::as_str)
                                        .unwrap_or("")
                                        .to_owned(),
                                ),
                                _ => {
                                    notes.push(format!(
                                        "{at}: a part of type {} in a system message, written as text",
                                        kind(p)
                                    ));
                                    texts.push(spellings.to_text(p));
                                }
                            }
                        }
                        texts.join("\n")
                    }
                    other => text_of(other),
                };
                system.push(text);
            }
            Some("assistant") => {
                let mut blocks = match content {
                    Value::Array(parts) => (parts.iter())
                        .map(|p| match p.get("type").and_then(Value::as_str) {
                            Some("text") => anthropic_part(p, &at, spellings, notes),
                            _ => as_text(p, &at, spellings, notes),
                        })
                        .filter(|b| !is_empty_text(b))
                        .collect(),
                    other => {
                        let text = text_of(&other);
                        if text.is_empty() {
                            Vec::new()
                        } else {
                            vec![text_part(&text)]
                        }
                    }
                };
                if let Some(Value::Array(calls)) = m.get("tool_calls") {
                    for c in calls {
                        let f = c.get("function");
                        let name = f
                            .and_then(|f| f.get("name"))
                            .cloned()
                            .unwrap_or(Value::Null);
                        let input = match f.and_then(|f| f.get("arguments")) {
                            Some(Value::String(t)) => match crate::json::parse_str_unrepeated(t) {
                                Ok(Ok(v @ Value::Object(_))) => v,
                                _ => Value::Object(Map::new()),
                            },
                            Some(v @ Value::Object(_)) => v.clone(),
                            _ => Value::Object(Map::new()),
                        };
                        let id = c.get("id").cloned().unwrap_or(Value::Null);
                        blocks.push(obj(vec![
                            ("type", Value::String("tool_use".into())),
                            ("id", id),
                            ("name", name),
                            ("input", input),
                        ]));
                    }
                }
                turns.push("assistant", blocks);
            }
            Some("tool") => {
                let id = m.get("tool_call_id").cloned().unwrap_or(Value::Null);
                // A tool_result holds text and image blocks, as a user turn.
                let content = match content {
                    Value::Array(parts) => Value::Array(
                        (parts.iter())
                            .map(|p| anthropic_part(p, &at, spellings, notes))
                            .filter(|b| !is_empty_text(b))
                            .collect(),
                    ),
                    other => Value::String(text_of(&other)),
                };
                turns.push(
                    "user",
                    vec![obj(vec![
                        ("type", Value::String("tool_result".into())),
                        ("tool_use_id", id),
                        ("content", content),
                    ])],
                );
            }
            _ => {
                let blocks = match content {
                    Value::Array(parts) => (parts.iter())
                        .map(|p| anthropic_part(p, &at, spellings, notes))
                        .filter(|b| !is_empty_text(b))
                        .collect(),
                    other => {
                        let t = text_of(&other);
                        if t.is_empty() {
                            Vec::new()
                        } else {
                            vec![text_part(&t)]
                        }
                    }
                };
                turns.push("user", blocks);
            }
        }
    }
    if !system.is_empty() {
        out.insert("system".into(), Value::String(system.join("\n\n")));
    }
    out.insert("messages".into(), Value::Array(turns.finish()));
    tools(&mut body, Provider::Anthropic, &mut out, notes);
    out
}

/// An OpenAI content part as an Anthropic block: text and images carried,
/// another part as text of its JSON (noted). A text part with no text gives
/// an empty text block (taken out by the caller: Anthropic refuses one).
fn anthropic_part(p: &Value, at: &str, spellings: &Spellings, notes: &mut Vec<String>) -> Value {
    match p.get("type").and_then(Value::as_str) {
        Some("image_url") => {
            let url = match p.get("image_url") {
                Some(Value::String(u)) => u.as_str(),
                Some(u) => u.get("url").and_then(Value::as_str).unwrap_or(""),
                None => "",
            };
            let source = match url.strip_prefix("data:").map(|r| r.split_once(";base64,")) {
                Some(Some((media, data))) => obj(vec![
                    ("type", Value::String("base64".into())),
                    ("media_type", Value::String(media.into())),
                    ("data", Value::String(data.into())),
                ]),
                None if !url.is_empty() => obj(vec![
                    ("type", Value::String("url".into())),
                    ("url", Value::String(url.into())),
                ]),
                // No URL, or a data URL Anthropic has no source for.
                _ => return as_text(p, at, spellings, notes),
            };
            obj(vec![
                ("type", Value::String("image".into())),
                ("source", source),
            ])
        }
        Some("text") => text_part(p.get("text").and_then(Value::as_str).unwrap_or("")),
        _ => as_text(p, at, spellings, notes),
    }
}

fn is_empty_text(b: &Value) -> bool {
    b.get("type").and_then(Value::as_str) == Some("text")
        && b.get("text").and_then(Value::as_str) == Some("")
}

/// The Anthropic turns being written: the turns done, and the open one (the
/// last), its tool results kept apart from its other blocks so that each
/// block is added in constant time and the results still come first.
#[derive(Default)]
struct Turns {
    done: Vec<Value>,
    role: Option<&'static str>,
    results: Vec<Value>,
    others: Vec<Value>,
}

impl Turns {
    /// Adds `blocks` as a `role` turn, joined to the open turn when it has
    /// the same role (Anthropic turns alternate); tool results stay first.
    fn push(&mut self, role_name: &'static str, blocks: Vec<Value>) {
        if blocks.is_empty() {
            return;
        }
        if self.role != Some(role_name) {
            self.close();
            self.role = Some(role_name);
        }
        for b in blocks {
            if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                self.results.push(b);
            } else {
                self.others.push(b);
            }
        }
    }

    fn close(&mut self) {
        let Some(role_name) = self.role.take() else {
            return;
        };
        let mut content = std::mem::take(&mut self.results);
        content.append(&mut self.others);
        self.done.push(obj(vec![
            ("role", Value::String(role_name.into())),
            ("content", Value::Array(content)),
        ]));
    }

    fn finish(mut self) -> Vec<Value> {
        self.close();
        self.done
    }
}

fn to_openai(
    mut body: Map<String, Value>,
    spellings: &Spellings,
    notes: &mut Vec<String>,
    moved_image: fn(&str) -> String,
) -> Map<String, Value> {
    let mut out = Map::new();
    carried(&body, &mut out);
    if let Some(Value::Array(s)) = body.get("stop_sequences") {
        out.insert("stop".into(), Value::Array(s.clone()));
    }
    let mut messages = Vec::new();
    match body.get("system") {
        Some(Value::Null) | None => {}
        Some(system) => {
            let text = text_of(system);
            messages.push(obj(vec![
                ("role", Value::String("system".into())),
                ("content", Value::String(text)),
            ]));
        }
    }
    let turns = match body.remove("messages") {
        Some(Value::Array(m)) => m,
        _ => Vec::new(),
    };
    for (i, m) in turns.into_iter().enumerate() {
        let at = format!("messages[{i}]");
        let content = m.get("content").cloned().unwrap_or(Value::Null);
        let is_assistant = role(&m) == Some("assistant");
        let blocks = match content {
            Value::Array(b) => b,
            Value::String(s) => {
                let r = if is_assistant { "assistant" } else { "user" };
                messages.push(obj(vec![
                    ("role", Value::String(r.into())),
                    ("content", Value::String(s)),
                ]));
                continue;
            }
            _ => Vec::new(),
        };
        if is_assistant {
            let mut text = Vec::new();
            let mut calls = Vec::new();
            for b in &blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => text.push(
                        b.get("text")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                    ),
                    Some("tool_use") => {
                        let input = b.get("input").cloned().unwrap_or(Value::Object(Map::new()));
                        let input = if input.is_object() {
                            input
                        } else {
                            Value::Object(Map::new())
                        };
                        let function = obj(vec![
                            ("name", b.get("name").cloned().unwrap_or(Value::Null)),
                            ("arguments", Value::String(spellings.to_text(&input))),
                        ]);
                        calls.push(obj(vec![
                            ("id", b.get("id").cloned().unwrap_or(Value::Null)),
                            ("type", Value::String("function".into())),
                            ("function", function),
                        ]));
                    }
                    Some(k @ ("thinking" | "redacted_thinking")) => {
                        notes.push(format!(
                            "{at}: a part of type {k:?}, left out (no counterpart)"
                        ));
                    }
                    // Server tools (`server_tool_use`, `web_search_tool_result`,
                    // …) ran on Anthropic's side: their blocks are kept as text.
                    _ => {
                        let t = as_text(b, &at, spellings, notes);
                        text.push(
                            t.get("text")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned(),
                        );
                    }
                }
            }
            let text = text.join("\n");
            let mut msg = vec![("role", Value::String("assistant".into()))];
            msg.push((
                "content",
                if text.is_empty() {
                    Value::Null
                } else {
                    Value::String(text)
                },
            ));
            if !calls.is_empty() {
                msg.push(("tool_calls", Value::Array(calls)));
            }
            messages.push(obj(msg));
            continue;
        }
        let mut parts = Vec::new();
        for b in &blocks {
            match b.get("type").and_then(Value::as_str) {
                Some("tool_result") => {
                    let id = b.get("tool_use_id").cloned().unwrap_or(Value::Null);
                    let text = match b.get("content") {
                        // An OpenAI tool message holds text only: its images
                        // go to the user message after the results.
                        Some(Value::Array(blocks)) => {
                            let mut text = Vec::new();
                            for c in blocks {
                                match c.get("type").and_then(Value::as_str) {
                                    Some("text") => text
                                        .push(c.get("text").and_then(Value::as_str).unwrap_or("")),
                                    Some("image") => {
                                        notes.push(format!(
                                            "{at}: an image in a tool result, moved to the user message after the results"
                                        ));
                                        let said = moved_image(&spellings.to_text(&id));
                                        parts.push(text_part(&said));
                                        parts.push(openai_image(c));
                                    }
                                    _ => {
                                        let t = as_text(c, &at, spellings, notes);
                                        parts.push(t);
                                    }
                                }
                            }
                            text.join("\n")
                        }
                        Some(other) => text_of(other),
                        None => String::new(),
                    };
                    messages.push(obj(vec![
                        ("role", Value::String("tool".into())),
                        ("tool_call_id", id),
                        ("content", Value::String(text)),
                    ]));
                }
                Some("image") => parts.push(openai_image(b)),
                Some("text") => parts.push(text_part(
                    b.get("text").and_then(Value::as_str).unwrap_or(""),
                )),
                _ => parts.push(as_text(b, &at, spellings, notes)),
            }
        }
        if !parts.is_empty() {
            messages.push(obj(vec![
                ("role", Value::String("user".into())),
                ("content", Value::Array(parts)),
            ]));
        }
    }
    out.insert("messages".into(), Value::Array(messages));
    tools(&mut body, Provider::OpenAi, &mut out, notes);
    out
}

/// An Anthropic image block as an OpenAI `image_url` part.
fn openai_image(b: &Value) -> Value {
    let source = b.get("source");
    let kind = source.and_then(|s| s.get("type")).and_then(Value::as_str);
    let field = |k: &str| {
        source
            .and_then(|s| s.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let url = match kind {
        Some("base64") => format!("data:{};base64,{}", field("media_type"), field("data")),
        _ => field("url"),
    };
    obj(vec![
        ("type", Value::String("image_url".into())),
        ("image_url", obj(vec![("url", Value::String(url))])),
    ])
}
