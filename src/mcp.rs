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
//!   list arrives, or forwarded unjudged with a warning after `LIST_WAIT`;
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
//! capped (`MAX_TOOLS`, `MAX_LIST_BYTES`, `MAX_LIST_PAGES`); the caller
//! caps lines at `MAX_LINE_BYTES` and reports longer ones with
//! [`Proxy::client_oversized`] / [`Proxy::server_oversized`].
//!
//! Schemas given to the proxy (`--schemas`) come before learned ones.
//!
//! The files: `session` judges each line either way (calls, held calls,
//! pending requests, the server's exit); `listing` learns the server's tools
//! with the proxy's own `tools/list` requests; `oversized` answers for lines
//! past `MAX_LINE_BYTES`; `head` reads a line's `id` and `method` without
//! parsing the rest; `pull` is the client that pulls a server's tool schemas
//! for `callfix mcp-schemas`.

mod head;
mod listing;
mod oversized;
pub mod pull;
mod session;

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::filter::{Options, Summary};
use crate::provider::Call;
use crate::registry::Registry;
use crate::spelling::Spellings;
use crate::toolset::Toolset;
use crate::verdict::Verdict;

use listing::Listing;

/// The longest message line the proxy reads, either way (the filter's default
/// `--max-record-bytes`). A longer line is not forwarded; see
/// [`Proxy::client_oversized`] and [`Proxy::server_oversized`].
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// How much of an oversized line the caller keeps, to read its id from.
#[cfg(feature = "cli")]
pub(crate) const OVERSIZED_PREFIX_BYTES: usize = 64 * 1024;

/// The most tools learned from one listing; the rest are forwarded unjudged.
pub(crate) const MAX_TOOLS: usize = 10_000;

/// The most bytes of `tools/list` pages learned from one listing.
pub(crate) const MAX_LIST_BYTES: usize = 64 * 1024 * 1024;

/// The most `tools/list` pages asked for in one listing.
pub(crate) const MAX_LIST_PAGES: usize = 1_000;

/// How long a call to a tool not known yet is held for the tool list.
pub(crate) const LIST_WAIT: Duration = Duration::from_secs(5);

/// The most calls held at once; past it a call is forwarded unjudged.
pub(crate) const MAX_HELD: usize = 10_000;

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

/// The proxy's state for one client–server session: each line from the client
/// and from the server goes through it, and it says what to send where.
///
/// ```
/// use callfix::mcp::{FromClient, Proxy};
/// use callfix::Toolset;
/// use serde_json::json;
/// use std::time::Instant;
///
/// let given = Toolset::from_schemas([(
///     "read".to_owned(),
///     json!({"type": "object", "properties": {"limit": {"type": "integer"}},
///            "required": ["path"]}),
/// )]);
/// let mut proxy = Proxy::new(given);
/// let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read","arguments":{"limit":"5"}}}"#;
/// match proxy.from_client(call, Instant::now()).0 {
///     // Never reaches the server: the client gets the tool error at once.
///     FromClient::Answer(line) => {
///         let answer: serde_json::Value = serde_json::from_slice(&line).unwrap();
///         assert_eq!(answer["id"], 7);
///         assert_eq!(answer["result"]["isError"], true);
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug)]
pub struct Proxy {
    given: Registry,
    registry: Registry,
    options: Options,
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
    /// What the session saw (`--stats`); its loop memory holds the session's
    /// rejected calls.
    pub summary: Summary,
}

/// The MCP spec revision the proxy follows.
pub(crate) const SPEC_REVISION: &str = "2025-11-25";

impl Proxy {
    /// A proxy that judges calls with `tools`' options, against `tools` and
    /// the tools it learns from the server's `tools/list` (an empty toolset:
    /// only those).
    pub fn new(tools: Toolset) -> Self {
        let (given, options) = tools.into_parts();
        Proxy::with(given, options)
    }

    /// [`Proxy::new`], from its parts.
    pub(crate) fn with(given: Registry, options: Options) -> Self {
        Proxy {
            given,
            registry: Registry::default(),
            options,
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

    fn warn(&mut self, message: String) {
        self.out.push(Out::Warn(visible(&message)));
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

#[cfg(test)]
mod tests;
