//! The MCP proxy's decisions (`callfix mcp`), without any I/O.
//!
//! The proxy sits between an MCP client and a server on the stdio transport:
//! newline-delimited JSON-RPC messages, one per line. [`Proxy`] is told every
//! line that passes each way and says what to do with it:
//!
//! - a client `tools/call` to a tool whose schema is known is judged like any
//!   other call: valid → forwarded as it came, byte for byte; repaired →
//!   forwarded with the repaired `arguments` (the only message ever rewritten);
//!   rejected → not forwarded: the proxy answers the client itself with a
//!   `CallToolResult` whose `isError` is true and whose text is the instruction
//!   (MCP 2025-11-25: input validation errors are tool execution errors, not
//!   JSON-RPC protocol errors);
//! - a call to a tool it knows no schema for is forwarded unchanged: the server
//!   decides;
//! - every other message, either way, is forwarded unchanged. The proxy only
//!   reads the server's `tools/list` results (every page) to learn the tools'
//!   `inputSchema`s, forgets them on `notifications/tools/list_changed`, and
//!   keeps the ids of requests the server has not answered yet, so that they can
//!   be answered with an error if the server exits.
//!
//! Schemas given to the proxy (`--schemas`) come before learned ones.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::filter::{Conversation, Loops, Options, Summary};
use crate::provider::{self, Call, Extracted};
use crate::registry::{Lookup, Registry};
use crate::spelling::Spellings;
use crate::verdict::{self, Status, Verdict};

/// What to do with a line from the client.
#[derive(Debug)]
pub enum FromClient {
    /// Send it to the server as it came.
    Forward,
    /// Send this instead (a `tools/call` with repaired arguments).
    Rewrite(Vec<u8>),
    /// Send nothing to the server: answer the client with this line.
    Answer(Vec<u8>),
}

/// A `tools/call` the proxy judged: for `--log` and `--stats`.
#[derive(Debug)]
pub struct Judged {
    /// The call, as read.
    pub call: Call,
    /// What became of it.
    pub verdict: Verdict,
    /// The number spellings of its message, to log numbers as sent.
    pub spellings: Spellings,
}

/// The proxy's state for one client–server session.
#[derive(Debug)]
pub struct Proxy {
    given: Registry,
    learned: Vec<(String, Value)>,
    registry: Registry,
    options: Options,
    loops: Loops,
    /// Client requests the server has not answered, by id (as JSON text).
    pending: HashMap<String, Value>,
    /// `tools/list` requests in flight, by id: whether each asks for the first
    /// page (a new list) or a later one.
    listing: HashMap<String, bool>,
    /// What the session saw (`--stats`).
    pub summary: Summary,
}

/// The MCP spec revision the proxy follows.
pub const SPEC_REVISION: &str = "2025-11-25";

impl Proxy {
    /// A proxy that judges with `options` against the `given` schemas and those
    /// it learns from the server.
    pub fn new(given: Registry, options: Options) -> Self {
        Proxy {
            given,
            learned: Vec::new(),
            registry: Registry::default(),
            options,
            loops: Loops::default(),
            pending: HashMap::new(),
            listing: HashMap::new(),
            summary: Summary::default(),
        }
    }

    /// The names of the tools learned from the server so far.
    pub fn learned(&self) -> impl Iterator<Item = &str> {
        self.learned.iter().map(|(n, _)| n.as_str())
    }

    /// A line from the client; `judged` is the call it held, if the proxy
    /// judged one.
    pub fn from_client(&mut self, line: &[u8]) -> (FromClient, Option<Judged>) {
        let Ok(message @ Value::Object(_)) = serde_json::from_slice::<Value>(line) else {
            return (FromClient::Forward, None);
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|_| method.is_some()).cloned();
        match (method, &id) {
            (Some("notifications/cancelled"), _) => {
                if let Some(id) = message.pointer("/params/requestId") {
                    self.pending.remove(&key(id));
                }
            }
            (Some("tools/list"), Some(id)) => {
                let first = message.pointer("/params/cursor").is_none();
                self.listing.insert(key(id), first);
            }
            _ => {}
        }
        let action = match (method, &id) {
            (Some("tools/call"), Some(_)) => self.judge(message, line),
            _ => (FromClient::Forward, None),
        };
        if let (FromClient::Forward | FromClient::Rewrite(_), Some(id)) = (&action.0, id) {
            self.pending.insert(key(&id), id);
        }
        action
    }

    /// A line from the server.
    pub fn from_server(&mut self, line: &[u8]) {
        let Ok(message @ Value::Object(_)) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        match message.get("method").and_then(Value::as_str) {
            Some("notifications/tools/list_changed") => self.forget(),
            Some(_) => {}
            None => {
                let Some(id) = message.get("id") else { return };
                let id = key(id);
                self.pending.remove(&id);
                if let Some(first) = self.listing.remove(&id)
                    && let Some(tools) = message.pointer("/result/tools")
                {
                    self.learn(tools, first);
                }
            }
        }
    }

    /// The server is gone: an error response for each request it never
    /// answered (one line each), and none left pending.
    pub fn server_gone(&mut self, why: &str) -> Vec<Vec<u8>> {
        let mut ids: Vec<(String, Value)> = self.pending.drain().collect();
        ids.sort_by(|a, b| a.0.cmp(&b.0));
        ids.into_iter()
            .map(|(_, id)| {
                let error = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32000, "message": why}});
                error.to_string().into_bytes()
            })
            .collect()
    }

    fn forget(&mut self) {
        self.learned.clear();
        self.registry = Registry::default();
    }

    fn learn(&mut self, tools: &Value, first_page: bool) {
        if first_page {
            self.learned.clear();
        }
        for tool in tools.as_array().into_iter().flatten() {
            if let (Some(name), Some(schema)) = (
                tool.get("name").and_then(Value::as_str),
                tool.get("inputSchema"),
            ) {
                self.learned.retain(|(n, _)| n != name);
                self.learned.push((name.to_owned(), schema.clone()));
            }
        }
        self.registry = Registry::from_schemas(self.learned.clone());
    }

    /// The registry that holds `tool`: the given schemas first.
    fn registry_of(&self, tool: &str) -> Option<&Registry> {
        [&self.given, &self.registry]
            .into_iter()
            .find(|r| !matches!(r.lookup(tool), Lookup::Unknown))
    }

    fn judge(&mut self, message: Value, line: &[u8]) -> (FromClient, Option<Judged>) {
        let tool = message.pointer("/params/name").and_then(Value::as_str);
        let Some(registry) = tool.and_then(|t| self.registry_of(t)) else {
            return (FromClient::Forward, None);
        };
        let Extracted::Calls(mut calls) = provider::extract(message, None) else {
            return (FromClient::Forward, None);
        };
        let Some(mut call) = calls.pop() else {
            return (FromClient::Forward, None);
        };
        // Only known tools are judged, so `rename-tool` never applies.
        let mut verdict = verdict::judge(registry, &mut call, self.options.policy);
        let conversation = Conversation::Input("mcp");
        self.loops
            .check(&conversation, &call.name, &mut verdict, &self.options);
        verdict.finish(&self.options.style, &call.name);
        self.summary.records += 1;
        self.summary.count(&call.name, &verdict);
        let spellings = Spellings::scan(line);
        let action = match verdict.status {
            Status::Valid => FromClient::Forward,
            Status::Repaired => {
                let args = verdict.args.as_ref().unwrap_or(&Value::Null);
                let message = provider::write_call(&call, args, &spellings);
                let mut out = Vec::with_capacity(line.len() + 16);
                // Writing to a Vec cannot fail.
                let _ = spellings.write(&mut out, &message);
                FromClient::Rewrite(out)
            }
            Status::Rejected => {
                let text = verdict.message.as_deref().unwrap_or_default();
                FromClient::Answer(provider::error_result(&call, text).to_string().into_bytes())
            }
        };
        let judged = Judged {
            call,
            verdict,
            spellings,
        };
        (action, Some(judged))
    }
}

/// A JSON-RPC id as a map key: its JSON text (`1` and `"1"` differ).
fn key(id: &Value) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests;
