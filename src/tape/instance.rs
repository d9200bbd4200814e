//! The instance representation every tool's validator is compiled for
//! ([`jsonschema::options_for`]): a call's arguments as a [`Value`] (parsed,
//! salvaged, repaired: [`Arg::Value`]) or as a [`Tape`] read from their text
//! ([`Arg::Tape`]). One validator serves both, so a tool whose calls come both
//! ways (text from one provider, objects from another) compiles its schema
//! once.
//!
//! A `Value` is read as jsonschema's own representation (`SerdeJson`) reads
//! it: the same answers, by the same functions where that one has its own
//! (string length, equality, `uniqueItems`, numbers). A validation sees one
//! kind of node from its root down, but for the property names
//! `propertyNames` checks, which are strings held as `Value`s either way.

use std::borrow::Cow;

use jsonschema::JsonType;
use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object, SerdeJson, cmp};
use serde_json::{Map, Number, Value};

use super::Tape;

/// A call's arguments as the validators see them: [`Arg`]s.
pub(crate) struct Args;

impl Json for Args {
    type Node<'a> = Arg<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = Value;
    /// Arguments are small objects: a pass over their members costs less
    /// than a few lookups (a tape's are lists; a `Value`'s map hashes each
    /// key with SipHash under `preserve_order`).
    const KEYS_PER_LOOKUP: usize = 8;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>(buffer: &mut Value, string: &str, f: impl FnOnce(Arg<'_>) -> T) -> T {
        SerdeJson::with_string_node(buffer, string, |value| f(Arg::Value(value)))
    }
}

/// One node of a call's arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg<'a> {
    Value(&'a Value),
    Tape(&'a Tape<'a>),
}

/// A number: a `Value`'s, or an integer's text on a tape (see
/// [`Tape::Integer`]: every reading of it agrees).
pub(crate) enum Num<'a> {
    Value(&'a Number),
    Integer(&'a str),
}

impl JsonNumber for Num<'_> {
    fn as_u64(&self) -> Option<u64> {
        match self {
            Num::Value(n) => n.as_u64(),
            Num::Integer(text) => text.parse().ok(),
        }
    }
    fn as_i64(&self) -> Option<i64> {
        match self {
            Num::Value(n) => n.as_i64(),
            Num::Integer(text) => text.parse().ok(),
        }
    }
    fn as_f64(&self) -> Option<f64> {
        match self {
            Num::Value(n) => n.as_f64(),
            Num::Integer(text) => text.parse().ok(),
        }
    }
    fn as_str(&self) -> Cow<'_, str> {
        match self {
            Num::Value(n) => JsonNumber::as_str(*n),
            Num::Integer(text) => Cow::Borrowed(text),
        }
    }
    fn to_number(&self) -> Cow<'_, Number> {
        match self {
            Num::Value(n) => Cow::Borrowed(n),
            Num::Integer(text) => Cow::Owned(super::number(text)),
        }
    }
    fn is_integer(&self) -> bool {
        match self {
            Num::Value(n) => JsonNumber::is_integer(*n),
            Num::Integer(_) => true,
        }
    }
    fn is_written_as_integer(&self) -> bool {
        match self {
            Num::Value(n) => JsonNumber::is_written_as_integer(*n),
            Num::Integer(_) => true,
        }
    }
}

/// An object's members.
#[derive(Clone, Copy)]
pub(crate) enum Members<'a> {
    Value(&'a Map<String, Value>),
    Tape(&'a [(Cow<'a, str>, Tape<'a>)]),
}

/// An array's items.
#[derive(Clone, Copy)]
pub(crate) enum Items<'a> {
    Value(&'a [Value]),
    Tape(&'a [Tape<'a>]),
}

impl<'a> Node<'a, Args> for Arg<'a> {
    type Object = Members<'a>;
    type Array = Items<'a>;
    type Number = Num<'a>;

    fn as_object(&self) -> Option<Members<'a>> {
        match *self {
            Arg::Value(Value::Object(members)) => Some(Members::Value(members)),
            Arg::Tape(Tape::Object(members)) => Some(Members::Tape(members)),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<Items<'a>> {
        match *self {
            Arg::Value(Value::Array(items)) => Some(Items::Value(items)),
            Arg::Tape(Tape::Array(items)) => Some(Items::Tape(items)),
            _ => None,
        }
    }
    fn as_string(&self) -> Option<Cow<'a, str>> {
        match *self {
            Arg::Value(Value::String(s)) => Some(Cow::Borrowed(s)),
            Arg::Tape(Tape::String(s)) => Some(Cow::Borrowed(s.as_ref())),
            _ => None,
        }
    }
    fn as_number(&self) -> Option<Num<'a>> {
        match *self {
            Arg::Value(Value::Number(n)) => Some(Num::Value(n)),
            Arg::Tape(Tape::Integer(text)) => Some(Num::Integer(text)),
            _ => None,
        }
    }
    fn as_boolean(&self) -> Option<bool> {
        match *self {
            Arg::Value(Value::Bool(b)) | Arg::Tape(Tape::Bool(b)) => Some(*b),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        matches!(self, Arg::Value(Value::Null) | Arg::Tape(Tape::Null))
    }
    fn json_type(&self) -> JsonType {
        match *self {
            Arg::Value(value) => Node::<SerdeJson>::json_type(&value),
            Arg::Tape(tape) => match tape {
                Tape::Null => JsonType::Null,
                Tape::Bool(_) => JsonType::Boolean,
                Tape::Integer(_) => JsonType::Number,
                Tape::String(_) => JsonType::String,
                Tape::Array(_) => JsonType::Array,
                Tape::Object(_) => JsonType::Object,
            },
        }
    }
    fn string_length(&self) -> Option<u64> {
        match *self {
            Arg::Value(value) => Node::<SerdeJson>::string_length(&value),
            Arg::Tape(Tape::String(s)) => Some(s.chars().count() as u64),
            Arg::Tape(_) => None,
        }
    }
    fn equals_value(&self, expected: &Value) -> bool {
        match *self {
            Arg::Value(value) => cmp::equal(value, expected),
            Arg::Tape(tape) => super::equals(tape, expected),
        }
    }
    fn to_value(&self) -> Cow<'a, Value> {
        match *self {
            Arg::Value(value) => Cow::Borrowed(value),
            Arg::Tape(tape) => Cow::Owned(super::to_value(tape)),
        }
    }
    fn identity(&self) -> Option<NodeIdentity> {
        let address = match *self {
            Arg::Value(value) => std::ptr::from_ref(value) as usize,
            Arg::Tape(tape) => std::ptr::from_ref(tape) as usize,
        };
        Some(NodeIdentity::new(address))
    }
}

impl<'a> Object<'a, Args> for Members<'a> {
    type Node = Arg<'a>;
    type MemberName = &'a str;
    type MembersIter = MembersIter<'a>;

    fn len(&self) -> usize {
        match self {
            Members::Value(map) => map.len(),
            Members::Tape(members) => members.len(),
        }
    }
    fn get(&self, key: &Box<str>) -> Option<Arg<'a>> {
        match *self {
            Members::Value(map) => map.get(key.as_ref()).map(Arg::Value),
            Members::Tape(members) => members
                .iter()
                .find(|(name, _)| name.as_ref() == key.as_ref())
                .map(|(_, v)| Arg::Tape(v)),
        }
    }
    fn members(&self) -> MembersIter<'a> {
        match *self {
            Members::Value(map) => MembersIter::Value(map.iter()),
            Members::Tape(members) => MembersIter::Tape(members.iter()),
        }
    }
}

/// An object's members, as jsonschema walks them.
pub(crate) enum MembersIter<'a> {
    Value(serde_json::map::Iter<'a>),
    Tape(std::slice::Iter<'a, (Cow<'a, str>, Tape<'a>)>),
}

impl<'a> Iterator for MembersIter<'a> {
    type Item = (&'a str, Arg<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            MembersIter::Value(iter) => iter.next().map(|(k, v)| (k.as_str(), Arg::Value(v))),
            MembersIter::Tape(iter) => iter.next().map(|(k, v)| (k.as_ref(), Arg::Tape(v))),
        }
    }
}

impl<'a> Array<'a, Args> for Items<'a> {
    type Node = Arg<'a>;
    type ElementsIter = ItemsIter<'a>;

    fn len(&self) -> usize {
        match self {
            Items::Value(items) => items.len(),
            Items::Tape(items) => items.len(),
        }
    }
    fn elements(&self) -> ItemsIter<'a> {
        match *self {
            Items::Value(items) => ItemsIter::Value(items.iter()),
            Items::Tape(items) => ItemsIter::Tape(items.iter()),
        }
    }
    fn is_unique(&self) -> bool {
        match *self {
            Items::Value(items) => Array::<SerdeJson>::is_unique(&items),
            Items::Tape(items) => {
                let values: Vec<Value> = items.iter().map(super::to_value).collect();
                Array::<SerdeJson>::is_unique(&values.as_slice())
            }
        }
    }
}

/// An array's items, as jsonschema walks them.
pub(crate) enum ItemsIter<'a> {
    Value(std::slice::Iter<'a, Value>),
    Tape(std::slice::Iter<'a, Tape<'a>>),
}

impl<'a> Iterator for ItemsIter<'a> {
    type Item = Arg<'a>;
    fn next(&mut self) -> Option<Arg<'a>> {
        match self {
            ItemsIter::Value(iter) => iter.next().map(Arg::Value),
            ItemsIter::Tape(iter) => iter.next().map(Arg::Tape),
        }
    }
}
