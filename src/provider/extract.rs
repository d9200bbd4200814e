//! Taking every call out of a record ([`extract`]): each object is offered to
//! the providers' readers in the order of [`PROVIDERS`], then looked into
//! through their containers; an assistant message with no calls of its own is
//! searched for calls written into its text ([`super::leak`]).

use crate::provider::fields::Fields;
use serde_json::{Map, Value};

use super::PROVIDERS;
use super::call::{Args, Call, Leak, bare_call, json_type};
use super::leak::{self, Declared};
use super::problem::{Part, ProviderProblem};

/// What a record holds.
#[derive(Debug, PartialEq)]
pub enum Extracted {
    /// A recognised envelope: zero or more calls, in document order. A message or
    /// response without tool calls (plain text, a user turn) has zero.
    Calls(Vec<Call>),
    /// Nothing callfix recognises; the reason names what was seen.
    Unrecognised(String),
}

/// Containers are followed this deep; anything deeper is not an envelope.
const MAX_DEPTH: usize = 8;

/// Takes every tool call out of a record. With `from_text`, an assistant message
/// that has text but no calls is searched for calls written into the text (a
/// call list with no sentinel counts only if every name in it is `declared`).
///
/// ```
/// use callfix::provider::{Extracted, Provider, extract};
/// use serde_json::json;
///
/// let message = json!({"role": "assistant", "content": [
///     {"type": "text", "text": "Reading both."},
///     {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "/a"}},
///     {"type": "tool_use", "id": "t2", "name": "read", "input": {"path": "/b"}}]});
/// let Extracted::Calls(calls) = extract(message, None) else { panic!() };
/// assert_eq!(calls.len(), 2);
/// assert_eq!((calls[1].id(), calls[1].name()), (&json!("t2"), "read"));
/// assert_eq!(calls[1].provider(), Provider::Anthropic);
/// // Calls written into text are read only for declared tools.
/// let leaked = json!({"role": "assistant",
///     "content": "<tool_call>{\"name\": \"read\", \"arguments\": {\"path\": \"/a\"}}</tool_call>"});
/// let declared = |name: &str| name == "read";
/// let Extracted::Calls(calls) = extract(leaked, Some(&declared)) else { panic!() };
/// assert_eq!(calls[0].leaked().map(|l| l.family()), Some("hermes"));
/// ```
pub fn extract(record: Value, from_text: Option<Declared>) -> Extracted {
    // Most records hold one call: four (what a first push reserves) of
    // these would be a large block for the allocator.
    let mut calls = Vec::with_capacity(1);
    match collect(record, &mut calls, 0, from_text) {
        Ok(()) => Extracted::Calls(calls),
        Err(problem) => Extracted::Unrecognised(problem.to_string()),
    }
}

fn collect(
    value: Value,
    out: &mut Vec<Call>,
    depth: usize,
    from_text: Option<Declared>,
) -> Result<(), ProviderProblem> {
    if depth > MAX_DEPTH {
        return Err(ProviderProblem::TooDeep);
    }
    let text = match &value {
        Value::Object(m) if from_text.is_some() && is_assistant(m) => message_text(m),
        _ => None,
    };
    let before = out.len();
    collect_value(value, out, depth, from_text)?;
    if let Some(text) = text
        && let Some(declared) = from_text
        && out.len() == before
    {
        out.extend(leak::find(&text, declared).0.into_iter().map(leaked_call));
    }
    Ok(())
}

/// An assistant (or model) message.
fn is_assistant(m: &Map<String, Value>) -> bool {
    matches!(
        m.field("role").and_then(Value::as_str),
        Some("assistant" | "model")
    )
}

/// The text of a message: its string content, or its text blocks and parts.
fn message_text(m: &Map<String, Value>) -> Option<String> {
    if let Some(Value::String(s)) = m.field("content") {
        return Some(s.clone());
    }
    let blocks = m
        .field("content")
        .or_else(|| m.field("parts"))
        .and_then(Value::as_array)?;
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.field("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// When a record is an assistant message, or a response that holds exactly one
/// (an OpenAI completion with one choice, Gemini with one candidate, Ollama's
/// `/api/chat`, Bedrock's `output`), its text with any leaked call markup
/// removed (empty when it has none).
pub(crate) fn assistant_text(record: &Value, declared: Declared) -> Option<String> {
    let m = turn(record)?;
    let text = message_text(m).unwrap_or_default();
    Some(leak::find(&text, declared).1)
}

/// Every call written into the text of the assistant message a record is or
/// holds ([`assistant_text`]'s message), whatever else the message holds.
/// [`extract`] reads them only from a message with no tool calls of its own (the
/// model's own list is what runs; a call beside it in the text never does), so
/// `check --calls` asks here to report the ones it leaves.
pub(crate) fn calls_in_text(record: &Value, declared: Declared) -> Vec<Call> {
    let Some(text) = turn(record).and_then(message_text) else {
        return Vec::new();
    };
    leak::find(&text, declared)
        .0
        .into_iter()
        .map(leaked_call)
        .collect()
}

/// The text of the one assistant message a record is or holds, as written
/// (leaked markup and all).
pub(crate) fn assistant_raw_text(record: &Value) -> Option<String> {
    turn(record).and_then(message_text)
}

/// Whether a call read from the text of a message was read because the
/// message ended there: found with no sentinel (the syntaxes that must be the
/// whole message, or end it: `leak::sentinel_free`), or its markup runs to
/// the end of `text` (a call whose closing never came). Where a message did
/// not come to its end (a stream cut off), such a call may have had more to
/// come.
pub(crate) fn read_by_its_end(leak: &Leak, text: &str) -> bool {
    leak::sentinel_free(leak.family) || text.trim_end().ends_with(leak.markup.trim_end())
}

/// The one assistant message a record is or holds.
fn turn(record: &Value) -> Option<&Map<String, Value>> {
    let m = record.as_object()?;
    if is_assistant(m) {
        return Some(m);
    }
    let only = |list: &str, field: &str| match m.get(list)?.as_array()?.as_slice() {
        [one] => one.get(field)?.as_object(),
        _ => None,
    };
    let inner = (m.field("message").and_then(Value::as_object))
        .or_else(|| only("choices", "message"))
        .or_else(|| only("candidates", "content"))
        .or_else(|| m.field("output")?.field("message")?.as_object())?;
    is_assistant(inner).then_some(inner)
}

/// A call found written into text, as a generic call.
fn leaked_call(l: leak::Leaked) -> Call {
    let args = match l.args {
        Ok(m) => Args::Value(Value::Object(m)),
        Err(why) => Args::Malformed(why.to_string()),
    };
    let mut call = bare_call(&l.name, String::new());
    call.args = args;
    call.args_as_text = false;
    call.leaked = Some(Leak {
        markup: l.markup,
        family: l.family,
        written: l.written,
    });
    call
}

fn collect_value(
    value: Value,
    out: &mut Vec<Call>,
    depth: usize,
    from_text: Option<Declared>,
) -> Result<(), ProviderProblem> {
    let mut map = match value {
        Value::Object(map) => map,
        Value::Array(items) => {
            for (i, item) in items.into_iter().enumerate() {
                collect(item, out, depth + 1, from_text).map_err(|e| e.within(Part::Element(i)))?;
            }
            return Ok(());
        }
        other => {
            return Err(ProviderProblem::NotAnObject(json_type(&other)));
        }
    };
    let readers = || PROVIDERS.iter().filter_map(|p| p.reader());
    for reader in readers() {
        if let Some(found) = reader.read(&mut map) {
            out.extend(found?);
            return Ok(());
        }
    }
    for reader in readers() {
        for (key, inner) in reader.containers() {
            // A container holding one object (Ollama's `message`, Bedrock's
            // `output`) is read as a list of one.
            if let Some(one @ Value::Object(_)) = map.field_mut(key) {
                let one = one.take();
                return collect(one, out, depth + 1, from_text)
                    .map_err(|e| e.within(Part::Key(key)));
            }
            if let Some(Value::Array(items)) = map.field_mut(key) {
                for (i, mut item) in std::mem::take(items).into_iter().enumerate() {
                    let item = match inner {
                        Some(field) => match item.field_mut(field) {
                            Some(v) => v.take(),
                            None => continue,
                        },
                        None => item,
                    };
                    collect(item, out, depth + 1, from_text)
                        .map_err(|e| e.within(Part::Item(key, i)))?;
                }
                return Ok(());
            }
        }
    }
    // A message whose content is text (or absent) holds no call.
    if map.has("role") || readers().any(|r| r.is_not_a_call(&map)) {
        return Ok(());
    }
    Err(describe_unrecognised(&map))
}

/// An object in which no call was found, named by its first keys.
fn describe_unrecognised(map: &Map<String, Value>) -> ProviderProblem {
    const SHOWN: usize = 6;
    if map.is_empty() {
        return ProviderProblem::EmptyObject;
    }
    ProviderProblem::NoCall {
        keys: map.keys().take(SHOWN).cloned().collect(),
        more: map.len() > SHOWN,
    }
}
