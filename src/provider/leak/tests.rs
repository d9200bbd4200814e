use super::*;
use serde_json::json;

/// Sentinel families only: no tool is declared.
fn find(text: &str) -> (Vec<Leaked>, String) {
    super::find(text, &|_| false)
}

/// With `read` and `glob` declared.
fn find_declared(text: &str) -> (Vec<Leaked>, String) {
    super::find(text, &|name| matches!(name, "read" | "glob"))
}

fn one(text: &str) -> (Leaked, String) {
    let (mut calls, clean) = find(text);
    assert_eq!(calls.len(), 1, "{calls:?}");
    (calls.remove(0), clean)
}

#[test]
fn dsml_with_prefix_and_typed_values() {
    // opencode #24566 comment (DeepSeek, read).
    let text = "I'll read it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read\">\n<｜DSML｜parameter name=\"filePath\" string=\"true\">I:\\hrc\\usermode\\src\\hypercall\\hypercall.cpp</｜DSML｜parameter>\n<｜DSML｜parameter name=\"limit\" string=\"false\">15</｜DSML｜parameter>\n<｜DSML｜parameter name=\"offset\" string=\"false\">357</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let (call, clean) = one(text);
    assert_eq!(call.name, "read");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"filePath": "I:\\hrc\\usermode\\src\\hypercall\\hypercall.cpp", "limit": 15, "offset": 357})
    );
    assert_eq!(clean, "I'll read it.");
}

#[test]
fn dsml_without_prefix() {
    // opencode #34676 (DeepSeek V4 Flash).
    let (call, clean) = one(
        "<invoke name=\"read\"><parameter name=\"filePath\" string=\"true\">/home/u/frontend/src/lib/api.ts</parameter></invoke>",
    );
    assert_eq!(call.name, "read");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"filePath": "/home/u/frontend/src/lib/api.ts"})
    );
    assert_eq!(clean, "");
}

#[test]
fn dsml_broken_json_is_malformed_not_guessed() {
    // opencode #24566 (DeepSeek, question): `options` lost its brackets.
    let text = "<｜DSML｜invoke name=\"question\"><｜DSML｜parameter name=\"questions\" string=\"false\">[{\"question\": \"x\", \"options\": {\"label\": \"a\", \"description\": \"b\"}, {\"label\": \"c\", \"description\": \"d\"}, \"header\": \"h\"}]</｜DSML｜parameter></｜DSML｜invoke>";
    let (call, _) = one(text);
    assert_eq!(call.name, "question");
    let why = call.args.unwrap_err();
    assert!(
        why.starts_with("parameter \"questions\" is marked as JSON but is not valid JSON"),
        "{why}"
    );
}

#[test]
fn qwen_function_format() {
    let text = "Let me search.\n<function=grep>\n<parameter=pattern>\nfn main\n</parameter>\n<parameter=head_limit>\n15\n</parameter>\n</function>\nDone.";
    let (call, clean) = one(text);
    assert_eq!(call.name, "grep");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"pattern": "fn main", "head_limit": "15"})
    );
    assert_eq!(clean, "Let me search.\n\nDone.");
}

#[test]
fn hermes_tool_call() {
    let (call, clean) = one(
        "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}\n</tool_call>",
    );
    assert_eq!(call.name, "glob");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"pattern": "*.rs"})
    );
    assert_eq!(clean, "");
    let (call, _) = one(
        "<tool_call>{\"name\": \"glob\", \"arguments\": \"{\\\"pattern\\\": \\\"*\\\"}\"}</tool_call>",
    );
    assert_eq!(Value::Object(call.args.unwrap()), json!({"pattern": "*"}));
}

#[test]
fn several_calls_in_order() {
    let text =
        "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> and <function=b></function>";
    let (calls, clean) = find(text);
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(clean, "and");
}

#[test]
fn malformed_markup_is_reported() {
    for (text, why) in [
        (
            "<tool_call>{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}",
            "not closed",
        ),
        (
            "<tool_call>{\"name\": \"glob\",}</tool_call>",
            "not valid JSON",
        ),
        ("<tool_call>{\"arguments\": {}}</tool_call>", "has no name"),
        (
            "<invoke name=\"read\"><parameter name=\"p\" string=\"true\">x</invoke>",
            "not closed",
        ),
        ("<function=read><parameter=p>x</function>", "not closed"),
    ] {
        let (calls, _) = find(text);
        assert_eq!(calls.len(), 1, "{text}");
        let err = calls[0].args.clone().unwrap_err();
        assert!(err.contains(why), "{text}: {err}");
    }
}

#[test]
fn prose_is_left_alone() {
    let text =
        "Use <function> tags or <tool_call> wrappers? No: a < b, <invoke>, <important-rules>.";
    let (calls, clean) = find(text);
    // `<tool_call>` without a closing tag in prose is malformed, not ignored:
    // text that opens a call must finish it.
    assert_eq!(calls.len(), 1);
    assert!(calls[0].args.is_err());
    assert!(clean.starts_with("Use <function> tags or"));
    let (calls, clean) = find("No markup here: <b>bold</b>, Vec<T>.");
    assert!(calls.is_empty());
    assert_eq!(clean, "No markup here: <b>bold</b>, Vec<T>.");
}

#[test]
fn code_spans_and_fences_are_not_calls_but_markup_after_them_is() {
    let text = "Quoted: `<tool_call>{\"name\": \"a\"}</tool_call>` and\n```\n<function=b></function>\n```\nthen <function=c></function>";
    let (calls, _) = find(text);
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["c"]);
    assert_eq!(calls[0].family, "qwen-coder");
}

#[test]
fn a_lone_backtick_quotes_nothing() {
    let (calls, _) = find("It's `odd: <function=c></function>");
    assert_eq!(calls.len(), 1);
}

#[test]
fn one_tool_call_tag_three_syntaxes() {
    for (text, family) in [
        (
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
            "hermes",
        ),
        (
            "<tool_call><function=a></function></tool_call>",
            "qwen3-coder",
        ),
        ("<tool_call>a</tool_call>", "glm"),
    ] {
        let (call, _) = one(text);
        assert_eq!((call.name.as_str(), call.family), ("a", family), "{text}");
        assert_eq!(call.markup, text);
    }
}

#[test]
fn llama3_calls_joined_by_semicolons() {
    let (calls, clean) = find(
        "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {\"x\": 1}}<|eom_id|>",
    );
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(clean, "");
}

#[test]
fn a_bare_call_list_naming_declared_tools() {
    for (text, family) in [
        ("[read(file_path=\"/a\"), glob(pattern='*.rs')]", "pythonic"),
        (
            "[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}, {\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}]",
            "json",
        ),
    ] {
        let (calls, clean) = find_declared(&format!("  {text}\n"));
        let got: Vec<(&str, &str)> = calls.iter().map(|c| (c.name.as_str(), c.family)).collect();
        assert_eq!(got, [("read", family), ("glob", family)], "{text}");
        assert_eq!(
            Value::Object(calls[1].args.clone().unwrap()),
            json!({"pattern": "*.rs"})
        );
        assert_eq!(clean, "");
        // Not declared, or not the whole message: text, not a call.
        assert!(find(text).0.is_empty(), "{text}");
        assert!(find_declared(&format!("Try {text}")).0.is_empty(), "{text}");
    }
    let (calls, _) = find_declared("{\"name\": \"read\", \"parameters\": {\"file_path\": \"/a\"}}");
    assert_eq!((calls[0].name.as_str(), calls[0].family), ("read", "json"));
}

#[test]
fn a_bare_list_that_only_looks_like_calls_is_text() {
    for text in [
        "[read(the docs)]",
        "[read(file_path=\"/a\"), unknown()]",
        "{\"name\": \"read\"}",
        "{\"name\": \"read\", \"arguments\": {}, \"why\": \"x\"}",
        "[]",
        "[\"read\"]",
    ] {
        assert!(find_declared(text).0.is_empty(), "{text}");
    }
}

#[test]
fn a_bare_list_cut_off_is_rejected_when_its_first_name_is_declared() {
    for text in [
        "[read(file_path=\"/a",
        "[{\"name\": \"read\", \"arguments\": {\"file_",
    ] {
        let (calls, _) = find_declared(text);
        assert_eq!(calls.len(), 1, "{text}");
        assert_eq!(
            calls[0].args,
            Err("the tool call written in the text is not closed".into())
        );
        assert!(find_declared(&text.replace("read", "other")).0.is_empty());
    }
}

#[test]
fn llama4_python_start() {
    let (call, clean) =
        one("Reading.<|python_start|>[read(file_path=\"/a\", offset=120)]<|python_end|>");
    assert_eq!((call.name.as_str(), call.family), ("read", "pythonic"));
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"file_path": "/a", "offset": 120})
    );
    assert_eq!(clean, "Reading.");
}
