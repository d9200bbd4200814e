//! Calls written into text, attacked (part 14): markup that is broken in its
//! head, lists nested past any stack, and one message holding thousands of
//! calls. Each is one result per record, and the rest of the stream goes on.

use serde_json::{Value, json};

use crate::run_json;
use crate::util::assistant_line;

const VALID: &str =
    "<tool_call>{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}</tool_call>";

#[test]
fn broken_heads_are_rejected_and_the_stream_goes_on() {
    for text in [
        "<tool_call><function=</function></tool_call>",
        "<invoke name=\"\"</invoke>",
        "<｜DSML｜invoke name=\"read\"</｜DSML｜invoke>",
        // Llama 3.3 on Groq (freellmapi #291, `failed_generation`).
        "<function=read={\"file_path\": \"sample.txt\"}</function>",
        "<function=glob {\"pattern\": \"*.rs\"}</function>",
        "<function=read><parameter=</function>",
    ] {
        let (code, out) = run_json(&[], &(assistant_line(text) + &assistant_line(VALID)));
        assert_eq!(code, 1, "{text}: {out:?}");
        assert_eq!(out.len(), 2, "{text}: {out:?}");
        assert_eq!(out[0]["status"], "rejected", "{text}");
        assert_eq!(out[0]["args"], Value::Null, "{text}");
        assert_eq!(out[1]["tool"], "glob", "{text}");
        assert_eq!(out[1]["args"], json!({"pattern": "*.rs"}), "{text}");
    }
}

#[test]
fn llama31_function_tag_with_json_arguments_is_read() {
    let (code, out) = run_json(
        &[],
        &assistant_line("<function=glob>{\"pattern\": \"*.rs\"}</function>"),
    );
    assert_eq!((code, out.len()), (0, 1), "{out:?}");
    assert_eq!(out[0]["args"], json!({"pattern": "*.rs"}));
}

fn deep(n: usize) -> String {
    format!("[glob(pattern={}'*'{})]", "[".repeat(n), "]".repeat(n))
}

#[test]
fn deep_pythonic_lists_are_rejected_on_every_thread() {
    // 13,000 levels overflowed the main thread, 4,000 a worker's.
    let mut stdin = String::new();
    for n in [13_000, 128, 129, 4_000, 100_000] {
        stdin += &assistant_line(&deep(n));
        stdin += &assistant_line(&format!("<|python_start|>{}<|python_end|>", deep(n)));
    }
    stdin += &assistant_line(VALID);
    for jobs in ["1", "2"] {
        let (code, out) = run_json(&["--jobs", jobs], &stdin);
        assert_eq!(code, 1, "--jobs {jobs}");
        assert_eq!(out.len(), 11, "--jobs {jobs}");
        for (k, result) in out.iter().take(10).enumerate() {
            let message = result["message"].as_str().unwrap_or_default();
            let deep = message.contains("more than 128 levels deep");
            // 128 levels are read (and then judged: `pattern` is no list).
            assert_eq!(deep, !(2..4).contains(&k), "--jobs {jobs}, {k}: {message}");
            assert_eq!(result["status"], "rejected");
        }
        assert_eq!(out[10]["args"], json!({"pattern": "*.rs"}));
    }
}

#[test]
fn calls_in_one_long_list_quote_their_own_markup() {
    // 3,000 calls in a 61 KB message held 381 MiB: every call a copy of the
    // whole text. Each call's `from` is now its own element.
    let n = 2_000;
    let py: Vec<String> = (0..n).map(|k| format!("glob(pattern='{k}.rs')")).collect();
    let obj: Vec<String> = (0..n)
        .map(|k| format!("{{\"name\": \"glob\", \"arguments\": {{\"pattern\": \"{k}.rs\"}}}}"))
        .collect();
    let cohere: Vec<String> = (0..n)
        .map(|k| {
            format!("{{\"tool_name\": \"glob\", \"parameters\": {{\"pattern\": \"{k}.rs\"}}}}")
        })
        .collect();
    let llama: Vec<String> = (0..n)
        .map(|k| format!("{{\"name\": \"glob\", \"parameters\": {{\"pattern\": \"{k}.rs\"}}}}"))
        .collect();
    for text in [
        format!("[{}]", py.join(", ")),
        format!("<|python_start|>[{}]<|python_end|>", py.join(", ")),
        format!("[{}]", obj.join(", ")),
        format!("[TOOL_CALLS][{}]", obj.join(", ")),
        format!("<|tool_call|>[{}]", obj.join(", ")),
        format!("<|START_ACTION|>[{}]<|END_ACTION|>", cohere.join(", ")),
        format!("<|python_tag|>{}", llama.join("; ")),
    ] {
        let (code, out) = run_json(&[], &assistant_line(&text));
        assert_eq!((code, out.len()), (0, n), "{}", &text[..40]);
        let quoted: usize = out
            .iter()
            .map(|r| r["repairs"][0]["from"].as_str().unwrap().len())
            .sum();
        assert!(
            quoted <= text.len(),
            "{quoted} > {}: {}",
            text.len(),
            &text[..40]
        );
        assert_eq!(
            out[n - 1]["args"],
            json!({"pattern": format!("{}.rs", n - 1)})
        );
    }
}

#[test]
fn a_list_of_one_call_quotes_the_whole_markup_as_before() {
    let text = "<|tool_call|>[{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}}]";
    let (_, out) = run_json(&[], &assistant_line(text));
    assert_eq!(out[0]["repairs"][0]["from"], text);
}

/// Issue 26, item 16: a leaked call cut off after its name is rejected as not
/// closed, and its result names the tool it was for (it had no name at all).
#[test]
fn a_call_cut_off_after_its_name_is_rejected_under_that_name() {
    for (text, tool) in [
        (
            "<tool_call>{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a",
            "read",
        ),
        ("<tool_call><function=read><parameter=file_path>/a", "read"),
        (
            "[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a",
            "read",
        ),
        ("[read(file_path=\"/a", "read"),
        // Nothing to go by: no name is made up.
        ("<tool_call>", ""),
        ("<tool_call>{\"arguments\": {", ""),
    ] {
        let (code, out) = run_json(&[], &assistant_line(text));
        assert_eq!(code, 1, "{text}: {out:?}");
        assert_eq!(out.len(), 1, "{text}: {out:?}");
        assert_eq!(out[0]["status"], "rejected", "{text}");
        assert_eq!(out[0]["tool"], tool, "{text}: {out:?}");
        assert_eq!(
            out[0]["errors"][0]["message"], "the tool call written in the text is not closed",
            "{text}: {out:?}"
        );
    }
}

#[test]
fn a_call_quoted_in_any_container_is_text() {
    // Attack pass 2, F12: quoted in a `~~~` fence, an HTML comment, `<pre>`,
    // `<code>` or an indented code block, a call was extracted and run.
    let rm =
        "<tool_call>{\"name\": \"bash\", \"arguments\": {\"command\": \"rm -rf /\"}}</tool_call>";
    let fn_rm = "<function=bash><parameter=command>rm -rf /</parameter></function>";
    for call in [rm, fn_rm] {
        for text in [
            format!("Never run this:\n~~~\n{call}\n~~~\nIt deletes everything."),
            format!("Never run this:\n~~~xml\n{call}\n~~~"),
            format!("Never run this:\n<!--\n{call}\n-->\nDone."),
            format!("<pre>{call}</pre>"),
            format!("Write <code>{call}</code> to call it."),
            format!("Never run this:\n\n    {call}\n\nIt deletes everything."),
        ] {
            let (code, out) = run_json(&[], &(assistant_line(&text) + &assistant_line(VALID)));
            assert_eq!(code, 0, "{text}: {out:?}");
            assert_eq!(out.len(), 1, "{text}: {out:?}");
            assert_eq!(out[0]["tool"], "glob", "{text}");
            assert_eq!(out[0]["index"], 1, "{text}");
        }
    }
}
