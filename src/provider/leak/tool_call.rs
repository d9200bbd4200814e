//! `<tool_call>…</tool_call>`, which three syntaxes share:
//! - Hermes (and Qwen): `{"name": …, "arguments": …}` JSON (or a list of them);
//! - Qwen3-Coder (its chat template wraps its calls so):
//!   `<function=x><parameter=p>…</parameter></function>`;
//! - GLM-4.5 and later: `x<arg_key>p</arg_key><arg_value>…</arg_value>…`, values
//!   as raw text;
//! - MiniCPM5 (`<function name="x"><param name="p">…`) and call notation
//!   (`read(file_path="/a")`) inside the tag.
//!
//! Granite 3.1 writes `<tool_call>[…]` with no closing tag by design: a
//! complete JSON list after the opening, with no `</tool_call>` anywhere
//! after it, ending the message or on lines of its own, is its call list; a
//! list or object cut off is not closed. An opening never closed with prose
//! after it (`wrap calls in <tool_call> tags; …`) is text.

use serde_json::{Map, Value};

use super::cursor::Cursor;
use super::json::{json_calls, json_first_name, json_value};
use super::scan::{self, Ctx, Read};
use super::tags::layout_trimmed;
use super::{LeakProblem, Leaked, enclosed, malformed, no_name, not_json, pythonic, unclosed_call};
use super::{cut, table};

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const FUNCTION: &str = "<function=";

/// GLM's key/value tokens: a key, then its value.
const PAIR: [(&str, &str); 2] = [("<arg_key>", "</arg_key>"), ("<arg_value>", "</arg_value>")];

/// `<tool_call>…</tool_call>` at the start of `text`.
pub(super) fn read(text: &str, ctx: &mut Ctx) -> Read {
    let after = text.get(OPEN.len()..).unwrap_or_default();
    let closed = if ctx.occurs(CLOSE, after) {
        enclosed(text, OPEN, CLOSE)
    } else {
        None
    };
    let Some((markup, body)) = closed else {
        if let Some(read) = granite_31(text, ctx).or_else(|| complete_at_end(text, ctx)) {
            return read;
        }
        if cut::prose_after(after) {
            return (Vec::new(), 0);
        }
        // Cut off: named when its JSON, `<function=` or call-notation head got
        // that far.
        let rest = after.trim_start();
        let [(key_open, _), _] = PAIR;
        let tag = |family, opening: &str| {
            let row = table::row_named(family)?;
            rest.starts_with(opening)
                .then(|| cut::name(row, opening, rest))
                .flatten()
        };
        let name = json_first_name(rest)
            .and_then(cut::plain)
            .map(str::to_owned)
            .or_else(|| tag("qwen-coder", FUNCTION))
            .or_else(|| tag("minicpm", "<function name="))
            // Call notation: the name before its `(`.
            .or_else(|| {
                pythonic::call_name(rest)
                    .and_then(cut::plain)
                    .map(str::to_owned)
            })
            // GLM: the name, then its first `<arg_key>`.
            .or_else(|| {
                let name = Cursor::new(rest).take_before(key_open)?;
                cut::plain(name).map(str::to_owned)
            });
        return unclosed_call(text, name.as_deref().unwrap_or(""));
    };
    let body = body.trim();
    let mut inner = |family| match table::row_named(family) {
        Some(row) => scan::inner_call(row, body, markup, ctx),
        None => no_name(markup).0,
    };
    let (mut calls, family) = if body.starts_with('{') || body.starts_with('[') {
        (hermes(body, markup), "hermes")
    } else if body.starts_with(FUNCTION) {
        (inner("qwen-coder"), "qwen3-coder")
    } else if body.starts_with("<function name=") {
        (inner("minicpm"), "minicpm")
    } else if pythonic::call_name(body).is_some() {
        (pythonic::body_call(body, markup), "call")
    } else {
        (glm(body, markup), "glm")
    };
    for c in &mut calls {
        c.family = family;
    }
    (calls, markup.len())
}

/// Granite 3.1: `<tool_call>[{"name", "arguments"}, …]` with no closing tag
/// by design: a complete JSON list right after the opening, when no
/// `</tool_call>` follows in the text, and the list ends the message or
/// stands on its own lines (the opening starts a line, nothing but space
/// after the list on its last). A list in a sentence, prose after it on its
/// line, is text (no call, nothing used).
fn granite_31(text: &str, ctx: &Ctx) -> Option<Read> {
    let mut c = Cursor::new(text);
    c.eat(OPEN);
    c.skip_space();
    if !c.starts_with("[") {
        return None;
    }
    let (value, json) = json_value(&mut c).ok()?;
    value.is_array().then_some(())?;
    let rest = c.rest();
    let ends = rest.trim().is_empty();
    let own_lines = ctx.starts_line(text)
        && rest
            .split('\n')
            .next()
            .is_none_or(|line| line.trim().is_empty());
    if !ends && !own_lines {
        return Some((Vec::new(), 0));
    }
    let mut calls = json_calls(&value, json, c.done());
    for call in &mut calls {
        call.family = "granite";
    }
    Some((calls, c.at()))
}

/// A complete call with nothing after it but space, its `</tool_call>`
/// never written (the message ended there, as vLLM's hermes parser reads
/// it): one whole JSON object (Hermes), or a function tag closed by its
/// `</function>` (Qwen3-Coder, MiniCPM). A body cut off is not complete.
fn complete_at_end(text: &str, ctx: &mut Ctx) -> Option<Read> {
    let body = text.get(OPEN.len()..)?.trim();
    let (mut calls, family) = if body.starts_with('{') {
        let mut c = Cursor::new(body);
        let (_, json) = json_value(&mut c).ok()?;
        c.is_at_end().then_some(())?;
        (hermes(json, text), "hermes")
    } else if body.ends_with("</function>") {
        let (inner, family) = if body.starts_with(FUNCTION) {
            ("qwen-coder", "qwen3-coder")
        } else if body.starts_with("<function name=") {
            ("minicpm", "minicpm")
        } else {
            return None;
        };
        let row = table::row_named(inner)?;
        (scan::inner_call(row, body, text, ctx), family)
    } else {
        return None;
    };
    for c in &mut calls {
        c.family = family;
    }
    Some((calls, text.len()))
}

fn hermes(body: &str, markup: &str) -> Vec<Leaked> {
    match crate::json::parse_str_unrepeated(body) {
        Ok(Ok(value)) => json_calls(&value, body, markup),
        Ok(Err(path)) => {
            let name = cut::json_name(body)
                .and_then(cut::plain)
                .unwrap_or_default();
            malformed(markup, name, LeakProblem::KeyTwice(path)).0
        }
        Err(e) => malformed(markup, "", not_json(&e)).0,
    }
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
            return malformed(markup, &name, LeakProblem::PairNotComplete).0;
        };
        let key = key.trim();
        if args
            .insert(key.to_owned(), Value::String(layout_trimmed(value)))
            .is_some()
        {
            return malformed(markup, &name, LeakProblem::ParameterTwice(key.to_owned())).0;
        }
    }
    let mut call = super::leaked(name, Ok(args), markup);
    if let Ok(args) = &call.args {
        call.written.untyped = args.keys().cloned().collect();
    }
    vec![call]
}
