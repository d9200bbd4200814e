//! Generic calls: `{"name", "arguments"|"args"|"input"|"parameters", "id"?}`, and
//! request bodies with `messages`. Arguments are written back in the form they
//! arrived in.

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::convert::Ids;
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer};

pub(super) struct Generic;

/// The generic shape reads, writes and has tool definitions of its own.
pub(super) static ROLES: Roles = Roles {
    reader: Some(&Generic),
    writer: &Generic,
    api: &Generic,
};

/// The arguments keys, in the order they are looked for.
const ARGS_AT: [&[&str]; 4] = [&["arguments"], &["args"], &["input"], &["parameters"]];

impl Reader for Generic {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        // A message with a `name` (OpenAI allows one) is not a call.
        if map.has("role") || !map.field("name").is_some_and(Value::is_string) {
            return None;
        }
        let args_at = ARGS_AT
            .into_iter()
            .find(|k| k.first().is_some_and(|k| map.has(k)))?;
        let call = read_call(
            std::mem::take(map),
            Provider::Generic,
            Envelope::Generic,
            &["name"],
            args_at,
            &[&["id"]],
        );
        Some(call.map(|c| vec![c]))
    }

    fn containers(&self) -> &'static [(&'static str, Option<&'static str>)] {
        &[("messages", None)]
    }
}

impl Writer for Generic {
    /// Text or object, as they arrived.
    fn keeps_args_form(&self) -> bool {
        true
    }

    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"id": id, "name": name, "arguments": args})
    }

    fn ids(&self) -> Ids {
        Ids::Optional
    }

    fn error_result(&self, id: &Value, name: &str, message: &str) -> Value {
        json!({"id": id, "name": name, "is_error": true, "content": message})
    }
}

impl Api for Generic {
    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"name": name, "description": description, "parameters": parameters})
    }
}
