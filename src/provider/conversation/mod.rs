//! Conversations: an OpenAI chat request body or an Anthropic messages request
//! body, read and written whole (`callfix heal`). Which of the two a body is
//! ([`detect`]), how each keeps its calls and their results paired
//! (`openai.rs`, `anthropic.rs`), and one written as the other (`convert.rs`).
//!
//! The words written into a conversation are not made here: the caller's
//! [`Healer`] gives them.

mod anthropic;
mod convert;
mod openai;

pub(crate) use convert::convert;

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use super::Provider;

/// What the healer decided for one call.
#[derive(Debug)]
pub(crate) enum Fix {
    /// The call stays as it is.
    Keep,
    /// The call object is replaced (repaired, or neutralised).
    Replace(Value),
    /// The call cannot be read as a call: it is taken out, and this text is
    /// added to its message in its place.
    Remove(String),
}

/// One call's fate: the fix, and for a neutralised call the note its result
/// carries.
#[derive(Debug)]
pub(crate) struct Decided {
    /// What becomes of the call object.
    pub fix: Fix,
    /// For a neutralised call: the text its result starts with.
    pub note: Option<String>,
}

/// What the conversation walk asks of its caller: a decision per call, and
/// the words for results made or kept as text.
pub(crate) trait Healer {
    /// Judges the call object `call` of message `message` (its index in the
    /// request's `messages`).
    fn call(&mut self, message: usize, call: &Value) -> Decided;
    /// The text that stands for call object `call` found in a message of
    /// message `message`, whose role (`role`) cannot make calls.
    fn misplaced(&mut self, message: usize, role: &str, call: &Value) -> String;
    /// The content of a result made for a call that had none.
    fn missing(&self) -> String;
    /// The text that keeps a result whose call is missing (id `id`).
    fn orphan(&self, id: &str) -> String;
    /// Whether a result's text already carries a note (healed before).
    fn marked(&self, text: &str) -> bool;
}

/// Which provider's request body `body` is: OpenAI chat or Anthropic
/// messages; `None` when it holds no `messages` list. A body that shows
/// neither provider's marks (plain text turns, no tools) reads as OpenAI's.
pub(crate) fn detect(body: &Map<String, Value>) -> Option<Provider> {
    let Some(Value::Array(messages)) = body.get("messages") else {
        return None;
    };
    if body.contains_key("system") {
        return Some(Provider::Anthropic);
    }
    if let Some(Value::Array(tools)) = body.get("tools") {
        for tool in tools {
            if tool.get("function").is_some() {
                return Some(Provider::OpenAi);
            }
            if tool.get("input_schema").is_some() {
                return Some(Provider::Anthropic);
            }
        }
    }
    for m in messages {
        if m.get("tool_calls").is_some() || m.get("tool_call_id").is_some() {
            return Some(Provider::OpenAi);
        }
        if matches!(role(m), Some("system" | "tool" | "developer" | "function")) {
            return Some(Provider::OpenAi);
        }
        if let Some(Value::Array(blocks)) = m.get("content") {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("tool_use" | "tool_result" | "thinking" | "redacted_thinking") => {
                        return Some(Provider::Anthropic);
                    }
                    Some("image_url" | "input_audio" | "refusal") => return Some(Provider::OpenAi),
                    _ => {}
                }
            }
        }
    }
    Some(Provider::OpenAi)
}

/// Heals the `messages` of a `provider` body (OpenAI or Anthropic) with
/// `healer`: every call judged, every call paired with exactly one result,
/// every result with its call.
pub(crate) fn heal(
    provider: Provider,
    messages: Vec<Value>,
    healer: &mut dyn Healer,
) -> Vec<Value> {
    match provider {
        Provider::Anthropic => anthropic::heal(messages, healer),
        _ => openai::heal(messages, healer),
    }
}

/// A message's `role`.
pub(crate) fn role(m: &Value) -> Option<&str> {
    m.get("role").and_then(Value::as_str)
}

/// One call waiting for its result.
#[derive(Debug)]
struct Pending {
    /// The id the call was sent with, when it was a string.
    sent: Option<String>,
    /// The id as sent, whatever its type (what its result names): see
    /// [`id_key`].
    key: Option<String>,
    /// The id it goes by now.
    id: String,
    /// For a neutralised call: the note its result starts with.
    note: Option<String>,
    /// Its result has been seen.
    matched: bool,
}

impl Pending {
    /// Call `k` of message `i`, decided by `healer`: kept as it is or
    /// replaced, with an id of its own (`clean` makes one the provider takes),
    /// and the call that now waits for its result; or `None` when it is taken
    /// out (the text its message keeps instead goes to `removed`).
    fn decide(
        healer: &mut dyn Healer,
        ids: &mut Ids,
        (i, k): (usize, usize),
        call: Value,
        clean: fn(&str) -> String,
        removed: &mut Vec<String>,
    ) -> Option<(Value, Pending)> {
        let decided = healer.call(i, &call);
        let mut call = match decided.fix {
            Fix::Keep => call,
            Fix::Replace(v) => v,
            Fix::Remove(text) => {
                removed.push(text);
                return None;
            }
        };
        let sent = call.get("id").and_then(Value::as_str).map(str::to_owned);
        let key = id_key(call.get("id"));
        let id = ids.assign(sent.as_deref(), i, k, clean);
        if sent.as_deref() != Some(id.as_str())
            && let Some(m) = call.as_object_mut()
        {
            m.insert("id".into(), Value::String(id.clone()));
        }
        let pending = Pending {
            sent,
            key,
            id,
            note: decided.note,
            matched: false,
        };
        Some((call, pending))
    }
}

/// The calls of one turn waiting for their results, found by the id as sent
/// in constant time (a turn of many parallel calls stays linear).
#[derive(Debug, Default)]
struct Waiting {
    calls: Vec<Pending>,
    /// Id as sent → the calls sent with it not yet answered, in order.
    by_key: HashMap<String, VecDeque<usize>>,
}

impl Waiting {
    fn push(&mut self, p: Pending) {
        if let Some(key) = &p.key {
            let at = self.calls.len();
            self.by_key.entry(key.clone()).or_default().push_back(at);
        }
        self.calls.push(p);
    }

    fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The first call still waiting whose id as sent is `id` (a result's
    /// `tool_call_id` or `tool_use_id`, whatever its type), marked answered.
    fn answer(&mut self, id: Option<&Value>) -> Option<&mut Pending> {
        let key = id_key(id)?;
        let queue = self.by_key.get_mut(&key)?;
        while let Some(at) = queue.pop_front() {
            if self.calls.get(at).is_some_and(|p| !p.matched) {
                let p = self.calls.get_mut(at)?;
                p.matched = true;
                return Some(p);
            }
        }
        None
    }

    /// The calls no result answered (each turn's are answered once, after
    /// its results were paired).
    fn unanswered(&self) -> impl Iterator<Item = &Pending> {
        self.calls.iter().filter(|p| !p.matched)
    }
}

/// A call id or a result's id as sent, to pair them: its JSON text, so that
/// a number (`12345678901234567890123`) pairs with the same number and never
/// with the string of its digits; `None` for no id or `null`.
fn id_key(id: Option<&Value>) -> Option<String> {
    match id? {
        Value::Null => None,
        v => Some(v.to_string()),
    }
}

/// The ids of one conversation: each call's id kept unless it is missing,
/// not a string, not as the provider accepts it, or already taken; then one
/// made from it and the call's place.
#[derive(Debug, Default)]
struct Ids {
    used: HashSet<String>,
}

impl Ids {
    /// The id of call `call` of message `message`, sent as `sent`; `accept`
    /// says whether the provider takes an id as it is, `clean` makes one it
    /// takes.
    fn assign(
        &mut self,
        sent: Option<&str>,
        message: usize,
        call: usize,
        clean: fn(&str) -> String,
    ) -> String {
        if let Some(id) = sent
            && !id.is_empty()
            && clean(id) == id
            && self.used.insert(id.to_owned())
        {
            return id.to_owned();
        }
        let stem = match sent.map(clean) {
            Some(s) if !s.is_empty() => format!("{s}_{message}_{call}"),
            _ => format!("call_{message}_{call}"),
        };
        let mut id = stem.clone();
        let mut n = 2u64;
        while !self.used.insert(id.clone()) {
            id = format!("{stem}_{n}");
            n += 1;
        }
        id
    }
}

/// The text of a content value (a string, or parts/blocks with `text`).
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Whether a result's content already starts with a note.
fn marked(content: &Value, healer: &dyn Healer) -> bool {
    match content {
        Value::String(s) => healer.marked(s),
        Value::Array(parts) => parts
            .first()
            .and_then(|p| p.get("text"))
            .and_then(Value::as_str)
            .is_some_and(|t| healer.marked(t)),
        _ => false,
    }
}

/// `content` with `note` before it: a string gets it on a line of its own,
/// a list of parts a text part first; nothing is taken away.
fn with_note(content: Value, note: &str) -> Value {
    match content {
        Value::String(s) if s.is_empty() => Value::String(note.to_owned()),
        Value::String(s) => Value::String(format!("{note}\n{s}")),
        Value::Array(mut parts) => {
            parts.insert(0, text_part(note));
            Value::Array(parts)
        }
        Value::Null => Value::String(note.to_owned()),
        other => Value::String(format!("{note}\n{other}")),
    }
}

/// `text` added to a message's content: a string gets it on a line of its
/// own, a list of parts a text part at the end.
fn append_text(m: &mut Map<String, Value>, text: &str) {
    let content = m.get("content").cloned().unwrap_or(Value::Null);
    let joined = match content {
        Value::String(s) if !s.is_empty() => Value::String(format!("{s}\n{text}")),
        Value::Array(mut parts) => {
            parts.push(text_part(text));
            Value::Array(parts)
        }
        _ => Value::String(text.to_owned()),
    };
    m.insert("content".into(), joined);
}

/// A text part (OpenAI) or text block (Anthropic): the same object.
fn text_part(text: &str) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::String("text".into()));
    m.insert("text".into(), Value::String(text.to_owned()));
    Value::Object(m)
}

/// An id as OpenAI takes it: any string.
fn any_id(id: &str) -> String {
    id.to_owned()
}

/// An id as Anthropic takes it: `[a-zA-Z0-9_-]+`, others become `_`.
fn anthropic_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
