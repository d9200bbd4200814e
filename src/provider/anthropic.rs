//! Anthropic Messages: `{"type":"tool_use","id","name","input"}` blocks in a
//! message's `content`. Arguments travel as an object.

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer, provider_name};

pub(super) struct Anthropic;

/// Anthropic reads, writes and has an API of its own.
pub(super) static ROLES: Roles = Roles {
    reader: Some(&Anthropic),
    writer: &Anthropic,
    api: &Anthropic,
};

/// Content blocks that are not calls.
const NOT_CALLS: [&str; 6] = [
    "text",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "tool_result",
];

impl Reader for Anthropic {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        if map.field("type").and_then(Value::as_str) != Some("tool_use") {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            Provider::Anthropic,
            Envelope::AnthropicToolUse,
            &["name"],
            &["input"],
            &[&["id"]],
        );
        Some(call.map(|c| vec![c]))
    }

    fn containers(&self) -> &'static [(&'static str, Option<&'static str>)] {
        &[("content", None)]
    }

    fn is_not_a_call(&self, map: &Map<String, Value>) -> bool {
        map.field("type")
            .and_then(Value::as_str)
            .is_some_and(|t| NOT_CALLS.contains(&t))
    }
}

impl Writer for Anthropic {
    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"type": "tool_use", "id": id, "name": name, "input": args})
    }

    fn error_result(&self, id: &Value, _name: &str, message: &str) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "is_error": true, "content": message})
    }

    /// One `user` message of `tool_result` blocks.
    fn results_messages(&self, results: Vec<Value>) -> Vec<Value> {
        vec![json!({"role": "user", "content": results})]
    }

    /// Text first, then the tool_use blocks, in one message; an empty text block
    /// is left out (the API rejects empty text).
    fn new_message(&self, text: &str, calls: Vec<Value>) -> Value {
        let mut content = Vec::new();
        if !text.trim().is_empty() {
            content.push(json!({"type": "text", "text": text}));
        }
        content.extend(calls);
        json!({"role": "assistant", "content": content})
    }
}

impl Api for Anthropic {
    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"name": name, "description": description, "input_schema": parameters})
    }

    /// Names must match `^[a-zA-Z0-9_-]{1,64}$`.
    fn tool_name(&self, name: &str) -> String {
        provider_name(name)
    }
}
