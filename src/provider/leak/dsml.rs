//! DeepSeek DSML and MiniMax: `<｜DSML｜invoke name="read"><｜DSML｜parameter
//! name="filePath" string="true">…</｜DSML｜parameter></｜DSML｜invoke>`,
//! optionally inside `<｜DSML｜function_calls>` (or MiniMax's
//! `<minimax:tool_call>`), and the same without the `｜DSML｜` prefix.
//! `string="true"` means the value is raw text, `string="false"` that it is
//! JSON; without the attribute (MiniMax) a value is raw text.

use serde_json::{Map, Value};

use super::{Family, Leaked, attribute, enclosed, found, malformed, no_name, unclosed};

pub(super) struct Dsml;

const DSML: &str = "｜DSML｜";

impl Family for Dsml {
    fn name(&self) -> &'static str {
        "dsml"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[
            "<｜DSML｜invoke ",
            "<invoke ",
            "<｜DSML｜function_calls>",
            "<function_calls>",
            "<minimax:tool_call>",
        ]
    }

    fn closings(&self) -> &'static [&'static str] {
        &[
            "</｜DSML｜function_calls>",
            "</function_calls>",
            "</minimax:tool_call>",
        ]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        if text.starts_with("<｜DSML｜invoke ") || text.starts_with("<invoke ") {
            return invoke(text);
        }
        // A wrapper carries no call.
        (Vec::new(), text.find('>').map_or(text.len(), |i| i + 1))
    }
}

/// `<[｜DSML｜]invoke name="X">…</[｜DSML｜]invoke>`.
fn invoke(text: &str) -> (Vec<Leaked>, usize) {
    let prefix = if text.starts_with("<｜DSML｜") {
        DSML
    } else {
        ""
    };
    let close = format!("</{prefix}invoke>");
    let Some(markup) = enclosed(text, &close) else {
        return unclosed(text);
    };
    let Some(head_end) = markup.find('>') else {
        return no_name(markup);
    };
    let Some(name) = attribute(&markup[..head_end], "name") else {
        return no_name(markup);
    };
    let body = &markup[head_end + 1..markup.len() - close.len()];
    let open = format!("<{prefix}parameter ");
    let close_param = format!("</{prefix}parameter>");
    let mut args = Map::new();
    let mut rest = body;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i..];
        let Some(h) = after.find('>') else {
            return malformed(markup, &name, "a parameter tag is not closed".into());
        };
        let head = &after[..h];
        let Some(pname) = attribute(head, "name") else {
            return malformed(markup, &name, "a parameter has no name".into());
        };
        let Some(v_end) = after[h + 1..].find(&close_param) else {
            return malformed(
                markup,
                &name,
                format!("parameter \"{pname}\" is not closed"),
            );
        };
        let raw = &after[h + 1..h + 1 + v_end];
        let value = match attribute(head, "string").as_deref() {
            Some("false") => match serde_json::from_str::<Value>(raw.trim()) {
                Ok(v) => v,
                Err(e) => {
                    return malformed(
                        markup,
                        &name,
                        format!(
                            "parameter \"{pname}\" is marked as JSON but is not valid JSON: {e}"
                        ),
                    );
                }
            },
            _ => Value::String(raw.to_owned()),
        };
        args.insert(pname, value);
        rest = &after[h + 1 + v_end + close_param.len()..];
    }
    found(name, args, markup)
}
