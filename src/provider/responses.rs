//! OpenAI Responses: `{"type":"function_call","call_id","name","arguments"}` items,
//! in a response's `output`. Arguments travel as JSON text.

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::keywords::Dialect;
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer, provider_name};

pub(super) struct Responses;

/// The Responses API reads, writes and has tool definitions of its own.
pub(super) static ROLES: Roles = Roles {
    reader: Some(&Responses),
    writer: &Responses,
    api: &Responses,
};

/// Items of a response that are not calls.
const NOT_CALLS: [&str; 6] = [
    "reasoning",
    "message",
    "function_call_output",
    "input_text",
    "output_text",
    "web_search_call",
];

impl Reader for Responses {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        if map.field("type").and_then(Value::as_str) != Some("function_call") {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            Provider::OpenAiResponses,
            Envelope::ResponsesFunctionCall,
            &["name"],
            &["arguments"],
            &[&["call_id"], &["id"]],
        );
        Some(call.map(|c| vec![c]))
    }

    fn containers(&self) -> &'static [(&'static str, Option<&'static str>)] {
        &[("output", None)]
    }

    fn is_not_a_call(&self, map: &Map<String, Value>) -> bool {
        map.field("type")
            .and_then(Value::as_str)
            .is_some_and(|t| NOT_CALLS.contains(&t))
    }
}

impl Writer for Responses {
    fn args_as_text(&self) -> bool {
        true
    }

    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"type": "function_call", "call_id": id, "name": name, "arguments": args})
    }

    fn error_result(&self, id: &Value, _name: &str, message: &str) -> Value {
        json!({"type": "function_call_output", "call_id": id, "output": message})
    }

    /// Output items: the message (if it has text), then the function_call items.
    fn new_message(&self, text: &str, calls: Vec<Value>) -> Value {
        let mut items = Vec::new();
        if !text.trim().is_empty() {
            // The input shape of an assistant message (an output message
            // needs an id and a status the record may not have).
            items.push(json!({"type": "message", "role": "assistant", "content": text}));
        }
        items.extend(calls);
        Value::Array(items)
    }
}

impl Api for Responses {
    fn dialect(&self, strict: bool) -> Option<Dialect> {
        strict.then_some(Dialect::OpenAiStrict)
    }

    /// Always written: the Responses API's default is `strict: true`, which
    /// refuses most schemas as they are.
    fn set_strict(&self, definition: &mut Value, strict: bool) {
        if let Some(definition) = definition.as_object_mut() {
            definition.insert("strict".into(), Value::Bool(strict));
        }
    }

    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"type": "function", "name": name, "description": description, "parameters": parameters})
    }

    fn tool_name(&self, name: &str) -> String {
        provider_name(name)
    }
}
