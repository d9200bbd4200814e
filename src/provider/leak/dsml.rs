//! DeepSeek DSML and MiniMax: `<｜DSML｜invoke name="read"><｜DSML｜parameter
//! name="filePath" string="true">…</｜DSML｜parameter></｜DSML｜invoke>`,
//! optionally inside `<｜DSML｜function_calls>` (or MiniMax's
//! `<minimax:tool_call>`), and the same without the `｜DSML｜` prefix.
//! `string="true"` means the value is raw text, `string="false"` that it is
//! JSON; without the attribute (MiniMax) a value is raw text. Anything in the
//! body but parameters and the space between them is malformed.

use serde_json::{Map, Value};

use super::cursor::Cursor;
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
        let mut c = Cursor::new(text);
        match c.take_until(">") {
            Some(_) => (Vec::new(), c.at()),
            None => (Vec::new(), text.len()),
        }
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
    let Some((markup, inner)) = enclosed(text, &format!("<{prefix}invoke"), &close) else {
        return unclosed(text);
    };
    let mut c = Cursor::new(inner);
    let head = match c.take_until(">") {
        Some(head) if !head.contains('<') => head,
        _ => {
            return malformed(
                markup,
                &attribute(inner, "name").unwrap_or_default(),
                "the invoke tag of the tool call written in the text is not closed by '>'".into(),
            );
        }
    };
    let name = match attribute(head, "name") {
        Some(name) if !name.is_empty() => name,
        _ => return no_name(markup),
    };
    let open = format!("<{prefix}parameter ");
    let close_param = format!("</{prefix}parameter>");
    let mut args = Map::new();
    loop {
        c.skip_space();
        if c.is_at_end() {
            break;
        }
        if !c.eat(&open) {
            return malformed(
                markup,
                &name,
                "the tool call written in the text holds text outside its parameters".into(),
            );
        }
        let head = match c.take_until(">") {
            Some(head) if !head.contains('<') => head,
            _ => return malformed(markup, &name, "a parameter tag is not closed".into()),
        };
        let Some(pname) = attribute(head, "name") else {
            return malformed(markup, &name, "a parameter has no name".into());
        };
        let Some(raw) = c.take_until(&close_param) else {
            return malformed(
                markup,
                &name,
                format!("parameter \"{pname}\" is not closed"),
            );
        };
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
    }
    found(name, args, markup)
}
