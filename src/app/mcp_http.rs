//! `callfix mcp --url URL`: the MCP server over Streamable HTTP (revision
//! 2025-11-25), the client over stdio as ever.
//!
//! Each line for the server (the client's, or the proxy's own `tools/list`)
//! is one POST with `Accept: application/json, text/event-stream`:
//! - a request (`method` and `id`) runs on a thread of its own (at most
//!   [`MAX_IN_FLIGHT`]; past that it is answered with an error at once), so a
//!   long tool call holds nothing else up; its answer is a JSON body (one
//!   message) or an event stream (the server's requests and notifications, then
//!   the answer), read until the answer;
//! - `initialize`, notifications and responses are sent in order, on the
//!   thread that reads the client, before anything read after them: the server
//!   sees `notifications/initialized` before the requests that follow it. Each
//!   has [`SHORT`] to be accepted (202).
//!
//! Every message from the server goes through the proxy's from-server path
//! ([`from_server`]) and reaches the client as the server sent it, one per line:
//! surrounding whitespace dropped, and a message whose text holds line breaks
//! (an SSE event of several `data:` lines, a pretty-printed body) has them
//! written as spaces if it is JSON (where they can only be whitespace), and is
//! dropped with a warning if it is not. A message over [`MAX_LINE_BYTES`] is
//! read no further and answered for as on stdio.
//!
//! The session: the `Mcp-Session-Id` of the `initialize` answer and the
//! `protocolVersion` it agreed go with every later request (the latter as
//! `MCP-Protocol-Version`). Once `notifications/initialized` is accepted, a GET
//! opens the stream of messages the server starts itself (405: it has none;
//! when it ends it is opened again after the `retry` the server asked for,
//! with `Last-Event-ID`). A request's event stream that ends before its answer,
//! after an event id, is resumed the same way (the polling of 2025-11-25: a
//! server may close the stream and keep the events), while each stream brings
//! something. A 404 to a request that carries the session id
//! means the server ended the session: callfix cannot start another behind
//! the client's back (the client initialized this one), so the proxy ends as
//! when a stdio server exits. When the client ends, the session is ended with
//! DELETE.
//!
//! Failures: a request the server never answers (it cannot be reached, it
//! answers with an HTTP error status, a body that is not JSON or SSE, or a
//! stream that ends first) gets a JSON-RPC error naming what happened (the
//! status, and the server's own error message if its body has one).
//!
//! Timeouts: connecting has [`CONNECT`]; a request then has no time limit (a
//! tool may run for minutes; the client cancels). Proxies: `HTTPS_PROXY`,
//! `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` as curl reads them, except for a
//! server on the loopback interface, reached directly. TLS: rustls, with the
//! Mozilla roots (webpki-roots) built in.

use std::collections::HashSet;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::Agent;
use ureq::http::{Response, StatusCode};

use super::cli::McpArgs;
use super::mcp::{self, End, Line, Remote, Shared, Upstream, from_server, lock};
use super::{Ctx, Ended, report};

mod head;
mod read;

use head::head;
use read::content_type;

/// The most requests waiting for the server at once.
const MAX_IN_FLIGHT: usize = 512;

/// How long connecting to the server may take.
const CONNECT: Duration = Duration::from_secs(10);

/// How long a notification or a response may take to be accepted, and the
/// session's DELETE.
const SHORT: Duration = Duration::from_secs(30);

/// How many event streams opened with GET in a row may bring nothing (no
/// event, no new event id) before callfix stops opening them.
const GET_TRIES: u32 = 3;

/// The most times one request's event stream is resumed.
const MAX_RESUMES: usize = 1000;

/// The JSON-RPC error code of a request the HTTP exchange failed.
const FAILED: i64 = -32000;

/// `callfix mcp --url URL`: the session of `mcp.rs`, the server over HTTP. It
/// ends when the client does (callfix then waits up to `--grace` for the
/// answers still on their way, and ends the HTTP session with DELETE), or when
/// the server ends the session (HTTP 404 to a request that carries its session
/// id): every request pending gets an error, and callfix exits 1.
pub(super) fn command(args: &McpArgs, ctx: &Ctx) -> anyhow::Result<Ended> {
    let Some(url) = &args.url else {
        anyhow::bail!("no --url given");
    };
    let config = Config::new(url, &args.header)?;
    let given = mcp::given(args)?;
    let log = mcp::open_log(args)?;
    let (tx, rx) = mpsc::channel();
    let mut made = None;
    let shared = Arc::new_cyclic(|weak| {
        let http = Arc::new(Http::new(config, weak.clone(), tx.clone()));
        made = Some(Arc::clone(&http));
        Shared::new(args, ctx, given, log, Upstream::Remote(http))
    });
    let Some(http) = made else {
        anyhow::bail!("the HTTP upstream was not made");
    };
    mcp::start_client(&shared, tx);
    let grace = Duration::from_secs_f64(args.grace.max(0.0));
    let ended = match mcp::wait_end(&shared, &rx) {
        End::Server => {
            let why = http
                .gone()
                .unwrap_or_else(|| "the MCP server is gone".to_owned());
            mcp::server_gone(&shared, &rx, &why, grace);
            ctx.report("note:", &why);
            Ended::Server(1)
        }
        End::Client => {
            // Answers on their way reach the client; then the session ends.
            http.wait_idle(grace);
            http.close();
            Ended::Clean
        }
    };
    mcp::finish(&shared, args);
    Ok(ended)
}

/// `--url` and `--header`, checked.
struct Config {
    url: String,
    headers: Vec<(String, String)>,
    agent: Agent,
}

impl Config {
    fn new(url: &str, headers: &[(String, String)]) -> anyhow::Result<Self> {
        let uri: ureq::http::Uri = url
            .parse()
            .map_err(|e| anyhow::anyhow!("--url {url}: {e}"))?;
        let loopback = uri.host().is_some_and(|h| {
            let h = h.trim_start_matches('[').trim_end_matches(']');
            h.eq_ignore_ascii_case("localhost")
                || h.parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        });
        let proxy = if loopback {
            None
        } else {
            ureq::Proxy::try_from_env()
        };
        let agent: Agent = Agent::config_builder()
            .timeout_connect(Some(CONNECT))
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .proxy(proxy)
            .user_agent(concat!("callfix/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(Config {
            url: url.to_owned(),
            headers: headers.to_vec(),
            agent,
        })
    }
}

/// The HTTP upstream of one session.
struct Http {
    config: Config,
    /// `Mcp-Session-Id`, once the server gave one.
    session: Mutex<Option<String>>,
    /// The protocol version `initialize` agreed.
    version: Mutex<Option<String>>,
    shared: Weak<Shared>,
    ended: Mutex<mpsc::Sender<End>>,
    in_flight: Mutex<usize>,
    idle: Condvar,
    /// Why the session is over, once it is.
    gone: Mutex<Option<String>>,
    /// Whether the GET stream was opened.
    listening: AtomicBool,
    /// Requests the client cancelled (ids as JSON text), while in flight.
    cancelled: Mutex<HashSet<String>>,
}

impl Http {
    fn new(config: Config, shared: Weak<Shared>, ended: mpsc::Sender<End>) -> Self {
        Http {
            config,
            session: Mutex::new(None),
            version: Mutex::new(None),
            shared,
            ended: Mutex::new(ended),
            in_flight: Mutex::new(0),
            idle: Condvar::new(),
            gone: Mutex::new(None),
            listening: AtomicBool::new(false),
            cancelled: Mutex::new(HashSet::new()),
        }
    }

    /// Why the session is over, if it is.
    fn gone(&self) -> Option<String> {
        lock(&self.gone).clone()
    }

    /// Sends one message line to the server (see the module's docs).
    fn send_line(self: &Arc<Self>, line: &[u8]) {
        let line = mcp::trim_end(line);
        if self.gone().is_some() {
            return;
        }
        let head = head(line);
        match (head.id, head.method) {
            (Some(id), Some(method)) if method == "initialize" => {
                self.request(line, &id, true);
            }
            (Some(id), _) if head.has_method => self.spawn_request(line, id),
            (_, method) => {
                if method.as_deref() == Some("notifications/cancelled") {
                    self.cancelled(line);
                }
                self.notify(line, method.as_deref() == Some("notifications/initialized"))
            }
        }
    }

    /// The client cancelled a request: if its exchange fails now, the client
    /// is not told (it expects no answer).
    fn cancelled(&self, line: &[u8]) {
        let id = serde_json::from_slice::<Value>(line)
            .ok()
            .and_then(|m| m.pointer("/params/requestId").map(Value::to_string));
        if let Some(id) = id {
            let mut cancelled = lock(&self.cancelled);
            if cancelled.len() < MAX_IN_FLIGHT {
                cancelled.insert(id);
            }
        }
    }

    /// Waits up to `grace` for the requests in flight.
    fn wait_idle(&self, grace: Duration) {
        let deadline = Instant::now() + grace;
        let mut n = lock(&self.in_flight);
        while *n > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            n = self
                .idle
                .wait_timeout(n, left)
                .map(|(n, _)| n)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    /// Ends the HTTP session (DELETE with its id), if there is one.
    fn close(&self) {
        let Some(session) = lock(&self.session).clone() else {
            return;
        };
        let mut request = self
            .config
            .agent
            .delete(&self.config.url)
            .config()
            .timeout_global(Some(SHORT))
            .build()
            .header("Mcp-Session-Id", &session);
        for (name, value) in &self.config.headers {
            request = request.header(name, value);
        }
        if let Some(version) = lock(&self.version).clone() {
            request = request.header("MCP-Protocol-Version", &version);
        }
        let _ = request.call();
    }

    fn spawn_request(self: &Arc<Self>, line: &[u8], id: Value) {
        {
            let mut n = lock(&self.in_flight);
            if *n >= MAX_IN_FLIGHT {
                drop(n);
                let why = format!(
                    "callfix: {MAX_IN_FLIGHT} requests already wait for the MCP server; send this one again later"
                );
                self.fail(&id, &why);
                return;
            }
            *n += 1;
        }
        let me = Arc::clone(self);
        let body = line.to_vec();
        let started = thread::Builder::new()
            .name("callfix-post".into())
            .spawn(move || {
                me.request(&body, &id, false);
                lock(&me.cancelled).remove(&id.to_string());
                me.done();
            });
        if let Err(e) = started {
            self.done();
            let id = head(line).id.unwrap_or(Value::Null);
            self.fail(&id, &format!("callfix cannot start a request: {e}"));
        }
    }

    fn done(&self) {
        let mut n = lock(&self.in_flight);
        *n = n.saturating_sub(1);
        self.idle.notify_all();
    }

    /// A POST with the session's headers.
    fn post(&self, short: bool) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
        let mut request = self.config.agent.post(&self.config.url);
        if short {
            request = request.config().timeout_global(Some(SHORT)).build();
        }
        let mut request = request
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json");
        for (name, value) in &self.config.headers {
            request = request.header(name, value);
        }
        if let Some(session) = lock(&self.session).clone() {
            request = request.header("Mcp-Session-Id", &session);
        }
        if let Some(version) = lock(&self.version).clone() {
            request = request.header("MCP-Protocol-Version", &version);
        }
        request
    }

    /// A notification or a response: sent, and accepted or not.
    fn notify(self: &Arc<Self>, line: &[u8], initialized: bool) {
        let had_session = lock(&self.session).is_some();
        let response = match self.post(true).send(line) {
            Ok(response) => response,
            Err(e) => {
                self.warn(&format!(
                    "callfix cannot send a message to the MCP server: {e}"
                ));
                return;
            }
        };
        let status = response.status();
        if status == StatusCode::NOT_FOUND && had_session {
            self.expired();
        } else if !status.is_success() {
            let detail = error_detail(response);
            self.warn(&format!(
                "the MCP server refused a notification or response: HTTP {}{detail}",
                show(status)
            ));
        } else if initialized && !self.listening.swap(true, Ordering::SeqCst) {
            let me = Arc::clone(self);
            let _ = thread::Builder::new()
                .name("callfix-get".into())
                .spawn(move || me.listen());
        }
    }

    /// A request: POSTed, its answer (and what comes before it) delivered, or
    /// an error for it.
    fn request(&self, line: &[u8], id: &Value, initialize: bool) {
        let had_session = lock(&self.session).is_some();
        let response = match self.post(false).send(line) {
            Ok(response) => response,
            Err(e) => {
                self.fail(id, &format!("callfix cannot reach the MCP server: {e}"));
                return;
            }
        };
        let status = response.status();
        if status == StatusCode::NOT_FOUND && had_session {
            self.expired();
            return;
        }
        if !status.is_success() {
            let detail = error_detail(response);
            let why = format!("the MCP server answered HTTP {}{detail}", show(status));
            self.fail(id, &why);
            return;
        }
        if initialize
            && let Some(session) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            *lock(&self.session) = Some(session.to_owned());
        }
        let want = id.to_string();
        let answered = match content_type(&response).as_str() {
            "application/json" => match self.read_json(response, &want, initialize) {
                Ok(answered) => answered,
                Err(why) => {
                    self.fail(id, why);
                    return;
                }
            },
            "text/event-stream" => self.read_answer(response, &want, initialize),
            other => {
                let shown = if other.is_empty() { "none" } else { other };
                let why = format!(
                    "the MCP server answered HTTP {} with a body callfix cannot read (Content-Type: {})",
                    show(status),
                    shown.chars().take(80).collect::<String>()
                );
                self.fail(id, &why);
                return;
            }
        };
        if !answered {
            self.fail(id, "the MCP server's response ended before it answered");
        }
    }

    /// The request `id` failed: the client gets an error for it, through the
    /// proxy (which forgets it, or ends its own listing).
    fn fail(&self, id: &Value, why: &str) {
        if self.gone().is_some() || lock(&self.cancelled).remove(&id.to_string()) {
            return;
        }
        let error = serde_json::json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": FAILED, "message": why}});
        if let Some(shared) = self.shared.upgrade() {
            from_server(&shared, Line::Whole(error.to_string().as_bytes()));
        }
    }

    /// The server ended the session.
    fn expired(&self) {
        {
            let mut gone = lock(&self.gone);
            if gone.is_some() {
                return;
            }
            *gone = Some(
                "the MCP server ended the session (HTTP 404 Not Found for its session id)"
                    .to_owned(),
            );
        }
        let _ = lock(&self.ended).send(End::Server);
    }

    fn warn(&self, message: &str) {
        if let Some(shared) = self.shared.upgrade() {
            report(shared.colours, "warning:", message);
        }
    }
}

impl Remote for Http {
    fn send(self: Arc<Self>, line: &[u8]) {
        self.send_line(line);
    }
}

/// A status as `500 Internal Server Error`.
fn show(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// `: MESSAGE` when an error response's body is a JSON-RPC error with a
/// message (its first 200 characters), else nothing.
fn error_detail(response: Response<ureq::Body>) -> String {
    let mut text = Vec::new();
    let _ = response
        .into_body()
        .into_reader()
        .take(64 * 1024)
        .read_to_end(&mut text);
    let message = serde_json::from_slice::<Value>(&text).ok().and_then(|v| {
        v.pointer("/error/message")
            .and_then(Value::as_str)
            .map(|m| m.chars().take(200).collect::<String>())
    });
    match message {
        Some(m) if !m.trim().is_empty() => format!(": {}", m.trim()),
        _ => String::new(),
    }
}
