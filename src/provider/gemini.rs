//! Gemini: `{"functionCall":{"name","args","id"?}}` parts, in a content's `parts`,
//! in a response's `candidates`. Arguments travel as an object.

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::convert::Ids;
use super::keywords::Dialect;
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer, provider_name};

pub(super) struct Gemini;

/// Gemini reads, writes and has an API of its own.
pub(super) static ROLES: Roles = Roles {
    reader: Some(&Gemini),
    writer: &Gemini,
    api: &Gemini,
};

impl Reader for Gemini {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        if !map.field("functionCall").is_some_and(Value::is_object) {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            Provider::Gemini,
            Envelope::GeminiFunctionCall,
            &["functionCall", "name"],
            &["functionCall", "args"],
            &[&["functionCall", "id"]],
        );
        Some(call.map(|c| vec![c]))
    }

    fn containers(&self) -> &'static [(&'static str, Option<&'static str>)] {
        &[
            ("candidates", Some("content")),
            ("parts", None),
            ("contents", None),
        ]
    }

    /// A text part (`{"text": "…"}`) or a function response.
    fn is_not_a_call(&self, map: &Map<String, Value>) -> bool {
        map.has("functionResponse")
            || (!map.has("type") && map.field("text").is_some_and(Value::is_string))
    }
}

impl Writer for Gemini {
    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        let mut call = Map::new();
        call.insert("name".into(), json!(name));
        call.insert("args".into(), args.clone());
        if !id.is_null() {
            call.insert("id".into(), id.clone());
        }
        json!({ "functionCall": call })
    }

    fn error_result(&self, id: &Value, name: &str, message: &str) -> Value {
        let mut response = Map::new();
        response.insert("name".into(), json!(name));
        response.insert("response".into(), json!({ "error": message }));
        if !id.is_null() {
            response.insert("id".into(), id.clone());
        }
        json!({ "functionResponse": response })
    }

    /// Optional: without one, a response is matched to its call by name.
    fn ids(&self) -> Ids {
        Ids::Optional
    }

    /// One `user` content of `functionResponse` parts.
    fn results_messages(&self, results: Vec<Value>) -> Vec<Value> {
        vec![json!({"role": "user", "parts": results})]
    }

    /// A `model` content: a text part (if any), then the functionCall parts.
    fn new_message(&self, text: &str, calls: Vec<Value>) -> Value {
        let mut parts = Vec::new();
        if !text.trim().is_empty() {
            parts.push(json!({"text": text}));
        }
        parts.extend(calls);
        json!({"role": "model", "parts": parts})
    }
}

impl Api for Gemini {
    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"name": name, "description": description, "parameters": parameters})
    }

    fn tools_payload(&self, definitions: Vec<Value>) -> Value {
        json!([{ "functionDeclarations": definitions }])
    }

    /// Its API refuses `additionalProperties` in function parameters.
    fn dialect(&self, _strict: bool) -> Option<Dialect> {
        Some(Dialect::Gemini)
    }

    /// Names must be `[a-zA-Z0-9_-]`, at most 64 characters.
    fn tool_name(&self, name: &str) -> String {
        provider_name(name)
    }
}
