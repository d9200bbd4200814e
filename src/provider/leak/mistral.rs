//! Mistral: `[TOOL_CALLS][{"name": …, "arguments": …}, …]` (the JSON list of
//! tokenizers before v11), or `[TOOL_CALLS]read[ARGS]{…}` (v11 and later), one
//! `[TOOL_CALLS]` per call.

use super::{Family, Leaked, json_calls, json_prefix, malformed, no_name, not_an_object};

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
        let after = &text[OPEN.len()..];
        let body = after.trim_start();
        let skipped = OPEN.len() + after.len() - body.len();
        if body.starts_with('[') || body.starts_with('{') {
            return match json_prefix(body) {
                Ok((value, used)) => {
                    let markup = &text[..skipped + used];
                    (json_calls(&value, markup), markup.len())
                }
                Err(why) => malformed(text, "", why),
            };
        }
        let Some(at) = body.find(ARGS) else {
            return malformed(
                text,
                "",
                "the tool call written in the text has no [ARGS]".into(),
            );
        };
        let name = body[..at].trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return no_name(&text[..skipped + at + ARGS.len()]);
        }
        let json = &body[at + ARGS.len()..];
        match json_prefix(json) {
            Ok((serde_json::Value::Object(args), used)) => {
                let markup = &text[..skipped + at + ARGS.len() + used];
                super::found(name.to_owned(), args, markup)
            }
            Ok((_, used)) => malformed(
                &text[..skipped + at + ARGS.len() + used],
                name,
                not_an_object(),
            ),
            Err(why) => malformed(text, name, why),
        }
    }
}
