//! OpenAI Responses: `{"type":"function_call","call_id","name","arguments"}` items,
//! in a response's `output`. Arguments travel as JSON text.

use serde_json::{Map, Value, json};

use super::{Call, Provider, provider_name, read_call};
use super::{Envelope, ProviderProblem};

pub(super) struct Responses;

/// Items of a response that are not calls.
const NOT_CALLS: [&str; 6] = [
    "reasoning",
    "message",
    "function_call_output",
    "input_text",
    "output_text",
    "web_search_call",
];

impl Provider for Responses {
    fn name(&self) -> &'static str {
        "openai-responses"
    }

    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        if map.get("type").and_then(Value::as_str) != Some("function_call") {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            self.name(),
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
        map.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| NOT_CALLS.contains(&t))
    }

    fn args_as_text(&self) -> bool {
        true
    }

    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"type": "function_call", "call_id": id, "name": name, "arguments": args})
    }

    fn error_result(&self, id: &Value, _name: &str, message: &str) -> Value {
        json!({"type": "function_call_output", "call_id": id, "output": message})
    }

    fn dialect(&self, strict: bool) -> Option<super::keywords::Dialect> {
        strict.then_some(super::keywords::Dialect::OpenAiStrict)
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

    fn tool_name(&self, name: &str) -> String {
        provider_name(name)
    }
}
