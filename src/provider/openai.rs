//! OpenAI Chat Completions: `{"id","type":"function","function":{"name","arguments"}}`
//! tool calls, in an assistant message's `tool_calls`, in a completion's `choices`;
//! and the legacy `{"role": "assistant", "function_call": {"name", "arguments"}}`
//! message (no id; its result is a `role: function` message). Arguments travel as
//! JSON text.

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::keywords::Dialect;
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer, provider_name};

pub(super) struct OpenAi;

/// OpenAI reads, writes and has an API of its own (with a strict mode).
pub(super) static ROLES: Roles = Roles {
    reader: Some(&OpenAi),
    writer: &OpenAi,
    api: &OpenAi,
};

impl Reader for OpenAi {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        if map.field("function_call").is_some_and(Value::is_object) {
            let call = read_call(
                std::mem::take(map),
                Provider::OpenAi,
                Envelope::OpenAiFunctionCall,
                &["function_call", "name"],
                &["function_call", "arguments"],
                &[],
            );
            return Some(call.map(|c| vec![c]));
        }
        // Also without `type`, as some gateways send it.
        let typed = matches!(
            map.field("type").and_then(Value::as_str),
            None | Some("function")
        );
        if !typed || !map.field("function").is_some_and(Value::is_object) {
            return None;
        }
        let call = read_call(
            std::mem::take(map),
            Provider::OpenAi,
            Envelope::OpenAiFunction,
            &["function", "name"],
            &["function", "arguments"],
            &[&["id"]],
        );
        Some(call.map(|c| vec![c]))
    }

    fn containers(&self) -> &'static [(&'static str, Option<&'static str>)] {
        &[("choices", Some("message")), ("tool_calls", None)]
    }
}

impl Writer for OpenAi {
    fn args_as_text(&self) -> bool {
        true
    }

    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
    }

    /// A `role: tool` message; for a legacy `function_call` (no id), the
    /// `role: function` message that answered it.
    fn error_result(&self, id: &Value, name: &str, message: &str) -> Value {
        if id.is_null() {
            return json!({"role": "function", "name": name, "content": message});
        }
        json!({"role": "tool", "tool_call_id": id, "content": message})
    }
}

impl Api for OpenAi {
    fn dialect(&self, strict: bool) -> Option<Dialect> {
        strict.then_some(Dialect::OpenAiStrict)
    }

    /// `function.strict: true` when asked (the API's default is false).
    fn set_strict(&self, definition: &mut Value, strict: bool) {
        // The definition is ours (`tool_definition`): it has a `function`.
        if strict
            && let Some(function) = definition
                .field_mut("function")
                .and_then(Value::as_object_mut)
        {
            function.insert("strict".into(), Value::Bool(true));
        }
    }

    /// Names must match `^[a-zA-Z0-9_-]{1,64}$`.
    fn tool_name(&self, name: &str) -> String {
        provider_name(name)
    }
}
