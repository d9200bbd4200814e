//! JSON in call markup: call objects (`{"name", "arguments"}`, one or a list),
//! argument objects, and the one JSON value at a cursor.

use serde_json::{Map, Value};

use super::cursor::Cursor;
use super::scan::Read;
use super::{LeakProblem, Leaked, found, leaked, malformed, not_json};

/// The name in `[{"name": "x"` or `{"name": "x"` at the start of `text`.
pub(super) fn json_first_name(text: &str) -> Option<&str> {
    let t = text.strip_prefix('[').unwrap_or(text).trim_start();
    let t = t.strip_prefix('{')?.trim_start();
    let t = t.strip_prefix("\"name\"")?.trim_start();
    let t = t.strip_prefix(':')?.trim_start();
    let (name, _) = t.strip_prefix('"')?.split_once('"')?;
    (!name.contains('\\')).then_some(name)
}

/// A call to `name` whose arguments are the JSON object `json`.
pub(super) fn object_call(name: &str, json: &str, markup: &str) -> Read {
    match crate::json::parse_str_unrepeated(json.trim()) {
        Ok(Ok(Value::Object(args))) => found(name.to_owned(), args, markup),
        Ok(Ok(_)) => malformed(markup, name, LeakProblem::ArgsNotAnObject),
        Ok(Err(path)) => malformed(markup, name, LeakProblem::KeyTwice(path)),
        Err(e) => malformed(markup, name, not_json(&e)),
    }
}

/// Arguments given as an object, or as JSON text holding one.
pub(super) fn object_args(value: Option<&Value>) -> Result<Map<String, Value>, LeakProblem> {
    match value {
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(Value::String(s)) => match crate::json::parse_str_unrepeated(s) {
            Ok(Ok(Value::Object(m))) => Ok(m),
            Ok(Err(path)) => Err(LeakProblem::KeyTwice(path)),
            _ => Err(LeakProblem::ArgsNotAnObject),
        },
        None => Ok(Map::new()),
        Some(_) => Err(LeakProblem::ArgsNotAnObject),
    }
}

/// The one JSON value the cursor stands before (after whitespace), moving past
/// it; a value cut off by the end of the text is "not closed". Returns the
/// value and its text.
pub(super) fn json_value<'t>(c: &mut Cursor<'t>) -> Result<(Value, &'t str), LeakProblem> {
    let rest = c.rest();
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => match c.take(values.byte_offset()) {
            // A key named twice: read one way by no JSON reader.
            Some(json) => match crate::json::parse_str_unrepeated(json) {
                Ok(Err(path)) => Err(LeakProblem::KeyTwice(path)),
                _ => Ok((v, json)),
            },
            None => Err(LeakProblem::JsonNotTaken),
        },
        Some(Err(e)) if e.is_eof() => Err(LeakProblem::NotClosed),
        Some(Err(e)) => Err(not_json(&e)),
        None => Err(LeakProblem::Empty),
    }
}

/// `{"name"|"tool_name", "arguments"|"parameters"}` objects (or the same
/// under `"function"`, OpenAI's and Llama's `{"type": "function", …}`), one or a list,
/// parsed from `json` into `value`. A call in a list of several holds its
/// own element as its markup; a lone call holds `markup`.
pub(super) fn json_calls(value: &Value, json: &str, markup: &str) -> Vec<Leaked> {
    let (items, spans) = match value {
        Value::Array(items) if items.len() > 1 => (items.iter().collect(), element_spans(json)),
        Value::Array(items) => (items.iter().collect(), Vec::new()),
        other => (vec![other], Vec::new()),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(k, item)| {
            let markup = if spans.is_empty() {
                markup
            } else {
                spans.get(k).copied().unwrap_or_default()
            };
            let named = |item: &Value| {
                ["name", "tool_name"]
                    .iter()
                    .find_map(|key| item.get(*key).and_then(Value::as_str))
                    .map(str::to_owned)
            };
            // `{"type": "function", "function": {"name", "parameters"}}`:
            // the call is the inner object.
            let item = match item.get("function") {
                Some(inner) if named(item).is_none() && named(inner).is_some() => inner,
                _ => item,
            };
            let name = named(item).unwrap_or_default();
            if name.is_empty() {
                return leaked(name, Err(LeakProblem::NoName), markup);
            }
            let args = item.get("arguments").or_else(|| item.get("parameters"));
            leaked(name, object_args(args), markup)
        })
        .collect()
}

/// The text of each element of the JSON array `json` (valid JSON, perhaps
/// with whitespace around), in one pass.
pub(super) fn element_spans(json: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut start = 0;
    let mut push = |from: usize, to: usize| {
        let span = json.get(from..to).unwrap_or_default().trim();
        if !span.is_empty() {
            spans.push(span);
        }
    };
    for (i, b) in json.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth == 1 {
                    start = i + 1;
                }
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    push(start, i);
                }
            }
            b',' if depth == 1 => {
                push(start, i);
                start = i + 1;
            }
            _ => {}
        }
    }
    spans
}
