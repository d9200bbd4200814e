//! The MCP proxy's decision core, in process: sessions of client and server
//! lines built from the grammar, with valid calls to given tools among them.

use std::path::PathBuf;

use callfix::Toolset;
use callfix::mcp::{FromClient, Proxy};
use proptest::prelude::*;
use serde_json::{Value, json};

use super::grammar::{self, NONCE};

/// One line of a session.
#[derive(Debug, Clone)]
pub(crate) enum Line {
    /// A valid call to a given tool: must be forwarded as it came.
    ValidCall,
    Client(Vec<u8>),
    Server(Vec<u8>),
}

fn raw() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => grammar::mcp_message().prop_map(|v| v.to_string().into_bytes()),
        1 => grammar::plain_garbage(),
        1 => grammar::stream_event(),
        1 => grammar::hook_payload().prop_map(|v| v.to_string().into_bytes()),
    ]
}

pub(crate) fn session() -> impl Strategy<Value = Vec<Line>> {
    prop::collection::vec(
        prop_oneof![
            2 => Just(Line::ValidCall),
            3 => raw().prop_map(Line::Client),
            3 => raw().prop_map(Line::Server),
        ],
        1..24,
    )
}

fn given() -> Toolset {
    Toolset::from_path(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")).unwrap()
}

/// The proxy's two entry points, in one place: the signatures a change of the
/// proxy's API touches (a clock argument, a verdict for server lines).
fn client(proxy: &mut Proxy, line: &[u8]) -> FromClient {
    proxy.from_client(line, std::time::Instant::now()).0
}

fn server(proxy: &mut Proxy, line: &[u8]) {
    proxy.from_server(line);
}

fn one_json_line(line: &[u8]) -> Result<Value, String> {
    if line.contains(&b'\n') {
        return Err(format!(
            "a line with a raw newline: {:?}",
            String::from_utf8_lossy(line)
        ));
    }
    serde_json::from_slice(line).map_err(|e| format!("{e}: {:?}", String::from_utf8_lossy(line)))
}

/// Runs a session; every invariant broken is an `Err`.
pub(crate) fn check(lines: &[Line]) -> Result<(), String> {
    let mut proxy = Proxy::new(given());
    for (i, line) in lines.iter().enumerate() {
        match line {
            Line::ValidCall => {
                let id = format!("{NONCE}{i}");
                let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": "glob", "arguments": {"pattern": id}}})
                .to_string();
                match client(&mut proxy, call.as_bytes()) {
                    FromClient::Forward => {}
                    other => return Err(format!("valid call {call} got {other:?}")),
                }
            }
            Line::Client(l) => {
                let request: Option<Value> = serde_json::from_slice(l).ok();
                match client(&mut proxy, l) {
                    FromClient::Rewrite(out) => {
                        let v = one_json_line(&out)?;
                        let want = request.as_ref().and_then(|r| r.get("id"));
                        if v.get("id") != want {
                            return Err(format!("rewrite changed the id: {v}"));
                        }
                    }
                    FromClient::Answer(out) => {
                        let v = one_json_line(&out)?;
                        let want = request.as_ref().and_then(|r| r.get("id"));
                        if v.get("id") != want {
                            return Err(format!("answer to another id: {v}"));
                        }
                    }
                    // Forward, and whatever else the proxy may decide (hold a
                    // call, drop a notification): nothing written to check.
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }
            Line::Server(l) => server(&mut proxy, l),
        }
    }
    for line in proxy.server_gone("gone") {
        one_json_line(&line)?;
    }
    Ok(())
}

/// What a server writes to `callfix mcp-schemas`: grammar lines, and good
/// answers to its `initialize` and first `tools/list` among them.
pub(crate) fn pull_session() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let answer = prop_oneof![
        Just(json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}})),
        grammar::mcp_message().prop_map(|tools| json!({"jsonrpc": "2.0", "id": 2,
            "result": {"tools": [{"name": tools.to_string(), "inputSchema": {"type": "object"}}]}})),
    ];
    prop::collection::vec(
        prop_oneof![
            3 => raw(),
            2 => answer.prop_map(|v| v.to_string().into_bytes()),
        ],
        1..16,
    )
}

/// Feeds a pull: it never panics, every line it sends is one JSON line, and
/// every file it would write is named `mcp__s__….json` of `[A-Za-z0-9_-]`.
pub(crate) fn check_pull(lines: &[Vec<u8>]) -> Result<(), String> {
    use callfix::mcp::pull::{Next, Pull, plan};
    let (mut pull, first) = Pull::start();
    one_json_line(&first)?;
    for line in lines {
        match pull.line(line) {
            Ok(Next::Send(out)) => {
                for l in out {
                    one_json_line(&l)?;
                }
            }
            Ok(Next::Listed(tools)) => {
                let (files, _) = plan("s", tools);
                for f in files {
                    let stem = f.file.strip_suffix(".json").unwrap_or_default();
                    let safe = stem.starts_with("mcp__s__")
                        && stem
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
                    if !safe {
                        return Err(format!("an unsafe file name: {:?}", f.file));
                    }
                }
                return Ok(());
            }
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}
