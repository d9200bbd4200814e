//! A verdict's arguments: a value, or (a call valid as sent, answered by
//! `crate::tape`) the compact text the model sent, parsed only when a reader
//! asks for the value. Writers take the text as it is: a valid call is passed
//! on from its own bytes, with no value built.

use std::sync::OnceLock;

use serde_json::Value;

/// The arguments a verdict holds ([`super::Verdict::args`]).
#[derive(Debug, Clone)]
pub(crate) enum Arguments {
    /// A value: parsed, repaired, or as received by a rejection.
    Value(Value),
    /// Valid as sent: their compact JSON text (what
    /// [`Spellings::to_text`](crate::Spellings::to_text) writes for their
    /// value, in the plain subset `crate::tape` reads), and the value once
    /// asked for.
    Sent {
        text: String,
        value: OnceLock<Value>,
    },
}

impl Arguments {
    /// Arguments valid as sent, `text` their compact JSON.
    pub(crate) fn sent(text: String) -> Self {
        Arguments::Sent {
            text,
            value: OnceLock::new(),
        }
    }

    /// The value (parsed now, the first time, when it was kept as text).
    pub(crate) fn value(&self) -> &Value {
        match self {
            Arguments::Value(v) => v,
            Arguments::Sent { text, value } => value.get_or_init(|| parse(text)),
        }
    }

    /// The value, owned.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Arguments::Value(v) => v,
            Arguments::Sent { text, value } => value.into_inner().unwrap_or_else(|| parse(&text)),
        }
    }

    /// The compact text, when the arguments were kept as sent.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Arguments::Value(_) => None,
            Arguments::Sent { text, .. } => Some(text),
        }
    }
}

/// Two are equal when their values are, however they are kept (texts that
/// differ in key order hold equal values, as `Value`s compare).
impl PartialEq for Arguments {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

/// Text `crate::tape` read and its validator accepted: plain JSON that
/// `crate::json` parses (the tape reads a subset of it), so the fallback is
/// never taken.
fn parse(text: &str) -> Value {
    crate::json::parse_str(text).unwrap_or(Value::Null)
}
