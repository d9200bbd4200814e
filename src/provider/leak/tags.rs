//! Function tags with XML parameters, as data ([`Tag`], [`Params`]):
//! - Qwen-Coder: `<function=read><parameter=path>…</parameter></function>`,
//!   values as raw text (the schema types them); the same tag holding one JSON
//!   object instead of parameters is Llama 3.1's custom-tool format,
//!   `<function=read>{"path": "/a"}</function>`;
//! - DeepSeek DSML and MiniMax: `<｜DSML｜invoke name="read"><｜DSML｜parameter
//!   name="filePath" string="true">…</｜DSML｜parameter></｜DSML｜invoke>` (or
//!   the same without `｜DSML｜`): `string="true"` means the value is raw
//!   text, `string="false"` that it is JSON; without the attribute (MiniMax)
//!   a value is raw text.
//!
//! - MiniCPM5: `<function name="read"><param name="path">…</param></function>`,
//!   values as raw text, perhaps in `<![CDATA[…]]>` (kept exactly);
//! - Seed-OSS wraps the Qwen-Coder tag in `<seed:tool_call>` (a table row).
//!
//! Values written as text (not `string="true"`, not `string="false"` JSON)
//! are marked untyped, for the schema to type.
//!
//! The Llama JSON body with its head broken reads when one reading exists:
//! `<function=read{…}</function>` and `<function=read{…}></function>` (the
//! `>` missing, or after the JSON), and `function=read>{…}</function>` (the
//! `<` missing: only that whole shape, starting a line and naming a declared
//! tool, else it is text). A head not closed by
//! `>` otherwise (Llama 3.3 on Groq writes `<function=read={…}` and
//! `<function=read {…}`), a name that is not one word, or text outside the
//! parameters is malformed: never read as a call.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::cursor::{Cursor, looked};
use super::json::{json_value, object_call};
use super::scan::{Ctx, Read};
use super::{LeakProblem, Written, attribute, leaked, malformed, no_name, unclosed_call};

/// A function tag: the opening sentinel is its start, up to the name; the
/// row's closing sentinel ends it.
pub(super) struct Tag {
    /// How the call's name stands in the head.
    pub(super) head: Head,
    /// Its parameters.
    pub(super) params: Params,
    /// The family of a call whose body is one JSON object instead of
    /// parameters, if the syntax allows one.
    pub(super) json_body: Option<&'static str>,
}

/// One syntax of XML parameters.
#[derive(Clone, Copy)]
pub(super) struct Params {
    /// What opens a parameter (`<parameter=`, `<parameter `).
    pub(super) open: &'static str,
    /// How its name stands in its head.
    pub(super) head: Head,
    /// What closes it.
    pub(super) close: &'static str,
    /// Whether one newline after the head and before the close is layout.
    pub(super) layout: bool,
    /// Whether a `string="false"` attribute marks a JSON value.
    pub(super) string_attr: bool,
    /// Whether a value written as text is untyped, for the schema to type
    /// (`string="true"` says it is a string).
    pub(super) untyped: bool,
}

/// How a name stands in a tag's head (the text up to its `>`).
#[derive(Clone, Copy)]
pub(super) enum Head {
    /// The head is the name: `<function=NAME>`.
    Eq,
    /// A `name="NAME"` attribute: `<invoke name="NAME">`.
    Attr,
    /// The opening ends with `name=`, the head starts with the quoted name:
    /// `<function name=` then `"NAME">`.
    Quoted,
}

/// `<function=X>` (`inner` is what follows the opening up to the closing
/// tag): reads the head, then the parameters or the JSON body.
pub(super) fn body(tag: &Tag, inner: &str, markup: &str) -> Read {
    if let (Head::Eq, Some(family)) = (tag.head, tag.json_body)
        && let Some((name, args)) = name_then_json(inner)
    {
        let mut call = leaked(name.to_owned(), Ok(args), markup);
        call.family = family;
        return (vec![call], markup.len());
    }
    let mut c = Cursor::new(inner);
    let head = match c.take_until(">") {
        Some(head) if !head.contains('<') => head,
        _ => {
            let said = match tag.head {
                Head::Eq => Cursor::new(inner.trim_start())
                    .take_while(is_name_char)
                    .to_owned(),
                Head::Attr => attribute(inner, "name").unwrap_or_default(),
                Head::Quoted => quoted(inner).unwrap_or_default(),
            };
            return malformed(markup, &said, LeakProblem::HeadNotClosed);
        }
    };
    let name = match tag.head {
        Head::Eq => head.trim().to_owned(),
        Head::Attr => attribute(head, "name").unwrap_or_default(),
        Head::Quoted => quoted(head).unwrap_or_default(),
    };
    if name.is_empty() {
        return no_name(markup);
    }
    if matches!(tag.head, Head::Eq)
        && name.contains(|c: char| c.is_whitespace() || "{}\"'=".contains(c))
    {
        return malformed(markup, "", LeakProblem::NotAToolName(name));
    }
    if let Some(family) = tag.json_body
        && c.rest().trim().starts_with('{')
    {
        let (mut calls, used) = object_call(&name, c.rest(), markup);
        for call in &mut calls {
            call.family = family;
        }
        return (calls, used);
    }
    match params(&mut c, &tag.params) {
        Ok((args, untyped)) => {
            let mut call = leaked(name, Ok(args), markup);
            call.written = Written {
                untyped,
                ..Written::default()
            };
            (vec![call], markup.len())
        }
        Err(why) => malformed(markup, &name, why),
    }
}

/// The parameters from the cursor to the end of its text, and which of them
/// hold untyped text.
fn params(
    c: &mut Cursor<'_>,
    p: &Params,
) -> Result<(Map<String, Value>, Vec<String>), LeakProblem> {
    let mut args = Map::new();
    // Per parameter: whether its (last) value is untyped text.
    let mut text = HashMap::new();
    // The next `]]>`: where it was looked for from and where it is. Searched
    // once and reused while the cursor is before it (searching from every
    // CDATA that never closes was quadratic).
    let mut cdata_end: Option<(usize, Option<usize>)> = None;
    loop {
        c.skip_space();
        if c.is_at_end() {
            let untyped = args
                .keys()
                .filter(|k| text.get(*k).copied().unwrap_or(false))
                .cloned()
                .collect();
            return Ok((args, untyped));
        }
        if !c.eat(p.open) {
            return Err(LeakProblem::TextOutsideParameters);
        }
        let head = match c.take_until(">") {
            Some(head) if !head.contains('<') => head,
            _ => return Err(LeakProblem::ParameterTagNotClosed),
        };
        let pname = match p.head {
            Head::Eq => head.trim().to_owned(),
            Head::Attr => attribute(head, "name").ok_or(LeakProblem::ParameterWithoutName)?,
            Head::Quoted => quoted(head).ok_or(LeakProblem::ParameterWithoutName)?,
        };
        let cdata = if c.starts_with(CDATA) {
            let mut after = *c;
            after.eat(CDATA);
            let from = after.at();
            let end = match cdata_end {
                Some((searched, found)) if searched <= from && found.is_none_or(|q| q >= from) => {
                    found
                }
                _ => {
                    let found = after.rest().find("]]>").map(|k| from + k);
                    looked(found.map_or(after.rest().len(), |q| q - from));
                    cdata_end = Some((from, found));
                    found
                }
            };
            let data = end
                .and_then(|q| after.take(q.checked_sub(from)?))
                .filter(|_| after.eat("]]>"));
            after.skip_space();
            match data {
                Some(data) if after.eat(p.close) => {
                    *c = after;
                    Some(data)
                }
                _ => None,
            }
        } else {
            None
        };
        let raw = match cdata {
            Some(data) => data,
            None => c
                .take_until(p.close)
                .ok_or_else(|| LeakProblem::ParameterNotClosed(pname.clone()))?,
        };
        let string = p.string_attr.then(|| attribute(head, "string")).flatten();
        let value = match string.as_deref() {
            Some("false") => match crate::json::parse_str_unrepeated(raw.trim()) {
                Ok(Ok(value)) => value,
                Ok(Err(path)) => {
                    return Err(LeakProblem::KeyTwice(format!("{pname}.{path}")));
                }
                Err(e) => {
                    return Err(LeakProblem::ParameterNotJson {
                        name: pname.clone(),
                        why: e.to_string(),
                    });
                }
            },
            _ if p.layout && cdata.is_none() => Value::String(layout_trimmed(raw)),
            _ => Value::String(raw.to_owned()),
        };
        text.insert(pname.clone(), p.untyped && string.is_none());
        // Two values for one parameter are two readings: neither is taken.
        if args.insert(pname.clone(), value).is_some() {
            return Err(LeakProblem::ParameterTwice(pname));
        }
    }
}

const CDATA: &str = "<![CDATA[";

/// The `"…"` (or `'…'`) the head starts with.
fn quoted(head: &str) -> Option<String> {
    let mut c = Cursor::new(head.trim_start());
    let q = c.eat_any(&['"', '\''])?;
    let value = c.take_while(|ch| ch != q);
    c.eat_any(&[q])?;
    Some(value.to_owned())
}

/// `NAME{…}` or `NAME{…}>` (all of `inner`): a name, then one JSON object,
/// its `>` missing or after the JSON.
fn name_then_json(inner: &str) -> Option<(&str, Map<String, Value>)> {
    let mut c = Cursor::new(inner.trim());
    let name = c.take_while(is_ident);
    if name.is_empty() || !c.starts_with("{") {
        return None;
    }
    let (Value::Object(args), _) = json_value(&mut c).ok()? else {
        return None;
    };
    c.eat(">");
    c.skip_space();
    c.is_at_end().then_some((name, args))
}

/// `function=NAME>{…}</function>` at the start of `text` (the `<` missing):
/// that whole shape, starting a line and naming a declared tool, is a call;
/// anything else is text (no call, nothing used): `function=handler {…}` in
/// a sentence is configuration, not a call.
pub(super) fn bare_function(text: &str, ctx: &mut Ctx) -> Read {
    const CLOSE: &str = "</function>";
    let mut c = Cursor::new(text);
    c.eat("function=");
    let name = c.take_while(is_ident);
    let head_closed = c.eat(">");
    c.skip_space();
    if !head_closed || !c.starts_with("{") || !ctx.declared(name) || !ctx.starts_line(text) {
        return (Vec::new(), 0);
    }
    let args = match json_value(&mut c) {
        Ok((Value::Object(args), _)) => args,
        // Cut off by the end of the text: a call cut off, rejected.
        Err(LeakProblem::NotClosed) => return unclosed_call(text, name),
        _ => return (Vec::new(), 0),
    };
    c.skip_space();
    if !c.eat(CLOSE) {
        return if CLOSE.starts_with(c.rest()) {
            unclosed_call(text, name)
        } else {
            (Vec::new(), 0)
        };
    }
    let mut call = leaked(name.to_owned(), Ok(args), c.done());
    call.family = "llama3";
    (vec![call], c.at())
}

/// A character of a tool name.
fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
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
