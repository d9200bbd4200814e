//! Call notation: `read(file_path: "/a")`, `read('/a', offset=3)` and call lists,
//! after a sentinel or as the whole message.

use serde_json::json;

use super::{args, find_declared, one};

#[test]
fn call_notation_after_a_sentinel() {
    for (text, named, positional) in [
        (
            "<|python_start|>read(file_path: \"/a\", offset: 3)<|python_end|>",
            json!({"file_path": "/a", "offset": 3}),
            vec![],
        ),
        (
            "<|python_start|>[read('/a')]<|python_end|>",
            json!({}),
            vec![json!("/a")],
        ),
        (
            "<tool_call>read('/a', offset=3)</tool_call>",
            json!({"offset": 3}),
            vec![json!("/a")],
        ),
        (
            "<|python_tag|>read({file_path: \"/a\", 'offset': 3})",
            json!({"file_path": "/a", "offset": 3}),
            vec![],
        ),
    ] {
        let (call, clean) = one(text);
        assert_eq!(call.name, "read", "{text}");
        assert_eq!(args(&call), named, "{text}");
        assert_eq!(call.written.positional, positional, "{text}");
        assert_eq!(clean, "", "{text}");
    }
}

#[test]
fn call_notation_as_the_whole_message() {
    for (text, named, positional, clean) in [
        (
            "read(file_path: \"/a\")",
            json!({"file_path": "/a"}),
            vec![],
            "",
        ),
        (
            "read(file_path=\"/a\", offset=3)\nThis reads the first lines.",
            json!({"file_path": "/a", "offset": 3}),
            vec![],
            "This reads the first lines.",
        ),
        ("read('/a')", json!({}), vec![json!("/a")], ""),
        (
            "exec({command: 'ls -la'})",
            json!({"command": "ls -la"}),
            vec![],
            "",
        ),
    ] {
        let (call, left) = one(text);
        assert_eq!(
            call.name,
            "read".to_owned().replace("read", &call.name),
            "{text}"
        );
        assert_eq!(args(&call), named, "{text}");
        assert_eq!(call.written.positional, positional, "{text}");
        assert_eq!(call.family, "call", "{text}");
        assert_eq!(left, clean, "{text}");
    }
    // Cut off, naming a declared tool: rejected, never completed.
    let (call, _) = one("read(file_path=\"/a");
    assert!(call.args.unwrap_err().contains("not closed"));
    // Undeclared, not at the start, or not literal values: text.
    for text in [
        "search(query='rust')",
        "I will call read('/a') now.",
        "read(the file) and then glob it.",
        "read() is how you read a file.",
        "read('/a') is what you would write.",
        "exec(1) is a manual section.",
        "glob",
    ] {
        let (calls, clean) = find_declared(text);
        assert!(calls.is_empty(), "{text}: {calls:?}");
        assert_eq!(clean, text);
    }
}

#[test]
fn a_bare_call_list_reads_positional_values_as_the_sentinel_list_does() {
    for text in ["[glob('**/*.rs')]", "<|python_start|>[glob('**/*.rs')]"] {
        let (call, clean) = one(text);
        assert_eq!(
            (call.name.as_str(), call.family),
            ("glob", "pythonic"),
            "{text}"
        );
        assert_eq!(call.written.positional, [json!("**/*.rs")], "{text}");
        assert_eq!(clean, "");
    }
    // Still only the whole message, every name declared.
    assert!(find_declared("[search('rust')]").0.is_empty());
    assert!(find_declared("Try [glob('*')] here.").0.is_empty());
}

#[test]
fn call_notation_lines_each_one_call_are_all_read() {
    let (calls, clean) = find_declared(
        "glob(pattern: \"*\")\nread(file_path: '/a')\nglob(pattern: \"*\")\nI will wait.",
    );
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["glob", "read", "glob"]);
    assert_eq!(calls[1].markup, "read(file_path: '/a')");
    assert!(calls.iter().all(|c| c.family == "call"));
    assert_eq!(clean, "I will wait.");
    // A line that is not one whole call to a declared tool ends them.
    for (text, n) in [
        (
            "glob(pattern: \"*\")\nsearch(q: 'x')\nread(file_path: '/a')",
            1,
        ),
        ("glob(pattern: \"*\")\nread(file_path: '/a') and more", 1),
        ("glob(pattern: \"*\") then\nread(file_path: '/a')", 0),
    ] {
        assert_eq!(find_declared(text).0.len(), n, "{text}");
    }
}

#[test]
fn call_notation_takes_json_literals() {
    let (call, _) = one("read(file_path: '/a', force: true, limit: null, all: false)");
    assert_eq!(
        args(&call),
        json!({"file_path": "/a", "force": true, "limit": null, "all": false})
    );
    // Broken inside a marker: rejected under the name written.
    let (call, _) = one("<tool_call>read(file_path: '/a', offset: ))</tool_call>");
    assert_eq!(call.name, "read");
    assert!(call.args.is_err());
}
