use serde_json::json;

use super::super::Leaked;
use super::*;

/// `leak::find` with `read` and `glob` declared.
fn find(text: &str) -> (Vec<Leaked>, String) {
    super::super::find(text, &|name| matches!(name, "read" | "glob"))
}

/// The one call in `text`: name, arguments, family; and the clean text.
fn one(text: &str) -> (String, Value, &'static str, String) {
    let (mut calls, clean) = find(text);
    assert_eq!(calls.len(), 1, "{text}: {calls:?}");
    let c = calls.remove(0);
    let args = c
        .args
        .map(Value::Object)
        .unwrap_or_else(|why| Value::String(why.to_string()));
    (c.name, args, c.family, clean)
}

fn no_call(text: &str) {
    let (calls, clean) = find(text);
    assert!(calls.is_empty(), "{text}: {calls:?}");
    assert_eq!(clean, text.trim(), "{text}");
}

#[test]
fn anthropic_tool_use_block_as_a_python_dict_or_json() {
    let py = "{'type': 'tool_use', 'id': 'toolu_01', 'name': 'read', 'input': {'file_path': '/a', 'offset': 3, 'all': True}}";
    let js = "{\"type\": \"tool_use\", \"id\": \"toolu_01\", \"name\": \"read\", \"input\": {\"file_path\": \"/a\", \"offset\": 3, \"all\": true}}";
    for block in [py, js] {
        for (text, left) in [
            (block.to_owned(), ""),
            (
                format!("I'll read the file.\n\n{block}\n"),
                "I'll read the file.",
            ),
        ] {
            let (name, args, family, clean) = one(&text);
            assert_eq!((name.as_str(), family), ("read", "tool_use"), "{text}");
            assert_eq!(args, json!({"file_path": "/a", "offset": 3, "all": true}));
            assert_eq!(clean, left);
        }
    }
    // The content list of a text-only bridge: the text block stays text.
    let list = format!("[{{'type': 'text', 'text': \"I'll read it.\"}}, {py}]");
    let (name, _, _, clean) = one(&list);
    assert_eq!((name.as_str(), clean.as_str()), ("read", "I'll read it."));
    // After prose, only a tool_use block that ends the message, on a line of
    // its own; a plain {name, arguments} object there is text.
    no_call(&format!("I'll read the file: {py}"));
    no_call(&format!("I'll read the file.\n{py}\nThen I will edit it."));
    no_call("Here it is:\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}");
}

#[test]
fn bare_calls_one_after_another() {
    let a = "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}";
    let b = "{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}}";
    let (calls, clean) = find(&format!("{a}\n{b}\n"));
    assert_eq!(find(&format!("{a}, {b}")).0.len(), 2);
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!((names, clean.as_str()), (vec!["read", "glob"], ""));
    assert_eq!(calls[1].markup, b);
    // Claude's parallel tool_use blocks after prose.
    let t = |n: &str| {
        format!(
            "{{'type': 'tool_use', 'id': 'toolu_{n}', 'name': 'read', 'input': {{'file_path': '/{n}'}}}}"
        )
    };
    let (calls, clean) = find(&format!("Both files.\n{}\n{}", t("1"), t("2")));
    assert_eq!((calls.len(), clean.as_str()), (2, "Both files."));
    // The last one cut off: the others stand, it is rejected.
    let (calls, _) = find(&format!("{a}\n{}", &b[..20]));
    let got: Vec<(&str, bool)> = calls
        .iter()
        .map(|c| (c.name.as_str(), c.args.is_ok()))
        .collect();
    assert_eq!(got, [("read", true), ("glob", false)]);
    // Before a closing tag whose opening is missing: all in the wrapper.
    let (calls, clean) = find(&format!("Reading.\n{a}\n{b}\n</tool_call>"));
    assert_eq!((calls.len(), clean.as_str()), (2, "Reading."));
    // Any one not a call, or prose after them: all text.
    no_call(&format!(
        "{a}\n{{\"name\": \"search\", \"arguments\": {{}}}}"
    ));
    no_call(&format!("{a}\n{b}\nThat is all."));
    no_call(&format!("Calls:\n{a}\n{b}"));
    no_call(&format!("Both files.\n{}\n{}\nDone.", t("1"), t("2")));
}

#[test]
fn llama_function_objects_as_the_whole_message() {
    for text in [
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {\"file_path\": \"/a\"}}}",
        "{\"type\":\"function\",\"name\":\"read\",\"parameters\":{\"file_path\":\"/a\"}}",
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"arguments\": \"{\\\"file_path\\\": \\\"/a\\\"}\"}}",
    ] {
        let (name, args, family, clean) = one(text);
        assert_eq!(
            (name.as_str(), family, clean.as_str()),
            ("read", "json", "")
        );
        assert_eq!(args, json!({"file_path": "/a"}), "{text}");
    }
    // Tool definitions repeated back are no calls.
    for text in [
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"description\": \"Reads\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}}",
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {\"type\": \"object\", \"properties\": {\"file_path\": {}}}}}",
        "{\"type\": \"function\", \"name\": \"read\", \"description\": \"Reads\", \"parameters\": {}}",
        "{\"name\": \"read\", \"input_schema\": {\"type\": \"object\"}}",
        "{\"type\": \"text\", \"name\": \"read\", \"arguments\": {}}",
    ] {
        no_call(text);
    }
}

#[test]
fn wrappers_of_other_names_open_closed_or_not() {
    let obj = "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}";
    for text in [
        format!("<tools>\n{obj}\n</tools>"),
        format!("I'll read it.\n<tools>{obj}</tools>"),
        format!("<assistant>\n{obj}\n</assistant>"),
        format!("<tool-use>{obj}</tool-use>"),
        format!("[TOOL_REQUEST]\n{obj}\n[END_TOOL_REQUEST]"),
        // The opening tag missing.
        format!("I'll read it.\n{obj}\n</tools>"),
        format!("{obj}[END_TOOL_REQUEST]"),
        format!("I'll read it.\n{obj}</tool_call>"),
        // Never closed, at the end of the message or before prose.
        format!("I'll read it.\n<tool-use>\n{obj}"),
        format!("[TOOL_REQUEST]\n{obj}\nWaiting for the result."),
    ] {
        let (name, args, family, clean) = one(&text);
        assert_eq!((name.as_str(), family), ("read", "json"), "{text}");
        assert_eq!(args, json!({"file_path": "/a"}), "{text}");
        assert!(!clean.contains("read\""), "{text}: {clean}");
        assert!(!clean.contains("tool"), "{text}: {clean}");
    }
    let (calls, clean) = find(&format!("I'll read it.\n<tools>{obj}</tools>\nThen done."));
    assert_eq!(calls[0].markup, format!("<tools>{obj}</tools>"));
    assert_eq!(clean, "I'll read it.\n\nThen done.");
    // Several calls in one wrapper, each its own call.
    let two = format!(
        "<tools>\n{obj}\n{}\n</tools>",
        obj.replace("read", "glob").replace("file_path", "pattern")
    );
    let (calls, clean) = find(&two);
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!((names, clean.as_str()), (vec!["read", "glob"], ""));
}

#[test]
fn a_fence_after_prose_that_ends_the_message() {
    let obj = "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}";
    for fence in ["```json", "```tool_call", "```", "````JSON"] {
        let ticks = "`".repeat(fence.len() - fence.trim_start_matches('`').len());
        let text = format!("Let me read the file.\n{fence}\n{obj}\n{ticks}\n");
        let (name, args, _, clean) = one(&text);
        assert_eq!(
            (name.as_str(), clean.as_str()),
            ("read", "Let me read the file.")
        );
        assert_eq!(args, json!({"file_path": "/a"}));
    }
    // Flat arguments: in a tool_call fence; in a json fence that is as likely
    // a record.
    let flat = "{\"name\": \"read\", \"file_path\": \"/a\"}";
    let (_, args, _, _) = one(&format!("Reading.\n```tool_call\n{flat}\n```"));
    assert_eq!(args, json!({"file_path": "/a"}));
    no_call("The record:\n```json\n{\"name\": \"read\", \"age\": 41}\n```");
    // A fence followed by prose, or among other fences, is an example.
    no_call(&format!(
        "A call looks like this:\n```json\n{obj}\n```\nThe model sends it."
    ));
    no_call(&format!(
        "Install it:\n```sh\npip install x\n```\nThen a call is:\n```json\n{obj}\n```"
    ));
    // A fence quoting a fence is text.
    no_call(&format!("Like so:\n````\n```json\n{obj}\n```\n````"));
}

#[test]
fn a_tool_use_marker_line() {
    for text in [
        "I'll read it.\n[Tool Use: read] {\"file_path\": \"/a\"}",
        "[Tool Use: read]\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}",
        "[tool_use: read] {'file_path': '/a'}",
    ] {
        let (name, args, _, clean) = one(text);
        assert_eq!(name, "read");
        assert_eq!(args, json!({"file_path": "/a"}), "{text}");
        assert!(!clean.contains("Tool"), "{clean}");
    }
    no_call("[Tool Use: search] {\"query\": \"x\"}");
    no_call("He wrote [Tool Use: read] {\"file_path\": \"/a\"} in the log.");
}

#[test]
fn arguments_written_flat_beside_the_name() {
    for text in [
        "<tools>{\"name\": \"read\", \"file_path\": \"/a\", \"offset\": 2}</tools>",
        "[TOOL_REQUEST]\n{\"name\": \"read\", \"file_path\": \"/a\", \"offset\": 2}\n[END_TOOL_REQUEST]",
        "{\"type\": \"function\", \"name\": \"read\", \"file_path\": \"/a\", \"offset\": 2}",
    ] {
        let (name, args, _, _) = one(text);
        assert_eq!(name, "read");
        assert_eq!(args, json!({"file_path": "/a", "offset": 2}), "{text}");
    }
    // An arguments key is the arguments, whatever else is flat beside it: the
    // unknown key makes it no call.
    no_call("{\"name\": \"read\", \"arguments\": {}, \"file_path\": \"/a\"}");
    // Two argument keys: no single reading.
    no_call("<tools>{\"name\": \"read\", \"arguments\": {}, \"input\": {}}</tools>");
    // The real arguments one level down are left as they are, for the schema
    // side to judge.
    let (_, args, _, _) = one(
        "<tools>{\"name\": \"read\", \"arguments\": {\"arguments\": {\"file_path\": \"/a\"}}}</tools>",
    );
    assert_eq!(args, json!({"arguments": {"file_path": "/a"}}));
}

#[test]
fn cut_off_or_broken_calls_are_rejected_never_completed() {
    let not_closed = Value::String("the tool call written in the text is not closed".into());
    for text in [
        "<tools>\n{\"name\": \"read\", \"arguments\": {\"file_pa",
        "I'll read it.\n```json\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"",
        "{'type': 'tool_use', 'id': 'toolu_01', 'name': 'read', 'input': {'file_path': '/",
        "I'll read it.\n{'type': 'tool_use', 'id': 'toolu_01', 'name': 'read', 'input': {'file_p",
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {",
        "[TOOL_REQUEST]{\"name\": \"read\", \"arguments\": {}",
        "[Tool Use: read] {\"file_path\": \"/",
    ] {
        let (name, args, _, _) = one(text);
        assert_eq!((name.as_str(), &args), ("read", &not_closed), "{text}");
        // Not declared: text.
        no_call(&text.replace("read", "search"));
    }
    let (_, args, _, clean) = one(
        "Reading.\n<tools>{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}</tools>\nDone.",
    );
    assert!(args.as_str().unwrap().contains("not valid JSON"), "{args}");
    assert_eq!(clean, "Reading.\n\nDone.");
    // A broken call ends with its paragraph: a call after it is still read.
    let (calls, _) = find(
        "<tools>{\"name\": \"read\", \"arguments\": {]}\n\n<tools>{\"name\": \"glob\", \"arguments\": {}}</tools>",
    );
    let got: Vec<(&str, bool)> = calls
        .iter()
        .map(|c| (c.name.as_str(), c.args.is_ok()))
        .collect();
    assert_eq!(got, [("read", false), ("glob", true)]);
}

#[test]
fn prose_and_data_stay_text() {
    for text in [
        // A JSON example mid-paragraph.
        "To call a tool, send {\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}} to the server.",
        // Data about people named Read.
        "The record for Ms Read is:\n{\"name\": \"read\", \"age\": 41}\nShe joined in 2019.",
        "{\"name\": \"read\"}",
        "Here is the record: {\"name\": \"read\", \"age\": 41}",
        // Quoted in a code span.
        "Write `{\"name\": \"read\", \"arguments\": {}}` to call it.",
        "Use `<tools>{\"name\": \"read\", \"arguments\": {}}</tools>` as the wrapper.",
        // A wrapper mid-sentence.
        "The syntax is <tools>{\"name\": \"read\", \"arguments\": {}}</tools> as shown.",
        // Tags that quote or think: what they hold is text.
        "<code>{\"name\": \"read\", \"arguments\": {}}</code>",
        "<pre>\n{\"name\": \"read\", \"arguments\": {}}\n</pre>",
        "<think>\nMaybe:\n{\"name\": \"read\", \"arguments\": {}}\n</think>\nNo need.",
        "<example>\n{\"name\": \"read\", \"arguments\": {}}",
        // A tag that is no wrapper's, or a list of plain values.
        "[1] {\"name\": \"read\", \"arguments\": {}} was cited.",
        "[\"read\", \"glob\"]",
        "[]",
        "{}",
        // An undeclared name.
        "<tools>{\"name\": \"search\", \"arguments\": {}}</tools>",
        "{\"name\": \"search\", \"q\": 1}",
    ] {
        no_call(text);
    }
}

/// Every call holds markup as written in `text`, and the markups do not overlap.
fn check(text: &str) {
    let (calls, _) = find(text);
    let mut at = 0;
    for c in &calls {
        let k = text.get(at..).and_then(|t| t.find(&c.markup));
        assert!(k.is_some(), "{text:?}: {:?} not after {at}", c.markup);
        at += k.unwrap_or(0) + c.markup.len();
    }
}

#[test]
fn mutations_never_panic() {
    let shapes = [
        "I'll read.\n<tools>\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}\n</tools>",
        "[TOOL_REQUEST]{'type': 'tool_use', 'name': 'read', 'input': {'a': [1, \"é\"]}}[END_TOOL_REQUEST]",
        "Text.\n```json\n[{\"name\": \"read\", \"arguments\": {}}, {\"name\": \"glob\", \"arguments\": {}}]\n```",
        "[Tool Use: read] {\"file_path\": \"/a\"}\n",
        "{\"name\": \"read\", \"arguments\": {}}\n{'type': 'tool_use', 'name': 'glob', 'input': {}}\n</x>",
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {\"a\": 1}}}",
    ];
    let inserts = [
        "<", ">", "[", "]", "{", "}", "`", "\n", "'", "\"", "é", "\\",
    ];
    for shape in shapes {
        let bounds: Vec<usize> = (0..=shape.len())
            .filter(|i| shape.is_char_boundary(*i))
            .collect();
        for &i in &bounds {
            let (a, b) = shape.split_at(i);
            check(a);
            check(b);
            for ins in inserts {
                check(&format!("{a}{ins}{b}"));
            }
        }
    }
}

#[test]
fn the_scan_is_linear() {
    for unit in [
        "<tools>{\"name\": \"read\", \"arguments\": {\"file_path\": \"<tools>{\"}}\n",
        "\n{\"name\": \"read\", \"arguments\": {\"p\": 1}} x\n",
        "<tools>\n{\"name\": \"read\", \"arguments\": {\"p\": [1, 2]}\n",
        "[TOOL_REQUEST]\n[[[[{{{{",
        "```json\n{\"name\": \"read\", \"arguments\": {}}\n```\n",
        "```sh\nx\n```\n```json\n{\"name\": \"read\", \"arguments\": {}}\n```\n",
        "\n{'a': '\n{\"name\": \"read\" ",
        "[Tool Use: read] {\"p\": \"[Tool Use: read] {\"}\n",
        "[Tool Use: read] {\"p\": ]}\n1\n",
        "{\"name\": \"read\", \"arguments\": {\"p\": 1 \"q\": 2}}\n",
        "\n\n    {\"name\": \"read\"}\n",
        "> <tools> > [x] > {\"name\": \"read\", \"arguments\": {}}\n",
        " \n\t{ \n [ \n",
        "{\"name\": \"read\", \"arguments\": {\"p\": [1]}}, ",
    ] {
        let steps = |n: usize| {
            let text = unit.repeat(n);
            scan(&text, &|n| n == "read").steps
        };
        let (small, big) = (steps(500), steps(5_000));
        assert!(big <= 12 * small.max(1), "{unit}: {small} → {big}");
        assert!(big <= 40 * unit.len() * 5_000, "{unit}: {big} steps");
    }
}

#[test]
fn flat_arguments_keep_every_key_but_the_envelope() {
    // F2: `id` (or any key) beside the name is an argument, for the schema to
    // judge; only `name`, and a `type` that is a call type, are envelope.
    for (text, want) in [
        (
            "<tools>\n{\"name\": \"read\", \"file_path\": \"/a\", \"id\": 42}\n</tools>",
            json!({"file_path": "/a", "id": 42}),
        ),
        (
            "[TOOL_REQUEST]\n{\"name\": \"read\", \"id\": \"c1\", \"file_path\": \"/a\"}\n[END_TOOL_REQUEST]",
            json!({"id": "c1", "file_path": "/a"}),
        ),
        (
            "{\"type\": \"function\", \"name\": \"read\", \"file_path\": \"/a\", \"id\": 7}",
            json!({"file_path": "/a", "id": 7}),
        ),
        (
            "<tools>{\"name\": \"read\", \"type\": \"bug\", \"file_path\": \"/a\"}</tools>",
            json!({"type": "bug", "file_path": "/a"}),
        ),
    ] {
        let (name, args, _, _) = one(text);
        assert_eq!((name.as_str(), args), ("read", want), "{text}");
    }
}

#[test]
fn a_tool_use_marker_counts_only_where_its_call_ends_the_message() {
    // F3: a marker line quoted in an explanation, or in a blockquote, is text.
    no_call(
        "I saw this in the logs:\n[Tool Use: read] {\"file_path\": \"/a\"}\nThat is what it read.",
    );
    no_call("The transcript says:\n> [Tool Use: read] {\"file_path\": \"/a\"}");
    no_call(
        "The transcript says:\n> [Tool Use: read] {\"file_path\": \"/a\"}\n> Done.\nSo it read.",
    );
    // A blockquote is quoted prose for every opener.
    no_call(
        "You wrote:\n> <tools>\n> {\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}\n> </tools>",
    );
    no_call(
        "You wrote:\n> <tools>{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}</tools>",
    );
    // Markers that end the message are calls, each of them.
    let (calls, clean) = find(
        "Both.\n[Tool Use: read] {\"file_path\": \"/a\"}\n[Tool Use: glob] {\"pattern\": \"*\"}\n",
    );
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!((names, clean.as_str()), (vec!["read", "glob"], "Both."));
    // A broken one followed by prose is text too.
    no_call("The log:\n[Tool Use: read] {\"file_path\": ]}\nIt failed.");
}

#[test]
fn wrapper_tags_are_tool_ish_names_only() {
    // F4: any other tag or bracket pair is text, closed or not.
    let obj = "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}";
    for tag in [
        "usage", "sample", "user", "answer", "json", "details", "log", "input",
    ] {
        no_call(&format!(
            "An agent would send:\n<{tag}>\n{obj}\n</{tag}>\nI will not."
        ));
        no_call(&format!("<{tag}>{obj}</{tag}>"));
        no_call(&format!("An agent would send:\n<{tag}>\n{obj}"));
        no_call(&format!("An agent would send:\n{obj}\n</{tag}>"));
    }
    no_call(&format!("[Sample]\n{obj}\n[/Sample]\nThat is a sample."));
    // Tool-ish names of every documented shape still wrap calls.
    for tag in [
        "tools",
        "tool-use",
        "assistant",
        "function_call",
        "invoke",
        "action",
        "ToolCall",
    ] {
        let (name, _, _, clean) = one(&format!("Reading.\n<{tag}>\n{obj}\n</{tag}>"));
        assert_eq!(
            (name.as_str(), clean.as_str()),
            ("read", "Reading."),
            "{tag}"
        );
    }
    let (name, _, _, _) = one(&format!("[TOOL_REQUEST]\n{obj}\n[END_TOOL_REQUEST]"));
    assert_eq!(name, "read");
    // Those that hold results or thoughts stay text.
    no_call(&format!("<tool_response>\n{obj}\n</tool_response>"));
    no_call(&format!("<function_results>{obj}</function_results>"));
}

#[test]
fn flat_arguments_need_a_wrapper_and_no_definition_keys() {
    // F5: never as the whole message; never with `description` or a
    // package's or definition's keys; a list of {name, description} is data.
    for text in [
        "{\"name\": \"read\", \"file_path\": \"/a\"}",
        "{\"name\": \"glob\", \"version\": \"10.3.10\", \"description\": \"Match files\", \"main\": \"index.js\"}",
        "[{\"name\": \"read\", \"description\": \"Reads a file\"}, {\"name\": \"glob\", \"description\": \"Globs\"}]",
        "<tools>\n[{\"name\": \"read\", \"description\": \"Reads a file\"}, {\"name\": \"glob\", \"description\": \"Globs\"}]\n</tools>",
        "<tools>{\"name\": \"glob\", \"version\": \"10.3.10\", \"main\": \"index.js\"}</tools>",
        "<tools>{\"name\": \"read\", \"description\": \"Reads a file\"}</tools>",
        "{\"type\": \"function\", \"name\": \"read\", \"description\": \"Reads a file\"}",
        "Here is the package.json:\n```json\n{\"name\": \"glob\", \"version\": \"10.3.10\", \"main\": \"index.js\"}\n```",
        // `input` holding text is a parameter of that name, never the
        // arguments as JSON text (F21): flat, so not as the whole message.
        "{\"name\": \"read\", \"input\": \"{\\\"command\\\": \\\"ls\\\"}\"}",
    ] {
        no_call(text);
    }
    // `description` beside other keys may be a parameter (bash's).
    let text = "<tools>{\"name\": \"glob\", \"pattern\": \"*\", \"description\": \"list\"}</tools>";
    let (name, args, _, _) = one(text);
    assert_eq!(
        (name.as_str(), args),
        ("glob", json!({"pattern": "*", "description": "list"})),
    );
    // In a wrapper, marker or tool_call fence, flat arguments stand.
    for text in [
        "<tools>{\"name\": \"read\", \"file_path\": \"/a\"}</tools>",
        "Reading.\n```tool_call\n{\"name\": \"read\", \"file_path\": \"/a\"}\n```",
    ] {
        let (name, args, _, _) = one(text);
        assert_eq!(
            (name.as_str(), args),
            ("read", json!({"file_path": "/a"})),
            "{text}"
        );
    }
}

#[test]
fn a_cut_off_value_is_a_call_only_in_a_call_s_shape() {
    // F6: the name must be the first key of the top-level object (or come
    // after a call `type`), never nested or after other keys.
    for text in [
        "{\"package\": {\"name\": \"glob\", \"version\": \"10.3.10\", \"deps\": [\"minimatch\"",
        "{\"title\": \"Report\", \"name\": \"read\", \"rows\": [1, 2,",
        "<tools>{\"title\": \"Report\", \"name\": \"read\", \"rows\": [1, 2,",
        "{\"type\": \"record\", \"name\": \"read\", \"rows\": [1, 2,",
        "[{\"x\": {\"name\": \"read\", \"a\": [",
    ] {
        no_call(text);
    }
    let not_closed = Value::String("the tool call written in the text is not closed".into());
    for text in [
        "{\"name\": \"read\", \"arguments\": {\"file_pa",
        "[{\"name\": \"read\", \"arguments\": {\"file_pa",
        "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {",
        "{'type': 'tool_use', 'id': 'toolu_01', 'name': 'read', 'input': {'file_path': '/",
    ] {
        let (name, args, _, _) = one(text);
        assert_eq!((name.as_str(), &args), ("read", &not_closed), "{text}");
    }
}

#[test]
fn an_indented_code_block_is_code() {
    // F12: CommonMark indented code (4 spaces or a tab, after a blank line).
    let block = "{\"type\": \"tool_use\", \"id\": \"toolu_01\", \"name\": \"read\", \"input\": {\"file_path\": \"/a\"}}";
    no_call(&format!(
        "An assistant turn looks like this:\n\n    {block}"
    ));
    no_call(&format!(
        "An assistant turn looks like this:\n\n\t{block}\n"
    ));
    no_call("Like this:\n\n    <tools>\n    {\"name\": \"read\", \"arguments\": {}}\n    </tools>");
    no_call(&format!("Like this:\n\n    x = 1\n\n    {block}"));
    // Not after a blank line: a paragraph's continuation, read as before.
    let (name, _, _, _) = one(&format!("I'll read it.\n\n{block}"));
    assert_eq!(name, "read");
    let (name, _, _, _) = one("<tools>\n    {\"name\": \"read\", \"arguments\": {}}\n</tools>");
    assert_eq!(name, "read");
}

#[test]
fn a_whole_message_call_that_does_not_parse_is_rejected() {
    // F17: clearly one JSON call to a declared tool, broken: rejected with the
    // parser's reason, never left as text.
    for text in [
        "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}}",
        "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\" \"limit\": 3}}",
        "{'type': 'tool_use', 'id': 'toolu_01', 'name': 'read', 'input': {'file_path': '/a' 'x': 1}}",
    ] {
        let (name, args, _, clean) = one(text);
        assert_eq!(name, "read", "{text}");
        let why = args.as_str().unwrap_or_default();
        assert!(why.contains("not valid JSON"), "{text}: {why}");
        assert_eq!(clean, "", "{text}");
    }
    let deep = format!(
        "{{\"name\": \"read\", \"arguments\": {{\"a\": {}{}}}}}",
        "[".repeat(1000),
        "]".repeat(1000)
    );
    for text in [deep.clone(), format!("<tools>{deep}</tools>")] {
        let (name, args, _, _) = one(&text);
        let why = args.as_str().unwrap_or_default();
        assert_eq!(name, "read");
        assert!(why.contains("deep"), "{why}");
    }
    // Not a call's shape, undeclared, or prose after it: text.
    no_call("{\"title\": \"x\", \"name\": \"read\", \"a\": 1 \"b\": 2}");
    no_call("{\"name\": \"read\", \"age\": 41 \"city\": \"Leeds\"}");
    no_call("{\"name\": \"search\", \"arguments\": {\"q\": \"x\" \"n\": 1}}");
    no_call(
        "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\" \"limit\": 3}}\n\nThat is the broken call I saw.",
    );
    no_call("{\"name\": \"read\", \"arguments\": {}} is what it sends.");
    no_call(
        "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\" \"limit\": 3}}\nThat is the broken call I saw.",
    );
    // Pretty-printed, broken further down: still the whole message.
    let (name, args, _, _) = one(
        "{\n  \"name\": \"read\",\n  \"arguments\": {\n    \"file_path\": \"/a\"\n    \"limit\": 3\n  }\n}",
    );
    assert!(
        args.as_str().is_some_and(|w| w.contains("not valid JSON")),
        "{name}: {args}"
    );
}
