//! Which values are calls: the shapes of a call object, and the rules each
//! place in the text reads them by.

use serde_json::{Map, Value};

use super::super::json::object_args;
use super::super::{Declared, LeakProblem, Leaked, Written};
use crate::tolerant;

/// Keys a call object may hold beside its name and arguments.
const KNOWN: [&str; 7] = [
    "name",
    "arguments",
    "parameters",
    "input",
    "id",
    "type",
    "call_id",
];

/// A call's arguments, or why they cannot be read.
type Args = Result<Map<String, Value>, LeakProblem>;

/// Keys that hold the arguments.
pub(super) const ARGS: [&str; 3] = ["arguments", "parameters", "input"];

/// The `type` of a call object, where it has one.
pub(super) const CALL_TYPES: [&str; 4] = ["function", "tool_use", "tool_call", "function_call"];

/// How an object may be read as a call in a given place.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rule {
    /// When arguments written flat beside `name` are read.
    flat: Flat,
    /// Only Anthropic `tool_use` blocks.
    tool_use_only: bool,
}

/// When arguments written flat beside `name` are read (a call `type` always
/// allows them).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Flat {
    Never,
    /// Always (a wrapper, marker or `tool_call` fence says it is a call).
    Always,
}

/// Keys of a package manifest or a tool's definition: an object holding one
/// is data about a tool (`{"name": "glob", "version": …}`,
/// `{"name": "read", "input_schema": …}`), never flat arguments.
const NOT_FLAT: [&str; 12] = [
    "properties",
    "input_schema",
    "inputSchema",
    "parameters_schema",
    "schema",
    "version",
    "main",
    "license",
    "dependencies",
    "author",
    "scripts",
    "homepage",
];

/// The whole message: flat arguments only with a call `type` (a package.json
/// or a list of tools is as likely).
pub(super) const WHOLE: Rule = Rule {
    flat: Flat::Never,
    tool_use_only: false,
};
/// Bare values after prose: Anthropic blocks only.
pub(super) const TAIL: Rule = Rule {
    flat: Flat::Never,
    tool_use_only: true,
};
pub(super) const WRAPPED: Rule = Rule {
    flat: Flat::Always,
    tool_use_only: false,
};

/// The calls `value` (the text `list`, the markup `markup`) holds under
/// `rule`, every name declared, and the text of any text blocks among them.
pub(super) fn calls_in(
    value: &Value,
    list: &str,
    markup: &str,
    rule: Rule,
    declared: Declared,
    steps: &mut usize,
) -> Option<(Vec<Leaked>, String)> {
    match value {
        Value::Object(m) => {
            let (name, args, family) = call_of(m, rule, declared)?;
            Some((vec![call(&name, args, markup, family)], String::new()))
        }
        Value::Array(items) if !items.is_empty() => {
            let mut read = Vec::new();
            let mut texts = Vec::new();
            for (k, item) in items.iter().enumerate() {
                let m = item.as_object()?;
                if let Some(t) = text_block(m) {
                    texts.push(t);
                    continue;
                }
                read.push((k, call_of(m, rule, declared)?));
            }
            if read.is_empty() {
                return None;
            }
            // Text blocks only beside Anthropic blocks (a content list).
            if !texts.is_empty() && read.iter().any(|(_, (_, _, f))| *f != "tool_use") {
                return None;
            }
            let spans = if items.len() > 1 {
                element_spans(list, steps)
            } else {
                Vec::new()
            };
            let calls = read
                .into_iter()
                .map(|(k, (name, args, family))| {
                    let own = if items.len() > 1 {
                        spans.get(k).copied().unwrap_or(markup)
                    } else {
                        markup
                    };
                    call(&name, args, own, family)
                })
                .collect();
            Some((calls, texts.join("\n")))
        }
        _ => None,
    }
}

/// A fence's rule: flat arguments only in a ```` ```tool_call ```` fence (in
/// a ```` ```json ```` one, `{"name": …, "age": …}` is as likely data).
pub(super) fn fence_rule(tool: bool) -> Rule {
    Rule {
        flat: if tool { Flat::Always } else { Flat::Never },
        ..WHOLE
    }
}

/// `{"type": "text", "text": "…"}`.
fn text_block(m: &Map<String, Value>) -> Option<String> {
    let is_text = m.len() == 2 && m.get("type").and_then(Value::as_str) == Some("text");
    is_text.then(|| m.get("text")?.as_str().map(str::to_owned))?
}

/// The call an object is under `rule`: its name (declared), its arguments,
/// and its family (`tool_use` for an Anthropic block, else `json`).
pub(super) fn call_of(
    m: &Map<String, Value>,
    rule: Rule,
    declared: Declared,
) -> Option<(String, Args, &'static str)> {
    let kind = match m.get("type") {
        None => None,
        Some(Value::String(t)) if CALL_TYPES.contains(&t.as_str()) => Some(t.as_str()),
        // Another `type` is a flat argument, or no call.
        Some(_) if ARGS.iter().any(|k| m.contains_key(*k)) || m.contains_key("function") => {
            return None;
        }
        Some(_) => None,
    };
    let family = if kind == Some("tool_use") {
        "tool_use"
    } else {
        "json"
    };
    if rule.tool_use_only && family != "tool_use" {
        return None;
    }
    if let Some(inner) = m.get("function") {
        // `{"type": "function", "function": {"name", "parameters"}}`.
        if m.keys()
            .any(|k| !matches!(k.as_str(), "type" | "function" | "id"))
        {
            return None;
        }
        let inner = inner.as_object()?;
        if inner.contains_key("function") || inner.contains_key("type") {
            return None;
        }
        let rule = Rule {
            flat: Flat::Never,
            ..rule
        };
        return call_of(inner, rule, declared);
    }
    let name = m.get("name")?.as_str()?;
    if !declared(name) {
        return None;
    }
    // Anthropic's `input` is always an object: `input` holding text is a
    // parameter of that name (`{"name": "python", "input": "print(1)"}`), not
    // the arguments as JSON text (which `arguments` may be).
    let mut present = ARGS
        .iter()
        .filter(|k| m.get(**k).is_some_and(|v| **k != "input" || !v.is_string()));
    let args = match (present.next(), present.next()) {
        (Some(key), None) => {
            if m.keys().any(|k| !KNOWN.contains(&k.as_str())) {
                return None;
            }
            let value = m.get(*key);
            if value.is_some_and(schema_like) {
                return None;
            }
            object_args(value)
        }
        (None, _) => {
            // Only `name`, and a `type` that is a call type, are envelope:
            // every other key (`id` too) is an argument, for the schema to
            // judge.
            let args: Map<String, Value> = m
                .iter()
                .filter(|(k, _)| *k != "name" && !(*k == "type" && kind.is_some()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let flat = kind.is_some() || rule.flat == Flat::Always;
            // `description` alone beside the name is a tool listed
            // (`{"name": "read", "description": …}`); with other keys it may
            // be a parameter (bash's).
            let listed = args.len() == 1 && args.contains_key("description");
            if !flat || listed || args.keys().any(|k| NOT_FLAT.contains(&k.as_str())) {
                return None;
            }
            Ok(args)
        }
        _ => return None,
    };
    Some((name.to_owned(), args, family))
}

/// A JSON Schema (`{"type": "object", "properties": {…}}`): a tool's
/// definition repeated, not a call.
fn schema_like(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("object")
        && v.get("properties").is_some_and(Value::is_object)
}

pub(super) fn call(name: &str, args: Args, markup: &str, family: &'static str) -> Leaked {
    Leaked {
        name: name.to_owned(),
        args,
        markup: markup.to_owned(),
        family,
        written: Written::default(),
    }
}

/// The text of each element of the list `list` (which parsed), in one pass.
fn element_spans<'t>(list: &'t str, steps: &mut usize) -> Vec<&'t str> {
    let mut spans = Vec::new();
    let mut at = 1;
    loop {
        let rest = list.get(at..).unwrap_or_default();
        let t = rest.trim_start();
        at += rest.len() - t.len();
        if t.starts_with(']') || t.is_empty() {
            break;
        }
        let end = match tolerant::parse_prefix(t) {
            Ok((_, _, end)) | Err(tolerant::Failure::Repeated { at: end, .. }) => end,
            Err(_) => break,
        };
        *steps += end;
        spans.push(t.get(..end).unwrap_or_default());
        at += end;
        let rest = list.get(at..).unwrap_or_default();
        let t = rest.trim_start();
        at += rest.len() - t.len();
        match t.strip_prefix(',') {
            Some(_) => at += 1,
            None => break,
        }
    }
    spans
}
