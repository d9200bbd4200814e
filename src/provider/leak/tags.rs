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
//! A head not closed by `>` (Llama 3.3 on Groq writes `<function=read={…}` and
//! `<function=read {…}`), a name that is not one word, or text outside the
//! parameters is malformed: never read as a call.

use serde_json::{Map, Value};

use super::cursor::Cursor;
use super::json::object_call;
use super::table::Read;
use super::{Written, attribute, leaked, malformed, no_name};

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
    /// Whether a value is untyped text, for the schema to type.
    pub(super) untyped: bool,
}

/// How a name stands in a tag's head (the text up to its `>`).
#[derive(Clone, Copy)]
pub(super) enum Head {
    /// The head is the name: `<function=NAME>`.
    Eq,
    /// A `name="NAME"` attribute: `<invoke name="NAME">`.
    Attr,
}

/// `<function=X>` (`inner` is what follows the opening up to the closing
/// tag): reads the head, then the parameters or the JSON body.
pub(super) fn body(tag: &Tag, inner: &str, markup: &str) -> Read {
    let mut c = Cursor::new(inner);
    let head = match c.take_until(">") {
        Some(head) if !head.contains('<') => head,
        _ => {
            let said = match tag.head {
                Head::Eq => Cursor::new(inner.trim_start())
                    .take_while(is_name_char)
                    .to_owned(),
                Head::Attr => attribute(inner, "name").unwrap_or_default(),
            };
            return malformed(
                markup,
                &said,
                "the opening tag of the tool call written in the text is not closed by '>'".into(),
            );
        }
    };
    let name = match tag.head {
        Head::Eq => head.trim().to_owned(),
        Head::Attr => attribute(head, "name").unwrap_or_default(),
    };
    if name.is_empty() {
        return no_name(markup);
    }
    if matches!(tag.head, Head::Eq)
        && name.contains(|c: char| c.is_whitespace() || "{}\"'=".contains(c))
    {
        return malformed(
            markup,
            "",
            format!("{name:?} in the tool call written in the text is not a tool name"),
        );
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
fn params(c: &mut Cursor<'_>, p: &Params) -> Result<(Map<String, Value>, Vec<String>), String> {
    let mut args = Map::new();
    let mut untyped = Vec::new();
    loop {
        c.skip_space();
        if c.is_at_end() {
            return Ok((args, untyped));
        }
        if !c.eat(p.open) {
            return Err(
                "the tool call written in the text holds text outside its parameters".into(),
            );
        }
        let head = match c.take_until(">") {
            Some(head) if !head.contains('<') => head,
            _ => return Err("a parameter tag is not closed".into()),
        };
        let pname = match p.head {
            Head::Eq => head.trim().to_owned(),
            Head::Attr => attribute(head, "name").ok_or("a parameter has no name")?,
        };
        let Some(raw) = c.take_until(p.close) else {
            return Err(format!("parameter \"{pname}\" is not closed"));
        };
        let string = p.string_attr.then(|| attribute(head, "string")).flatten();
        let value = match string.as_deref() {
            Some("false") => serde_json::from_str::<Value>(raw.trim()).map_err(|e| {
                format!("parameter \"{pname}\" is marked as JSON but is not valid JSON: {e}")
            })?,
            _ if p.layout => Value::String(layout_trimmed(raw)),
            _ => Value::String(raw.to_owned()),
        };
        if p.untyped && !args.contains_key(&pname) {
            untyped.push(pname.clone());
        }
        args.insert(pname, value);
    }
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
