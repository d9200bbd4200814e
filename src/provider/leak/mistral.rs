//! Mistral: `[TOOL_CALLS][{"name": …, "arguments": …}, …]` (the JSON list of
//! tokenizers before v11), or `[TOOL_CALLS]read[ARGS]{…}` (v11 and later), one
//! `[TOOL_CALLS]` per call.

use serde_json::Value;

use super::cursor::Cursor;
use super::{Family, Leaked, found, json_calls, json_value, malformed, no_name, not_an_object};

pub(super) struct Mistral;

const OPEN: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";

impl Family for Mistral {
    fn name(&self) -> &'static str {
        "mistral"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[OPEN]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let mut c = Cursor::new(text);
        c.eat(OPEN);
        c.skip_space();
        if c.starts_with("[") || c.starts_with("{") {
            return match json_value(&mut c) {
                Ok((value, json)) => (json_calls(&value, json, c.done()), c.at()),
                Err(why) => malformed(text, "", why),
            };
        }
        let Some(name) = c.take_until(ARGS) else {
            return malformed(
                text,
                "",
                "the tool call written in the text has no [ARGS]".into(),
            );
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return no_name(c.done());
        }
        match json_value(&mut c) {
            Ok((Value::Object(args), _)) => found(name.to_owned(), args, c.done()),
            Ok(_) => malformed(c.done(), name, not_an_object()),
            Err(why) => malformed(text, name, why),
        }
    }
}
