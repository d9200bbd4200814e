//! A sentinel, then JSON calls:
//! - Llama 3.x: `<|python_tag|>{"name": …, "parameters": …}`, several joined by
//!   `;`, ended by `<|eom_id|>` or `<|eot_id|>`;
//! - Granite: `<|tool_call|>[{"name": …, "arguments": …}, …]`.

use super::cursor::Cursor;
use super::{Family, Leaked, json_calls, json_value, malformed};

pub(super) struct Llama3;
pub(super) struct Granite;

const PYTHON_TAG: &str = "<|python_tag|>";
const TOOL_CALL: &str = "<|tool_call|>";

impl Family for Llama3 {
    fn name(&self) -> &'static str {
        "llama3"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[PYTHON_TAG]
    }

    fn closings(&self) -> &'static [&'static str] {
        &["<|eom_id|>", "<|eot_id|>"]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let mut c = Cursor::new(text);
        c.eat(PYTHON_TAG);
        let mut values = Vec::new();
        loop {
            match json_value(&mut c) {
                Ok(value) => values.push(value),
                Err(why) => return malformed(text, "", why),
            }
            let mut after = c;
            after.skip_space();
            if !after.eat(";") || after.rest().trim().is_empty() {
                break;
            }
            c = after;
        }
        let count: usize = values
            .iter()
            .map(|(v, _)| v.as_array().map_or(1, Vec::len))
            .sum();
        let markup = c.done();
        let calls = values
            .iter()
            .flat_map(|(value, json)| {
                // One call holds the whole markup; several, each its own.
                let own = if count == 1 { markup } else { json.trim() };
                json_calls(value, json, own)
            })
            .collect();
        (calls, markup.len())
    }
}

impl Family for Granite {
    fn name(&self) -> &'static str {
        "granite"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[TOOL_CALL]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let mut c = Cursor::new(text);
        c.eat(TOOL_CALL);
        match json_value(&mut c) {
            Ok((value, json)) => (json_calls(&value, json, c.done()), c.at()),
            Err(why) => malformed(text, "", why),
        }
    }
}
