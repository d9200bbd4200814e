//! A sentinel, then JSON calls:
//! - Llama 3.x: `<|python_tag|>{"name": …, "parameters": …}`, several joined by
//!   `;`, ended by `<|eom_id|>` or `<|eot_id|>`;
//! - Granite: `<|tool_call|>[{"name": …, "arguments": …}, …]`.

use super::{Family, Leaked, json_calls, json_prefix, malformed};

pub(super) struct Llama3;
pub(super) struct Granite;

impl Family for Llama3 {
    fn name(&self) -> &'static str {
        "llama3"
    }

    fn openings(&self) -> &'static [&'static str] {
        &["<|python_tag|>"]
    }

    fn closings(&self) -> &'static [&'static str] {
        &["<|eom_id|>", "<|eot_id|>"]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let mut at = "<|python_tag|>".len();
        let mut calls = Vec::new();
        loop {
            match json_prefix(&text[at..]) {
                Ok((value, used)) => {
                    calls.extend(json_calls(&value, &text[at..at + used]));
                    at += used;
                }
                Err(why) => return malformed(text, "", why),
            }
            let rest = &text[at..];
            match rest.trim_start().strip_prefix(';') {
                Some(more) if !more.trim().is_empty() => at = text.len() - more.len(),
                _ => break,
            }
        }
        for c in &mut calls {
            c.markup = text[..at].to_owned();
        }
        (calls, at)
    }
}

impl Family for Granite {
    fn name(&self) -> &'static str {
        "granite"
    }

    fn openings(&self) -> &'static [&'static str] {
        &["<|tool_call|>"]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let at = "<|tool_call|>".len();
        match json_prefix(&text[at..]) {
            Ok((value, used)) => {
                let markup = &text[..at + used];
                (json_calls(&value, markup), markup.len())
            }
            Err(why) => malformed(text, "", why),
        }
    }
}
