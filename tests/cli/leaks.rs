//! Calls written into assistant text, one syntax family at a time: the whole
//! markup gives the exact call; the markup cut off is rejected with a message,
//! never completed; the markup quoted in code is no call.

use serde_json::{Value, json};

use crate::util::{json_stats, repair_kinds};

/// (family, markup): each calls `read` with file_path "/src/main.rs" and
/// offset 120 (as a number, or as text where the syntax has no types).
const FAMILIES: &[(&str, &str)] = &[
    (
        "dsml",
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read\">\n<｜DSML｜parameter name=\"file_path\" string=\"true\">/src/main.rs</｜DSML｜parameter>\n<｜DSML｜parameter name=\"offset\" string=\"false\">120</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    ),
    (
        "dsml",
        "<minimax:tool_call>\n<invoke name=\"read\">\n<parameter name=\"file_path\">/src/main.rs</parameter>\n<parameter name=\"offset\">120</parameter>\n</invoke>\n</minimax:tool_call>",
    ),
    (
        "qwen-coder",
        "<function=read>\n<parameter=file_path>\n/src/main.rs\n</parameter>\n<parameter=offset>\n120\n</parameter>\n</function>",
    ),
    (
        "qwen3-coder",
        "<tool_call>\n<function=read>\n<parameter=file_path>\n/src/main.rs\n</parameter>\n<parameter=offset>\n120\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        "hermes",
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n</tool_call>",
    ),
    (
        "glm",
        "<tool_call>read\n<arg_key>file_path</arg_key>\n<arg_value>/src/main.rs</arg_value>\n<arg_key>offset</arg_key>\n<arg_value>120</arg_value>\n</tool_call>",
    ),
    (
        "kimi-k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{\"file_path\": \"/src/main.rs\", \"offset\": 120}<|tool_call_end|><|tool_calls_section_end|>",
    ),
    (
        "deepseek-v3",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read\n```json\n{\"file_path\": \"/src/main.rs\", \"offset\": 120}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ),
    (
        "deepseek-v3",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read<｜tool▁sep｜>{\"file_path\": \"/src/main.rs\", \"offset\": 120}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ),
    (
        "mistral",
        "[TOOL_CALLS][{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}, \"id\": \"D681PevKs\"}]",
    ),
    (
        "mistral",
        "[TOOL_CALLS]read[ARGS]{\"file_path\": \"/src/main.rs\", \"offset\": 120}",
    ),
    (
        "llama3",
        "<|python_tag|>{\"name\": \"read\", \"parameters\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}<|eom_id|>",
    ),
    (
        "granite",
        "<|tool_call|>[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}]",
    ),
    (
        "cohere",
        "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"read\", \"parameters\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}\n]<|END_ACTION|>",
    ),
    (
        "harmony",
        "<|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{\"file_path\": \"/src/main.rs\", \"offset\": 120}<|call|>",
    ),
    (
        "harmony",
        "<|channel|>commentary to=functions.read <|constrain|>json<|message|>{\"file_path\": \"/src/main.rs\", \"offset\": 120}",
    ),
    (
        "pythonic",
        "<|python_start|>[read(file_path=\"/src/main.rs\", offset=120)]<|python_end|>",
    ),
];

/// (family, markup) with no sentinel: a call only as the whole message, every
/// name in it a declared tool.
const BARE: &[(&str, &str)] = &[
    ("pythonic", "[read(file_path='/src/main.rs', offset=120)]"),
    (
        "json",
        "[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}]",
    ),
    (
        "json",
        "{\"name\": \"read\", \"parameters\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}",
    ),
];

#[test]
fn the_whole_markup_gives_the_exact_call() {
    let with_prose = FAMILIES
        .iter()
        .map(|(family, markup)| (*family, format!("I will read the file.\n{markup}")));
    let bare = BARE.iter().map(|(f, m)| (*f, m.to_string()));
    for (family, text) in with_prose.chain(bare) {
        let (code, out, stats) = json_stats(&text);
        assert_eq!(code, 0, "{family}: {out:?}");
        assert_eq!(out.len(), 1, "{family}: {out:?}");
        assert_eq!(out[0]["tool"], "read", "{family}");
        assert_eq!(out[0]["status"], "repaired", "{family}");
        assert_eq!(
            out[0]["args"],
            json!({"file_path": "/src/main.rs", "offset": 120}),
            "{family}"
        );
        let kinds = repair_kinds(&out[0]);
        assert_eq!(kinds[0], "extract-from-text", "{family}");
        assert!(
            stats.contains(&format!("calls written in text, by syntax: {family} 1")),
            "{family}: {stats}"
        );
    }
}

#[test]
fn markup_cut_off_is_rejected_never_completed() {
    let with_prose = FAMILIES.iter().map(|(family, markup)| {
        let cut = &markup[..markup.find("/src/ma").unwrap()];
        (*family, format!("I will read the file.\n{cut}"))
    });
    let bare = BARE
        .iter()
        .map(|(f, m)| (*f, m[..m.find("/src/ma").unwrap()].to_owned()));
    for (family, cut) in with_prose.chain(bare) {
        let (code, out, _) = json_stats(&cut);
        assert_eq!(code, 1, "{family}: {cut}");
        assert_eq!(out.len(), 1, "{family}: {out:?}");
        assert_eq!(out[0]["status"], "rejected", "{family}");
        assert_eq!(out[0]["args"], Value::Null, "{family}");
        let message = out[0]["message"].as_str().unwrap();
        assert!(
            message.contains("not closed") || message.contains("not valid JSON"),
            "{family}: {message}"
        );
    }
}

#[test]
fn markup_quoted_in_code_is_no_call() {
    for (family, markup) in FAMILIES.iter().chain(BARE) {
        for text in [
            format!("The syntax looks like this:\n\n````\n{markup}\n````\n\nThat is all."),
            format!("Write `{markup}` to call a tool."),
        ] {
            let (code, out, _) = json_stats(&text);
            assert_eq!((code, out.len()), (0, 0), "{family}: {text}: {out:?}");
        }
    }
}

#[test]
fn a_bare_list_naming_an_undeclared_tool_is_text() {
    for text in [
        "[search(query='rust')]",
        "[{\"name\": \"search\", \"arguments\": {\"query\": \"rust\"}}]",
        "[read(file_path='/a'), search(query='rust')]",
        "[search(query='ru",
    ] {
        let (code, out, _) = json_stats(text);
        assert_eq!((code, out.len()), (0, 0), "{text}: {out:?}");
    }
}
