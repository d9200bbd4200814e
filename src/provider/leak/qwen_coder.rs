//! Qwen-Coder: `<function=read><parameter=path>…</parameter></function>`, values
//! as raw text (the schema-guided repairs type them).

use serde_json::{Map, Value};

use super::{Family, Leaked, enclosed, found, malformed, no_name, unclosed};

pub(super) struct QwenCoder;

impl Family for QwenCoder {
    fn name(&self) -> &'static str {
        "qwen-coder"
    }

    fn openings(&self) -> &'static [&'static str] {
        &["<function="]
    }

    fn read(&self, text: &str) -> (Vec<Leaked>, usize) {
        function(text)
    }
}

/// `<function=X><parameter=P>…</parameter></function>` at the start of `text`.
pub(super) fn function(text: &str) -> (Vec<Leaked>, usize) {
    let close = "</function>";
    let Some(markup) = enclosed(text, close) else {
        return unclosed(text);
    };
    let Some(head_end) = markup.find('>') else {
        return no_name(markup);
    };
    let name = markup["<function=".len()..head_end].trim().to_owned();
    if name.is_empty() {
        return no_name(markup);
    }
    let body = &markup[head_end + 1..markup.len() - close.len()];
    let mut args = Map::new();
    let mut rest = body;
    while let Some(i) = rest.find("<parameter=") {
        let after = &rest[i + "<parameter=".len()..];
        let Some(h) = after.find('>') else {
            return malformed(markup, &name, "a parameter tag is not closed".into());
        };
        let pname = after[..h].trim().to_owned();
        let Some(v_end) = after[h + 1..].find("</parameter>") else {
            return malformed(
                markup,
                &name,
                format!("parameter \"{pname}\" is not closed"),
            );
        };
        args.insert(
            pname,
            Value::String(layout_trimmed(&after[h + 1..h + 1 + v_end])),
        );
        rest = &after[h + 1 + v_end + "</parameter>".len()..];
    }
    found(name, args, markup)
}

/// The format puts values on their own lines; those newlines are layout.
pub(super) fn layout_trimmed(raw: &str) -> String {
    let raw = raw.strip_prefix('\n').unwrap_or(raw);
    raw.strip_suffix('\n').unwrap_or(raw).to_owned()
}
