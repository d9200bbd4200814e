//! `--to`: a call, its error result and a whole assistant turn in another
//! provider's shape, with ids that provider accepts.
//!
//! Ids are injective: two calls of one stream never go by one id in the target
//! provider, so a result always pairs with its own call. Each call's id is
//! first worked out on its own ([`own_id`]: its own id, a number written as
//! text, a derived one, the provider's quirk); an [`IdScope`] then checks it
//! against the ids already given and, on a clash, gives a deterministic
//! alternative (the id with the call's place appended, through the same quirk).

use std::collections::{HashMap, VecDeque};
use std::hash::Hasher;

use serde_json::{Map, Value};

use super::Provider;
use super::call::{Args, Call};
use crate::spelling::Spellings;

/// What a provider requires of call ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ids {
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
pub(crate) struct Place {
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

/// The id a call goes by in `to`'s envelope and in its result, before `to`'s
/// own quirk (its writer's `call_id`): its own (a number written as text where
/// `to` needs a string), or, when it has none and `to` needs one, `call_` and 16
/// hex digits derived from the call and its place (the same input gives the
/// same id).
fn own_id(call: &Call, to: Provider, place: Place) -> Value {
    match (to.writer().ids(), &call.id) {
        (Ids::None, _) => Value::Null,
        (_, Value::String(s)) => Value::String(s.clone()),
        (Ids::JsonRpc, Value::Number(n)) => Value::Number(n.clone()),
        (_, Value::Number(n)) => Value::String(n.to_string()),
        (Ids::Optional, _) => Value::Null,
        (Ids::Strings | Ids::JsonRpc, _) => Value::String(derived_id(call, place)),
    }
}

/// `call_` and 16 hex digits: an FNV-1a hash of the call's place, name and
/// arguments as sent.
fn derived_id(call: &Call, place: Place) -> String {
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

/// How many ids an [`IdScope`] remembers: the ids of this many calls back (and
/// always every id of the record being written). Memory stays bounded however
/// long the stream; within any run of this many calls no two share an id.
pub(crate) const REMEMBERED_IDS: usize = 1 << 16;

/// The ids already given in one stream (a conversation), so that no two calls
/// share one. Remembers a 128-bit hash of each id's JSON text (`1` and `"1"`
/// differ where the target keeps numbers): a hash that matches by chance only
/// makes an id take its alternative, and the answer is still the same for the
/// same input.
#[derive(Debug, Default)]
pub(crate) struct IdScope {
    order: VecDeque<(u64, u128)>,
    used: HashMap<u128, u32>,
}

impl IdScope {
    /// An empty scope (a new stream).
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The id the call at `place` goes by in `to` ([`own_id`], through `to`'s
    /// quirk), unless an
    /// earlier call already has it; then its text with `_RECORD_CALL` (and
    /// `_N` if that is taken too) appended, through `to`'s quirk.
    pub(crate) fn assign(&mut self, call: &Call, to: Provider, place: Place) -> Value {
        let own = own_id(call, to, place);
        if own.is_null() {
            return Value::Null;
        }
        let first = to.writer().call_id(&own);
        if first.is_null() || !self.contains(&first) {
            self.insert(&first, place);
            return first;
        }
        let base = match &own {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let stem = format!("{base}_{}_{}", place.record, place.call);
        // Each taken alternative was given to an earlier call, so this ends
        // within one more try than the ids remembered.
        let mut id = first;
        for n in 1..=self.order.len().saturating_add(2) {
            let text = if n == 1 {
                stem.clone()
            } else {
                format!("{stem}_{n}")
            };
            id = to.writer().call_id(&Value::String(text));
            if !self.contains(&id) {
                break;
            }
        }
        self.insert(&id, place);
        id
    }

    fn contains(&self, id: &Value) -> bool {
        self.used.contains_key(&key(id))
    }

    fn insert(&mut self, id: &Value, place: Place) {
        let k = key(id);
        *self.used.entry(k).or_insert(0) += 1;
        self.order.push_back((place.record, k));
        // Forget the oldest ids past the bound, never those of this record.
        while self.order.len() > REMEMBERED_IDS {
            match self.order.front() {
                Some(&(record, old)) if record != place.record => {
                    self.order.pop_front();
                    if let Some(count) = self.used.get_mut(&old) {
                        *count -= 1;
                        if *count == 0 {
                            self.used.remove(&old);
                        }
                    }
                }
                _ => break,
            }
        }
    }
}

/// A 128-bit hash of an id's JSON text: FNV-1a and SipHash (fixed keys, so the
/// same input gives the same ids).
fn key(id: &Value) -> u128 {
    let text = id.to_string();
    let mut fnv = crate::fnv::Fnv::default();
    fnv.write(text.as_bytes());
    let mut sip = std::hash::DefaultHasher::new();
    sip.write(text.as_bytes());
    (u128::from(fnv.finish()) << 64) | u128::from(sip.finish())
}

/// One call in `to`'s envelope, with `args` as its arguments (the call's own,
/// or a repaired [`Outcome`](crate::Outcome)'s), and `to`'s quirks: its name
/// and id as `to` accepts them (an id derived from the call where `to` needs
/// one and it has none). What `callfix --to PROVIDER` writes for a call alone:
/// each call converted this way is on its own, so two calls without ids that
/// are alike get the same derived id (a stream through
/// [`Printer`](crate::Printer) with a target provider keeps them apart).
///
/// ```
/// use callfix::provider::{Extracted, Provider, convert_call, extract};
/// use serde_json::json;
///
/// // An Anthropic tool_use block, written back as an OpenAI tool call.
/// let block = json!({"type": "tool_use", "id": "toolu_1", "name": "read",
///                    "input": {"path": "/a"}});
/// let Extracted::Calls(calls) = extract(block, None) else { panic!() };
/// let openai = convert_call(&calls[0], Provider::OpenAi, &json!({"path": "/a"}));
/// assert_eq!(openai.call["function"]["arguments"], "{\"path\":\"/a\"}");
/// assert_eq!(openai.id, "toolu_1");
/// ```
pub fn convert_call(call: &Call, to: Provider, args: &Value) -> Converted {
    let place = Place { record: 0, call: 0 };
    convert(
        call,
        to,
        args,
        &Spellings::default(),
        &mut IdScope::new(),
        place,
    )
}

/// A (valid or repaired) call in `to`'s envelope, with `to`'s quirks; `ids`
/// keeps the ids of one stream apart.
pub(crate) fn convert(
    call: &Call,
    to: Provider,
    args: &Value,
    spellings: &Spellings,
    ids: &mut IdScope,
    place: Place,
) -> Converted {
    let args = if to.writer().args_as_text() {
        Value::String(spellings.to_text(args))
    } else {
        args.clone()
    };
    envelope(call, to, &args, ids, place)
}

/// A rejected call in `to`'s envelope, for the history it stays in, given its
/// arguments as sent: as sent where `to` takes JSON text; where `to` takes an
/// object, the object they parse to, or `{}` when they are not one — and then
/// also the text as sent, for the error result to quote.
pub(crate) fn convert_rejected(
    call: &Call,
    sent: &Args,
    to: Provider,
    spellings: &Spellings,
    ids: &mut IdScope,
    place: Place,
) -> (Converted, Option<String>) {
    let text = match sent {
        Args::Text(t) => Some(t.clone()),
        Args::Value(v) => Some(spellings.to_text(v)),
        Args::Missing => None,
        Args::Malformed(_) => call.leaked.as_ref().map(|l| l.markup.clone()),
    };
    let (args, quoted) = match (sent, to.writer().args_as_text()) {
        (Args::Malformed(_), true) => (Value::String("{}".into()), text),
        (_, true) => (Value::String(text.unwrap_or_else(|| "{}".into())), None),
        (Args::Value(Value::Object(m)), false) => (Value::Object(m.clone()), None),
        (Args::Text(t), false) => match crate::json::parse_str_unrepeated(t) {
            Ok(Ok(Value::Object(m))) => (Value::Object(m), None),
            _ => (Value::Object(Map::new()), text),
        },
        (_, false) => (Value::Object(Map::new()), text),
    };
    (envelope(call, to, &args, ids, place), quoted)
}

fn envelope(call: &Call, to: Provider, args: &Value, ids: &mut IdScope, place: Place) -> Converted {
    let id = ids.assign(call, to, place);
    let name = to.api().tool_name(&call.name);
    Converted {
        call: to.writer().new_call(&id, &name, args),
        id,
        name,
    }
}

/// `to`'s error result for a rejected call, under the id and name `to` accepts.
pub(crate) fn convert_error(
    call: &Call,
    to: Provider,
    message: &str,
    ids: &mut IdScope,
    place: Place,
) -> Value {
    to.writer().error_result(
        &ids.assign(call, to, place),
        &to.api().tool_name(&call.name),
        message,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::bare_call;
    use serde_json::json;

    fn call(id: Value) -> Call {
        let mut c = bare_call("glob", "{}".into());
        c.id = id;
        c
    }

    fn at(record: u64, call: usize) -> Place {
        Place { record, call }
    }

    #[test]
    fn forged_alternatives_cost_one_try_each() {
        // Every alternative the last call could take is taken already: the
        // tries are bounded by the ids given, and the answer is new.
        let to = Provider::OpenAi;
        let mut scope = IdScope::new();
        let mut given = std::collections::HashSet::new();
        let forged = [
            "x".to_owned(),
            "x_9_0".into(),
            "x_9_0_2".into(),
            "x_9_0_3".into(),
        ];
        for (i, id) in forged.iter().enumerate() {
            let got = scope.assign(&call(json!(id)), to, at(i as u64, 0));
            assert_eq!(got, json!(id));
            given.insert(got.to_string());
        }
        let got = scope.assign(&call(json!("x")), to, at(9, 0));
        assert_eq!(got, json!("x_9_0_4"));
        assert!(given.insert(got.to_string()));
    }

    #[test]
    fn memory_is_bounded_but_a_record_is_never_forgotten() {
        let to = Provider::Anthropic;
        let mut scope = IdScope::new();
        for i in 0..(REMEMBERED_IDS as u64 + 1000) {
            scope.assign(&call(json!(format!("id{i}"))), to, at(i, 0));
        }
        assert_eq!(scope.order.len(), REMEMBERED_IDS);
        assert_eq!(scope.used.len(), REMEMBERED_IDS);
        // One record with more calls than the bound: all of them kept apart.
        let mut scope = IdScope::new();
        let mut given = std::collections::HashSet::new();
        for i in 0..(REMEMBERED_IDS + 10) {
            let id = scope.assign(&call(json!(i % 7)), to, at(0, i));
            assert!(given.insert(id.to_string()), "{id}");
        }
    }

    #[test]
    fn targets_without_ids_give_none() {
        let mut scope = IdScope::new();
        let ollama = Provider::Ollama;
        let gemini = Provider::Gemini;
        for _ in 0..2 {
            assert_eq!(
                scope.assign(&call(json!("a")), ollama, at(0, 0)),
                Value::Null
            );
            assert_eq!(
                scope.assign(&call(Value::Null), gemini, at(0, 0)),
                Value::Null
            );
        }
    }
}
