//! `<tool_call>…</tool_call>`, which three syntaxes share:
//! - Hermes (and Qwen): `{"name": …, "arguments": …}` JSON (or a list of them);
//! - Qwen3-Coder (its chat template wraps its calls so):
//!   `<function=x><parameter=p>…</parameter></function>`;
//! - GLM-4.5 and later: `x<arg_key>p</arg_key><arg_value>…</arg_value>…`, values
//!   as raw text.

use serde_json::{Map, Value};

use super::cursor::Cursor;
use super::qwen_coder::{function, layout_trimmed};
use super::{
    Family, Leaked, enclosed, json_calls, json_first_name, malformed, no_name, not_json,
    unclosed_call,
};

pub(super) struct ToolCall;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

impl Family for ToolCall {
    fn name(&self) -> &'static str {
        "hermes"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[OPEN]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let Some((markup, body)) = enclosed(text, OPEN, CLOSE) else {
            // Cut off: named when its JSON or `<function=` head got that far.
            let rest = text.get(OPEN.len()..).unwrap_or("").trim_start();
            let name = json_first_name(rest)
                .or_else(|| {
                    rest.strip_prefix("<function=")?
                        .split_once('>')
                        .map(|(n, _)| n)
                })
                .filter(|n| !n.is_empty() && !n.contains(['<', '\n']));
            return unclosed_call(text, name.unwrap_or(""));
        };
        let body = body.trim();
        let (mut calls, family) = if body.starts_with('{') || body.starts_with('[') {
            (hermes(body, markup), "hermes")
        } else if body.starts_with("<function=") {
            (qwen3_coder(body, markup), "qwen3-coder")
        } else {
            (glm(body, markup), "glm")
        };
        for c in &mut calls {
            c.family = family;
        }
        (calls, markup.len())
    }
}

fn hermes(body: &str, markup: &str) -> Vec<Leaked> {
    match serde_json::from_str::<Value>(body) {
        Ok(value) => json_calls(&value, body, markup),
        Err(e) => malformed(markup, "", not_json(&e)).0,
    }
}

fn qwen3_coder(body: &str, markup: &str) -> Vec<Leaked> {
    let (mut calls, used) = function(body);
    if body
        .get(used..)
        .is_some_and(|after| after.trim().is_empty())
    {
        for c in &mut calls {
            c.markup = markup.to_owned();
        }
        return calls;
    }
    malformed(
        markup,
        calls.first().map_or("", |c| c.name.as_str()),
        "the tool call written in the text has more after its function".into(),
    )
    .0
}

fn glm(body: &str, markup: &str) -> Vec<Leaked> {
    let mut c = Cursor::new(body);
    let name = c.take_while(|ch| ch != '<').trim().to_owned();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return no_name(markup).0;
    }
    let mut args = Map::new();
    loop {
        c.skip_space();
        if c.is_at_end() {
            break;
        }
        let pair = (|| {
            if !c.eat("<arg_key>") {
                return None;
            }
            let key = c.take_until("</arg_key>")?;
            c.skip_space();
            if !c.eat("<arg_value>") {
                return None;
            }
            Some((key, c.take_until("</arg_value>")?))
        })();
        let Some((key, value)) = pair else {
            return malformed(
                markup,
                &name,
                "an <arg_key>/<arg_value> pair is not complete".into(),
            )
            .0;
        };
        args.insert(key.trim().to_owned(), Value::String(layout_trimmed(value)));
    }
    super::found_untyped(name, args, markup).0
}
