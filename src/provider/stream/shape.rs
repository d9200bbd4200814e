//! The shapes of an event's untrusted fields: an event with a field of the
//! wrong shape is one its stream does not take (see [`super`]).

use serde_json::{Map, Value};
/// A field that may be absent (or `null`): `Some(None)`; present with the
/// shape asked for: `Some(Some(_))`; present with another: `None`.
pub(super) fn object(field: Option<&Value>) -> Option<Option<&Map<String, Value>>> {
    match field {
        None | Some(Value::Null) => Some(None),
        Some(Value::Object(map)) => Some(Some(map)),
        Some(_) => None,
    }
}

/// An array field; absent or `null` is empty.
pub(super) fn array(field: Option<&Value>) -> Option<&[Value]> {
    match field {
        None | Some(Value::Null) => Some(&[]),
        Some(Value::Array(items)) => Some(items),
        Some(_) => None,
    }
}

/// A string field (see [`object`]).
pub(super) fn string(field: Option<&Value>) -> Option<Option<&str>> {
    match field {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s)),
        Some(_) => None,
    }
}

/// An `index` field: a non-negative integer (see [`object`]).
pub(super) fn index(field: Option<&Value>) -> Option<Option<u64>> {
    match field {
        None | Some(Value::Null) => Some(None),
        Some(v) => v.as_u64().map(Some),
    }
}
