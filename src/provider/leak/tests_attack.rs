//! Part 15's attack pass on the leak readers: prose read as a call, a value
//! dropped, text changed. Each test failed before its fix.

use super::*;
use serde_json::json;

const DECLARED: &[&str] = &[
    "read", "read1", "exec", "exec_2", "ec2", "glob", "grep", "write",
];

fn find_declared(text: &str) -> (Vec<Leaked>, String) {
    super::find(text, &|name| DECLARED.contains(&name))
}

fn one(text: &str) -> Leaked {
    let (mut calls, _) = find_declared(text);
    assert_eq!(calls.len(), 1, "{text}: {calls:?}");
    calls.remove(0)
}

fn none(text: &str) {
    let (calls, clean) = find_declared(text);
    assert!(calls.is_empty(), "{text}: {calls:?}");
    assert_eq!(clean, text.trim(), "{text}");
}

#[test]
fn call_notation_followed_by_prose_is_a_call_only_with_keyword_arguments() {
    // F7: Python, C and man pages explained in prose.
    for text in [
        "glob('*.py')\n\nreturns the list of Python files in the current directory; use glob('**/*.py', recursive=True) to recurse.",
        "read(\"/etc/hosts\")\n\nIn Python you would write open(\"/etc/hosts\").read() instead.",
        "grep(\"-r\")\n\nis wrong: options go before the pattern.",
        "grep(1)\n\nThe grep(1) manual page documents every flag.",
        "write(1, \"hello\\n\", 6)\n\nwrites six bytes to standard output.",
        "glob('*.py', recursive=True)\n\nrecurses.",
        // `name(<digits>…)` is never a call without a sentinel.
        "grep(1)",
        "write(1, \"hello\\n\", 6)",
        "read(2)",
    ] {
        none(text);
    }
    // Keyword arguments, then prose: a call, the prose left.
    let (calls, clean) = find_declared("read(file_path=\"/a\")\n\nThis reads the file.");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(clean, "This reads the file.");
    // A positional value alone: a call, for the schema to name.
    let call = one("glob('*.py')");
    assert_eq!(call.written.positional, [json!("*.py")]);
    // After a sentinel, digits are a value like any other.
    let call = one("<|python_start|>read(2)<|python_end|>");
    assert_eq!(call.written.positional, [json!(2)]);
}

#[test]
fn function_eq_without_its_bracket_only_at_line_start_naming_a_declared_tool() {
    // F8
    for text in [
        "Configure the hook as function=handler {\"retries\": 3}",
        "Use the callback function=read {\"file_path\": \"/etc/shadow\"}",
        "function=read {\"file_path\": \"/a\"}",
        "function=handler>{\"retries\": 3}</function>",
        "I will read it: function=read>{\"file_path\": \"/a\"}</function>",
    ] {
        none(text);
    }
    let call = one("I will read it.\n  function=read>{\"file_path\": \"/a\"}</function>");
    assert_eq!(call.name, "read");
    assert_eq!(
        call.args,
        Ok(json!({"file_path": "/a"}).as_object().cloned().unwrap())
    );
    // Cut off inside the JSON or the closing: not closed, named.
    for text in [
        "function=read>{\"file_path\": \"/a",
        "function=read>{\"file_path\": \"/a\"}</func",
    ] {
        let call = one(text);
        assert_eq!(call.args, Err(cut::NOT_CLOSED.to_owned()), "{text}");
        assert_eq!(call.name, "read", "{text}");
    }
}

#[test]
fn hermes_cut_off_in_call_notation_is_named() {
    // A `<tool_call>` whose body is call notation, cut off: not closed, and
    // named as far as the name got (it was "" before, so the model was never
    // told which tool it was writing).
    for (text, name) in [
        ("<tool_call>glob(pattern: 'x'", "glob"),
        ("<tool_call>\nread(file_path=\"/a", "read"),
        ("<tool_call> read(", "read"),
    ] {
        let call = one(text);
        assert_eq!(call.args, Err(cut::NOT_CLOSED.to_owned()), "{text}");
        assert_eq!(call.name, name, "{text}");
    }
    // Cut inside the name: it may not be whole, so it names nothing.
    let call = one("<tool_call>rea");
    assert_eq!(call.args, Err(cut::NOT_CLOSED.to_owned()));
    assert_eq!(call.name, "");
}

#[test]
fn kimi_ids_every_split_of_the_trailing_digits_is_a_reading() {
    // F11
    let call = |id: &str| {
        format!(
            "<|tool_calls_section_begin|><|tool_call_begin|>{id}<|tool_call_argument_begin|>{{\"file_path\": \"/a\"}}<|tool_call_end|><|tool_calls_section_end|>"
        )
    };
    for (id, name) in [
        ("functionsexec_25", "exec_2"),
        ("functionsec20", "ec2"),
        ("functionsexec5", "exec"),
        ("functionsread1:0", "read1"),
        ("functionsread:10", "read"),
    ] {
        let leaked = one(&call(id));
        assert_eq!(leaked.name, name, "{id}: {leaked:?}");
        assert!(leaked.args.is_ok(), "{id}: {leaked:?}");
    }
    // read:10 and read1:0 are both declared: two readings, rejected.
    let leaked = one(&call("functionsread10"));
    let why = leaked.args.unwrap_err();
    assert!(why.contains("\"read1\", \"read\""), "{why}");
    // A run of digits longer than an index: no reading.
    let leaked = one(&call("functionsexec12345678901234"));
    assert!(leaked.args.is_err(), "{leaked:?}");
}

#[test]
fn a_parameter_given_twice_is_malformed_never_last_wins() {
    // F14
    for text in [
        "<function name=\"read\"><param name=\"file_path\">/tmp/a</param><param name=\"file_path\">/etc/shadow</param></function>",
        "<tool_call>\n<function=read>\n<parameter=file_path>\n/tmp/a\n</parameter>\n<parameter=file_path>\n/etc/shadow\n</parameter>\n</function>\n</tool_call>",
        "<tool_call>read<arg_key>file_path</arg_key><arg_value>/tmp/a</arg_value><arg_key>file_path</arg_key><arg_value>/etc/shadow</arg_value></tool_call>",
        "<seed:tool_call><function=read><parameter=file_path>/tmp/a</parameter><parameter=file_path>/etc/shadow</parameter></function></seed:tool_call>",
        "<｜DSML｜invoke name=\"read\"><｜DSML｜parameter name=\"file_path\" string=\"true\">/tmp/a</｜DSML｜parameter><｜DSML｜parameter name=\"file_path\" string=\"true\">/etc/shadow</｜DSML｜parameter></｜DSML｜invoke>",
        "<invoke name=\"read\"><parameter name=\"file_path\">/tmp/a</parameter><parameter name=\"file_path\">/etc/shadow</parameter></invoke>",
    ] {
        let call = one(text);
        assert_eq!(call.name, "read", "{text}");
        let why = call.args.unwrap_err();
        assert!(
            why.contains("parameter \"file_path\" is given twice"),
            "{text}: {why}"
        );
    }
}

#[test]
fn granite_list_only_where_it_ends_the_message_or_stands_on_its_lines() {
    // F15
    let list = "<tool_call>[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}]";
    none(&format!(
        "Granite 3.1 writes {list} with no closing tag, for example."
    ));
    for text in [
        list.to_owned(),
        format!("Reading it. {list}\n"),
        format!("Reading it.\n{list}\nThat is the call."),
    ] {
        let call = one(&text);
        assert_eq!(
            (call.name.as_str(), call.family),
            ("read", "granite"),
            "{text}"
        );
    }
}

#[test]
fn a_sentinel_named_in_prose_is_text() {
    // F15: no call's start follows the opening, and no closing anywhere.
    for text in [
        "Doubao Seed models wrap calls in <seed:tool_call> tags; callfix reads them.",
        "Qwen models wrap calls in <tool_call> tags; callfix reads them.",
        "Qwen models wrap calls in <tool_call> tags.",
    ] {
        none(text);
    }
    // Cut off right after the opening, or in a name: still a call cut off.
    for text in [
        "<seed:tool_call>",
        "<tool_call>",
        "<tool_call>rea",
        "<seed:tool_call>\n<func",
    ] {
        let call = one(text);
        assert_eq!(call.args, Err(cut::NOT_CLOSED.to_owned()), "{text}");
    }
}

#[test]
fn seed_json_body_is_read() {
    // F17: `<seed:tool_call>` around Hermes JSON.
    let call = one(
        "<seed:tool_call>{\"name\":\"read\",\"arguments\":{\"file_path\":\"/a\"}}</seed:tool_call>",
    );
    assert_eq!((call.name.as_str(), call.family), ("read", "seed"));
    assert_eq!(
        call.args,
        Ok(json!({"file_path": "/a"}).as_object().cloned().unwrap())
    );
}

#[test]
fn call_notation_numbers_keep_their_text() {
    // F16
    let call = one("<|python_start|>read(a=1e2, b=1E400, c=-2E-3, d=120)<|python_end|>");
    let args = Value::Object(call.args.unwrap());
    assert_eq!(args.to_string(), r#"{"a":1e2,"b":1E400,"c":-2E-3,"d":120}"#);
}

#[test]
fn calls_in_quoted_text_are_text_in_every_family() {
    // Attack pass 2, F12: a call quoted in a `~~~` fence, an HTML comment,
    // `<pre>`, `<code>` or an indented code block was extracted and run.
    let calls = [
        r#"<tool_call>{"name": "read", "arguments": {"file_path": "/a"}}</tool_call>"#,
        "<function=read><parameter=file_path>/a</parameter></function>",
        r#"[TOOL_CALLS][{"name": "read", "arguments": {"file_path": "/a"}}]"#,
        r#"<|python_tag|>{"name": "read", "parameters": {"file_path": "/a"}}"#,
        "<tool_call>read<arg_key>file_path</arg_key><arg_value>/a</arg_value></tool_call>",
        r#"<|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{"file_path": "/a"}<|tool_call_end|>"#,
        r#"<|python_start|>[read(file_path="/a")]<|python_end|>"#,
    ];
    for call in calls {
        // Outside quoted text each is one call.
        assert_eq!(one(&format!("Reading.\n{call}")).name, "read", "{call}");
        for text in [
            format!("Never run this:\n~~~\n{call}\n~~~\nIt deletes everything."),
            format!("~~~~xml\n{call}\n~~~~"),
            format!("> ~~~\n> {call}\n> ~~~"),
            format!("- ~~~\n  {call}\n  ~~~"),
            format!("Never run this:\n<!--\n{call}\n-->\nDone."),
            format!("<!-- {call} -->"),
            format!("<pre>{call}</pre>"),
            format!("Like this:\n<PRE class=\"x\">\n{call}\n</PRE>"),
            format!("Use <code>{call}</code> to call it."),
            format!("Never run this:\n\n    {call}\n\nIt deletes everything."),
            format!("Never run this:\n\n\t{call}"),
        ] {
            none(&text);
        }
    }
    // A container not closed is literal, as a backtick run with no match:
    // the call after it is read.
    for text in [
        format!("Fences start with ~~~ in Markdown.\n{}", calls[0]),
        format!("Comments open with <!-- in HTML.\n{}", calls[0]),
        format!("Use <pre> for that.\n{}", calls[1]),
        // Indented, but no blank line before: a paragraph's continuation.
        format!("Reading.\n    {}", calls[0]),
    ] {
        assert_eq!(one(&text).name, "read", "{text}");
    }
    // A call after a closed container is read.
    let text = format!("~~~\nx\n~~~\n<!-- y -->\n{}", calls[0]);
    assert_eq!(one(&text).name, "read");
}

#[test]
fn json_calls_in_quoted_text_are_text() {
    // The sentinel-free reader takes the same quoted text: only the body of a
    // backtick fence that ends the message is read.
    let call = r#"{"name": "read", "arguments": {"file_path": "/a"}}"#;
    for text in [
        format!("For example:\n~~~json\n{call}\n~~~"),
        format!("For example:\n<!--\n{call}\n-->"),
        format!("For example:\n<pre>\n{call}\n</pre>"),
    ] {
        none(&text);
    }
    assert_eq!(one(&format!("Reading.\n```json\n{call}\n```")).name, "read");
    // Another fenced block, in tildes, makes it an example.
    none(&format!("~~~\nx\n~~~\nReading.\n```json\n{call}\n```"));
}
