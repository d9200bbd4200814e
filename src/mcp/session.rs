//! The session's decisions: what becomes of each line from the client (a
//! `tools/call` judged, held or answered) and from the server, the calls held
//! for the tool list, and the requests left pending when the server exits.

use std::time::Instant;

use serde_json::{Value, json};

use super::head::{Head, scan_head};
use super::listing::{Fetch, Listing};
use super::{
    FromClient, FromServer, Held, Judged, LIST_WAIT, MAX_HELD, MAX_TOOLS, Out, Proxy, error, key,
};
use crate::filter::{Conversation, Judge, Tally};
use crate::provider::{self, Extracted};
use crate::registry::{Lookup, Registry};
use crate::spelling::Spellings;
use crate::verdict::Status;

impl Proxy {
    /// A line from the client, read at `now`; `judged` is the call it held, if
    /// the proxy judged one.
    pub fn from_client(&mut self, line: &[u8], now: Instant) -> (FromClient, Option<Judged>) {
        let (message, repeated) = match crate::json::parse_once(line) {
            Ok((message @ Value::Object(_), repeated)) => (message, repeated),
            Ok(_) => return (FromClient::Forward, None),
            Err(e) => return (self.unreadable(line, &e), None),
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|_| method.is_some()).cloned();
        if let Some(why) = &self.gone {
            return match id {
                Some(id) => (FromClient::Answer(error(&id, -32000, why)), None),
                None => (FromClient::Forward, None),
            };
        }
        if let Some(id) = &id
            && self.own.contains(&key(id))
        {
            let why = format!("request id {id} is in use by callfix's own request; use another");
            return (FromClient::Answer(error(id, -32600, &why)), None);
        }
        let initialized = method == Some("notifications/initialized");
        match method {
            Some("notifications/cancelled") => {
                if let Some(id) = message.pointer("/params/requestId") {
                    let id = key(id);
                    self.pending.remove(&id);
                    self.held.retain(|h| h.key != id);
                }
            }
            Some("tools/call") if id.is_some() => {
                if let Some(id) = &id
                    && self.must_wait(&message)
                {
                    self.held.push_back(Held {
                        key: key(id),
                        id: id.clone(),
                        line: line.to_vec(),
                        since: now,
                    });
                    return (FromClient::Hold, None);
                }
                let action = self.judge(message, line, repeated);
                if let (FromClient::Forward | FromClient::Rewrite(_), Some(id)) = (&action.0, id) {
                    self.pending.insert(key(&id), id);
                }
                return action;
            }
            Some("tools/call") => {
                // Without an id: judged all the same, but a rejection has no
                // one to go to.
                let (action, judged) = self.judge(message, line, repeated);
                if let FromClient::Answer(_) = action {
                    self.warn("a tools/call without an id was rejected and not forwarded".into());
                    return (FromClient::Drop, judged);
                }
                return (action, judged);
            }
            _ => {}
        }
        if let Some(id) = id {
            self.pending.insert(key(&id), id);
        }
        if initialized && matches!(self.listing, Listing::Idle) {
            self.start_listing();
        }
        (FromClient::Forward, None)
    }

    /// A client line that is not JSON callfix can read (nested too deeply, say):
    /// a `tools/call` with an id is answered as a tool error (the server might
    /// read and run it unjudged); anything else is the server's to answer.
    fn unreadable(&mut self, line: &[u8], e: &serde_json::Error) -> FromClient {
        let (id, method) = scan_head(line);
        match (id, method.as_ref().and_then(Value::as_str)) {
            (Some(id), Some("tools/call")) => {
                let text = format!(
                    "callfix cannot read this tools/call ({e}); send it again as plain JSON"
                );
                let answer = json!({"jsonrpc": "2.0", "id": id,
                    "result": {"content": [{"type": "text", "text": text}], "isError": true}});
                FromClient::Answer(answer.to_string().into_bytes())
            }
            _ => FromClient::Forward,
        }
    }

    /// Whether a call must wait for the tool list: its tool is not known and
    /// the list is not complete.
    fn must_wait(&mut self, message: &Value) -> bool {
        if matches!(
            &self.listing,
            Listing::Done | Listing::Fetching(Fetch { late: true, .. })
        ) {
            return false;
        }
        let tool = message.pointer("/params/name").and_then(Value::as_str);
        let Some(tool) = tool else { return false };
        if self.registry_of(tool).is_some() {
            return false;
        }
        if self.held.len() >= MAX_HELD {
            self.warn(format!(
                "{MAX_HELD} calls already wait for the tool list: a call to \"{tool}\" is forwarded unjudged"
            ));
            return false;
        }
        true
    }

    /// A line from the server.
    pub fn from_server(&mut self, line: &[u8]) -> FromServer {
        let Some(head) = Head::read(line) else {
            return FromServer::Forward;
        };
        match head.method.as_ref().map(Value::as_str) {
            Some(Some("notifications/tools/list_changed")) => {
                self.forget();
                FromServer::Forward
            }
            Some(_) => FromServer::Forward,
            None => {
                let Some(id) = head.id else {
                    return FromServer::Forward;
                };
                let id = key(&id);
                if self.own.remove(&id) {
                    self.list_page(&id, line);
                    return FromServer::Drop;
                }
                self.pending.remove(&id);
                FromServer::Forward
            }
        }
    }

    /// Releases the calls held since before `now - LIST_WAIT`: forwarded
    /// unjudged, with one warning.
    pub fn expire(&mut self, now: Instant) {
        let mut released = 0usize;
        while let Some(h) = self.held.front()
            && now.saturating_duration_since(h.since) >= LIST_WAIT
        {
            let Some(h) = self.held.pop_front() else {
                break;
            };
            self.pending.insert(h.key, h.id);
            self.out.push(Out::Server(h.line));
            released += 1;
        }
        if released > 0 {
            if let Listing::Fetching(fetch) = &mut self.listing {
                fetch.late = true;
            }
            self.warn(format!(
                "no tool list from the MCP server within {} s: {released} call(s) forwarded unjudged, and so are calls to tools not known until it comes",
                LIST_WAIT.as_secs()
            ));
        }
    }

    /// The server is gone: an error response for each request it never
    /// answered, and each call still held (one line each); none left pending,
    /// and every later request is answered the same way.
    pub fn server_gone(&mut self, why: &str) -> Vec<Vec<u8>> {
        self.gone = Some(why.to_owned());
        let mut ids: Vec<(String, Value)> = self.pending.drain().collect();
        ids.extend(self.held.drain(..).map(|h| (h.key, h.id)));
        ids.sort_by(|a, b| a.0.cmp(&b.0));
        ids.into_iter()
            .map(|(_, id)| error(&id, -32000, why))
            .collect()
    }

    /// The registry that holds `tool`: the given schemas first.
    fn registry_of(&self, tool: &str) -> Option<&Registry> {
        holder(&self.given, &self.registry, tool)
    }

    /// `repeated`: an object in the line names a key twice, so the server's
    /// JSON reader may make another call of it than callfix's.
    pub(super) fn judge(
        &mut self,
        message: Value,
        line: &[u8],
        repeated: bool,
    ) -> (FromClient, Option<Judged>) {
        let Some(tool) = message.pointer("/params/name").and_then(Value::as_str) else {
            return (FromClient::Forward, None);
        };
        let broken = match self.registry_of(tool).map(|r| r.lookup(tool)) {
            None | Some(Lookup::Unknown) => return (FromClient::Forward, None),
            Some(Lookup::Broken(e)) => Some(e.to_string()),
            Some(Lookup::Found(_)) => None,
        };
        if let Some(e) = broken {
            if !self.warned.contains(tool) && self.warned.len() < MAX_TOOLS {
                let warning = format!(
                    "tool \"{tool}\": callfix cannot compile its schema ({e}); its calls are forwarded unjudged (the server still validates them)"
                );
                self.warned.insert(tool.to_owned());
                self.warn(warning);
            }
            return (FromClient::Forward, None);
        }
        let Extracted::Calls(mut calls) = provider::extract(message, None) else {
            return (FromClient::Forward, None);
        };
        if repeated && let Some(first_wins) = crate::filter::first_wins(line) {
            first_wins.reject_differing(&mut calls, None);
        }
        let Some(mut call) = calls.pop() else {
            return (FromClient::Forward, None);
        };
        // Borrows the registries only: the summary is counted in below.
        let Some(registry) = holder(&self.given, &self.registry, &call.name) else {
            return (FromClient::Forward, None);
        };
        // Only known tools are judged, so `rename-tool` never applies.
        let judge = Judge::new(registry, &self.options);
        let mut verdict = judge.judge(&mut call, false);
        let conversation = Conversation::Input("mcp");
        let tally = Tally::Run(&mut self.summary, &conversation);
        judge.settle(&call.name, &mut verdict, tally);
        self.summary.records += 1;
        let spellings = Spellings::scan(line);
        let action = match verdict.status {
            Status::Valid => FromClient::Forward,
            Status::Repaired => {
                let args = verdict.args().unwrap_or(&Value::Null);
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

/// The registry of `given` and `learned` that holds `tool`: the given schemas
/// first.
fn holder<'r>(given: &'r Registry, learned: &'r Registry, tool: &str) -> Option<&'r Registry> {
    [given, learned]
        .into_iter()
        .find(|r| !matches!(r.lookup(tool), Lookup::Unknown))
}
