//! `--to`: a call, its error result and a whole assistant turn in another
//! provider's shape, with ids that provider accepts.

use serde_json::{Map, Value};

use super::{Args, Call, Provider};
use crate::spelling::Spellings;

/// What a provider requires of call ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ids {
    /// Every call has a string id, and its result names it (OpenAI, Anthropic, …).
    Strings,
    /// Every call has an id; a JSON-RPC id may be a string or a number (MCP).
    JsonRpc,
    /// An id is optional (Gemini matches results by name when there is none).
    Optional,
    /// Calls carry no id (Ollama).
    None,
}

/// Where a call stands in the input: its record's number and its number in the
/// record. A derived id depends on it, so that two identical calls in one
/// stream do not share an id.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    /// Record number, from 0.
    pub record: u64,
    /// Call number within the record, from 0.
    pub call: usize,
}

/// A call converted for `to`: its envelope, and the id and name `to` knows it by
/// (so that a result can be mapped back).
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The call in `to`'s envelope.
    pub call: Value,
    /// The id `to` knows it by (null where `to` uses none).
    pub id: Value,
    /// The name `to` knows it by.
    pub name: String,
}

/// The id a call goes by in `to`'s envelope and in its result: its own (a number
/// written as text where `to` needs a string), or, when it has none and `to`
/// needs one, `call_` and 16 hex digits derived from the call and its place (the
/// same input gives the same id); then `to`'s own quirk ([`Provider::call_id`]).
pub fn target_id(call: &Call, to: &dyn Provider, place: Place) -> Value {
    let id = match (to.ids(), &call.id) {
        (Ids::None, _) => return Value::Null,
        (_, Value::String(s)) => Value::String(s.clone()),
        (Ids::JsonRpc, Value::Number(n)) => Value::Number(n.clone()),
        (_, Value::Number(n)) => Value::String(n.to_string()),
        (Ids::Optional, _) => Value::Null,
        (Ids::Strings | Ids::JsonRpc, _) => Value::String(derived_id(call, place)),
    };
    to.call_id(&id)
}

/// `call_` and 16 hex digits: an FNV-1a hash of the call's place, name and
/// arguments as sent.
fn derived_id(call: &Call, place: Place) -> String {
    use std::hash::Hasher;
    let mut h = crate::fnv::Fnv::default();
    h.write(&place.record.to_le_bytes());
    h.write(&(place.call as u64).to_le_bytes());
    h.write(call.name.as_bytes());
    h.write(&[0]);
    match &call.args {
        Args::Text(t) => h.write(t.as_bytes()),
        Args::Value(v) => h.write(v.to_string().as_bytes()),
        Args::Missing => {}
        Args::Malformed(why) => h.write(why.as_bytes()),
    }
    if let Some(leak) = &call.leaked {
        h.write(leak.markup.as_bytes());
    }
    format!("call_{:016x}", h.finish())
}

/// A (valid or repaired) call in `to`'s envelope, with `to`'s quirks.
pub fn convert(
    call: &Call,
    to: &dyn Provider,
    args: &Value,
    spellings: &Spellings,
    place: Place,
) -> Converted {
    let args = if to.args_as_text() {
        Value::String(spellings.to_text(args))
    } else {
        args.clone()
    };
    envelope(call, to, &args, place)
}

/// A rejected call in `to`'s envelope, for the history it stays in, given its
/// arguments as sent: as sent where `to` takes JSON text; where `to` takes an
/// object, the object they parse to, or `{}` when they are not one — and then
/// also the text as sent, for the error result to quote.
pub fn convert_rejected(
    call: &Call,
    sent: &Args,
    to: &dyn Provider,
    spellings: &Spellings,
    place: Place,
) -> (Converted, Option<String>) {
    let text = match sent {
        Args::Text(t) => Some(t.clone()),
        Args::Value(v) => Some(spellings.to_text(v)),
        Args::Missing => None,
        Args::Malformed(_) => call.leaked.as_ref().map(|l| l.markup.clone()),
    };
    let (args, quoted) = match (sent, to.args_as_text()) {
        (Args::Malformed(_), true) => (Value::String("{}".into()), text),
        (_, true) => (Value::String(text.unwrap_or_else(|| "{}".into())), None),
        (Args::Value(Value::Object(m)), false) => (Value::Object(m.clone()), None),
        (Args::Text(t), false) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(m)) => (Value::Object(m), None),
            _ => (Value::Object(Map::new()), text),
        },
        (_, false) => (Value::Object(Map::new()), text),
    };
    (envelope(call, to, &args, place), quoted)
}

fn envelope(call: &Call, to: &dyn Provider, args: &Value, place: Place) -> Converted {
    let id = target_id(call, to, place);
    let name = to.tool_name(&call.name);
    Converted {
        call: to.new_call(&id, &name, args),
        id,
        name,
    }
}

/// `to`'s error result for a rejected call, under the id and name `to` accepts.
pub fn convert_error(call: &Call, to: &dyn Provider, message: &str, place: Place) -> Value {
    to.error_result(
        &target_id(call, to, place),
        &to.tool_name(&call.name),
        message,
    )
}
