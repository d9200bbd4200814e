//! MCP: a JSON-RPC `tools/call` request
//! `{"jsonrpc":"2.0","id","method":"tools/call","params":{"name","arguments"}}`.
//! Other JSON-RPC messages hold no call.

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::convert::Ids;
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer};

pub(super) struct Mcp;

/// MCP reads, writes (calls one per line: it has no messages) and lists its
/// tools its own way.
pub(super) static ROLES: Roles = Roles {
    reader: Some(&Mcp),
    writer: &Mcp,
    api: &Mcp,
};

impl Reader for Mcp {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        if !map.has("jsonrpc") {
            return None;
        }
        if map.field("method").and_then(Value::as_str) != Some("tools/call") {
            return Some(Ok(Vec::new()));
        }
        if !map.field("params").is_some_and(Value::is_object) {
            return Some(Err(ProviderProblem::McpWithoutParams));
        }
        let call = read_call(
            std::mem::take(map),
            Provider::Mcp,
            Envelope::McpParams,
            &["params", "name"],
            &["params", "arguments"],
            &[&["id"]],
        );
        Some(call.map(|c| vec![c]))
    }
}

impl Writer for Mcp {
    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}})
    }

    fn has_messages(&self) -> bool {
        false
    }

    fn ids(&self) -> Ids {
        Ids::JsonRpc
    }

    fn error_result(&self, id: &Value, _name: &str, message: &str) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "result": {"content": [{"type": "text", "text": message}], "isError": true},
        })
    }
}

impl Api for Mcp {
    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"name": name, "description": description, "inputSchema": parameters})
    }

    /// A `tools/list` result.
    fn tools_payload(&self, definitions: Vec<Value>) -> Value {
        json!({ "tools": definitions })
    }
}
