//! `callfix mcp --url` against a tiny HTTP server in the test (std's
//! `TcpListener` on 127.0.0.1): what a broken or hostile Streamable HTTP server
//! sends — messages over several `data:` lines, pretty-printed bodies, events
//! past the line limit, bodies without end, streams cut before the answer,
//! binary junk, the wrong media type, error statuses — and the usage errors.
//! The session must go on, every request must be answered once, and what
//! passes must come out byte for byte (line breaks inside a JSON message
//! written as spaces).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{callfix, spawn};

/// `callfix::mcp::MAX_LINE_BYTES`.
const LIMIT: usize = 64 * 1024 * 1024;

#[derive(Debug, Clone)]
struct Request {
    method: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Request {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

type Reply = dyn Fn(&Request, &mut TcpStream) -> bool + Send + Sync;

/// A server on 127.0.0.1: `reply` answers what it wants to (true), the rest is
/// a plain MCP server's (initialize with a session id, 202 for notifications
/// and responses, 405 for GET, tools/list with one tool, `{}` for the rest).
struct Upstream {
    url: String,
    seen: Arc<Mutex<Vec<Request>>>,
}

fn serve(reply: impl Fn(&Request, &mut TcpStream) -> bool + Send + Sync + 'static) -> Upstream {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let reply: Arc<Reply> = Arc::new(reply);
    {
        let seen = Arc::clone(&seen);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let (seen, reply) = (Arc::clone(&seen), Arc::clone(&reply));
                thread::spawn(move || {
                    let Some(request) = read_request(&mut stream) else {
                        return;
                    };
                    seen.lock().unwrap().push(request.clone());
                    if !reply(&request, &mut stream) {
                        plain(&request, &mut stream);
                    }
                });
            }
        });
    }
    Upstream { url, seen }
}

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let method = line.split(' ').next()?.to_owned();
    let mut headers = HashMap::new();
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (name, value) = l.split_once(':')?;
        headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        headers,
        body,
    })
}

fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let mut head = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

/// The head of an event stream (delimited by the connection's end).
fn sse_head(stream: &mut TcpStream) {
    let _ = stream.write_all(
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\n\r\n",
    );
}

fn plain(request: &Request, stream: &mut TcpStream) {
    let message = request.json();
    let id = message.get("id");
    let result = match message.get("method").and_then(Value::as_str) {
        _ if request.method == "GET" => return respond(stream, "405 Method Not Allowed", &[], b""),
        _ if request.method == "DELETE" => return respond(stream, "200 OK", &[], b""),
        Some("initialize") => serde_json::json!({"protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "tiny", "version": "0"}}),
        Some("tools/list") => serde_json::json!({"tools": [{"name": "read", "inputSchema":
            {"type": "object", "properties": {"offset": {"type": "integer"}}}}]}),
        Some(_) if id.is_some() => serde_json::json!({}),
        _ => return respond(stream, "202 Accepted", &[], b""),
    };
    let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
    respond(
        stream,
        "200 OK",
        &[
            ("Content-Type", "application/json"),
            ("Mcp-Session-Id", "s-1"),
        ],
        answer.to_string().as_bytes(),
    );
}

fn id_of(request: &Request) -> Value {
    request.json().get("id").cloned().unwrap_or(Value::Null)
}

const HELLO: [&str; 2] = [
    r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
];

/// Runs `callfix mcp --url` with `lines` on stdin (after the handshake and a
/// pause for the tool list), and its exit code, stdout lines and stderr.
fn session(url: &str, lines: &[&[u8]], extra: &[&str]) -> (i32, Vec<Vec<u8>>, String) {
    let mut args = vec!["mcp", "--url", url];
    args.extend_from_slice(extra);
    if !extra.contains(&"--grace") {
        args.extend(["--grace", "3"]);
    }
    let mut child = spawn(&args);
    let mut stdin = child.stdin.take().unwrap();
    let lines: Vec<Vec<u8>> = HELLO
        .iter()
        .map(|l| l.as_bytes().to_vec())
        .chain(lines.iter().map(|l| l.to_vec()))
        .collect();
    let writer = thread::spawn(move || {
        for (i, line) in lines.iter().enumerate() {
            if i == 1 || i == 2 {
                // initialize answered; then the tool list learned
                thread::sleep(Duration::from_millis(300));
            }
            let _ = stdin.write_all(line);
            let _ = stdin.write_all(b"\n");
        }
        thread::sleep(Duration::from_millis(300));
    });
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let mut lines: Vec<Vec<u8>> = out
        .stdout
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(lines.pop(), Some(Vec::new()), "every line ends");
    (out.status.code().unwrap_or(-1), lines, stderr)
}

/// The answer to `id` among `lines`: exactly one.
fn answer<'a>(lines: &'a [Vec<u8>], id: &Value) -> &'a [u8] {
    let found: Vec<&Vec<u8>> = lines
        .iter()
        .filter(|l| {
            serde_json::from_slice::<Value>(l)
                .is_ok_and(|m| m.get("id") == Some(id) && m.get("method").is_none())
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one answer to {id}: {:?}",
        lines
            .iter()
            .map(|l| String::from_utf8_lossy(l))
            .collect::<Vec<_>>()
    );
    found[0]
}

fn error_of(lines: &[Vec<u8>], id: &Value) -> String {
    let answer: Value = serde_json::from_slice(answer(lines, id)).unwrap();
    answer["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn call(id: &str, name: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"{name}","arguments":{{}}}}}}"#).into_bytes()
}

#[test]
fn messages_over_several_lines_come_out_one_line_each_and_the_rest_byte_for_byte() {
    let up = serve(|request, stream| {
        let name = request.json().pointer("/params/name").cloned();
        match name.as_ref().and_then(Value::as_str) {
            Some("sse") => {
                sse_head(stream);
                let _ = stream.write_all(
                    b": hello\n\nid: 1\ndata:\n\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"a  b\\u2028\"}}\r\n\r\n",
                );
                let _ = stream.write_all(b"data: {\"jsonrpc\":\"2.0\",\ndata:  \"id\":\"a\",\"result\":{\"x\":1.50}}\n\n");
                true
            }
            Some("pretty") => {
                let body = b"\n{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": \"b\",\n  \"result\": {\"n\": 1e2}\n}\n";
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "application/json; charset=utf-8")],
                    body,
                );
                true
            }
            _ => false,
        }
    });
    let reply = br#"{"jsonrpc":"2.0","id":"s1","result":{"action":"decline"}}"#;
    let (code, lines, stderr) = session(
        &up.url,
        &[&call("a", "sse"), &call("b", "pretty"), reply],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(lines.contains(&br#"{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"a  b\u2028"}}"#.to_vec()));
    assert_eq!(
        answer(&lines, &"a".into()),
        br#"{"jsonrpc":"2.0",  "id":"a","result":{"x":1.50}}"#
    );
    assert_eq!(
        answer(&lines, &"b".into()),
        b"{   \"jsonrpc\": \"2.0\",    \"id\": \"b\",   \"result\": {\"n\": 1e2} }"
    );
    // The client's answer to the server's request went back as it came.
    let seen = up.seen.lock().unwrap();
    assert!(seen.iter().any(|r| r.body == reply));
    // Every request after initialize carries the session and the version.
    for r in seen.iter().skip(1) {
        assert_eq!(
            r.headers.get("mcp-session-id").map(String::as_str),
            Some("s-1"),
            "{r:?}"
        );
        assert_eq!(
            r.headers.get("mcp-protocol-version").map(String::as_str),
            Some("2025-11-25")
        );
    }
}

#[test]
fn a_message_past_the_limit_is_an_error_for_its_request_and_a_body_without_end_is_not_waited_for() {
    let up = serve(|request, stream| {
        let name = request.json().pointer("/params/name").cloned();
        match name.as_ref().and_then(Value::as_str) {
            Some("big_event") => {
                sse_head(stream);
                let _ = stream
                    .write_all(b"data: {\"jsonrpc\":\"2.0\",\"id\":\"big\",\"result\":{\"t\":\"");
                let chunk = vec![b'x'; 1 << 20];
                for _ in 0..(LIMIT >> 20) + 2 {
                    if stream.write_all(&chunk).is_err() {
                        return true;
                    }
                }
                let _ = stream.write_all(b"\"}}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n");
                true
            }
            Some("endless") => {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":\"endless\",\"result\":{\"t\":\"");
                let chunk = vec![b'y'; 1 << 20];
                while stream.write_all(&chunk).is_ok() {}
                true
            }
            _ => false,
        }
    });
    let (code, lines, stderr) = session(
        &up.url,
        &[&call("big", "big_event"), &call("endless", "endless")],
        &["--grace", "30"],
    );
    assert_eq!(code, 0, "{stderr}");
    for id in ["big", "endless"] {
        let why = error_of(&lines, &id.into());
        assert!(why.contains("larger than callfix's limit"), "{why}");
    }
    // The event after the big one still arrived.
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(br#""method":"notifications/message","params":{}}"#))
    );
    assert!(stderr.contains("was not forwarded"), "{stderr}");
}

#[test]
fn a_hostile_server_gets_every_request_answered_once_and_never_ends_the_session() {
    let up = serve(|request, stream| {
        let name = request.json().pointer("/params/name").cloned();
        match name.as_ref().and_then(Value::as_str) {
            Some("junk") => {
                sse_head(stream);
                let junk: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
                let _ = stream.write_all(&junk);
                let _ = stream.write_all(b"\n\ndata: [[[[[[[[[[[[[[[\n\ndata: {\"id\":\n\n");
                true
            }
            Some("cut") => {
                sse_head(stream);
                // The answer's event is never ended by a blank line.
                let id = id_of(request);
                let _ = writeln!(
                    stream,
                    "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"
                );
                true
            }
            Some("html") => {
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "text/html")],
                    b"<html>",
                );
                true
            }
            Some("status") => {
                let body =
                    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad thing"}}"#;
                respond(
                    stream,
                    "500 Internal Server Error",
                    &[("Content-Type", "application/json")],
                    body,
                );
                true
            }
            Some("accepted") => {
                respond(stream, "202 Accepted", &[], b"");
                true
            }
            _ if request.json().get("method").and_then(Value::as_str)
                == Some("notifications/cancelled") =>
            {
                respond(stream, "400 Bad Request", &[], b"");
                true
            }
            _ => false,
        }
    });
    let cancel =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}}"#;
    let (code, lines, stderr) = session(
        &up.url,
        &[
            &call("junk", "junk"),
            &call("cut", "cut"),
            &call("html", "html"),
            &call("status", "status"),
            &call("accepted", "accepted"),
            cancel,
            &call("after", "read"),
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    let why = error_of(&lines, &"accepted".into());
    assert!(why.contains("HTTP 202 Accepted"), "{why}");
    for id in ["junk", "cut"] {
        let why = error_of(&lines, &id.into());
        assert!(why.contains("ended before it answered"), "{id}: {why}");
    }
    let why = error_of(&lines, &"html".into());
    assert!(why.contains("Content-Type: text/html"), "{why}");
    assert_eq!(
        error_of(&lines, &"status".into()),
        "the MCP server answered HTTP 500 Internal Server Error: Bad thing"
    );
    assert_eq!(
        answer(&lines, &"after".into()),
        br#"{"jsonrpc":"2.0","id":"after","result":{}}"#
    );
    assert!(
        stderr.contains("refused a notification or response: HTTP 400"),
        "{stderr}"
    );
}

#[test]
fn a_stream_that_never_ends_does_not_keep_callfix_once_the_client_is_gone() {
    let up = serve(|request, stream| {
        if request.json().pointer("/params/name") == Some(&"forever".into()) {
            sse_head(stream);
            while stream.write_all(b": still working\n").is_ok() {
                thread::sleep(Duration::from_millis(5));
            }
            return true;
        }
        false
    });
    let started = Instant::now();
    let (code, _, stderr) = session(&up.url, &[&call("f", "forever")], &["--grace", "1"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // The session was ended with DELETE.
    let seen = up.seen.lock().unwrap();
    assert!(seen.iter().any(|r| r.method == "DELETE"
        && r.headers.get("mcp-session-id").map(String::as_str) == Some("s-1")));
}

#[test]
fn a_bad_url_or_header_is_a_usage_error() {
    for args in [
        &["mcp", "--url", "ftp://example.com/mcp"][..],
        &["mcp", "--url", "http://"],
        &[
            "mcp",
            "--url",
            "http://127.0.0.1:1/mcp",
            "--header",
            "NoColon",
        ],
        &[
            "mcp",
            "--url",
            "http://127.0.0.1:1/mcp",
            "--header",
            "Bad Name: x",
        ],
        &[
            "mcp",
            "--url",
            "http://127.0.0.1:1/mcp",
            "--header",
            "Mcp-Session-Id: x",
        ],
        &["mcp", "--url", "http://127.0.0.1:1/mcp", "--", "cat"],
        &["mcp", "--header", "A: b", "--", "cat"],
    ] {
        let out = callfix().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn a_cancelled_request_whose_stream_then_ends_gets_no_answer() {
    let cancelled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = Arc::clone(&cancelled);
    let up = serve(move |request, stream| {
        let message = request.json();
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            return false;
        }
        if message.pointer("/params/name") == Some(&"slow".into()) {
            sse_head(stream);
            let _ = stream.write_all(b": working\n\n");
            let since = Instant::now();
            while !flag.load(std::sync::atomic::Ordering::SeqCst)
                && since.elapsed() < Duration::from_secs(10)
            {
                thread::sleep(Duration::from_millis(10));
            }
            return true; // closed without an answer, as the cancelled request expects
        }
        false
    });
    let cancel =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}"#;
    let (code, lines, stderr) = session(
        &up.url,
        &[&call("slow", "slow"), cancel, &call("after", "read")],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(cancelled.load(std::sync::atomic::Ordering::SeqCst));
    assert!(
        !lines
            .iter()
            .any(|l| String::from_utf8_lossy(l).contains(r#""id":"slow""#)),
        "{lines:?}"
    );
    assert_eq!(
        answer(&lines, &"after".into()),
        br#"{"jsonrpc":"2.0","id":"after","result":{}}"#
    );
}

#[test]
fn a_body_that_is_not_json_is_an_error_and_a_batch_answers_its_request_once() {
    let up = serve(|request, stream| {
        let id = id_of(request);
        let name = request.json().pointer("/params/name").cloned();
        match name.as_ref().and_then(Value::as_str) {
            Some("cut") => {
                // A body cut short: not forwarded, never completed.
                let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"#);
                let json = [("Content-Type", "application/json")];
                respond(stream, "200 OK", &json, body.as_bytes());
                true
            }
            Some("cut_event") => {
                sse_head(stream);
                let _ = write!(
                    stream,
                    "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\n\n"
                );
                true
            }
            Some("batch") => {
                let body = format!(r#"[{{"jsonrpc":"2.0","id":{id},"result":{{}}}}]"#);
                let json = [("Content-Type", "application/json")];
                respond(stream, "200 OK", &json, body.as_bytes());
                true
            }
            _ => false,
        }
    });
    let (code, lines, stderr) = session(
        &up.url,
        &[
            &call("cut", "cut"),
            &call("cut_event", "cut_event"),
            &call("batch", "batch"),
            &call("after", "read"),
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        error_of(&lines, &"cut".into()),
        "the MCP server answered with a body that is not JSON"
    );
    assert_eq!(
        error_of(&lines, &"cut_event".into()),
        "the MCP server's response ended before it answered"
    );
    assert!(
        stderr.contains("a message from the MCP server is not JSON: not forwarded"),
        "{stderr}"
    );
    // Nothing cut short reaches the client; the batch comes through as it
    // is, and its request gets no second answer.
    let text: Vec<_> = lines.iter().map(|l| String::from_utf8_lossy(l)).collect();
    assert!(
        !text
            .iter()
            .any(|l| l.contains("\"result\":{\n") || l.ends_with("\"result\":{")),
        "{text:?}"
    );
    let batch: Vec<_> = text.iter().filter(|l| l.contains("\"batch\"")).collect();
    assert_eq!(
        batch,
        [r#"[{"jsonrpc":"2.0","id":"batch","result":{}}]"#],
        "{text:?}"
    );
    assert_eq!(
        answer(&lines, &"after".into()),
        br#"{"jsonrpc":"2.0","id":"after","result":{}}"#
    );
}
