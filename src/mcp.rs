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
//! - the proxy lists the server's tools itself ([`Proxy`] asks for
//!   `tools/list`, every page, with ids of its own) once the client has sent
//!   `notifications/initialized`, and again after every
//!   `notifications/tools/list_changed`. While that list is on its way, a call
//!   to a tool not known yet is held ([`FromClient::Hold`]) and judged when the
//!   list arrives, or forwarded unjudged with a warning after [`LIST_WAIT`];
//! - a call to a tool the server did not list is forwarded unchanged: the
//!   server decides; so is a call to a tool whose schema callfix cannot compile
//!   (one warning to the operator per tool);
//! - every other message, either way, is forwarded unchanged. The proxy keeps
//!   the ids of requests the server has not answered yet, so that they can be
//!   answered with an error if the server exits.
//!
//! What the proxy has to send besides (its own requests, released calls,
//! warnings for the operator, log entries) waits in an outbox the caller drains
//! with [`Proxy::take_out`] after each step.
//!
//! Costs: a line is parsed once (a server line without its `result`, unless it
//! answers the proxy's own list); learning a list is linear in its size and
//! capped ([`MAX_TOOLS`], [`MAX_LIST_BYTES`], [`MAX_LIST_PAGES`]); the caller
//! caps lines at [`MAX_LINE_BYTES`] and reports longer ones with
//! [`Proxy::client_oversized`] / [`Proxy::server_oversized`].
//!
//! Schemas given to the proxy (`--schemas`) come before learned ones.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use crate::filter::{Conversation, Loops, Options, Summary};
use crate::provider::{self, Call, Extracted};
use crate::registry::{Lookup, Registry};
use crate::spelling::Spellings;
use crate::verdict::{self, Status, Verdict};

/// The longest message line the proxy reads, either way (the filter's default
/// `--max-record-bytes`). A longer line is not forwarded; see
/// [`Proxy::client_oversized`] and [`Proxy::server_oversized`].
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// How much of an oversized line the caller keeps, to read its id from.
pub const OVERSIZED_PREFIX_BYTES: usize = 64 * 1024;

/// The most tools learned from one listing; the rest are forwarded unjudged.
pub const MAX_TOOLS: usize = 10_000;

/// The most bytes of `tools/list` pages learned from one listing.
pub const MAX_LIST_BYTES: usize = 64 * 1024 * 1024;

/// The most `tools/list` pages asked for in one listing.
pub const MAX_LIST_PAGES: usize = 1_000;

/// How long a call to a tool not known yet is held for the tool list.
pub const LIST_WAIT: Duration = Duration::from_secs(5);

/// The most calls held at once; past it a call is forwarded unjudged.
pub const MAX_HELD: usize = 10_000;

/// The JSON-RPC error code of a message over [`MAX_LINE_BYTES`].
const TOO_LARGE: i64 = -32600;

/// What to do with a line from the client.
#[derive(Debug)]
pub enum FromClient {
    /// Send it to the server as it came.
    Forward,
    /// Send this instead (a `tools/call` with repaired arguments).
    Rewrite(Vec<u8>),
    /// Send nothing to the server: answer the client with this line.
    Answer(Vec<u8>),
    /// Send nothing yet: the call waits for the tool list (see
    /// [`Proxy::take_out`] and [`Proxy::expire`]).
    Hold,
    /// Send nothing, answer nothing: a rejected `tools/call` without an id
    /// (a notification cannot be answered; a warning says so).
    Drop,
}

/// What to do with a line from the server.
#[derive(Debug, PartialEq, Eq)]
pub enum FromServer {
    /// Send it to the client as it came.
    Forward,
    /// It answers the proxy's own request: the client never sees it.
    Drop,
}

/// Something the proxy has to send or say, besides the line it was given.
#[derive(Debug)]
pub enum Out {
    /// A line for the server.
    Server(Vec<u8>),
    /// A line for the client.
    Client(Vec<u8>),
    /// A warning for the operator (stderr), control characters escaped.
    Warn(String),
    /// A judged call, for `--log` (boxed: it is the largest by far).
    Log(Box<Judged>),
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

/// A call waiting for the tool list.
#[derive(Debug)]
struct Held {
    key: String,
    id: Value,
    line: Vec<u8>,
    since: Instant,
}

/// The proxy's own `tools/list`, page by page.
#[derive(Debug)]
struct Fetch {
    /// The id (as JSON text) of the page asked for.
    id: String,
    tools: Vec<(String, Value)>,
    index: HashMap<String, usize>,
    pages: usize,
    bytes: usize,
    /// A `list_changed` came while this listing was on its way: start again.
    stale: bool,
    /// Calls waited [`LIST_WAIT`] for this listing: no more are held for it.
    late: bool,
}

#[derive(Debug)]
enum Listing {
    /// The client has not initialised the session yet.
    Idle,
    Fetching(Fetch),
    Done,
}

/// The proxy's state for one client–server session.
#[derive(Debug)]
pub struct Proxy {
    given: Registry,
    registry: Registry,
    options: Options,
    loops: Loops,
    /// Client requests the server has not answered, by id (as JSON text).
    pending: HashMap<String, Value>,
    /// The proxy's own requests in flight, by id (as JSON text).
    own: HashSet<String>,
    next_own: u64,
    listing: Listing,
    held: VecDeque<Held>,
    /// Tools whose broken schema the operator was told about.
    warned: HashSet<String>,
    out: Vec<Out>,
    /// Why the server is gone, once it is.
    gone: Option<String>,
    /// What the session saw (`--stats`).
    pub summary: Summary,
}

/// The MCP spec revision the proxy follows.
pub const SPEC_REVISION: &str = "2025-11-25";

/// The fields of a message the proxy reads without building the rest.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
}

/// An `id` that is there, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Head {
    /// The method and id of a JSON-RPC object line, `None` if it is not one.
    /// Only these two fields are built: the rest is checked and skipped.
    fn read(line: &[u8]) -> Option<Head> {
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            return None;
        }
        match serde_json::from_slice::<Head>(line) {
            Ok(head) => Some(head),
            // Duplicate keys, say: read it as the full parse would.
            Err(_) => match serde_json::from_slice::<Value>(line) {
                Ok(Value::Object(mut map)) => Some(Head {
                    method: map.remove("method"),
                    id: map.remove("id"),
                }),
                // Nested too deeply to parse, say: what a scan can see.
                _ => {
                    let (id, method) = scan_head(line);
                    (id.is_some() || method.is_some()).then_some(Head { method, id })
                }
            },
        }
    }
}

/// A `tools/list` answer, read without what the proxy does not use (tool
/// descriptions, annotations, output schemas, tools past [`MAX_TOOLS`]).
#[derive(Deserialize)]
struct Page {
    #[serde(default)]
    result: Option<PageResult>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct PageResult {
    #[serde(default)]
    tools: Tools,
    #[serde(default, rename = "nextCursor")]
    next_cursor: Option<Value>,
}

/// A page's tools: the first [`MAX_TOOLS`] names that have an `inputSchema`
/// (a name listed twice: its later schema, in its first place), and whether
/// more came.
#[derive(Default)]
struct Tools {
    kept: Vec<(String, Value)>,
    more: bool,
}

impl<'de> Deserialize<'de> for Tools {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Tools;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of tools")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Tools, A::Error> {
                let mut tools = Tools::default();
                let mut index = HashMap::new();
                while tools.kept.len() < MAX_TOOLS {
                    match seq.next_element::<Tool>()? {
                        Some(Tool(Some((name, schema)))) => match index.get(&name) {
                            Some(&i) => {
                                if let Some(slot) = tools.kept.get_mut(i) {
                                    *slot = (name, schema);
                                }
                            }
                            None => {
                                index.insert(name.clone(), tools.kept.len());
                                tools.kept.push((name, schema));
                            }
                        },
                        Some(Tool(None)) => {}
                        None => return Ok(tools),
                    }
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    tools.more = true;
                }
                Ok(tools)
            }
        }
        d.deserialize_any(Visit)
    }
}

/// One tool's name and `inputSchema`, if it is an object that has both.
struct Tool(Option<(String, Value)>);

impl<'de> Deserialize<'de> for Tool {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Tool;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tool")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Tool, A::Error> {
                let (mut name, mut schema) = (None, None);
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*k {
                        "name" => name = map.next_value::<Value>()?.as_str().map(str::to_owned),
                        "inputSchema" => schema = Some(map.next_value::<Value>()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Tool(name.zip(schema)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Tool, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Tool(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_unit<E>(self) -> Result<Tool, E> {
                Ok(Tool(None))
            }
        }
        d.deserialize_any(Visit)
    }
}

impl Proxy {
    /// A proxy that judges with `options` against the `given` schemas and those
    /// it learns from the server.
    pub fn new(given: Registry, options: Options) -> Self {
        Proxy {
            given,
            registry: Registry::default(),
            options,
            loops: Loops::default(),
            pending: HashMap::new(),
            own: HashSet::new(),
            next_own: 0,
            listing: Listing::Idle,
            held: VecDeque::new(),
            warned: HashSet::new(),
            out: Vec::new(),
            gone: None,
            summary: Summary::default(),
        }
    }

    /// The names of the tools learned from the server so far.
    pub fn learned(&self) -> impl Iterator<Item = &str> {
        self.registry.names()
    }

    /// Whether calls are waiting for the tool list.
    pub fn holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// What the proxy has to send or say besides the line it was last given, in
    /// order: send it after acting on that line.
    pub fn take_out(&mut self) -> Vec<Out> {
        std::mem::take(&mut self.out)
    }

    /// A line from the client, read at `now`; `judged` is the call it held, if
    /// the proxy judged one.
    pub fn from_client(&mut self, line: &[u8], now: Instant) -> (FromClient, Option<Judged>) {
        let message = match serde_json::from_slice::<Value>(line) {
            Ok(message @ Value::Object(_)) => message,
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
                let action = self.judge(message, line);
                if let (FromClient::Forward | FromClient::Rewrite(_), Some(id)) = (&action.0, id) {
                    self.pending.insert(key(&id), id);
                }
                return action;
            }
            Some("tools/call") => {
                // Without an id: judged all the same, but a rejection has no
                // one to go to.
                let (action, judged) = self.judge(message, line);
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

    /// A line from the client over [`MAX_LINE_BYTES`], of which `prefix` is the
    /// start: it is not forwarded. The answer for the client: an error for its
    /// id if the prefix shows it, else a parse error with id `null`.
    pub fn client_oversized(&mut self, prefix: &[u8], len: usize) -> Vec<u8> {
        let (id, _) = scan_head(prefix);
        self.warn(format!(
            "a message from the client of more than {MAX_LINE_BYTES} bytes ({len} read) was not forwarded"
        ));
        let why = format!("the message is larger than callfix's limit of {MAX_LINE_BYTES} bytes");
        match id {
            Some(id) => error(&id, TOO_LARGE, &why),
            None => error(&Value::Null, -32700, &why),
        }
    }

    /// A line from the server over [`MAX_LINE_BYTES`], of which `prefix` is the
    /// start: it is not forwarded. The client request it answers gets an error
    /// instead; a request from the server gets an error back.
    pub fn server_oversized(&mut self, prefix: &[u8], len: usize) {
        self.warn(format!(
            "a message from the MCP server of more than {MAX_LINE_BYTES} bytes ({len} read) was not forwarded"
        ));
        let why = format!(
            "the MCP server's message is larger than callfix's limit of {MAX_LINE_BYTES} bytes"
        );
        let (id, method) = scan_head(prefix);
        let Some(id) = id else { return };
        let k = key(&id);
        if method.is_some() {
            self.out.push(Out::Server(error(&id, TOO_LARGE, &why)));
        } else if self.own.remove(&k) {
            if matches!(&self.listing, Listing::Fetching(f) if f.id == k) {
                self.warn(format!("the MCP server's tool list is incomplete: {why}"));
                self.finish_listing();
            }
        } else if let Some(id) = self.pending.remove(&k) {
            self.out.push(Out::Client(error(&id, -32603, &why)));
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

    fn warn(&mut self, message: String) {
        self.out.push(Out::Warn(visible(&message)));
    }

    /// The tools changed: forget them and list them again.
    fn forget(&mut self) {
        self.registry = Registry::default();
        match &mut self.listing {
            Listing::Idle => {}
            Listing::Fetching(fetch) => fetch.stale = true,
            Listing::Done => self.start_listing(),
        }
    }

    /// Asks the server for the first page of its tools.
    fn start_listing(&mut self) {
        let id = self.own_id();
        self.listing = Listing::Fetching(Fetch {
            id: key(&id),
            tools: Vec::new(),
            index: HashMap::new(),
            pages: 0,
            bytes: 0,
            stale: false,
            late: false,
        });
        self.request_page(&id, None);
    }

    fn request_page(&mut self, id: &Value, cursor: Option<&Value>) {
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        if let (Some(cursor), Some(map)) = (cursor, request.as_object_mut()) {
            map.insert("params".into(), json!({ "cursor": cursor }));
        }
        self.own.insert(key(id));
        self.out.push(Out::Server(request.to_string().into_bytes()));
    }

    /// An id for the proxy's own request: a string no pending client request
    /// uses (and a client request that uses one later is refused).
    fn own_id(&mut self) -> Value {
        loop {
            self.next_own += 1;
            let id = Value::String(format!("callfix-tools-list-{}", self.next_own));
            if !self.pending.contains_key(&key(&id)) {
                return id;
            }
        }
    }

    /// The answer to the proxy's own `tools/list` request `id`.
    fn list_page(&mut self, id: &str, line: &[u8]) {
        let Listing::Fetching(fetch) = &mut self.listing else {
            return;
        };
        if fetch.id != id {
            return; // an answer to a listing started over
        }
        if fetch.stale {
            self.start_listing();
            return;
        }
        let page = serde_json::from_slice::<Page>(line).ok();
        let Some(result) = page.as_ref().and_then(|p| p.result.as_ref()) else {
            let error = page.and_then(|p| p.error).unwrap_or(Value::Null);
            if error.get("code").and_then(Value::as_i64) != Some(-32601) {
                let why = error.get("message").and_then(Value::as_str);
                self.warn(format!(
                    "the MCP server did not list its tools ({}): calls are forwarded unjudged",
                    why.unwrap_or("no result")
                ));
            }
            self.finish_listing();
            return;
        };
        fetch.pages += 1;
        fetch.bytes = fetch.bytes.saturating_add(line.len());
        let mut warning = None;
        if fetch.bytes > MAX_LIST_BYTES {
            warning = Some(format!(
                "the MCP server's tool list is larger than {MAX_LIST_BYTES} bytes: the tools past it are not learned, and calls to them are forwarded unjudged"
            ));
        } else {
            for (name, schema) in &result.tools.kept {
                if let Some(&i) = fetch.index.get(name) {
                    if let Some(slot) = fetch.tools.get_mut(i) {
                        slot.1 = schema.clone();
                    }
                    continue;
                }
                if fetch.tools.len() >= MAX_TOOLS {
                    break;
                }
                fetch.index.insert(name.clone(), fetch.tools.len());
                fetch.tools.push((name.clone(), schema.clone()));
            }
            if fetch.tools.len() >= MAX_TOOLS
                && (result.tools.more
                    || result
                        .tools
                        .kept
                        .iter()
                        .any(|(n, _)| !fetch.index.contains_key(n)))
            {
                warning = Some(format!(
                    "the MCP server lists more than {MAX_TOOLS} tools: only the first {MAX_TOOLS} are learned, and calls to the others are forwarded unjudged"
                ));
            }
        }
        let cursor = result.next_cursor.as_ref().filter(|c| !c.is_null());
        if warning.is_none()
            && let Some(cursor) = cursor
        {
            if fetch.pages < MAX_LIST_PAGES {
                let next = cursor.clone();
                let id = self.own_id();
                if let Listing::Fetching(fetch) = &mut self.listing {
                    fetch.id = key(&id);
                }
                self.request_page(&id, Some(&next));
                return;
            }
            warning = Some(format!(
                "the MCP server's tool list has more than {MAX_LIST_PAGES} pages: the tools past them are not learned, and calls to them are forwarded unjudged"
            ));
        }
        if let Some(warning) = warning {
            self.warn(warning);
        }
        self.finish_listing();
    }

    /// The listing is over: learn what it gathered and release the held calls.
    fn finish_listing(&mut self) {
        let listing = std::mem::replace(&mut self.listing, Listing::Done);
        if let Listing::Fetching(fetch) = listing {
            self.registry = Registry::from_schemas(fetch.tools);
        }
        let held = std::mem::take(&mut self.held);
        for h in held {
            let Ok(message) = serde_json::from_slice::<Value>(&h.line) else {
                continue; // it was read as JSON when it was held
            };
            let (action, judged) = self.judge(message, &h.line);
            if let Some(judged) = judged {
                self.out.push(Out::Log(Box::new(judged)));
            }
            match action {
                FromClient::Forward | FromClient::Hold | FromClient::Drop => {
                    self.pending.insert(h.key, h.id);
                    self.out.push(Out::Server(h.line));
                }
                FromClient::Rewrite(out) => {
                    self.pending.insert(h.key, h.id);
                    self.out.push(Out::Server(out));
                }
                FromClient::Answer(out) => self.out.push(Out::Client(out)),
            }
        }
    }

    /// The registry that holds `tool`: the given schemas first.
    fn registry_of(&self, tool: &str) -> Option<&Registry> {
        [&self.given, &self.registry]
            .into_iter()
            .find(|r| !matches!(r.lookup(tool), Lookup::Unknown))
    }

    fn judge(&mut self, message: Value, line: &[u8]) -> (FromClient, Option<Judged>) {
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
        let Some(mut call) = calls.pop() else {
            return (FromClient::Forward, None);
        };
        let Some(registry) = self.registry_of(&call.name) else {
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

/// A JSON-RPC error response line.
fn error(id: &Value, code: i64, message: &str) -> Vec<u8> {
    let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    error.to_string().into_bytes()
}

/// A JSON-RPC id as a map key: its JSON text (`1` and `"1"` differ).
fn key(id: &Value) -> String {
    id.to_string()
}

/// `text` with control characters (C0, DEL, C1), U+0085 and the line and
/// paragraph separators written as `\u{…}`: a warning is one line, and what
/// the server or the client chose cannot drive the operator's terminal.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// The top-level `id` and `method` of a JSON object whose text starts with
/// `prefix`, each if it comes whole within it (a `method` that cannot be read
/// is `null`). One pass, without recursion: other values are skipped by
/// counting brackets, so neither a cut nor deep nesting stops the scan before
/// it reaches them.
fn scan_head(prefix: &[u8]) -> (Option<Value>, Option<Value>) {
    let mut at = skip_space(prefix, 0);
    if prefix.get(at) != Some(&b'{') {
        return (None, None);
    }
    at += 1;
    let (mut id, mut method) = (None, None);
    loop {
        at = skip_space(prefix, at);
        let Some(rest) = prefix.get(at..) else { break };
        let mut keys = serde_json::Deserializer::from_slice(rest).into_iter::<String>();
        let Some(Ok(name)) = keys.next() else { break };
        at += keys.byte_offset();
        at = skip_space(prefix, at);
        if prefix.get(at) != Some(&b':') {
            break;
        }
        at = skip_space(prefix, at + 1);
        let Some(end) = skip_value(prefix, at) else {
            break;
        };
        // A value is whole only when what follows it is seen (`1` may be `12`).
        let after = skip_space(prefix, end);
        let next = prefix.get(after);
        if !matches!(next, Some(b',' | b'}')) {
            break;
        }
        if name == "id" || name == "method" {
            let text = prefix.get(at..end).unwrap_or_default();
            let value = serde_json::from_slice::<Value>(text).ok();
            if name == "id" {
                id = value;
            } else {
                method = Some(value.unwrap_or(Value::Null));
            }
        }
        if next == Some(&b'}') {
            break;
        }
        at = after + 1;
    }
    (id, method)
}

/// Where the JSON value that starts at `from` ends, found by counting brackets
/// outside strings (no recursion, not a validation); `None` if `text` ends
/// first.
fn skip_value(text: &[u8], from: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let rest = text.get(from..)?;
    for (i, &b) in rest.iter().enumerate() {
        let at = from + i;
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth == 0 => return Some(at),
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            b',' if depth == 0 => return Some(at),
            b if depth == 0 && b.is_ascii_whitespace() => return Some(at),
            _ => {}
        }
    }
    None
}

fn skip_space(text: &[u8], from: usize) -> usize {
    let rest = text.get(from..).unwrap_or_default();
    from + rest.iter().take_while(|b| b.is_ascii_whitespace()).count()
}

#[cfg(test)]
mod tests;
