//! Tool names and arguments as models really write them (issue 26, items 6, 7
//! and 16): a namespace added or a toolbox prefix dropped, a special token
//! after the name, the arguments one level down, and a call with no name
//! converted for another provider.

use super::*;
use crate::util::{one_in, repair_kinds};

/// `read` and `search_files` (closed), the toolbox `browser_`
/// (`browser_execute_javascript`, `browser_click`), two tools that end the
/// same way in two toolboxes (`git_list_files`, `svn_list_files`), and two
/// tools that start with the same verb (`delete_all_files`, `delete_user`).
fn schemas() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let closed = r#"{"type":"object","properties":{"file_path":{"type":"string"},"offset":{"type":"integer"}},"required":["file_path"],"additionalProperties":false}"#;
    write(dir.path(), "read.json", closed);
    write(
        dir.path(),
        "search_files.json",
        r#"{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}"#,
    );
    write(
        dir.path(),
        "browser_execute_javascript.json",
        r#"{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}"#,
    );
    for tool in [
        "git_list_files",
        "git_status",
        "svn_list_files",
        "svn_status",
        "delete_all_files",
        "delete_user",
        "browser_click",
    ] {
        write(
            dir.path(),
            &format!("{tool}.json"),
            r#"{"type":"object","properties":{"path":{"type":"string"}}}"#,
        );
    }
    // Declares `input` itself: its `input` is never unwrapped.
    write(
        dir.path(),
        "translate.json",
        r#"{"type":"object","properties":{"input":{"type":"object"},"to":{"type":"string"}},"required":["to"]}"#,
    );
    dir
}

fn call(name: &str, args: &str) -> String {
    serde_json::json!({"name": name, "arguments": args}).to_string()
}

#[test]
fn a_name_with_a_namespace_or_a_token_is_the_one_tool_it_ends_in() {
    let dir = schemas();
    for (name, tool) in [
        ("functions.read", "read"),
        ("default_api.read", "read"),
        ("server__read", "read"),
        ("mcp__fs__read", "read"),
        ("fs:read", "read"),
        ("fs/read", "read"),
        ("read<|channel|>commentary", "read"),
        ("read<|constrain|>json", "read"),
        ("functions.read<|channel|>commentary", "read"),
        ("search__files", "search_files"),
        ("execute_javascript", "browser_execute_javascript"),
    ] {
        let args = if tool == "read" {
            r#"{"file_path": "/a"}"#
        } else if tool == "search_files" {
            r#"{"pattern": "*"}"#
        } else {
            r#"{"code": "1"}"#
        };
        let v = one_in(dir.path(), call(name, args));
        assert_eq!(v["status"], "repaired", "{name}: {v}");
        assert_eq!(v["tool"], tool, "{name}");
        let repairs = v["repairs"].as_array().unwrap();
        assert_eq!(repairs.len(), 1, "{name}: {v}");
        assert_eq!(repairs[0]["kind"], "rename-tool");
        assert_eq!(repairs[0]["from"], name);
        assert_eq!(repairs[0]["to"], tool);
    }
}

#[test]
fn a_name_that_two_tools_could_mean_or_none_is_unknown() {
    let dir = schemas();
    for name in [
        // Both `git_list_files` and `svn_list_files` end so.
        "list_files",
        "functions.list_files",
        // A suffix that is no separated word: not `read`.
        "unread",
        "reread",
        // A verb is no toolbox: `all_files` does not ask to delete them.
        "all_files",
        // A namespace dropped from the call and a toolbox dropped from the
        // declared name: two steps, no reading.
        "functions.execute_javascript",
        // A path is no namespace.
        "../schemas/read",
        // One word of a tool's name is no tool.
        "files",
        "javascript",
        // A namespace with nothing after it, and a token with nothing before.
        "functions.",
        "<|channel|>read",
        // Not a token: `<|` without `|>`.
        "read<|channel",
    ] {
        let v = one_in(dir.path(), call(name, r#"{"file_path": "/a"}"#));
        assert_eq!(v["status"], "rejected", "{name}: {v}");
        assert_eq!(v["tool"], name, "{name}");
        assert!(
            v["message"].as_str().unwrap().starts_with("Unknown tool"),
            "{name}: {v}"
        );
    }
}

#[test]
fn arguments_one_level_down_are_unwrapped() {
    let dir = schemas();
    for (args, from) in [
        (r#"{"arguments": {"file_path": "/a"}}"#, "arguments"),
        (r#"{"parameters": {"file_path": "/a"}}"#, "parameters"),
        (r#"{"input": {"file_path": "/a"}}"#, "input"),
        (r#"{"args": {"file_path": "/a"}}"#, "args"),
        (r#"{"tool_call": {"file_path": "/a"}}"#, "tool_call"),
        // Double-encoded inside.
        (r#"{"arguments": "{\"file_path\": \"/a\"}"}"#, "arguments"),
        // The call repeated inside, with the tool's own name.
        (
            r#"{"name": "read", "arguments": {"file_path": "/a"}}"#,
            "arguments",
        ),
    ] {
        let v = one_in(dir.path(), call("read", args));
        assert_eq!(v["status"], "repaired", "{args}: {v}");
        assert_eq!(v["args"], serde_json::json!({"file_path": "/a"}), "{args}");
        let kinds = repair_kinds(&v);
        assert_eq!(kinds, ["unwrap-arguments"], "{args}: {v}");
        assert_eq!(v["repairs"][0]["from"], from, "{args}");
    }
    // What is inside is repaired as usual after it.
    let v = one_in(
        dir.path(),
        call(
            "read",
            r#"{"arguments": {"file_path": "/a", "offset": "3"}}"#,
        ),
    );
    assert_eq!(v["status"], "repaired", "{v}");
    assert_eq!(
        v["args"],
        serde_json::json!({"file_path": "/a", "offset": 3})
    );
}

#[test]
fn arguments_are_not_unwrapped_where_another_reading_exists() {
    let dir = schemas();
    for (tool, args) in [
        // Another key beside the wrapper.
        ("read", r#"{"arguments": {"file_path": "/a"}, "offset": 3}"#),
        // Another tool's name beside it.
        (
            "read",
            r#"{"name": "write", "arguments": {"file_path": "/a"}}"#,
        ),
        // Not an object inside.
        ("read", r#"{"arguments": "/a"}"#),
        ("read", r#"{"arguments": ["/a"]}"#),
        // What is inside does not fit either.
        ("read", r#"{"arguments": {"path": "/a"}}"#),
        // The schema declares the key.
        ("translate", r#"{"input": {"to": "fr"}}"#),
    ] {
        let v = one_in(dir.path(), call(tool, args));
        assert_eq!(v["status"], "rejected", "{args}: {v}");
        assert!(
            !repair_kinds(&v).contains(&"unwrap-arguments"),
            "{args}: {v}"
        );
    }
}

#[test]
fn a_call_without_a_name_is_converted_without_inventing_one() {
    let out = callfix()
        .args(["-s", "schemas", "-f", "call", "--to", "openai"])
        .write_stdin("{\"role\":\"assistant\",\"content\":\"<tool_call>{\\\"na\"}\n")
        .output()
        .unwrap();
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 2, "{lines:?}");
    let calls = lines[0]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["function"]["name"], "", "{}", lines[0]);
    assert_eq!(lines[1]["tool_call_id"], calls[0]["id"]);
    let out = callfix()
        .args(["-s", "schemas", "-f", "json", "--to", "anthropic"])
        .write_stdin("{\"role\":\"assistant\",\"content\":\"<tool_call>{\\\"na\"}\n")
        .output()
        .unwrap();
    let lines = json_lines(&out.stdout);
    assert_eq!(lines[0]["tool"], "");
    assert_eq!(lines[0]["provider_name"], "");
}

/// Tools of one server and toolbox (attack F1, F10): `mcp__github__create_issue`,
/// `github_delete_repo`, `github_create_pr`, `fs__write`, `list`, and tools
/// whose first word is on no other tool (`terminate_all_instances`).
fn servers() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for tool in [
        "mcp__github__create_issue",
        "github_delete_repo",
        "github_create_pr",
        "fs__write",
        "list",
        "terminate_all_instances",
        "purge_user_data",
        "describe_instance",
    ] {
        write(
            dir.path(),
            &format!("{tool}.json"),
            r#"{"type":"object","properties":{"title":{"type":"string"}}}"#,
        );
    }
    dir
}

#[test]
fn a_namespace_of_another_server_is_never_dropped_onto_a_tool() {
    let dir = servers();
    for name in [
        "gitlab.delete_repo",
        "mcp__jira__create_issue",
        "gitlab__create_issue",
        "jira__write",
        // A first word on one tool only is no toolbox.
        "all_instances",
        "user_data",
        "ec2.all_instances",
    ] {
        let v = one_in(dir.path(), call(name, r#"{"title": "x"}"#));
        assert_eq!(v["status"], "rejected", "{name}: {v}");
        assert_eq!(v["tool"], name, "{name}");
        assert!(v["repairs"].as_array().unwrap().is_empty(), "{name}: {v}");
    }
    for (name, tool) in [
        ("svn__list", "list"),
        ("github.delete_repo", "github_delete_repo"),
        ("github.create_issue", "mcp__github__create_issue"),
        ("mcp__fs__write", "fs__write"),
        ("delete_repo", "github_delete_repo"),
    ] {
        let v = one_in(dir.path(), call(name, r#"{"title": "x"}"#));
        assert_eq!(v["status"], "repaired", "{name}: {v}");
        assert_eq!(v["tool"], tool, "{name}");
    }
}
