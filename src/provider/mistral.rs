//! Mistral: OpenAI's chat shape (so its calls are read as OpenAI's), with a quirk
//! on the way out: tool-call ids must be exactly 9 alphanumeric characters.

use serde_json::{Value, json};

use super::roles::{Api, Roles, Writer, provider_name};

pub(super) struct Mistral;

/// Mistral writes and has an API of its own; its records are read as
/// OpenAI's.
pub(super) static ROLES: Roles = Roles {
    reader: None,
    writer: &Mistral,
    api: &Mistral,
};

impl Writer for Mistral {
    fn args_as_text(&self) -> bool {
        true
    }

    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
    }

    fn error_result(&self, id: &Value, name: &str, message: &str) -> Value {
        json!({"role": "tool", "tool_call_id": id, "name": name, "content": message})
    }

    /// Exactly 9 characters of `[a-zA-Z0-9]`, the same for the same input id. An
    /// id that already fits is kept.
    fn call_id(&self, id: &Value) -> Value {
        let text = match id {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        if text.len() == 9 && text.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Value::String(text);
        }
        Value::String(short_id(&text))
    }
}

impl Api for Mistral {
    fn tool_name(&self, name: &str) -> String {
        provider_name(name)
    }
}

/// 9 base-62 characters from a 64-bit FNV-1a hash of `text`.
fn short_id(text: &str) -> String {
    const ALPHABET: &[u8; 62] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut hash = crate::fnv::hash(text.as_bytes());
    (0..9)
        .map(|_| {
            let c = char::from(ALPHABET.get((hash % 62) as usize).copied().unwrap_or(b'0'));
            hash /= 62;
            c
        })
        .collect()
}
