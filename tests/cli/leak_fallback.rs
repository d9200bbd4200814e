//! Calls with no family's sentinel: a `{name, arguments}` object (or a list of
//! them) naming a declared tool, in a wrapper of another name, a fence that
//! ends the message, a `[Tool Use: NAME]` line, an Anthropic `tool_use` block
//! or a Llama `type: function` object written as the whole message. Read where
//! it stands as a call; cut off, rejected; anywhere else, text.

use serde_json::{Value, json};

use crate::util::{on_text, repair_kinds};

/// The call every fixture makes.
fn expected() -> Value {
    json!({"file_path": "/src/main.rs", "offset": 120})
}

/// (family, text left over, text): each calls `read` with `expected()`.
const CALLS: &[(&str, &str, &str)] = &[
    // Item 1: Claude through a text-only bridge.
    (
        "tool_use",
        "",
        "{'type': 'tool_use', 'id': 'toolu_01A', 'name': 'read', 'input': {'file_path': '/src/main.rs', 'offset': 120}}",
    ),
    (
        "tool_use",
        "I'll read the file first.",
        "I'll read the file first.\n\n{'type': 'tool_use', 'id': 'toolu_01A', 'name': 'read', 'input': {'file_path': '/src/main.rs', 'offset': 120}}\n",
    ),
    (
        "tool_use",
        "I'll read the file first.",
        "[{'type': 'text', 'text': \"I'll read the file first.\"}, {'type': 'tool_use', 'id': 'toolu_01A', 'name': 'read', 'input': {'file_path': '/src/main.rs', 'offset': 120}}]",
    ),
    // Item 2, bare.
    (
        "json",
        "",
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}}",
    ),
    (
        "json",
        "",
        "{\"type\": \"function\", \"name\": \"read\", \"parameters\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}",
    ),
    // Item 3: wrappers of other names.
    (
        "json",
        "Let me check the file.",
        "Let me check the file.\n<tools>\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n</tools>",
    ),
    (
        "json",
        "",
        "<assistant>\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n</assistant>",
    ),
    (
        "json",
        "Reading it.",
        "Reading it.\n<tool-use>{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}",
    ),
    (
        "json",
        "",
        "[TOOL_REQUEST]\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n[END_TOOL_REQUEST]",
    ),
    (
        "json",
        "",
        "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n[END_TOOL_REQUEST]",
    ),
    (
        "json",
        "I need the file.",
        "I need the file.\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n</tools>",
    ),
    (
        "json",
        "I need to look at the entry point.",
        "I need to look at the entry point.\n\n```json\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n```",
    ),
    (
        "json",
        "Reading.",
        "Reading.\n```tool_call\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n```\n",
    ),
    (
        "json",
        "Checking the source.",
        "Checking the source.\n[Tool Use: read] {\"file_path\": \"/src/main.rs\", \"offset\": 120}",
    ),
    // Item 6, the leaked half: arguments flat beside the name.
    (
        "json",
        "",
        "<tools>{\"name\": \"read\", \"file_path\": \"/src/main.rs\", \"offset\": 120}</tools>",
    ),
];

#[test]
fn a_call_in_any_wrapper_fence_or_bare_is_the_exact_call() {
    for (family, _, text) in CALLS {
        let (code, out, stats) = on_text(text, &["-f", "json", "--stats"]);
        assert_eq!((code, out.len()), (0, 1), "{text}: {out:?}");
        assert_eq!(out[0]["tool"], "read", "{text}");
        assert_eq!(out[0]["status"], "repaired", "{text}");
        assert_eq!(out[0]["args"], expected(), "{text}");
        let repair = &out[0]["repairs"][0];
        assert_eq!(repair["kind"], "extract-from-text", "{text}");
        // The markup, as written, is what the repair reports.
        let from = repair["from"].as_str().unwrap();
        assert!(text.contains(from), "{text}: {from}");
        assert!(
            stats.contains(&format!("calls written in text, by syntax: {family} 1")),
            "{text}: {stats}"
        );
    }
}

#[test]
fn the_text_left_over_is_the_prose_around_the_call() {
    for (_, left, text) in CALLS {
        let (_, out, _) = on_text(text, &["-f", "call", "--to", "openai"]);
        assert_eq!(out.len(), 1, "{text}: {out:?}");
        let content = out[0]["content"].as_str().unwrap_or_default();
        assert_eq!(content, *left, "{text}");
        let call = &out[0]["tool_calls"][0]["function"];
        assert_eq!(call["name"], "read");
        let args: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, expected(), "{text}");
    }
}

#[test]
fn a_call_cut_off_is_rejected_never_completed() {
    for (_, _, text) in CALLS {
        let cut = &text[..text.find("/src/ma").unwrap()];
        let (code, out, _) = on_text(cut, &["-f", "json"]);
        if cut.starts_with("I need the file.") {
            // Only the closing tag said it was a call, and it is cut away:
            // an object after prose, text.
            assert_eq!((code, out.len()), (0, 0), "{cut}: {out:?}");
            continue;
        }
        // Every one is rejected, with no arguments made up.
        assert_eq!((code, out.len()), (1, 1), "{cut}: {out:?}");
        assert_eq!(out[0]["status"], "rejected", "{cut}");
        assert_eq!(out[0]["tool"], "read", "{cut}");
        assert_eq!(out[0]["args"], Value::Null, "{cut}");
        let message = out[0]["message"].as_str().unwrap();
        assert!(message.contains("not closed"), "{cut}: {message}");
    }
}

#[test]
fn parallel_tool_use_blocks_after_prose_are_each_a_call() {
    let block = |id: &str, path: &str| {
        format!(
            "{{'type': 'tool_use', 'id': '{id}', 'name': 'read', 'input': {{'file_path': '{path}'}}}}"
        )
    };
    let text = format!(
        "I'll read both files.\n\n{}\n{}",
        block("toolu_01", "/a.rs"),
        block("toolu_02", "/b.rs")
    );
    let (code, out, stats) = on_text(&text, &["-f", "json", "--stats"]);
    assert_eq!((code, out.len()), (0, 2), "{out:?}");
    assert_eq!(out[0]["args"], json!({"file_path": "/a.rs"}));
    assert_eq!(out[1]["args"], json!({"file_path": "/b.rs"}));
    assert_eq!(out[1]["repairs"][0]["from"], block("toolu_02", "/b.rs"));
    assert!(stats.contains("by syntax: tool_use 2"), "{stats}");
    let (_, out, _) = on_text(&text, &["-f", "call", "--to", "anthropic"]);
    assert_eq!(out[0]["content"][0]["text"], "I'll read both files.");
    assert_eq!(out[0]["content"].as_array().unwrap().len(), 3);
}

#[test]
fn flat_arguments_are_judged_by_the_schema() {
    // Every key beside the name is an argument; the schema judges them (here
    // `drop-unknown` removes the one it does not know, and says so).
    let text =
        "<tools>{\"name\": \"read\", \"file_path\": \"/src/main.rs\", \"colour\": \"red\"}</tools>";
    let (code, out, _) = on_text(text, &["-f", "json"]);
    assert_eq!((code, out.len()), (0, 1), "{out:?}");
    assert_eq!(out[0]["args"], json!({"file_path": "/src/main.rs"}));
    let kinds = repair_kinds(&out[0]);
    assert_eq!(kinds, ["extract-from-text", "drop-unknown"]);
    // Without that repair, the unknown key rejects the call.
    let (code, out, _) = on_text(text, &["-f", "json", "--repair", "extract-from-text"]);
    assert_eq!(
        (code, out[0]["status"].as_str()),
        (1, Some("rejected")),
        "{out:?}"
    );
}

#[test]
fn prose_quotes_and_data_stay_text() {
    for text in [
        // A JSON example in an explanation, mid-paragraph.
        "The model answers with {\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}} and the client runs it.",
        // Data about people named Read.
        "The customer record:\n{\"name\": \"read\", \"city\": \"Leeds\"}\nShe has been with us since 2019.",
        "{\"name\": \"read\"}",
        // An example fence followed by prose, or among other fences.
        "A leaked call looks like:\n```json\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}\n```\nNever send that as text.",
        "Install:\n```sh\ncargo install callfix\n```\nA call:\n```json\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}\n```",
        // Quoted in code.
        "Wrap it as `<tools>{\"name\": \"read\", \"arguments\": {}}</tools>`.",
        "Like this:\n````\n[TOOL_REQUEST]\n{\"name\": \"read\", \"arguments\": {}}\n[END_TOOL_REQUEST]\n````",
        // A tool definition repeated back.
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"description\": \"Read a file\", \"parameters\": {\"type\": \"object\", \"properties\": {\"file_path\": {\"type\": \"string\"}}}}}",
        // Undeclared names.
        "<tools>{\"name\": \"search\", \"arguments\": {\"q\": \"x\"}}</tools>",
        "{'type': 'tool_use', 'id': 'toolu_1', 'name': 'search', 'input': {}}",
    ] {
        let (code, out, _) = on_text(text, &["-f", "json"]);
        assert_eq!((code, out.len()), (0, 0), "{text}: {out:?}");
    }
}

/// A schemas directory with `issue`, which declares `id`.
fn issue_schemas() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let issue = json!({"type": "object", "properties": {"repo": {"type": "string"}, "id": {"type": "integer"}}, "required": ["repo"], "additionalProperties": false});
    std::fs::write(dir.path().join("issue.json"), issue.to_string()).unwrap();
    dir
}

#[test]
fn flat_arguments_keep_id_for_the_schema_to_judge() {
    let dir = issue_schemas();
    let s = dir.path().to_str().unwrap();
    // A declared `id` stays an argument.
    let text = "<tools>\n{\"name\": \"issue\", \"repo\": \"acme/app\", \"id\": 42}\n</tools>";
    let (code, out, _) = on_text(text, &["-s", s, "-f", "json"]);
    assert_eq!((code, out.len()), (0, 1), "{out:?}");
    assert_eq!(out[0]["args"], json!({"repo": "acme/app", "id": 42}));
    // An undeclared one is dropped only by a reported repair.
    let text = "<tools>{\"name\": \"read\", \"file_path\": \"/a\", \"id\": \"c1\"}</tools>";
    let (_, out, _) = on_text(text, &["-f", "json"]);
    assert_eq!(out[0]["args"], json!({"file_path": "/a"}));
    assert!(repair_kinds(&out[0]).contains(&"drop-unknown"), "{out:?}");
}

#[test]
fn quoted_examples_packages_and_tool_lists_are_text() {
    for text in [
        // F3: a marker line in a log, or in a blockquote.
        "I saw this in the logs:\n[Tool Use: bash] {\"command\": \"rm -rf build\", \"description\": \"Remove build dir\"}\nThat is what deleted your build directory.",
        "The transcript you pasted says:\n> [Tool Use: bash] {\"command\": \"git push --force\", \"description\": \"push\"}\n> Done.\nThat is why the branch was overwritten.",
        // F4: a tag that is no tool call's.
        "To delete the cache, an agent would send:\n<usage>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"rm -rf ~/.cache\", \"description\": \"clear cache\"}}\n</usage>\nI will not do that without your confirmation.",
        "[Sample]\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\", \"description\": \"list\"}}\n[/Sample]\nThat is the format.",
        // F5: a package.json, a list of the tools.
        "{\"name\": \"glob\", \"version\": \"10.3.10\", \"description\": \"Match files using patterns\", \"main\": \"index.js\"}",
        "[{\"name\": \"read\", \"description\": \"Reads a file from disk\"}, {\"name\": \"write\", \"description\": \"Writes a file\"}, {\"name\": \"bash\", \"description\": \"Runs a shell command\"}]",
        "Here is the package.json:\n<json>\n{\"name\": \"glob\", \"version\": \"10.3.10\", \"main\": \"index.js\"}\n</json>",
        "{\"name\": \"read\", \"file_path\": \"/src/main.rs\", \"offset\": 120}",
        // F6: data cut off, whose `name` is nested or not first.
        "{\"package\": {\"name\": \"glob\", \"version\": \"10.3.10\", \"deps\": [\"minimatch\"",
        "{\"title\": \"Report\", \"name\": \"read\", \"rows\": [1, 2,",
        // F12: an indented code block.
        "An assistant turn from the API looks like this:\n\n    {\"type\": \"tool_use\", \"id\": \"toolu_01\", \"name\": \"bash\", \"input\": {\"command\": \"make deploy\", \"description\": \"deploy\"}}",
    ] {
        let (code, out, _) = on_text(text, &["-f", "json"]);
        assert_eq!((code, out.len()), (0, 0), "{text}: {out:?}");
    }
}

#[test]
fn a_broken_whole_message_call_is_rejected_with_the_reason() {
    let deep = format!(
        "{{\"name\": \"read\", \"arguments\": {{\"a\": {}{}}}}}",
        "[".repeat(1000),
        "]".repeat(1000)
    );
    for (text, why) in [
        (
            "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}}".to_owned(),
            "not valid JSON",
        ),
        (
            "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\" \"limit\": 3}}".to_owned(),
            "not valid JSON",
        ),
        (deep.clone(), "levels deep"),
        (format!("<tools>{deep}</tools>"), "levels deep"),
    ] {
        let (code, out, _) = on_text(&text, &["-f", "json"]);
        assert_eq!((code, out.len()), (1, 1), "{text}: {out:?}");
        assert_eq!(out[0]["tool"], "read");
        assert_eq!(out[0]["status"], "rejected");
        let message = out[0]["message"].as_str().unwrap();
        assert!(message.contains(why), "{message}");
    }
}
