//! Tool calls written into assistant text instead of emitted as calls.
//!
//! Three formats are recognised:
//! - DeepSeek DSML: `<｜DSML｜invoke name="read"><｜DSML｜parameter name="filePath"
//!   string="true">…</｜DSML｜parameter></｜DSML｜invoke>`, optionally inside
//!   `<｜DSML｜function_calls>`, and the same without the `｜DSML｜` prefix.
//!   `string="true"` means the value is raw text, `string="false"` that it is JSON.
//! - Qwen-Coder: `<function=read><parameter=path>…</parameter></function>`, values
//!   as raw text (the schema-guided repairs type them).
//! - Hermes: `<tool_call>{"name": …, "arguments": …}</tool_call>`.
//!
//! Markup that is not closed, or JSON that does not parse, is reported as
//! malformed; it is never guessed at.

use serde_json::{Map, Value};

/// One call found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaked {
    /// The tool name (empty when the markup is too broken to tell).
    pub name: String,
    /// The arguments, or why they cannot be read.
    pub args: Result<Map<String, Value>, String>,
    /// The markup as it stood in the text.
    pub markup: String,
}

const DSML: &str = "｜DSML｜";

/// Finds every leaked call in `text`, in order; returns them and the text with
/// their markup removed.
pub fn find(text: &str) -> (Vec<Leaked>, String) {
    let mut calls = Vec::new();
    let mut clean = String::with_capacity(text.len());
    let mut rest = text;
    let mut openings = Openings::default();
    while let Some((start, kind)) = openings.next(text, text.len() - rest.len()) {
        let start = start - (text.len() - rest.len());
        clean.push_str(&rest[..start]);
        let tail = &rest[start..];
        let (leaked, used) = match kind {
            Kind::Invoke => invoke(tail),
            Kind::Function => function(tail),
            Kind::ToolCall => tool_call(tail),
            Kind::Wrapper => {
                // `<｜DSML｜function_calls>` and its closing tag carry no call.
                let open = tail.find('>').map_or(tail.len(), |i| i + 1);
                rest = &tail[open..];
                continue;
            }
        };
        calls.push(leaked);
        rest = &tail[used..];
    }
    clean.push_str(rest);
    for wrapper in ["</｜DSML｜function_calls>", "</function_calls>"] {
        clean = clean.replace(wrapper, "");
    }
    (calls, clean.trim().to_owned())
}

#[derive(Clone, Copy)]
enum Kind {
    Invoke,
    Function,
    ToolCall,
    Wrapper,
}

const OPENINGS: [(&str, Kind); 6] = [
    ("<｜DSML｜invoke ", Kind::Invoke),
    ("<invoke ", Kind::Invoke),
    ("<function=", Kind::Function),
    ("<tool_call>", Kind::ToolCall),
    ("<｜DSML｜function_calls>", Kind::Wrapper),
    ("<function_calls>", Kind::Wrapper),
];

/// Where each opening next occurs, remembered between calls so that the text is
/// searched once per opening, not once per call found (which was quadratic).
#[derive(Default)]
struct Openings {
    /// Per opening: `None` not searched yet; `Some(None)` no more in the text;
    /// `Some(Some(i))` the next one at byte `i`.
    next: [Option<Option<usize>>; OPENINGS.len()],
}

impl Openings {
    /// The first opening at or after byte `from` of `text`.
    fn next(&mut self, text: &str, from: usize) -> Option<(usize, Kind)> {
        let mut best: Option<(usize, Kind)> = None;
        for (slot, (pat, kind)) in self.next.iter_mut().zip(OPENINGS) {
            let at = match *slot {
                Some(Some(i)) if i >= from => Some(i),
                Some(None) => None,
                _ => text[from..].find(pat).map(|i| i + from),
            };
            *slot = Some(at);
            if let Some(i) = at
                && best.is_none_or(|(b, _)| i < b)
            {
                best = Some((i, kind));
            }
        }
        best
    }
}

fn malformed(markup: &str, name: &str, why: String) -> (Leaked, usize) {
    (
        Leaked {
            name: name.to_owned(),
            args: Err(why),
            markup: markup.to_owned(),
        },
        markup.len(),
    )
}

/// The markup up to and including `close`, if the text closes it.
fn enclosed<'t>(text: &'t str, close: &str) -> Option<&'t str> {
    text.find(close).map(|i| &text[..i + close.len()])
}

/// A call whose markup is never closed: the rest of the text is its markup.
fn unclosed(text: &str) -> (Leaked, usize) {
    malformed(
        text,
        "",
        "the tool call written in the text is not closed".into(),
    )
}

/// A call read from `markup`.
fn found(name: String, args: Map<String, Value>, markup: &str) -> (Leaked, usize) {
    (
        Leaked {
            name,
            args: Ok(args),
            markup: markup.to_owned(),
        },
        markup.len(),
    )
}

/// `<[｜DSML｜]invoke name="X">…</[｜DSML｜]invoke>`.
fn invoke(text: &str) -> (Leaked, usize) {
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
        return malformed(
            markup,
            "",
            "the tool call written in the text has no name".into(),
        );
    };
    let Some(name) = attribute(&markup[..head_end], "name") else {
        return malformed(
            markup,
            "",
            "the tool call written in the text has no name".into(),
        );
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

/// `<function=X><parameter=P>…</parameter></function>`.
fn function(text: &str) -> (Leaked, usize) {
    let close = "</function>";
    let Some(markup) = enclosed(text, close) else {
        return unclosed(text);
    };
    let Some(head_end) = markup.find('>') else {
        return malformed(
            markup,
            "",
            "the tool call written in the text has no name".into(),
        );
    };
    let name = markup["<function=".len()..head_end].trim().to_owned();
    if name.is_empty() {
        return malformed(
            markup,
            "",
            "the tool call written in the text has no name".into(),
        );
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
        let raw = &after[h + 1..h + 1 + v_end];
        // The format puts values on their own lines; those newlines are layout.
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        args.insert(pname, Value::String(raw.to_owned()));
        rest = &after[h + 1 + v_end + "</parameter>".len()..];
    }
    found(name, args, markup)
}

/// `<tool_call>{"name": …, "arguments": …}</tool_call>`.
fn tool_call(text: &str) -> (Leaked, usize) {
    let close = "</tool_call>";
    let Some(markup) = enclosed(text, close) else {
        return unclosed(text);
    };
    let body = markup["<tool_call>".len()..markup.len() - close.len()].trim();
    let value: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => {
            return malformed(
                markup,
                "",
                format!("the tool call written in the text is not valid JSON: {e}"),
            );
        }
    };
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if name.is_empty() {
        return malformed(
            markup,
            "",
            "the tool call written in the text has no name".into(),
        );
    }
    let args = match value.get("arguments").or_else(|| value.get("parameters")) {
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(
                "the arguments of the tool call written in the text are not a JSON object"
                    .to_owned(),
            ),
        },
        None => Ok(Map::new()),
        Some(_) => Err(
            "the arguments of the tool call written in the text are not a JSON object".to_owned(),
        ),
    };
    (
        Leaked {
            name,
            args,
            markup: markup.to_owned(),
        },
        markup.len(),
    )
}

/// `name="value"` in a tag head.
fn attribute(head: &str, name: &str) -> Option<String> {
    let pat = format!("{name}=\"");
    let mut from = 0;
    while let Some(i) = head[from..].find(&pat) {
        let at = from + i;
        // Whole attribute names only (`name=` must not match `filename=`).
        if at == 0 || head.as_bytes()[at - 1].is_ascii_whitespace() {
            let v = &head[at + pat.len()..];
            return v.find('"').map(|e| v[..e].to_owned());
        }
        from = at + pat.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> (Leaked, String) {
        let (mut calls, clean) = find(text);
        assert_eq!(calls.len(), 1, "{calls:?}");
        (calls.remove(0), clean)
    }

    #[test]
    fn dsml_with_prefix_and_typed_values() {
        // opencode #24566 comment (DeepSeek, read).
        let text = "I'll read it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read\">\n<｜DSML｜parameter name=\"filePath\" string=\"true\">I:\\hrc\\usermode\\src\\hypercall\\hypercall.cpp</｜DSML｜parameter>\n<｜DSML｜parameter name=\"limit\" string=\"false\">15</｜DSML｜parameter>\n<｜DSML｜parameter name=\"offset\" string=\"false\">357</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
        let (call, clean) = one(text);
        assert_eq!(call.name, "read");
        assert_eq!(
            Value::Object(call.args.unwrap()),
            json!({"filePath": "I:\\hrc\\usermode\\src\\hypercall\\hypercall.cpp", "limit": 15, "offset": 357})
        );
        assert_eq!(clean, "I'll read it.");
    }

    #[test]
    fn dsml_without_prefix() {
        // opencode #34676 (DeepSeek V4 Flash).
        let (call, clean) = one(
            "<invoke name=\"read\"><parameter name=\"filePath\" string=\"true\">/home/u/frontend/src/lib/api.ts</parameter></invoke>",
        );
        assert_eq!(call.name, "read");
        assert_eq!(
            Value::Object(call.args.unwrap()),
            json!({"filePath": "/home/u/frontend/src/lib/api.ts"})
        );
        assert_eq!(clean, "");
    }

    #[test]
    fn dsml_broken_json_is_malformed_not_guessed() {
        // opencode #24566 (DeepSeek, question): `options` lost its brackets.
        let text = "<｜DSML｜invoke name=\"question\"><｜DSML｜parameter name=\"questions\" string=\"false\">[{\"question\": \"x\", \"options\": {\"label\": \"a\", \"description\": \"b\"}, {\"label\": \"c\", \"description\": \"d\"}, \"header\": \"h\"}]</｜DSML｜parameter></｜DSML｜invoke>";
        let (call, _) = one(text);
        assert_eq!(call.name, "question");
        let why = call.args.unwrap_err();
        assert!(
            why.starts_with("parameter \"questions\" is marked as JSON but is not valid JSON"),
            "{why}"
        );
    }

    #[test]
    fn qwen_function_format() {
        let text = "Let me search.\n<function=grep>\n<parameter=pattern>\nfn main\n</parameter>\n<parameter=head_limit>\n15\n</parameter>\n</function>\nDone.";
        let (call, clean) = one(text);
        assert_eq!(call.name, "grep");
        assert_eq!(
            Value::Object(call.args.unwrap()),
            json!({"pattern": "fn main", "head_limit": "15"})
        );
        assert_eq!(clean, "Let me search.\n\nDone.");
    }

    #[test]
    fn hermes_tool_call() {
        let (call, clean) = one(
            "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}\n</tool_call>",
        );
        assert_eq!(call.name, "glob");
        assert_eq!(
            Value::Object(call.args.unwrap()),
            json!({"pattern": "*.rs"})
        );
        assert_eq!(clean, "");
        let (call, _) = one(
            "<tool_call>{\"name\": \"glob\", \"arguments\": \"{\\\"pattern\\\": \\\"*\\\"}\"}</tool_call>",
        );
        assert_eq!(Value::Object(call.args.unwrap()), json!({"pattern": "*"}));
    }

    #[test]
    fn several_calls_in_order() {
        let text = "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> and <function=b></function>";
        let (calls, clean) = find(text);
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(clean, "and");
    }

    #[test]
    fn malformed_markup_is_reported() {
        for (text, why) in [
            (
                "<tool_call>{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}",
                "not closed",
            ),
            (
                "<tool_call>{\"name\": \"glob\",}</tool_call>",
                "not valid JSON",
            ),
            ("<tool_call>{\"arguments\": {}}</tool_call>", "has no name"),
            (
                "<invoke name=\"read\"><parameter name=\"p\" string=\"true\">x</invoke>",
                "not closed",
            ),
            ("<function=read><parameter=p>x</function>", "not closed"),
        ] {
            let (calls, _) = find(text);
            assert_eq!(calls.len(), 1, "{text}");
            let err = calls[0].args.clone().unwrap_err();
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn prose_is_left_alone() {
        let text =
            "Use <function> tags or <tool_call> wrappers? No: a < b, <invoke>, <important-rules>.";
        let (calls, clean) = find(text);
        // `<tool_call>` without a closing tag in prose is malformed, not ignored:
        // text that opens a call must finish it.
        assert_eq!(calls.len(), 1);
        assert!(calls[0].args.is_err());
        assert!(clean.starts_with("Use <function> tags or"));
        let (calls, clean) = find("No markup here: <b>bold</b>, Vec<T>.");
        assert!(calls.is_empty());
        assert_eq!(clean, "No markup here: <b>bold</b>, Vec<T>.");
    }
}
