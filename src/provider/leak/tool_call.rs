//! `<tool_call>…</tool_call>`, which three syntaxes share:
//! - Hermes (and Qwen): `{"name": …, "arguments": …}` JSON;
//! - Qwen3-Coder (its chat template wraps its calls so):
//!   `<function=x><parameter=p>…</parameter></function>`;
//! - GLM-4.5 and later: `x<arg_key>p</arg_key><arg_value>…</arg_value>…`, values
//!   as raw text.

use serde_json::{Map, Value};

use super::qwen_coder::{function, layout_trimmed};
use super::{Family, Leaked, enclosed, json_calls, malformed, no_name, unclosed};

pub(super) struct ToolCall;

impl Family for ToolCall {
    fn name(&self) -> &'static str {
        "hermes"
    }

    fn openings(&self) -> &'static [&'static str] {
        &["<tool_call>"]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        let close = "</tool_call>";
        let Some(markup) = enclosed(text, close) else {
            return unclosed(text);
        };
        let body = markup["<tool_call>".len()..markup.len() - close.len()].trim();
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
        Ok(value) => json_calls(&value, markup),
        Err(e) => {
            malformed(
                markup,
                "",
                format!("the tool call written in the text is not valid JSON: {e}"),
            )
            .0
        }
    }
}

fn qwen3_coder(body: &str, markup: &str) -> Vec<Leaked> {
    let (mut calls, used) = function(body);
    if body[used..].trim().is_empty() {
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
    let name_end = body.find('<').unwrap_or(body.len());
    let name = body[..name_end].trim().to_owned();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return no_name(markup).0;
    }
    let mut args = Map::new();
    let mut rest = &body[name_end..];
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let pair = rest
            .strip_prefix("<arg_key>")
            .and_then(|r| r.split_once("</arg_key>"))
            .and_then(|(k, r)| {
                let r = r.trim_start().strip_prefix("<arg_value>")?;
                let (v, r) = r.split_once("</arg_value>")?;
                Some((k, v, r))
            });
        let Some((key, value, after)) = pair else {
            return malformed(
                markup,
                &name,
                "an <arg_key>/<arg_value> pair is not complete".into(),
            )
            .0;
        };
        args.insert(key.trim().to_owned(), Value::String(layout_trimmed(value)));
        rest = after;
    }
    super::found(name, args, markup).0
}
