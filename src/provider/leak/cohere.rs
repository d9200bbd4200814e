//! Cohere Command R / A: `<|START_ACTION|>[{"tool_name": …, "parameters": …},
//! …]<|END_ACTION|>`.

use serde_json::Value;

use super::{Family, Leaked, enclosed, json_calls, malformed, not_json, unclosed};

pub(super) struct Cohere;

const OPEN: &str = "<|START_ACTION|>";
const CLOSE: &str = "<|END_ACTION|>";

impl Family for Cohere {
    fn name(&self) -> &'static str {
        "cohere"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[OPEN]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let Some((markup, body)) = enclosed(text, OPEN, CLOSE) else {
            return unclosed(text);
        };
        match serde_json::from_str::<Value>(body.trim()) {
            Ok(value) => (json_calls(&value, body, markup), markup.len()),
            Err(e) => malformed(markup, "", not_json(&e)),
        }
    }
}
