//! `callfix mcp-schemas`: a server's tool schemas pulled into a directory under
//! Claude Code's names, then used by `callfix hook claude-code` as the docs
//! configure it. The servers are a small standard-library script written into
//! each test's directory, told how to behave by a JSON file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::callfix;

/// A stdio MCP server: answers `initialize`, then `tools/list` with the pages
/// of `spec.pages` (a `nextCursor` between them); `spec.mode` makes it crash
/// after `initialize`, hang, or write garbage; it pings the client first and
/// sends a log notification, as real servers do.
const SERVER: &str = r#"
import json, sys, time
spec = json.load(open(sys.argv[1]))
mode = spec.get("mode", "ok")
def send(m):
    print(json.dumps(m), flush=True)
if mode == "garbage":
    print("Server listening on stdio", flush=True)
if mode == "hang":
    time.sleep(60)
for line in sys.stdin:
    m = json.loads(line)
    method = m.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "0"}}})
        if mode == "crash":
            sys.exit(3)
    elif method == "tools/list":
        page = int((m.get("params") or {}).get("cursor") or 0)
        result = {"tools": spec["pages"][page]}
        if page + 1 < len(spec["pages"]):
            result["nextCursor"] = str(page + 1)
        send({"jsonrpc": "2.0", "id": m["id"], "result": result})
"#;

fn issue_tool() -> Value {
    json!({
        "name": "create_issue",
        "description": "Open an issue.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1},
                "labels": {"type": "array", "items": {"type": "string"}},
                "priority": {"type": "integer", "minimum": 1, "maximum": 3},
            },
            "required": ["title"],
            "additionalProperties": false,
        },
    })
}

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}})
}

/// A test directory with the server script and its spec.
fn server(spec: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    super::write(dir.path(), "server.py", SERVER);
    super::write(dir.path(), "spec.json", &spec.to_string());
    dir
}

/// `callfix mcp-schemas ARGS -- python3 server.py spec.json` in `dir`: (exit
/// code, stdout, stderr).
fn pull(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = callfix()
        .current_dir(dir)
        .arg("mcp-schemas")
        .args(args)
        .args(["--", "python3", "server.py", "spec.json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        stderr,
    )
}

/// The entries of `dir`, sorted (none if it does not exist).
fn entries(dir: &Path) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = read
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// `callfix hook claude-code --schemas DIR` on a PreToolUse payload: (exit
/// code, the decision or `null` when nothing was printed).
fn hook(schemas: &Path, tool: &str, input: &Value) -> (i32, Value) {
    let payload = json!({
        "session_id": "s-pull", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1",
    });
    let state = tempfile::tempdir().unwrap();
    let out = callfix()
        .env("CALLFIX_STATE_DIR", state.path())
        .arg("hook")
        .arg("claude-code")
        .arg("--schemas")
        .arg(schemas)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let decision = if stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_str::<Value>(&stdout).unwrap()["hookSpecificOutput"].clone()
    };
    (out.status.code().unwrap(), decision)
}

#[test]
fn pulled_schemas_make_the_documented_hook_judge_mcp_tools() {
    // Two pages; the server's name as Claude Code's config might spell it.
    let dir = server(&json!({"pages": [[issue_tool()], [tool("search.code")]]}));
    let (code, stdout, stderr) = pull(dir.path(), &["--server", "git hub", "--out", "claude-code"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "claude-code/mcp__git_hub__create_issue.json\nclaude-code/mcp__git_hub__search_code.json\n"
    );
    assert!(
        stderr.contains("2 of 2 tool schema(s) of MCP server \"git hub\" written to claude-code"),
        "{stderr}"
    );
    let schemas = dir.path().join("claude-code");
    assert_eq!(
        entries(&schemas),
        [
            "mcp__git_hub__create_issue.json",
            "mcp__git_hub__search_code.json"
        ]
    );
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(schemas.join("mcp__git_hub__create_issue.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(written, issue_tool()["inputSchema"]);

    // Bad input: denied, with the instruction Claude reads.
    let (code, decision) = hook(
        &schemas,
        "mcp__git_hub__create_issue",
        &json!({"title": "", "priority": 5}),
    );
    assert_eq!(code, 0);
    assert_eq!(decision["permissionDecision"], "deny");
    assert_eq!(
        decision["permissionDecisionReason"],
        "Please rewrite the input with valid arguments. Errors: title: must be at least 1 character; priority: must be <= 3"
    );
    // Good input: no opinion, so the call goes on under the user's rules.
    let (code, decision) = hook(
        &schemas,
        "mcp__git_hub__create_issue",
        &json!({"title": "Crash on start", "labels": ["bug"]}),
    );
    assert_eq!((code, decision), (0, Value::Null));
    // Repairable input: repaired, for the user to approve.
    let (_, decision) = hook(
        &schemas,
        "mcp__git_hub__create_issue",
        &json!({"title": "Crash", "priority": "2"}),
    );
    assert_eq!(decision["permissionDecision"], "ask");
    assert_eq!(
        decision["updatedInput"],
        json!({"title": "Crash", "priority": 2})
    );
    // A built-in tool, or another server's: no opinion, no error.
    let (code, decision) = hook(&schemas, "Read", &json!({"file_path": 7}));
    assert_eq!((code, decision), (0, Value::Null));
}

#[test]
fn the_server_command_needs_no_double_dash() {
    let dir = server(&json!({"pages": [[tool("a")]]}));
    let out = callfix()
        .current_dir(dir.path())
        .args([
            "mcp-schemas",
            "--server",
            "s",
            "--out",
            "out",
            "python3",
            "server.py",
            "spec.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(entries(&dir.path().join("out")), ["mcp__s__a.json"]);
}

#[test]
fn a_tool_name_cannot_write_outside_the_directory() {
    let dir = server(&json!({"pages": [[tool("../../escape"), tool("/etc/x"), tool("..")]]}));
    let (code, stdout, stderr) = pull(dir.path(), &["--server", "..", "--out", "out/in"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        entries(&dir.path().join("out/in")),
        [
            "mcp________.json",
            "mcp____________escape.json",
            "mcp_______etc_x.json"
        ]
    );
    assert_eq!(stdout.lines().count(), 3);
    assert_eq!(entries(&dir.path().join("out")), ["in"]);
    assert_eq!(
        entries(dir.path()),
        ["out", "server.py", "spec.json"],
        "nothing beside the output directory"
    );
}

#[test]
fn a_schema_that_is_not_an_object_or_a_name_taken_twice_is_skipped_with_a_warning() {
    let dir = server(&json!({"pages": [[
        tool("ok"),
        {"name": "odd", "inputSchema": true},
        tool("a.b"),
        tool("a_b"),
        {"name": "no_schema"},
    ]]}));
    let (code, stdout, stderr) = pull(dir.path(), &["--server", "s", "--out", "out"]);
    assert_eq!(code, 1, "a skipped tool is a finding: {stderr}");
    assert_eq!(stdout, "out/mcp__s__ok.json\n");
    assert!(
        stderr.contains(
            "callfix: warning: tool \"odd\": its inputSchema is boolean, not an object; not written"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "tool \"a.b\": Claude Code's name for it, mcp__s__a_b, is also that of tool \"a_b\""
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("callfix: warning: 1 entry of the MCP server's tool list has no name or no inputSchema; not written"),
        "{stderr}"
    );
    assert!(stderr.contains("1 of 5 tool schema(s)"), "{stderr}");
    assert_eq!(entries(&dir.path().join("out")), ["mcp__s__ok.json"]);
}

#[test]
fn a_pull_again_replaces_the_files_whole_and_leaves_others_alone() {
    let dir = server(&json!({"pages": [[tool("a")]]}));
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    super::write(&out, "mcp__s__a.json", "{\"old\": true}");
    super::write(&out, "Read.json", "{}");
    let (code, _, stderr) = pull(dir.path(), &["--server", "s", "--out", "out"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        entries(&out),
        ["Read.json", "mcp__s__a.json"],
        "no temporary file left"
    );
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("mcp__s__a.json")).unwrap())
            .unwrap();
    assert_eq!(a, tool("a")["inputSchema"]);
}

/// A failed pull: exit 2, the reason on stderr, and no directory made.
fn fails(spec: Value, args: &[&str], reason: &str) -> Duration {
    let dir = server(&spec);
    let out: PathBuf = dir.path().join("out");
    let started = Instant::now();
    let mut all = vec!["--server", "s", "--out", "out"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = pull(dir.path(), &all);
    let took = started.elapsed();
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains(reason), "{stderr}");
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!out.exists(), "{:?}", entries(&out));
    took
}

#[test]
fn a_server_that_crashes_is_an_error_and_writes_nothing() {
    fails(
        json!({"mode": "crash", "pages": [[tool("a")]]}),
        &[],
        "exited (code 3) before listing its tools",
    );
}

#[test]
fn a_server_that_writes_garbage_is_an_error_and_writes_nothing() {
    fails(
        json!({"mode": "garbage", "pages": [[tool("a")]]}),
        &[],
        "the MCP server wrote a line that is not a JSON-RPC message: Server listening on stdio",
    );
}

#[test]
fn a_server_that_hangs_is_stopped_at_the_timeout() {
    let took = fails(
        json!({"mode": "hang", "pages": [[tool("a")]]}),
        &["--timeout", "1"],
        "the MCP server did not answer within 1 s (waiting for its answer to initialize",
    );
    // The timeout, then at most two grace periods of 1 s (stdin closed, SIGTERM).
    assert!(took < Duration::from_secs(8), "{took:?}");
}

#[test]
fn a_server_that_cannot_start_and_bad_usage_exit_2() {
    let out = callfix()
        .args([
            "mcp-schemas",
            "--server",
            "s",
            "--out",
            "out",
            "--",
            "./no-such-server",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot start the MCP server ./no-such-server")
    );
    for bad in [
        &["mcp-schemas", "--server", "", "--out", "o", "x"][..],
        &[
            "mcp-schemas",
            "--server",
            "s",
            "--out",
            "o",
            "--timeout",
            "0",
            "x",
        ],
        &["mcp-schemas", "--out", "o", "x"],
    ] {
        let out = callfix().args(bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}
