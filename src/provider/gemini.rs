//! Gemini: `{"functionCall":{"name","args","id"?}}` parts, in a content's `parts`,
//! in a response's `candidates`. Arguments travel as an object.

use serde_json::{Map, Value, json};

use super::{Call, Provider, provider_name, read_call};
use super::{Envelope, ProviderProblem};

pub(super) struct Gemini;

impl Provider for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        if !map.get("functionCall").is_some_and(Value::is_object) {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            self.name(),
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
        map.contains_key("functionResponse")
            || (!map.contains_key("type") && map.get("text").is_some_and(Value::is_string))
    }

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
    fn ids(&self) -> super::Ids {
        super::Ids::Optional
    }

    /// One `user` content of `functionResponse` parts.
    fn results_messages(&self, results: Vec<Value>) -> Vec<Value> {
        vec![json!({"role": "user", "parts": results})]
    }

    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"name": name, "description": description, "parameters": parameters})
    }

    fn tools_payload(&self, definitions: Vec<Value>) -> Value {
        json!([{ "functionDeclarations": definitions }])
    }

    /// Its API refuses `additionalProperties` in function parameters.
    fn dialect(&self, _strict: bool) -> Option<super::keywords::Dialect> {
        Some(super::keywords::Dialect::Gemini)
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

    /// Names must be `[a-zA-Z0-9_-]`, at most 64 characters.
    fn tool_name(&self, name: &str) -> String {
        provider_name(name)
    }
}
