//! gpt-oss Harmony: `<|start|>assistant<|channel|>commentary to=functions.read
//! <|constrain|>json<|message|>{"path": "/a"}<|call|>` (the recipient may also
//! come before the channel). Servers often drop the `<|call|>` stop token, so
//! the call ends where its JSON does; JSON cut off is not closed.

use super::{Family, Leaked, found, json_prefix, malformed, no_name, not_an_object};

pub(super) struct Harmony;

const TO: &str = "to=functions.";
const MESSAGE: &str = "<|message|>";

impl Family for Harmony {
    fn name(&self) -> &'static str {
        "harmony"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[
            "<|start|>assistant<|channel|>commentary to=functions.",
            "<|start|>assistant to=functions.",
            "<|channel|>commentary to=functions.",
        ]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let Some(to) = text.find(TO) else {
            return no_name(text);
        };
        let after = &text[to + TO.len()..];
        let end = after
            .find(|c: char| c.is_whitespace() || c == '<')
            .unwrap_or(after.len());
        let name = &after[..end];
        let Some(m) = text.find(MESSAGE) else {
            return malformed(
                text,
                name,
                "the tool call written in the text is not closed".into(),
            );
        };
        if name.is_empty() {
            return no_name(&text[..m]);
        }
        let start = m + MESSAGE.len();
        match json_prefix(&text[start..]) {
            Ok((serde_json::Value::Object(args), used)) => {
                let mut len = start + used;
                if text[len..].starts_with("<|call|>") {
                    len += "<|call|>".len();
                }
                found(name.to_owned(), args, &text[..len])
            }
            Ok((_, used)) => malformed(&text[..start + used], name, not_an_object()),
            Err(why) => malformed(text, name, why),
        }
    }
}
