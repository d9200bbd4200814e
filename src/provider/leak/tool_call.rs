//! `<tool_call>…</tool_call>`, which three syntaxes share:
//! - Hermes (and Qwen): `{"name": …, "arguments": …}` JSON (or a list of them);
//! - Qwen3-Coder (its chat template wraps its calls so):
//!   `<function=x><parameter=p>…</parameter></function>`;
//! - GLM-4.5 and later: `x<arg_key>p</arg_key><arg_value>…</arg_value>…`, values
//!   as raw text.

use serde_json::{Map, Value};

use super::cursor::Cursor;
use super::json::{json_calls, json_first_name};
use super::table::{QWEN, Read};
use super::tags::{self, layout_trimmed};
use super::{Declared, Leaked, enclosed, malformed, no_name, not_json, unclosed_call};

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const FUNCTION: &str = "<function=";

/// GLM's key/value tokens: a key, then its value.
const PAIR: [(&str, &str); 2] = [("<arg_key>", "</arg_key>"), ("<arg_value>", "</arg_value>")];

/// `<tool_call>…</tool_call>` at the start of `text`.
pub(super) fn read(text: &str, _declared: Declared) -> Read {
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
    } else if body.starts_with(FUNCTION) {
        (qwen3_coder(body, markup), "qwen3-coder")
    } else {
        (glm(body, markup), "glm")
    };
    for c in &mut calls {
        c.family = family;
    }
    (calls, markup.len())
}

fn hermes(body: &str, markup: &str) -> Vec<Leaked> {
    match serde_json::from_str::<Value>(body) {
        Ok(value) => json_calls(&value, body, markup),
        Err(e) => malformed(markup, "", not_json(&e)).0,
    }
}

fn qwen3_coder(body: &str, markup: &str) -> Vec<Leaked> {
    let (mut calls, used) = match enclosed(body, FUNCTION, "</function>") {
        Some((own, inner)) => tags::body(&QWEN, inner, own),
        None => super::unclosed(body),
    };
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
        let [(key_open, key_close), (value_open, value_close)] = PAIR;
        let pair = (|| {
            if !c.eat(key_open) {
                return None;
            }
            let key = c.take_until(key_close)?;
            c.skip_space();
            if !c.eat(value_open) {
                return None;
            }
            Some((key, c.take_until(value_close)?))
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
    let mut call = super::leaked(name, Ok(args), markup);
    if let Ok(args) = &call.args {
        call.written.untyped = args.keys().cloned().collect();
    }
    vec![call]
}
