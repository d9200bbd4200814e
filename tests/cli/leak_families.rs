//! Part 15: the families added as rows of the leak table, the lenient readings
//! of known ones, and call notation, through the binary on the shipped
//! schemas: the whole markup gives the exact call, the markup cut off is
//! rejected (never completed), the markup quoted in code is no call.

use serde_json::{Value, json};

use crate::util::json_stats;

/// (family, markup): each calls `read` with file_path "/src/main.rs" and
/// offset 120 (as a number, or as text where the syntax has no types).
const FAMILIES: &[(&str, &str)] = &[
    (
        "minicpm",
        "<function name=\"read\"><param name=\"file_path\">/src/main.rs</param><param name=\"offset\">120</param></function>",
    ),
    (
        "minicpm",
        "<tool_call>\n<function name=\"read\">\n<param name=\"file_path\"><![CDATA[/src/main.rs]]></param>\n<param name=\"offset\">120</param>\n</function>\n</tool_call>",
    ),
    (
        "seed",
        "<seed:tool_call>\n<function=read>\n<parameter=file_path>/src/main.rs</parameter>\n<parameter=offset>120</parameter>\n</function>\n</seed:tool_call>",
    ),
    (
        "granite",
        "<tool_call>[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}]",
    ),
    (
        "kimi-k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functionsread0<|tool_call_argument_begin|>{\"file_path\": \"/src/main.rs\", \"offset\": 120}<|tool_call_end|><|tool_calls_section_end|>",
    ),
    (
        "llama3",
        "<function=read{\"file_path\": \"/src/main.rs\", \"offset\": 120}</function>",
    ),
    (
        "llama3",
        "<function=read{\"file_path\": \"/src/main.rs\", \"offset\": 120}></function>",
    ),
    (
        "llama3",
        "function=read>{\"file_path\": \"/src/main.rs\", \"offset\": 120}</function>",
    ),
    (
        "llama3",
        "<|python_tag|>{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}}",
    ),
    (
        "llama4",
        "<|python_start|>{\"type\": \"function\", \"name\": \"read\", \"parameters\": {\"file_path\": \"/src/main.rs\", \"offset\": 120}}<|python_end|>",
    ),
    (
        "pythonic",
        "<|python_start|>read(file_path: \"/src/main.rs\", offset: 120)<|python_end|>",
    ),
    (
        "llama3",
        "<|python_tag|>read({file_path: '/src/main.rs', offset: 120})",
    ),
];

/// (markup, text left): call notation starting the message, a declared tool.
const NOTATION: &[(&str, &str)] = &[
    ("read(file_path=\"/src/main.rs\", offset=120)", ""),
    (
        "read(file_path: \"/src/main.rs\", offset: 120)\nThis reads the entry point.",
        "This reads the entry point.",
    ),
    ("read({file_path: \"/src/main.rs\", offset: 120})", ""),
];

fn assert_read_call(text: &str, family: &str) {
    let (code, out, stats) = json_stats(text);
    assert_eq!(code, 0, "{family}: {text}: {out:?}");
    assert_eq!(out.len(), 1, "{family}: {out:?}");
    assert_eq!(out[0]["tool"], "read", "{family}: {text}");
    assert_eq!(out[0]["status"], "repaired", "{family}: {text}");
    assert_eq!(
        out[0]["args"],
        json!({"file_path": "/src/main.rs", "offset": 120}),
        "{family}: {text}"
    );
    assert_eq!(
        out[0]["repairs"][0]["kind"], "extract-from-text",
        "{family}: {text}"
    );
    assert!(
        stats.contains(&format!("calls written in text, by syntax: {family} 1")),
        "{family}: {stats}"
    );
}

#[test]
fn new_families_give_the_exact_call() {
    for (family, markup) in FAMILIES {
        assert_read_call(&format!("I will read the file.\n{markup}"), family);
    }
    for (markup, _) in NOTATION {
        assert_read_call(markup, "call");
    }
}

#[test]
fn new_families_cut_off_are_rejected_never_completed() {
    let cuts = FAMILIES
        .iter()
        .map(|(f, m)| {
            (
                *f,
                format!(
                    "I will read the file.\n{}",
                    &m[..m.find("/src/ma").unwrap()]
                ),
            )
        })
        .chain(
            NOTATION
                .iter()
                .map(|(m, _)| ("call", m[..m.find("/src/ma").unwrap()].to_owned())),
        );
    for (family, cut) in cuts {
        let (code, out, _) = json_stats(&cut);
        assert_eq!(code, 1, "{family}: {cut}: {out:?}");
        assert_eq!(out.len(), 1, "{family}: {out:?}");
        assert_eq!(out[0]["status"], "rejected", "{family}: {cut}");
        assert_eq!(out[0]["args"], Value::Null, "{family}: {cut}");
    }
}

#[test]
fn new_families_quoted_in_code_are_no_call() {
    let all = FAMILIES
        .iter()
        .map(|(_, m)| *m)
        .chain(NOTATION.iter().map(|(m, _)| *m));
    for markup in all {
        for text in [
            format!("The syntax looks like this:\n\n````\n{markup}\n````\n\nThat is all."),
            format!("Write `{markup}` to call a tool."),
        ] {
            let (code, out, _) = json_stats(&text);
            assert_eq!((code, out.len()), (0, 0), "{text}: {out:?}");
        }
    }
}

#[test]
fn function_tag_with_its_json_before_the_bracket_is_read_not_rejected() {
    // Reproduction of part 15 item 2: this was rejected with "not closed by '>'".
    let (code, out, _) = json_stats("<function=read{\"file_path\": \"/a\"}</function>");
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out[0]["args"], json!({"file_path": "/a"}));
}

#[test]
fn call_notation_with_a_positional_value_is_a_call_not_text() {
    // The schema names the value, or the call is rejected with an
    // instruction: a whole-message call to a declared tool is never text.
    let (_, out, _) = json_stats("read('/src/main.rs')");
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["tool"], "read");
    // Not declared, or not starting the message: text.
    for text in [
        "search(query='rust')",
        "You could call read('/src/main.rs') next.",
    ] {
        let (code, out, _) = json_stats(text);
        assert_eq!((code, out.len()), (0, 0), "{text}: {out:?}");
    }
}

#[test]
fn xml_text_for_a_string_parameter_keeps_its_digits() {
    for markup in [
        "<function name=\"write\"><param name=\"file_path\">/tmp/zip.txt</param><param name=\"content\">02134</param></function>",
        "<seed:tool_call><function=write><parameter=file_path>/tmp/zip.txt</parameter><parameter=content>02134</parameter></function></seed:tool_call>",
        "<invoke name=\"write\"><parameter name=\"file_path\">/tmp/zip.txt</parameter><parameter name=\"content\">02134</parameter></invoke>",
    ] {
        let (code, out, _) = json_stats(markup);
        assert_eq!(code, 0, "{markup}: {out:?}");
        assert_eq!(
            out[0]["args"],
            json!({"file_path": "/tmp/zip.txt", "content": "02134"}),
            "{markup}"
        );
    }
}

#[test]
fn malformed_sections_and_call_ids_are_rejected_not_ignored() {
    for text in [
        "Running it.\n<｜tool▁calls▁begin｜><｜tool▁calls▁begin｜>bash ls -la",
        "<|tool_calls_section_begin|><|tool_call_begin|>functionsgrep0<|tool_call_argument_begin|>{\"command\": \"ls\"}<|tool_call_end|><|tool_calls_section_end|>",
    ] {
        let (code, out, _) = json_stats(text);
        assert_eq!(code, 1, "{text}: {out:?}");
        assert_eq!(out.len(), 1, "{text}: {out:?}");
        assert_eq!(out[0]["status"], "rejected", "{text}");
    }
    // A Kimi id without its dot and colon, naming a declared tool: read.
    let (code, out, _) = json_stats(
        "<|tool_calls_section_begin|><|tool_call_begin|>functionsbash5<|tool_call_argument_begin|>{\"command\": \"ls\", \"description\": \"List files\"}<|tool_call_end|><|tool_calls_section_end|>",
    );
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out[0]["tool"], "bash");
}

#[test]
fn prose_explaining_calls_stays_text() {
    // The attack pass: each was read as a call (some executed) before.
    for text in [
        "glob('*.py')\n\nreturns the list of Python files; use glob('**/*.py', recursive=True) to recurse.",
        "read(\"/etc/hosts\")\n\nIn Python you would write open(\"/etc/hosts\").read() instead.",
        "grep(1)\n\nThe grep(1) manual page documents every flag.",
        "write(1, \"hello\\n\", 6)\n\nwrites six bytes to standard output.",
        "Use the callback function=read {\"file_path\": \"/etc/shadow\"}",
        "Granite 3.1 writes <tool_call>[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}] with no closing tag, for example.",
        "Doubao Seed models wrap calls in <seed:tool_call> tags; callfix reads them.",
    ] {
        let (code, out, _) = json_stats(text);
        assert_eq!((code, out.len()), (0, 0), "{text}: {out:?}");
    }
}

#[test]
fn a_key_given_twice_in_a_json_call_written_in_the_text_is_rejected() {
    // Found by an attack pass: each of these took the last value and
    // reported an extracted call to /etc/shadow.
    for text in [
        "<tool_call>{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\", \"file_path\": \"/etc/shadow\"}}</tool_call>",
        "[TOOL_CALLS][{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\", \"file_path\": \"/etc/shadow\"}}]",
        "{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\", \"file_path\": \"/etc/shadow\"}}",
        "```json\n{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\", \"file_path\": \"/etc/shadow\"}}\n```",
        "<function=read>\n<parameter=file_path>\n/a\n</parameter>\n<parameter=file_path>\n/etc/shadow\n</parameter>\n</function>",
    ] {
        let (code, out, _) = json_stats(text);
        assert_eq!((code, out.len()), (1, 1), "{text}: {out:?}");
        assert_eq!(out[0]["status"], "rejected", "{text}");
        let message = out[0]["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains("given twice"), "{text}: {message}");
        assert!(!out[0].to_string().contains("\"args\":{"), "{text}");
    }
    // Python and JavaScript keep the last value; which one the model meant,
    // no reader knows.
    for text in [
        "read({file_path: \"/a\", file_path: \"/etc/shadow\"})",
        "[read(file_path=\"/a\", options={\"k\": 1, \"k\": 2})]",
    ] {
        // Left as text, or rejected: never a call with either value.
        let (_, out, _) = json_stats(text);
        assert!(out.iter().all(|l| l["args"].is_null()), "{text}: {out:?}");
    }
}

#[test]
fn a_parameter_given_twice_is_rejected_and_seed_json_is_read() {
    let (code, out, _) = json_stats(
        "<function name=\"read\"><param name=\"file_path\">/tmp/a</param><param name=\"file_path\">/etc/shadow</param></function>",
    );
    assert_eq!(code, 1, "{out:?}");
    assert_eq!(out[0]["tool"], "read");
    assert!(
        out[0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("parameter \"file_path\" is given twice"),
        "{out:?}"
    );
    let (code, out, _) = json_stats(
        "<seed:tool_call>{\"name\":\"read\",\"arguments\":{\"file_path\":\"/a\"}}</seed:tool_call>",
    );
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out[0]["args"], json!({"file_path": "/a"}));
}
