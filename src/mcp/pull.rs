//! Pulling an MCP server's tool schemas (`callfix mcp-schemas`), without any
//! I/O: [`Pull`] is the client side of the stdio handshake and listing
//! (`initialize`, `notifications/initialized`, `tools/list` page by page,
//! following `nextCursor`), told each line the server writes and saying what
//! to send back; [`plan`] names the files the schemas go into, as Claude Code
//! names the server's tools (`mcp__SERVER__TOOL`, see `claude_code_name`).
//!
//! Nothing partial comes out: a listing cut by a cap (`MAX_TOOLS`,
//! `MAX_LIST_BYTES`, `MAX_LIST_PAGES`), an error answer, or a line that is
//! not JSON-RPC is a [`PullError`], never a shorter list. Costs: each line is
//! parsed once (a page without what is not used); naming is linear in the
//! names' lengths.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::head::Head;
use super::listing::{Gathered, Page};
use super::{MAX_LIST_BYTES, MAX_LIST_PAGES, MAX_TOOLS, SPEC_REVISION, visible};

/// The id of the `initialize` request; `tools/list` pages follow from 2.
const INITIALIZE_ID: u64 = 1;

/// How much of a line that is not JSON-RPC an error quotes.
const QUOTED: usize = 80;

/// The longest file name written (most file systems take 255 bytes).
pub(crate) const MAX_FILE_NAME: usize = 255;

/// Why a server's tools could not be pulled.
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    /// A line that is not a JSON-RPC message (MCP's stdio transport allows
    /// nothing else on stdout).
    #[error("the MCP server wrote a line that is not a JSON-RPC message: {0}")]
    Garbage(String),
    /// An error answer to `initialize` or `tools/list`.
    #[error("the MCP server answered {method} with an error: {message}")]
    Refused {
        /// The request answered.
        method: &'static str,
        /// The error's message (control characters escaped).
        message: String,
    },
    /// An answer that is neither a result nor an error of the expected shape.
    #[error("the MCP server's answer to {method} is not {expected}")]
    Malformed {
        /// The request answered.
        method: &'static str,
        /// What the answer should have been.
        expected: &'static str,
    },
    /// The listing passed a cap: a shorter list would look complete.
    #[error("the MCP server's tool list is larger than callfix reads ({0}); nothing was written")]
    TooLarge(String),
}

/// What to do after a line from the server.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// Send these lines (none: read on).
    Send(Vec<Vec<u8>>),
    /// The tool list is complete: each tool's name and `inputSchema`, in the
    /// server's order (a tool without both is not listed).
    Listed(Vec<(String, Value)>),
}

#[derive(Debug)]
enum Waiting {
    Initialize,
    Page(u64),
}

/// The client side of one pull.
#[derive(Debug)]
pub struct Pull {
    waiting: Waiting,
    gathered: Gathered,
    pages: usize,
    bytes: usize,
}

impl Pull {
    /// A pull, and the first line to send (`initialize`).
    pub fn start() -> (Pull, Vec<u8>) {
        let request = json!({
            "jsonrpc": "2.0",
            "id": INITIALIZE_ID,
            "method": "initialize",
            "params": {
                "protocolVersion": SPEC_REVISION,
                "capabilities": {},
                "clientInfo": {"name": "callfix", "version": env!("CARGO_PKG_VERSION")},
            },
        });
        let pull = Pull {
            waiting: Waiting::Initialize,
            gathered: Gathered::default(),
            pages: 0,
            bytes: 0,
        };
        (pull, request.to_string().into_bytes())
    }

    /// The answer the pull waits for: to `initialize` or to `tools/list`.
    pub fn waiting_for(&self) -> &'static str {
        match self.waiting {
            Waiting::Initialize => "initialize",
            Waiting::Page(_) => "tools/list",
        }
    }

    /// How many entries of the list were not a tool with a name (a string)
    /// and an `inputSchema`: left out of [`Next::Listed`].
    pub fn unusable(&self) -> usize {
        self.gathered.unusable
    }

    /// A line from the server (without its newline).
    pub fn line(&mut self, line: &[u8]) -> Result<Next, PullError> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(Next::Send(Vec::new()));
        }
        let Some(head) = Head::read(line) else {
            return Err(PullError::Garbage(quote(line)));
        };
        if let Some(method) = head.method {
            // The server's own request: answered (`ping`) or refused, since
            // this client offers no capabilities. A notification: nothing.
            let Some(id) = head.id else {
                return Ok(Next::Send(Vec::new()));
            };
            let answer = if method.as_str() == Some("ping") {
                json!({"jsonrpc": "2.0", "id": id, "result": {}})
            } else {
                json!({"jsonrpc": "2.0", "id": id,
                       "error": {"code": -32601, "message": "Method not found"}})
            };
            return Ok(Next::Send(vec![answer.to_string().into_bytes()]));
        }
        let expected = match self.waiting {
            Waiting::Initialize => INITIALIZE_ID,
            Waiting::Page(id) => id,
        };
        if head.id.as_ref().and_then(Value::as_u64) != Some(expected) {
            return Ok(Next::Send(Vec::new())); // not an answer to this pull
        }
        match self.waiting {
            Waiting::Initialize => self.initialized(line),
            Waiting::Page(id) => self.page(id, line),
        }
    }

    fn initialized(&mut self, line: &[u8]) -> Result<Next, PullError> {
        let method = "initialize";
        let answer: Value = serde_json::from_slice(line).map_err(|_| PullError::Malformed {
            method,
            expected: "JSON",
        })?;
        if let Some(error) = answer.get("error") {
            return Err(refused(method, error));
        }
        if !answer.get("result").is_some_and(Value::is_object) {
            return Err(PullError::Malformed {
                method,
                expected: "an initialize result",
            });
        }
        let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let first = INITIALIZE_ID + 1;
        self.waiting = Waiting::Page(first);
        Ok(Next::Send(vec![
            notification.to_string().into_bytes(),
            list_request(first, None),
        ]))
    }

    fn page(&mut self, id: u64, line: &[u8]) -> Result<Next, PullError> {
        let method = "tools/list";
        let page = serde_json::from_slice::<Page>(line).map_err(|_| PullError::Malformed {
            method,
            expected: "a list of tools",
        })?;
        let Some(result) = page.result else {
            let error = page.error.unwrap_or(Value::Null);
            if self.pages == 0 && error.get("code").and_then(Value::as_i64) == Some(-32601) {
                return Ok(Next::Listed(Vec::new())); // a server without tools
            }
            return Err(refused(method, &error));
        };
        self.pages += 1;
        self.bytes = self.bytes.saturating_add(line.len());
        if self.bytes > MAX_LIST_BYTES {
            return Err(PullError::TooLarge(format!("{MAX_LIST_BYTES} bytes")));
        }
        if self.gathered.add(&result.tools) {
            return Err(PullError::TooLarge(format!("{MAX_TOOLS} tools")));
        }
        match result.next_cursor.filter(|c| !c.is_null()) {
            Some(_) if self.pages >= MAX_LIST_PAGES => {
                Err(PullError::TooLarge(format!("{MAX_LIST_PAGES} pages")))
            }
            Some(cursor) => {
                let next = id + 1;
                self.waiting = Waiting::Page(next);
                Ok(Next::Send(vec![list_request(next, Some(cursor))]))
            }
            None => Ok(Next::Listed(std::mem::take(&mut self.gathered.tools))),
        }
    }
}

fn list_request(id: u64, cursor: Option<Value>) -> Vec<u8> {
    let request = match cursor {
        Some(cursor) => {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"cursor": cursor}})
        }
        None => json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
    };
    request.to_string().into_bytes()
}

fn refused(method: &'static str, error: &Value) -> PullError {
    let message = match error.get("message").and_then(Value::as_str) {
        Some(text) => visible(text),
        None => visible(&error.to_string()),
    };
    PullError::Refused { method, message }
}

/// The start of a line, for an error: at most [`QUOTED`] characters,
/// control characters escaped.
fn quote(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line.get(..QUOTED * 4).unwrap_or(line));
    let mut cut: String = text.chars().take(QUOTED).collect();
    if line.len() > QUOTED * 4 || text.chars().count() > QUOTED {
        cut.push('…');
    }
    visible(&cut)
}

/// The name Claude Code gives tool `tool` of the server it calls `server`:
/// `mcp__SERVER__TOOL`, each part with every character outside
/// `[A-Za-z0-9_-]` replaced by `_` (one per UTF-16 unit, as its JavaScript
/// does: `é` is `_`, `😀` is `__`).
pub(crate) fn claude_code_name(server: &str, tool: &str) -> String {
    let mut name = String::with_capacity(9 + server.len() + tool.len());
    name.push_str("mcp__");
    normalise(server, &mut name);
    name.push_str("__");
    normalise(tool, &mut name);
    name
}

fn normalise(part: &str, out: &mut String) {
    for c in part.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
}

/// One schema file to write.
#[derive(Debug, PartialEq)]
pub struct SchemaFile {
    /// The tool's name as the server lists it.
    pub tool: String,
    /// The file's name: the tool's Claude Code name and `.json` (only
    /// `[A-Za-z0-9_-]` and the one dot: never a path).
    pub file: String,
    /// The tool's `inputSchema`, as listed.
    pub schema: Value,
}

/// A tool whose schema is not written, and why.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum Skipped {
    /// Its `inputSchema` is not an object.
    #[error("tool \"{tool}\": its inputSchema is {found}, not an object; not written")]
    NotAnObject {
        /// The tool, as listed.
        tool: String,
        /// The schema's JSON type.
        found: &'static str,
    },
    #[error(
        "tool \"{tool}\": Claude Code's name for it, {name}, is also that of tool \"{other}\" (file names differing in case only count as the same); neither is written"
    )]
    /// Another tool's file would have the same name.
    SameName {
        /// The tool, as listed.
        tool: String,
        /// The other tool, as listed.
        other: String,
        /// This tool's Claude Code name.
        name: String,
    },
    /// Its file name would be too long.
    #[error(
        "tool \"{tool}\": its file name would be longer than {MAX_FILE_NAME} bytes; not written"
    )]
    TooLong {
        /// The tool, as listed.
        tool: String,
    },
}

/// The files for `server`'s `tools`, in their order, and the tools left out:
/// a schema that is not an object (a JSON Schema may be `true`, but no MCP
/// tool's is), a name too long for a file, and every tool whose file name is
/// another's (two names Claude Code writes alike, or that differ in case only,
/// which one file stands for on macOS and Windows: the schema would judge the
/// other tool's calls).
pub fn plan(server: &str, tools: Vec<(String, Value)>) -> (Vec<SchemaFile>, Vec<Skipped>) {
    let mut files: Vec<SchemaFile> = Vec::new();
    let mut skipped = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut taken: Vec<bool> = Vec::new();
    for (tool, schema) in tools {
        if !schema.is_object() {
            let found = crate::provider::json_type(&schema);
            skipped.push(Skipped::NotAnObject { tool, found });
            continue;
        }
        let file = format!("{}.json", claude_code_name(server, &tool));
        if file.len() > MAX_FILE_NAME {
            skipped.push(Skipped::TooLong { tool });
            continue;
        }
        let key = file.to_ascii_lowercase();
        if let Some(&i) = seen.get(&key) {
            if let (Some(first), Some(gone)) = (files.get(i), taken.get_mut(i)) {
                if !*gone {
                    *gone = true;
                    skipped.push(Skipped::SameName {
                        tool: first.tool.clone(),
                        other: tool.clone(),
                        name: claude_code_name(server, &first.tool),
                    });
                }
                skipped.push(Skipped::SameName {
                    name: claude_code_name(server, &tool),
                    other: first.tool.clone(),
                    tool,
                });
            }
            continue;
        }
        seen.insert(key, files.len());
        taken.push(false);
        files.push(SchemaFile { tool, file, schema });
    }
    let files = files
        .into_iter()
        .zip(taken)
        .filter_map(|(f, gone)| (!gone).then_some(f))
        .collect();
    (files, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &[u8]) -> Value {
        serde_json::from_slice(line).unwrap()
    }

    fn sent(next: Result<Next, PullError>) -> Vec<Value> {
        match next.unwrap() {
            Next::Send(lines) => lines.iter().map(|l| text(l)).collect(),
            other => panic!("{other:?}"),
        }
    }

    fn initialised() -> Pull {
        let (mut pull, first) = Pull::start();
        assert_eq!(text(&first)["method"], "initialize");
        assert_eq!(text(&first)["params"]["protocolVersion"], SPEC_REVISION);
        let out = sent(pull.line(br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}"#));
        assert_eq!(out[0]["method"], "notifications/initialized");
        assert_eq!(
            out[1],
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        );
        pull
    }

    #[test]
    fn lists_every_page_following_the_cursor() {
        let mut pull = initialised();
        let out = sent(pull.line(
            br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c1"}}"#,
        ));
        assert_eq!(
            out,
            [
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "c1"}})
            ]
        );
        let done = pull.line(
            br#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b","inputSchema":{"type":"object","required":["x"]}},{"name":"c"},{"name":7,"inputSchema":{}},"d"]}}"#,
        );
        assert_eq!(pull.unusable(), 3);
        assert_eq!(
            done.unwrap(),
            Next::Listed(vec![
                ("a".into(), json!({"type": "object"})),
                ("b".into(), json!({"type": "object", "required": ["x"]})),
            ])
        );
    }

    #[test]
    fn answers_the_servers_own_requests_and_ignores_notifications_and_strays() {
        let (mut pull, _) = Pull::start();
        assert_eq!(
            sent(pull.line(br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#)),
            [json!({"jsonrpc": "2.0", "id": "p", "result": {}})]
        );
        let refused = sent(pull.line(br#"{"jsonrpc":"2.0","id":7,"method":"roots/list"}"#));
        assert_eq!(refused[0]["error"]["code"], -32601);
        assert!(
            sent(pull.line(br#"{"jsonrpc":"2.0","method":"notifications/message"}"#)).is_empty()
        );
        assert!(sent(pull.line(br#"{"jsonrpc":"2.0","id":99,"result":{}}"#)).is_empty());
        assert!(sent(pull.line(b"  ")).is_empty());
    }

    #[test]
    fn garbage_errors_and_refusals_are_errors_never_a_short_list() {
        let (mut pull, _) = Pull::start();
        let e = pull.line(b"Starting server on stdio\x1b[0m").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the MCP server wrote a line that is not a JSON-RPC message: Starting server on stdio\\u{001b}[0m"
        );
        let (mut pull, _) = Pull::start();
        let e = pull
            .line(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad version"}}"#)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the MCP server answered initialize with an error: bad version"
        );
        let (mut pull, _) = Pull::start();
        assert!(matches!(
            pull.line(br#"{"jsonrpc":"2.0","id":1,"result":[]}"#),
            Err(PullError::Malformed { .. })
        ));
        let mut pull = initialised();
        assert!(matches!(
            pull.line(br#"{"jsonrpc":"2.0","id":2,"result":{"tools":"x"}}"#),
            Err(PullError::Malformed { .. })
        ));
        let mut pull = initialised();
        pull.line(br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[],"nextCursor":1}}"#)
            .unwrap();
        // A later page refused: the first page alone is not the list.
        assert!(matches!(
            pull.line(br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}"#),
            Err(PullError::Refused { .. })
        ));
        // A server without tools: an empty list.
        let mut pull = initialised();
        assert_eq!(
            pull.line(
                br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}"#
            )
            .unwrap(),
            Next::Listed(Vec::new())
        );
    }

    #[test]
    fn a_cursor_that_never_ends_stops_at_the_page_cap() {
        let mut pull = initialised();
        let mut id = 2u64;
        let error = loop {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[],"nextCursor":"same"}}}}"#
            );
            match pull.line(line.as_bytes()) {
                Ok(Next::Send(_)) => id += 1,
                Ok(other) => panic!("{other:?}"),
                Err(e) => break e,
            }
        };
        assert!(matches!(error, PullError::TooLarge(_)), "{error}");
        assert_eq!(pull.pages, MAX_LIST_PAGES);
    }

    #[test]
    fn cut_or_mangled_lines_are_errors_or_ignored_never_a_panic() {
        let lines: [&[u8]; 4] = [
            br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"x","capabilities":{}}}"#,
            br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c"}}"#,
            br#"{"jsonrpc":"2.0","id":"s","method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":""}}"#,
        ];
        for line in lines {
            for cut in 0..=line.len() {
                let part = line.get(..cut).unwrap_or_default();
                let _ = Pull::start().0.line(part);
                let _ = initialised().line(part);
                let mut mangled = line.to_vec();
                if let Some(b) = mangled.get_mut(cut) {
                    *b = b'"';
                }
                let _ = initialised().line(&mangled);
            }
        }
    }

    #[test]
    fn names_are_claude_codes() {
        assert_eq!(
            claude_code_name("github", "create_issue"),
            "mcp__github__create_issue"
        );
        assert_eq!(
            claude_code_name("my.server", "a-b c"),
            "mcp__my_server__a-b_c"
        );
        assert_eq!(claude_code_name("../..", "../x"), "mcp____________x");
        assert_eq!(claude_code_name("s", "é😀/"), "mcp__s______");
        assert_eq!(claude_code_name("s", "a\\b\0c"), "mcp__s__a_b_c");
    }

    #[test]
    fn the_plan_skips_what_cannot_be_written_exactly() {
        let tools = vec![
            ("read".to_owned(), json!({"type": "object"})),
            ("bad".to_owned(), json!(true)),
            ("a.b".to_owned(), json!({"type": "object"})),
            ("../../etc/passwd".to_owned(), json!({"type": "object"})),
            ("a_b".to_owned(), json!({"type": "object"})),
            ("A_B".to_owned(), json!({"type": "object"})),
            ("x".repeat(300), json!({"type": "object"})),
        ];
        let (files, skipped) = plan("srv", tools);
        let names: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(
            names,
            ["mcp__srv__read.json", "mcp__srv________etc_passwd.json"]
        );
        for f in &files {
            assert!(
                f.file
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
            );
            assert_eq!(f.file.matches('.').count(), 1);
        }
        let said: Vec<String> = skipped.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 5, "{said:#?}");
        assert_eq!(
            said[0],
            "tool \"bad\": its inputSchema is boolean, not an object; not written"
        );
        assert!(said[1].starts_with(
            "tool \"a.b\": Claude Code's name for it, mcp__srv__a_b, is also that of tool \"a_b\""
        ));
        assert!(said[2].starts_with("tool \"a_b\": "));
        assert!(said[3].starts_with("tool \"A_B\": "), "{}", said[3]);
        assert!(said[4].ends_with("longer than 255 bytes; not written"));
    }
}
