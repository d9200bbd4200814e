//! What the server sends: a JSON body, an event stream (resumed with
//! `Last-Event-ID` while it makes progress), the GET stream; each message
//! handed to the proxy's from-server path one line each.

use std::io::{self, Read};
use std::thread;
use std::time::Duration;

use serde::de::IgnoredAny;
use serde_json::Value;
use ureq::http::{Response, StatusCode};

use super::head::head;
use super::{GET_TRIES, Http, MAX_RESUMES, show};
use crate::app::mcp::{Line, from_server, lock};
use crate::app::sse;
use crate::mcp::{MAX_LINE_BYTES, OVERSIZED_PREFIX_BYTES};

impl Http {
    /// An event stream answering the request `want`: read, and resumed if the
    /// server closes it after an event id and before the answer (the polling
    /// of 2025-11-25: a server may close a long call's stream, keeping its
    /// events); whether the answer came.
    pub(super) fn read_answer(
        &self,
        response: Response<ureq::Body>,
        want: &str,
        initialize: bool,
    ) -> bool {
        let mut body = response.into_body().into_reader();
        let stream = self.read_events(&mut body, Some(want), initialize);
        stream.answered
            || (stream.last_id.is_some() && self.follow(stream.last_id, stream.retry, Some(want)))
    }

    /// A JSON body: one message (or a batch). Whether it answered `want`; an
    /// error when the body is not JSON (nothing is forwarded then).
    pub(super) fn read_json(
        &self,
        response: Response<ureq::Body>,
        want: &str,
        initialize: bool,
    ) -> Result<bool, &'static str> {
        let mut body = response.into_body().into_reader();
        let mut text = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        let limit = MAX_LINE_BYTES.saturating_add(2);
        loop {
            match body.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    text.extend_from_slice(chunk.get(..n).unwrap_or_default());
                    if text.len() > limit {
                        // Read no further: a body without end is not waited for.
                        let len = text.len();
                        text.truncate(OVERSIZED_PREFIX_BYTES);
                        return Ok(self.deliver_oversized(&text, len, Some(want)));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Ok(false), // cut short: nothing is completed
            }
        }
        if serde_json::from_slice::<IgnoredAny>(&text).is_err() {
            return Err("the MCP server answered with a body that is not JSON");
        }
        Ok(self.deliver(&text, Some(want), initialize))
    }

    /// An event stream: each event's data is a message. Read until it ends, or
    /// until the answer to `want` came.
    pub(super) fn read_events(
        &self,
        body: &mut impl Read,
        want: Option<&str>,
        initialize: bool,
    ) -> Stream {
        let mut parser = sse::Parser::new(MAX_LINE_BYTES, OVERSIZED_PREFIX_BYTES);
        let mut chunk = vec![0u8; 64 * 1024];
        let mut stream = Stream::default();
        while !stream.answered && self.gone().is_none() {
            let n = match body.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            parser.feed(chunk.get(..n).unwrap_or_default(), |event| {
                if event.kind != b"message" {
                    return;
                }
                stream.events += 1;
                stream.answered |= match event.data {
                    sse::Data::Whole(data) => self.deliver(data, want, initialize),
                    sse::Data::Oversized { prefix, len } => {
                        self.deliver_oversized(prefix, len, want)
                    }
                };
            });
        }
        parser.finish();
        stream.last_id = parser
            .last_id()
            .map(|id| String::from_utf8_lossy(id).into_owned());
        stream.retry = parser.retry();
        stream
    }

    /// The GET stream of messages the server starts itself.
    pub(super) fn listen(&self) {
        self.follow(None, None, None);
    }

    /// A GET for an event stream: the server's own, or with `last_id` the
    /// rest of the stream that event was on.
    pub(super) fn get(
        &self,
        last_id: Option<&str>,
    ) -> ureq::RequestBuilder<ureq::typestate::WithoutBody> {
        let mut request = self
            .config
            .agent
            .get(&self.config.url)
            .header("Accept", "text/event-stream");
        for (name, value) in &self.config.headers {
            request = request.header(name, value);
        }
        if let Some(session) = lock(&self.session).clone() {
            request = request.header("Mcp-Session-Id", &session);
        }
        if let Some(version) = lock(&self.version).clone() {
            request = request.header("MCP-Protocol-Version", &version);
        }
        if let Some(id) = last_id {
            request = request.header("Last-Event-ID", id);
        }
        request
    }

    /// Reads event streams opened with GET, each resuming after the last event
    /// id seen (after the `retry` the server asked for), while they make
    /// progress (an event, or a new event id): with `want`, the rest of a
    /// request's stream the server closed before its answer, until the answer
    /// (whether it came); without, the server's own stream, for the session.
    pub(super) fn follow(
        &self,
        mut last_id: Option<String>,
        mut retry: Option<u64>,
        want: Option<&str>,
    ) -> bool {
        let mut idle = 0;
        let mut opened = 0usize;
        while self.gone().is_none() && self.shared.strong_count() > 0 {
            if want.is_some() && opened >= MAX_RESUMES {
                return false;
            }
            if want.is_some() || opened > 0 {
                let ms = retry.unwrap_or(1000).clamp(100, 60_000);
                thread::sleep(Duration::from_millis(ms));
            }
            opened += 1;
            let had_session = lock(&self.session).is_some();
            match self.get(last_id.as_deref()).call() {
                Err(_) => idle += 1,
                Ok(response) => {
                    let status = response.status();
                    if status == StatusCode::NOT_FOUND && had_session {
                        self.expired();
                        return false;
                    }
                    if !status.is_success() || content_type(&response) != "text/event-stream" {
                        // 405 to the first: the server has no stream of its own.
                        if want.is_none()
                            && !(opened == 1 && status == StatusCode::METHOD_NOT_ALLOWED)
                        {
                            self.warn(&format!(
                                "the MCP server did not open its event stream (HTTP {}): messages it starts itself outside a request are not received",
                                show(status)
                            ));
                        }
                        return false;
                    }
                    let mut body = response.into_body().into_reader();
                    let stream = self.read_events(&mut body, want, false);
                    if stream.answered {
                        return true;
                    }
                    let new_id = stream.last_id.is_some() && stream.last_id != last_id;
                    idle = if stream.events > 0 || new_id {
                        0
                    } else {
                        idle + 1
                    };
                    if stream.last_id.is_some() {
                        last_id = stream.last_id;
                    }
                    retry = stream.retry.or(retry);
                }
            }
            if idle >= GET_TRIES {
                if want.is_none() {
                    self.warn(
                        "the MCP server's event stream keeps ending: messages it starts itself outside a request are not received",
                    );
                }
                return false;
            }
        }
        false
    }

    /// One message from the server, to the proxy and on to the client; whether
    /// it is the answer to `want`.
    pub(super) fn deliver(&self, text: &[u8], want: Option<&str>, initialize: bool) -> bool {
        let text = text.trim_ascii();
        if text.is_empty() || self.gone().is_some() {
            return false;
        }
        // A body or event that is not JSON is no message: forwarded, it would
        // leave its request unanswered (or answered with junk the client cannot
        // read); held back, the request gets callfix's error instead.
        if serde_json::from_slice::<IgnoredAny>(text).is_err() {
            self.warn("a message from the MCP server is not JSON: not forwarded");
            return false;
        }
        let spaced;
        let text = if text.contains(&b'\n') || text.contains(&b'\r') {
            spaced = text
                .iter()
                .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
                .collect::<Vec<u8>>();
            &spaced[..]
        } else {
            text
        };
        let head = head(text);
        let answers = if text.first() == Some(&b'[') {
            // A batch (MCP before 2025-06-18): passed on as it is (the proxy
            // judges single messages only); it answers `want` if one of its
            // messages does, so the request gets no second answer.
            want.is_some_and(|want| answered_in_batch(text, want))
        } else {
            !head.has_method && head.id.as_ref().map(Value::to_string).as_deref() == want
        };
        if answers && initialize {
            let agreed = serde_json::from_slice::<Value>(text).ok().and_then(|m| {
                m.pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            if let Some(version) = agreed.filter(|v| v.len() < 64 && v.is_ascii()) {
                *lock(&self.version) = Some(version);
            }
        }
        if let Some(shared) = self.shared.upgrade() {
            from_server(&shared, Line::Whole(text));
        }
        answers
    }

    /// A message over the line cap, known by its first bytes and its length.
    pub(super) fn deliver_oversized(&self, prefix: &[u8], len: usize, want: Option<&str>) -> bool {
        if self.gone().is_some() {
            return false;
        }
        let head = head(prefix.trim_ascii_start());
        if let Some(shared) = self.shared.upgrade() {
            from_server(&shared, Line::Oversized { prefix, len });
        }
        !head.has_method && head.id.as_ref().map(Value::to_string).as_deref() == want
    }
}

/// Whether a JSON-RPC batch (an array's text) holds the answer to `want`.
fn answered_in_batch(text: &[u8], want: &str) -> bool {
    serde_json::from_slice::<Vec<Value>>(text).is_ok_and(|messages| {
        messages.iter().any(|m| {
            m.get("method").is_none() && m.get("id").map(Value::to_string).as_deref() == Some(want)
        })
    })
}

/// What an event stream gave.
#[derive(Default)]
pub(super) struct Stream {
    answered: bool,
    events: usize,
    last_id: Option<String>,
    retry: Option<u64>,
}

/// A response's media type, lower case, without parameters.
pub(super) fn content_type(response: &Response<ureq::Body>) -> String {
    response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}
