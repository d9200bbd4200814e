//! AWS Bedrock Converse: `{"toolUse": {"toolUseId", "name", "input"}}` blocks in
//! a message's `content`, in a response's `output.message`. Arguments travel as
//! an object.

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer, provider_name};

pub(super) struct Bedrock;

/// Bedrock reads, writes and has an API of its own.
pub(super) static ROLES: Roles = Roles {
    reader: Some(&Bedrock),
    writer: &Bedrock,
    api: &Bedrock,
};

/// Content blocks that are not calls (each is an object under one key).
const NOT_CALLS: [&str; 8] = [
    "text",
    "reasoningContent",
    "toolResult",
    "image",
    "document",
    "video",
    "guardContent",
    "cachePoint",
];

impl Reader for Bedrock {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        if !map.field("toolUse").is_some_and(Value::is_object) {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            Provider::Bedrock,
            Envelope::BedrockToolUse,
            &["toolUse", "name"],
            &["toolUse", "input"],
            &[&["toolUse", "toolUseId"]],
        );
        Some(call.map(|c| vec![c]))
    }

    /// A Converse response's `output` (an object holding the `message`).
    fn containers(&self) -> &'static [(&'static str, Option<&'static str>)] {
        &[("output", None)]
    }

    fn is_not_a_call(&self, map: &Map<String, Value>) -> bool {
        map.len() == 1 && map.keys().all(|k| NOT_CALLS.contains(&k.as_str()))
    }
}

impl Writer for Bedrock {
    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"toolUse": {"toolUseId": id, "name": name, "input": args}})
    }

    fn error_result(&self, id: &Value, _name: &str, message: &str) -> Value {
        json!({"toolResult": {"toolUseId": id, "content": [{"text": message}], "status": "error"}})
    }

    fn new_message(&self, text: &str, calls: Vec<Value>) -> Value {
        let mut content = Vec::new();
        if !text.trim().is_empty() {
            content.push(json!({ "text": text }));
        }
        content.extend(calls);
        json!({"role": "assistant", "content": content})
    }

    /// One `user` message of `toolResult` blocks.
    fn results_messages(&self, results: Vec<Value>) -> Vec<Value> {
        vec![json!({"role": "user", "content": results})]
    }
}

impl Api for Bedrock {
    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"toolSpec": {"name": name, "description": description, "inputSchema": {"json": parameters}}})
    }

    /// A `toolConfig`.
    fn tools_payload(&self, definitions: Vec<Value>) -> Value {
        json!({ "tools": definitions })
    }

    /// Names must match `^[a-zA-Z0-9_-]{1,64}$`.
    fn tool_name(&self, name: &str) -> String {
        provider_name(name)
    }
}
