//! Part 15: the families added as table rows and the lenient readings of
//! known families. Call notation (`read(file_path: "/a")`) is tested in
//! `notation`, the bounds on work and stack for all of them in `limits`.

use super::*;
use serde_json::json;

mod limits;
mod notation;

/// With `read`, `glob` and `exec` declared.
fn find_declared(text: &str) -> (Vec<Leaked>, String) {
    super::find(text, &|name| matches!(name, "read" | "glob" | "exec"))
}

fn one(text: &str) -> (Leaked, String) {
    let (mut calls, clean) = find_declared(text);
    assert_eq!(calls.len(), 1, "{text}: {calls:?}");
    (calls.remove(0), clean)
}

fn args(call: &Leaked) -> Value {
    Value::Object(
        call.args
            .clone()
            .unwrap_or_else(|e| panic!("{e}: {call:?}")),
    )
}

fn untyped(call: &Leaked) -> Vec<&str> {
    call.written.untyped.iter().map(String::as_str).collect()
}

#[test]
fn minicpm_function_tags_with_param_elements() {
    // mlx-lm #1899, omlx #3429 (MiniCPM5): no wrapper, values as text.
    let (call, clean) = one(
        "I will read it.\n<function name=\"read\"><param name=\"file_path\">/src/main.rs</param><param name=\"offset\">120</param></function>",
    );
    assert_eq!((call.name.as_str(), call.family), ("read", "minicpm"));
    assert_eq!(
        args(&call),
        json!({"file_path": "/src/main.rs", "offset": "120"})
    );
    assert_eq!(untyped(&call), ["file_path", "offset"]);
    assert_eq!(clean, "I will read it.");
    // CDATA holds text that would close the parameter: kept exactly.
    let (call, _) = one(
        "<function name=\"write\"><param name=\"content\"><![CDATA[a </param> & b\n]]></param></function>",
    );
    assert_eq!(args(&call), json!({"content": "a </param> & b\n"}));
    // Single quotes, as the template allows.
    let (call, _) = one("<function name='read'><param name='file_path'>/a</param></function>");
    assert_eq!(args(&call), json!({"file_path": "/a"}));
    // Cut off: rejected.
    let (call, _) = one("<function name=\"read\"><param name=\"file_path\">/src/ma");
    assert!(call.args.is_err(), "{call:?}");
}

#[test]
fn seed_tool_call_wrapping_a_function_tag() {
    // vLLM seed_oss: `<seed:tool_call><function=…><parameter=…>`.
    let text = "<seed:tool_call>\n<function=read>\n<parameter=file_path>/src/main.rs</parameter>\n<parameter=offset>120</parameter>\n</function>\n</seed:tool_call>";
    let (call, clean) = one(&format!("Reading.\n{text}"));
    assert_eq!((call.name.as_str(), call.family), ("read", "seed"));
    assert_eq!(
        args(&call),
        json!({"file_path": "/src/main.rs", "offset": "120"})
    );
    assert_eq!(untyped(&call), ["file_path", "offset"]);
    assert_eq!(call.markup, text);
    assert_eq!(clean, "Reading.");
    let (call, _) = one(&text[..text.find("/src/ma").unwrap()]);
    assert!(call.args.unwrap_err().contains("not closed"));
}

#[test]
fn dsml_and_minimax_parameters_without_a_string_attribute_are_untyped() {
    let (call, _) = one(
        "<｜DSML｜invoke name=\"read\"><｜DSML｜parameter name=\"file_path\" string=\"true\">0123</｜DSML｜parameter><｜DSML｜parameter name=\"offset\">120</｜DSML｜parameter><｜DSML｜parameter name=\"limit\" string=\"false\">15</｜DSML｜parameter></｜DSML｜invoke>",
    );
    assert_eq!(
        args(&call),
        json!({"file_path": "0123", "offset": "120", "limit": 15})
    );
    assert_eq!(untyped(&call), ["offset"]);
    let (call, _) = one(
        "<minimax:tool_call>\n<invoke name=\"read\">\n<parameter name=\"offset\">120</parameter>\n</invoke>\n</minimax:tool_call>",
    );
    assert_eq!(untyped(&call), ["offset"]);
}

#[test]
fn granite_31_tool_call_list_has_no_closing_tag() {
    // Granite 3.1: `<tool_call>[…]` ends where its list does.
    let list = "[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}]";
    for (text, clean) in [
        (format!("<tool_call>{list}"), ""),
        (format!("<tool_call>{list}\nI will wait."), "I will wait."),
    ] {
        let (call, left) = one(&text);
        assert_eq!((call.name.as_str(), call.family), ("read", "granite"));
        assert_eq!(args(&call), json!({"file_path": "/a"}));
        assert_eq!(left, clean);
    }
    // Hermes closed around a list is still hermes; an object not closed
    // with prose after it, or a list cut off, is not closed (a whole object
    // at the end of the message is read:
    // `a_complete_call_whose_closing_never_comes_is_read_only_at_the_end`).
    let (call, _) = one(&format!("<tool_call>{list}</tool_call>"));
    assert_eq!(call.family, "hermes");
    for text in [
        "<tool_call>{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}\nDone.".to_owned(),
        format!("<tool_call>{}", &list[..list.len() - 1]),
    ] {
        let (call, _) = one(&text);
        assert!(call.args.unwrap_err().contains("not closed"), "{text}");
    }
}

#[test]
fn kimi_call_ids_written_without_their_dot_or_colon() {
    let call = |id: &str| {
        format!(
            "<|tool_calls_section_begin|><|tool_call_begin|>{id}<|tool_call_argument_begin|>{{\"command\": \"ls\"}}<|tool_call_end|><|tool_calls_section_end|>"
        )
    };
    for id in [
        "functions.exec:5",
        "functionsexec5",
        "functions.exec5",
        "functionsexec:5",
        "functions.exec",
    ] {
        let (leaked, clean) = one(&call(id));
        assert_eq!(leaked.name, "exec", "{id}");
        assert_eq!(args(&leaked), json!({"command": "ls"}), "{id}");
        assert_eq!(clean, "", "{id}");
    }
    // No declared tool among the readings: rejected, saying why.
    let (leaked, _) = one(&call("functionsgrep5"));
    let why = leaked.args.unwrap_err();
    assert!(why.contains("functions.NAME:INDEX"), "{why}");
}

#[test]
fn a_section_begin_followed_by_garbage_is_malformed() {
    for text in [
        "<｜tool▁calls▁begin｜><｜tool▁calls▁begin｜>garbage here",
        "<｜tool▁calls▁begin｜>garbage<｜tool▁calls▁end｜>",
        "<|tool_calls_section_begin|>functions.exec:0 {}<|tool_calls_section_end|>",
    ] {
        let (call, clean) = one(&format!("Running.\n{text}"));
        assert!(call.args.is_err(), "{text}: {call:?}");
        assert_eq!(call.markup, text);
        assert_eq!(clean, "Running.");
    }
    // Repeated, then a call: the call is read.
    let (call, _) = one(
        "<｜tool▁calls▁begin｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>exec<｜tool▁sep｜>{\"command\": \"ls\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    );
    assert_eq!(args(&call), json!({"command": "ls"}));
}

#[test]
fn function_tags_missing_a_bracket_or_with_the_json_before_it() {
    for text in [
        "<function=read{\"file_path\": \"/a\"}</function>",
        "<function=read{\"file_path\": \"/a\"}></function>",
        "function=read>{\"file_path\": \"/a\"}</function>",
        "I will read it:\nfunction=read>{\"file_path\": \"/a\"}</function>",
    ] {
        let (call, _) = one(text);
        assert_eq!(call.name, "read", "{text}");
        assert_eq!(args(&call), json!({"file_path": "/a"}), "{text}");
        assert_eq!(call.family, "llama3", "{text}");
    }
    // Not one reading: still malformed, or text.
    for text in [
        "<function=read{\"file_path\": \"/a\"} and more</function>",
        "<function=read{\"file_path\": \"/a\"</function>",
    ] {
        let (call, _) = one(text);
        assert!(call.args.is_err(), "{text}: {call:?}");
    }
    for text in [
        "set function=read> in the config",
        "myfunction=read>{\"a\": 1}</function>",
    ] {
        let (calls, clean) = find_declared(text);
        assert!(calls.is_empty(), "{text}: {calls:?}");
        assert_eq!(clean, text);
    }
}

#[test]
fn llama_json_variants_after_a_sentinel() {
    for sentinel in ["<|python_tag|>", "<|python_start|>"] {
        for json in [
            "{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {\"file_path\": \"/a\"}}}",
            "{\"type\": \"function\", \"name\": \"read\", \"parameters\": {\"file_path\": \"/a\"}}",
        ] {
            let text = format!("{sentinel}{json}");
            let (call, clean) = one(&text);
            assert_eq!(call.name, "read", "{text}");
            assert_eq!(args(&call), json!({"file_path": "/a"}), "{text}");
            assert_eq!(clean, "");
        }
    }
}

#[test]
fn new_openings_in_code_are_no_call() {
    for markup in [
        "<function name=\"read\"><param name=\"p\">1</param></function>",
        "<seed:tool_call><function=read></function></seed:tool_call>",
        "function=read>{\"p\": 1}</function>",
    ] {
        let (calls, _) = find_declared(&format!("See `{markup}`."));
        assert!(calls.is_empty(), "{markup}");
    }
}

#[test]
fn a_complete_call_whose_closing_never_comes_is_read_only_at_the_end() {
    let cases = [
        // (markup, the family of the call read)
        (
            "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}\n",
            "hermes",
        ),
        (
            "<tool_call>\n<function=read>\n<parameter=file_path>\n/a\n</parameter>\n</function>",
            "qwen3-coder",
        ),
        (
            "<tool_call><function name=\"read\"><param name=\"file_path\">/a</param></function>",
            "minicpm",
        ),
        (
            "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"read\", \"parameters\": {\"file_path\": \"/a\"}}]",
            "cohere",
        ),
    ];
    for (markup, family) in cases {
        let (call, clean) = one(&format!("Reading.\n{markup}"));
        assert_eq!(
            (call.name.as_str(), call.family),
            ("read", family),
            "{markup}"
        );
        assert_eq!(args(&call), json!({"file_path": "/a"}), "{markup}");
        assert_eq!(clean, "Reading.");
        // Anything after it: the closing was due, so the call is not closed.
        let (call, _) = one(&format!("Reading.\n{markup}\nDone."));
        assert_eq!(call.args, Err(cut::NOT_CLOSED.to_owned()), "{markup}");
        assert_eq!(call.name, "read", "{markup}");
    }
    // A body cut off stays cut off: never completed.
    for cut in [
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}",
        "<tool_call>\n<function=read>\n<parameter=file_path>\n/a\n</parameter>\n</funct",
        "<|START_ACTION|>[{\"tool_name\": \"read\", \"parameters\": {\"file_path\": \"/a\"}}",
    ] {
        let (call, _) = one(cut);
        assert!(call.args.is_err(), "{cut}: {call:?}");
        assert_eq!(call.name, "read", "{cut}");
    }
}

#[test]
fn a_call_cut_off_keeps_the_name_written_before_the_cut() {
    for (text, name) in [
        (
            "<｜DSML｜invoke name=\"read\">\n<｜DSML｜parameter name=\"file_path\" string=\"true\">",
            "read",
        ),
        ("<｜DSML｜invoke name=\"rea", ""),
        ("<function=read>\n<parameter=file_path>\n", "read"),
        ("<function=rea", ""),
        (
            "<tool_call>read\n<arg_key>file_path</arg_key>\n<arg_value>",
            "read",
        ),
        (
            "<|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{\"a\": \"",
            "read",
        ),
        ("<|tool_call_begin|>functions.rea", ""),
        ("<｜tool▁call▁begin｜>read<｜tool▁sep｜>{\"a\": \"", "read"),
        (
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>read\n```json\n{\"a",
            "read",
        ),
        ("<｜tool▁call▁begin｜>function<｜tool▁sep｜>rea", ""),
        (
            "[TOOL_CALLS][{\"name\": \"read\", \"arguments\": {\"a\": \"",
            "read",
        ),
        ("<|python_start|>[read(file_path=\"", "read"),
        (
            "<seed:tool_call>\n<function=read>\n<parameter=file_path>\n",
            "read",
        ),
        ("<function name=\"read\"><param name=\"file_path\">", "read"),
    ] {
        let (call, _) = one(&format!("Reading.\n{text}"));
        assert_eq!(call.args, Err(cut::NOT_CLOSED.to_owned()), "{text}");
        assert_eq!(call.name, name, "{text}");
    }
}

#[test]
fn harmony_json_that_does_not_parse_ends_at_its_call_token() {
    let broken = "<|channel|>commentary to=functions.read <|constrain|>json<|message|>{\"file_path\": \"/a\", \"offset\": 1<|call|>";
    let good = "<|start|>assistant<|channel|>commentary to=functions.glob <|constrain|>json<|message|>{\"pattern\": \"*\"}<|call|>";
    let (calls, clean) = find_declared(&format!("{broken}\n{good}\nDone."));
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].name, "read");
    assert!(
        calls[0]
            .args
            .as_ref()
            .unwrap_err()
            .contains("not valid JSON")
    );
    assert_eq!(calls[0].markup, broken);
    assert_eq!(
        (calls[1].name.as_str(), args(&calls[1])),
        ("glob", json!({"pattern": "*"}))
    );
    assert_eq!(clean, "Done.");
    // No `<|call|>` after it: the rest of the message is its markup.
    let (calls, _) = find_declared(broken.trim_end_matches("<|call|>"));
    assert_eq!(calls.len(), 1);
}

#[test]
fn kimi_singular_section_tokens_leave_the_text_as_the_plural_do() {
    let (call, clean) = one(
        "Reading.<|tool_call_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{\"file_path\": \"/a\"}<|tool_call_end|><|tool_call_section_end|>",
    );
    assert_eq!((call.name.as_str(), call.family), ("read", "kimi-k2"));
    assert_eq!(clean, "Reading.");
}

#[test]
fn a_section_begin_repeated_with_garbage_is_rejected_and_names_its_call() {
    let text = "<｜tool▁calls▁begin｜><｜tool▁calls▁begin｜>garbage<｜tool▁call▁begin｜>read<｜tool▁sep｜>{\"file_path\": \"/a\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let (call, clean) = one(&format!("{text}Done."));
    assert_eq!(call.name, "read");
    assert!(call.args.unwrap_err().contains("holds no call"));
    assert_eq!(call.markup, text);
    assert_eq!(clean, "Done.");
    // Garbage with no call in it: no name.
    let (call, _) = one("<｜tool▁calls▁begin｜>garbage<｜tool▁calls▁end｜>");
    assert_eq!(call.name, "");
}
