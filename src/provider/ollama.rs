//! Ollama `/api/chat`: `{"model", "message": {"role": "assistant", "content",
//! "tool_calls": [{"function": {"name", "arguments": {…}}}]}, "done"}`. Unlike
//! OpenAI's, its calls carry no `type` and no id, and their arguments are an
//! object, and are written back as one.

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::convert::Ids;
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer};

pub(super) struct Ollama;

/// Ollama reads and writes its own shapes; its tool definitions are OpenAI's.
pub(super) static ROLES: Roles = Roles {
    reader: Some(&Ollama),
    writer: &Ollama,
    api: &Ollama,
};

impl Reader for Ollama {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        let object_args = map
            .field("function")
            .and_then(|f| f.field("arguments"))
            .is_some_and(Value::is_object);
        if map.has("type") || !object_args {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            Provider::Ollama,
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
}

impl Writer for Ollama {
    fn new_call(&self, _id: &Value, name: &str, args: &Value) -> Value {
        json!({"function": {"name": name, "arguments": args}})
    }

    fn error_result(&self, _id: &Value, name: &str, message: &str) -> Value {
        json!({"role": "tool", "tool_name": name, "content": message})
    }

    fn ids(&self) -> Ids {
        Ids::None
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

impl Api for Ollama {}
