//! Qwen-Coder: `<function=read><parameter=path>…</parameter></function>`, values
//! as raw text (the schema-guided repairs type them). The same tag holding one
//! JSON object instead of parameters is Llama 3.1's custom-tool format,
//! `<function=read>{"path": "/a"}</function>`.
//!
//! A head not closed by `>` (Llama 3.3 on Groq writes `<function=read={…}` and
//! `<function=read {…}`), a name that is not one word, or text outside the
//! parameters is malformed: never read as a call.

use serde_json::{Map, Value};

use super::cursor::Cursor;
use super::{Family, Leaked, enclosed, found_untyped, malformed, no_name, object_call, unclosed};

pub(super) struct QwenCoder;

const OPEN: &str = "<function=";
const CLOSE: &str = "</function>";
const PARAM: &str = "<parameter=";
const CLOSE_PARAM: &str = "</parameter>";

impl Family for QwenCoder {
    fn name(&self) -> &'static str {
        "qwen-coder"
    }

    fn openings(&self) -> &'static [&'static str] {
        &[OPEN]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        function(text)
    }
}

/// `<function=X><parameter=P>…</parameter></function>` at the start of `text`.
pub(super) fn function(text: &str) -> (Vec<Leaked>, usize) {
    let Some((markup, inner)) = enclosed(text, OPEN, CLOSE) else {
        return unclosed(text);
    };
    let mut c = Cursor::new(inner);
    let head = match c.take_until(">") {
        Some(head) if !head.contains('<') => head.trim(),
        _ => {
            let said = Cursor::new(inner.trim_start()).take_while(is_name_char);
            return malformed(
                markup,
                said,
                "the <function=…> tag of the tool call written in the text is not closed by '>'"
                    .into(),
            );
        }
    };
    if head.is_empty() {
        return no_name(markup);
    }
    if head.contains(|c: char| c.is_whitespace() || "{}\"'=".contains(c)) {
        return malformed(
            markup,
            "",
            format!("{head:?} in the tool call written in the text is not a tool name"),
        );
    }
    let name = head.to_owned();
    let body = c.rest().trim();
    if body.starts_with('{') {
        let (mut calls, used) = object_call(&name, body, markup);
        for call in &mut calls {
            call.family = "llama3";
        }
        return (calls, used);
    }
    let mut args = Map::new();
    loop {
        c.skip_space();
        if c.is_at_end() {
            break;
        }
        if !c.eat(PARAM) {
            return malformed(
                markup,
                &name,
                "the tool call written in the text holds text outside its parameters".into(),
            );
        }
        let pname = match c.take_until(">") {
            Some(pname) if !pname.contains('<') => pname.trim().to_owned(),
            _ => return malformed(markup, &name, "a parameter tag is not closed".into()),
        };
        let Some(value) = c.take_until(CLOSE_PARAM) else {
            return malformed(
                markup,
                &name,
                format!("parameter \"{pname}\" is not closed"),
            );
        };
        args.insert(pname, Value::String(layout_trimmed(value)));
    }
    found_untyped(name, args, markup)
}

/// A character of the word a broken head starts with (named in the report).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/')
}

/// The format puts values on their own lines; those newlines are layout.
pub(super) fn layout_trimmed(raw: &str) -> String {
    let raw = raw.strip_prefix('\n').unwrap_or(raw);
    raw.strip_suffix('\n').unwrap_or(raw).to_owned()
}
