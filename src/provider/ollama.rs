//! Ollama `/api/chat`: `{"model", "message": {"role": "assistant", "content",
//! "tool_calls": [{"function": {"name", "arguments": {…}}}]}, "done"}`. Unlike
//! OpenAI's, its calls carry no `type` and no id, and their arguments are an
//! object, and are written back as one.

use serde_json::{Map, Value, json};

use super::{Call, Provider, read_call};
use super::{Envelope, ProviderProblem};

pub(super) struct Ollama;

impl Provider for Ollama {
    fn name(&self) -> &'static str {
        "ollama"
    }

    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        let object_args = map
            .get("function")
            .and_then(|f| f.get("arguments"))
            .is_some_and(Value::is_object);
        if map.contains_key("type") || !object_args {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            self.name(),
            Envelope::Ollama,
            &["function", "name"],
            &["function", "arguments"],
            &[&["id"]],
        );
        Some(call.map(|c| vec![c]))
    }

    /// The response's one `message` (an object, not a list).
    fn containers(&self) -> &'static [(&'static str, Option<&'static str>)] {
        &[("message", None)]
    }

    fn new_call(&self, _id: &Value, name: &str, args: &Value) -> Value {
        json!({"function": {"name": name, "arguments": args}})
    }

    fn error_result(&self, _id: &Value, name: &str, message: &str) -> Value {
        json!({"role": "tool", "tool_name": name, "content": message})
    }

    fn ids(&self) -> super::Ids {
        super::Ids::None
    }

    fn new_message(&self, text: &str, calls: Vec<Value>) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), json!("assistant"));
        m.insert("content".into(), json!(text));
        if !calls.is_empty() {
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        Value::Object(m)
    }
}
