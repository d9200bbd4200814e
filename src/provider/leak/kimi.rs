//! Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0
//! <|tool_call_argument_begin|>{"path": "/a"}<|tool_call_end|>
//! <|tool_calls_section_end|>`. The name is between `functions.` and the `:`
//! of the call's number.

use super::{Family, Leaked, enclosed, malformed, no_name, object_call, unclosed};

pub(super) struct Kimi;

const SECTION: &str = "<|tool_calls_section_begin|>";
const CALL: &str = "<|tool_call_begin|>";
const END: &str = "<|tool_call_end|>";
const ARGS: &str = "<|tool_call_argument_begin|>";

impl Family for Kimi {
    fn name(&self) -> &'static str {
        "kimi-k2"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[SECTION, CALL]
    }

    fn closings(&self) -> &'static [&'static str] {
        &["<|tool_calls_section_end|>"]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        if text.starts_with(SECTION) {
            return (Vec::new(), SECTION.len());
        }
        let Some((markup, inner)) = enclosed(text, CALL, END) else {
            return unclosed(text);
        };
        let Some((head, json)) = inner.split_once(ARGS) else {
            return malformed(
                markup,
                "",
                "the tool call written in the text has no arguments".into(),
            );
        };
        let head = head.trim();
        let name = head.strip_prefix("functions.").unwrap_or(head);
        let name = name.rsplit_once(':').map_or(name, |(n, _)| n).trim();
        if name.is_empty() {
            return no_name(markup);
        }
        object_call(name, json, markup)
    }
}
