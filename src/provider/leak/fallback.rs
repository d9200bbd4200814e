//! The fallback reader: a `{name, arguments}`-shaped object, or a list of
//! them, naming declared tools, in any wrapper, fence or bare text — what is
//! left when no family's sentinel matched.
//!
//! No sentinel marks these calls, so an object is read as a call only where it
//! stands as one, and only when every name in it is a declared tool:
//!
//! - the whole message (`{"name": "read", "arguments": {…}}`, a list of them,
//!   `{"type": "function", "function": {"name", "parameters"}}`, an Anthropic
//!   `tool_use` block, in JSON or as a Python dict repr);
//! - right after a wrapper tag at the start of a line (`<tools>`,
//!   `<tool-use>`, `[TOOL_REQUEST]`, any `<name>` or `[NAME]`), closed or not
//!   (a complete object is a complete call; the wrapper is not the call);
//! - at the start of a line right before a closing tag (`</tools>`,
//!   `[END_TOOL_REQUEST]`) whose opening is missing;
//! - the body of a fence (```` ```json ````, ```` ```tool_call ````, or none)
//!   that ends the message, after prose, when no other fenced block is in it;
//! - after a `[Tool Use: NAME]` marker at the start of a line (the object is
//!   the arguments, or the call itself);
//! - an Anthropic `tool_use` block on lines of its own that end the message.
//!
//! Several values one after another (on lines of their own, or joined by
//! commas) are calls when every one of them is, in one of those places: the
//! whole message, `tool_use` blocks ending it, objects before a closing tag.
//!
//! Anywhere else (mid-paragraph, in a code span, in a fence among other
//! fences or followed by prose) the object is text. Arguments written flat
//! beside `name` (`{"name": "read", "file_path": "/a"}`) are read only where
//! something else says it is a call: a wrapper, a `[Tool Use]` marker, a
//! ```` ```tool_call ```` fence, or a `type` of `function`/`tool_use`. An
//! object cut off by the end of the text in one of these places, whose name
//! can be read and is declared, is a call that is not closed (rejected, never
//! completed).
//!
//! Linear in the text: candidates are only `{`/`[` at those places; each is
//! parsed once (`crate::tolerant`, depth-limited) and the text it consumed is
//! never parsed again; every look back or ahead is bounded by `MAX_TAG` or
//! by a whitespace run next to the candidate.

use memchr::{memchr2, memchr3};
use serde_json::{Map, Value};

use super::{Declared, Leaked, Written, code_ranges, object_args};
use crate::tolerant::{self, Failure};

#[cfg(test)]
mod tests;

/// The longest wrapper tag or marker looked for next to a candidate
/// (`<tool-use>`, `[TOOL_REQUEST]`, `[Tool Use: NAME]`, a fence line).
const MAX_TAG: usize = 80;

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
type Args = Result<Map<String, Value>, String>;

/// Keys that hold the arguments.
const ARGS: [&str; 3] = ["arguments", "parameters", "input"];

/// The `type` of a call object, where it has one.
const CALL_TYPES: [&str; 4] = ["function", "tool_use", "tool_call", "function_call"];

/// Tags that quote, think or answer rather than call: what they hold is text
/// (as in a code span), whichever of their tags is there.
const NOT_WRAPPERS: [&str; 22] = [
    "code",
    "pre",
    "samp",
    "kbd",
    "tt",
    "q",
    "blockquote",
    "quote",
    "example",
    "examples",
    "think",
    "thinking",
    "thought",
    "reasoning",
    "reflection",
    "scratchpad",
    "tool_response",
    "tool_result",
    "function_results",
    "result",
    "output",
    "observation",
];

/// Fence info strings whose body may be a call.
const FENCES: [&str; 7] = [
    "",
    "json",
    "jsonc",
    "json5",
    "tool_call",
    "tool_code",
    "tool_use",
];

/// Calls in `text`, and the text with their markup removed; `None` when there
/// are none.
pub(super) fn find(text: &str, declared: Declared) -> Option<(Vec<Leaked>, String)> {
    let scan = scan(text, declared);
    if scan.found.is_empty() {
        return None;
    }
    let mut clean = String::with_capacity(text.len());
    let mut at = 0;
    let mut calls = Vec::new();
    for f in scan.found {
        clean.push_str(text.get(at..f.start).unwrap_or_default());
        clean.push_str(&f.kept);
        at = f.end;
        calls.extend(f.calls);
    }
    clean.push_str(text.get(at..).unwrap_or_default());
    Some((calls, clean.trim().to_owned()))
}

/// Markup read as calls: the byte range it takes in the text, and the text of
/// any text blocks in it (kept in the clean text).
#[derive(Debug)]
struct Found {
    start: usize,
    end: usize,
    calls: Vec<Leaked>,
    kept: String,
    /// Inside a fence, which must end the message.
    fenced: bool,
}

/// Bare values one after another, not yet known to be calls.
struct Run {
    /// Each value, where it starts, where it ends, and where its markup ends.
    items: Vec<(Value, usize, usize, usize)>,
    /// The first starts the message.
    whole: bool,
    /// Where the last one ends.
    end: usize,
}

struct Scan {
    found: Vec<Found>,
    /// Bytes looked at: linear in the text.
    #[cfg_attr(not(test), allow(dead_code))]
    steps: usize,
}

/// What stands just before a candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Opener<'t> {
    /// `<name>` or `[NAME]`.
    Tag,
    /// `[Tool Use: NAME]`.
    ToolUse(&'t str),
    /// A fence line, ```` ```info ````: whether `tool_call`-like.
    Fence { tool: bool },
}

#[derive(Debug, Clone, Copy)]
struct Open<'t> {
    start: usize,
    kind: Opener<'t>,
    /// Only whitespace or other tags before it on its line.
    line_start: bool,
}

/// What follows a value, after whitespace.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Closer {
    End,
    /// A closing tag (`</name>`, `[END_NAME]`, `[/NAME]`), ending here.
    Tag(usize),
    /// A fence's closing backticks, ending here.
    Fence(usize),
    /// Another object or list follows (after a comma, perhaps).
    Next,
    Other,
}

/// How an object may be read as a call in a given place.
#[derive(Debug, Clone, Copy)]
struct Rule {
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
    /// When there is at least one (the whole message).
    IfAny,
    /// Always (a wrapper says it is a call).
    Always,
}

const WHOLE: Rule = Rule {
    flat: Flat::IfAny,
    tool_use_only: false,
};
/// Bare values after prose: Anthropic blocks only.
const TAIL: Rule = Rule {
    flat: Flat::IfAny,
    tool_use_only: true,
};
const WRAPPED: Rule = Rule {
    flat: Flat::Always,
    tool_use_only: false,
};

fn scan(text: &str, declared: Declared) -> Scan {
    let mut steps = 0;
    let code = code_ranges(text, &mut steps);
    let bytes = text.as_bytes();
    let first = text.len() - text.trim_start().len();
    let mut found: Vec<Found> = Vec::new();
    // Candidates before this were consumed by an earlier parse.
    let mut from = 0;
    let mut code_k = 0;
    // The end of the last call read in a wrapper that went on to another value.
    let mut chain: Option<usize> = None;
    // Bare calls one after another, kept only if they reach the end.
    let mut run: Option<Run> = None;
    let mut i = 0;
    while let Some(j) = bytes.get(i..).and_then(|b| memchr2(b'{', b'[', b)) {
        let s = i + j;
        i = s + 1;
        steps += 1;
        if s < from {
            continue;
        }
        while code.get(code_k).is_some_and(|&(_, end)| end <= s) {
            code_k += 1;
            steps += 1;
        }
        let in_code = code.get(code_k).copied().filter(|&(a, _)| a <= s);
        let (open, line_start) = opener(text, s, &mut steps);
        // Inside code, only the body of a fence that opens right there.
        if let Some((a, _)) = in_code
            && !open.is_some_and(|o| matches!(o.kind, Opener::Fence { .. }) && o.start == a)
        {
            continue;
        }
        let open = open.filter(|o| o.line_start);
        let chained = chain.take().is_some_and(|end| {
            let gap = text.get(end..s).unwrap_or_default();
            steps += gap.len();
            gap.bytes().all(|b| b.is_ascii_whitespace() || b == b',')
        }) && open.is_none();
        let run_here = run.take().filter(|r| {
            let gap = text.get(r.end..s).unwrap_or_default();
            steps += gap.len();
            open.is_none() && !chained && gap.bytes().all(|b| b.is_ascii_whitespace() || b == b',')
        });
        if open.is_none() && !chained && run_here.is_none() && !line_start && s != first {
            continue;
        }
        let rest = text.get(s..).unwrap_or_default();
        let parsed = tolerant::parse_prefix(rest);
        let used = match &parsed {
            Ok((_, _, end)) => *end,
            Err(Failure::Truncated) => rest.len(),
            Err(Failure::Invalid { at, .. } | Failure::Trailing { at }) => *at,
        };
        steps += used;
        from = s + used.max(1);
        let markup_start = open.map_or(s, |o| o.start);
        let (value, e) = match parsed {
            Ok((value, _, end)) => (value, s + end),
            Err(failure) => {
                let consumed = rest.get(..used).unwrap_or_default();
                // A tool_use block on lines of its own, cut off by the end.
                let tail = line_start
                    && failure == Failure::Truncated
                    && prefix_value(consumed, "type") == Some("tool_use");
                let placed = open.is_some() || chained || s == first || tail;
                if (placed || run_here.is_some())
                    && let Some(f) = broken(text, markup_start, open, consumed, failure, declared)
                {
                    // Calls before it in a bare run stand: it ends the message.
                    if let Some(r) = run_here {
                        let rule = if r.whole { WHOLE } else { TAIL };
                        match settle(text, r.items, rule, declared, &mut steps) {
                            Some(mut settled) => found.append(&mut settled),
                            None if !placed => continue,
                            None => {}
                        }
                    }
                    from = from.max(f.end);
                    found.push(f);
                }
                continue;
            }
        };
        let close = closer(text, e);
        // Bare values one after another: calls only if they all are, and they
        // end the message or a wrapper (whose opening is missing).
        if open.is_none() && !chained && (run_here.is_some() || close == Closer::Next) {
            let mut r = run_here.unwrap_or(Run {
                items: Vec::new(),
                whole: s == first,
                end: e,
            });
            let (end, rule) = match close {
                Closer::Next => {
                    r.items.push((value, s, e, e));
                    r.end = e;
                    run = Some(r);
                    continue;
                }
                Closer::End if r.whole => (e, WHOLE),
                Closer::End => (e, TAIL),
                Closer::Tag(x) => (x, WRAPPED),
                _ => continue,
            };
            r.items.push((value, s, e, end));
            if let Some(mut settled) = settle(text, r.items, rule, declared, &mut steps) {
                from = from.max(end);
                found.append(&mut settled);
            }
            continue;
        }
        let place = match (open.map(|o| o.kind), close) {
            (Some(Opener::Tag), Closer::Tag(x)) => Some((x, WRAPPED, false)),
            (Some(Opener::Tag), _) => Some((e, WRAPPED, false)),
            (Some(Opener::Fence { tool }), Closer::Fence(x))
                if in_code.is_some_and(|(_, end)| end == x) =>
            {
                Some((x, fence_rule(tool), true))
            }
            (Some(Opener::Fence { tool }), Closer::End) if in_code.is_none() => {
                Some((e, fence_rule(tool), true))
            }
            (Some(Opener::ToolUse(name)), _) => {
                if let Some(f) = tool_use_marker(name, &value, text, markup_start, e, declared) {
                    found.push(f);
                }
                continue;
            }
            (Some(Opener::Fence { .. }), _) => None,
            (None, Closer::Tag(x)) if chained || line_start => Some((x, WRAPPED, false)),
            (None, _) if chained => Some((e, WRAPPED, false)),
            (None, Closer::End) if s == first => Some((e, WHOLE, false)),
            (None, Closer::End) if line_start => Some((e, TAIL, false)),
            (None, _) => None,
        };
        let Some((end, rule, fenced)) = place else {
            continue;
        };
        let markup = text.get(markup_start..end).unwrap_or_default();
        let list = text.get(s..e).unwrap_or_default();
        if let Some((calls, kept)) = calls_in(&value, list, markup, rule, declared, &mut steps) {
            if close == Closer::Next && !fenced {
                chain = Some(e);
            }
            from = from.max(end);
            found.push(Found {
                start: markup_start,
                end,
                calls,
                kept,
                fenced,
            });
        }
    }
    keep_final_fences(text, &code, &mut found, &mut steps);
    Scan { found, steps }
}

/// The calls a run of bare values holds under `rule`, if every one is.
fn settle(
    text: &str,
    items: Vec<(Value, usize, usize, usize)>,
    rule: Rule,
    declared: Declared,
    steps: &mut usize,
) -> Option<Vec<Found>> {
    items
        .into_iter()
        .map(|(value, s, e, end)| {
            let list = text.get(s..e).unwrap_or_default();
            let markup = text.get(s..end).unwrap_or_default();
            let (calls, kept) = calls_in(&value, list, markup, rule, declared, steps)?;
            Some(Found {
                start: s,
                end,
                calls,
                kept,
                fenced: false,
            })
        })
        .collect()
}

/// A candidate that did not parse, in a call's place: a call that is not
/// closed (cut off by the end of the text) or not valid, when the name it
/// starts with is declared.
fn broken(
    text: &str,
    start: usize,
    open: Option<Open>,
    consumed: &str,
    failure: Failure,
    declared: Declared,
) -> Option<Found> {
    let name = match open.map(|o| o.kind) {
        Some(Opener::ToolUse(name)) => name,
        _ => prefix_value(consumed, "name")?,
    };
    if !declared(name) {
        return None;
    }
    let (end, why) = match failure {
        Failure::Truncated => (
            text.trim_end().len(),
            "the tool call written in the text is not closed".to_owned(),
        ),
        // Not JSON, and not the whole message either: text, as a bare
        // message that is not JSON always was.
        _ if open.is_none() => return None,
        _ => {
            let after = start + consumed.len();
            (
                closing_after(text, after),
                "the tool call written in the text is not valid JSON".to_owned(),
            )
        }
    };
    let markup = text.get(start..end).unwrap_or_default();
    Some(Found {
        start,
        end,
        calls: vec![Leaked {
            name: name.to_owned(),
            args: Err(why),
            markup: markup.to_owned(),
            family: "json",
            written: Written::default(),
        }],
        kept: String::new(),
        fenced: false,
    })
}

/// Where the markup of a broken call in a wrapper ends: after the next closing
/// tag or fence in its paragraph, else at the end of the paragraph.
fn closing_after(text: &str, from: usize) -> usize {
    let rest = text.get(from..).unwrap_or_default();
    let end = rest
        .find("\n\n")
        .map_or(text.trim_end().len(), |k| from + k);
    let bytes = text.as_bytes().get(..end).unwrap_or_default();
    let mut i = from;
    while let Some(k) = bytes.get(i..).and_then(|b| memchr3(b'<', b'[', b'`', b)) {
        if let Closer::Tag(x) | Closer::Fence(x) = closer(text, i + k) {
            return x;
        }
        i += k + 1;
    }
    end
}

/// `[Tool Use: NAME] {…}`: the object is the call to NAME itself, or its
/// arguments.
fn tool_use_marker(
    name: &str,
    value: &Value,
    text: &str,
    start: usize,
    end: usize,
    declared: Declared,
) -> Option<Found> {
    if !declared(name) {
        return None;
    }
    let m = value.as_object()?;
    let args = match call_of(m, WRAPPED, declared) {
        Some((n, args, _)) if n == name && ARGS.iter().any(|k| m.contains_key(*k)) => args,
        _ => Ok(m.clone()),
    };
    let markup = text.get(start..end).unwrap_or_default();
    Some(Found {
        start,
        end,
        calls: vec![call(name, args, markup, "json")],
        kept: String::new(),
        fenced: false,
    })
}

/// Drops fenced calls unless they end the message (only whitespace and other
/// fenced calls after them) and no other fenced block is in the message.
fn keep_final_fences(
    text: &str,
    code: &[(usize, usize)],
    found: &mut Vec<Found>,
    steps: &mut usize,
) {
    if !found.iter().any(|f| f.fenced) {
        return;
    }
    // Both in text order: one merge.
    let mut calls = found
        .iter()
        .filter(|f| f.fenced)
        .map(|f| f.start)
        .peekable();
    let other_fence = code.iter().any(|&(a, _)| {
        *steps += 1;
        while calls.next_if(|&c| c < a).is_some() {
            *steps += 1;
        }
        text.get(a..).is_some_and(|t| t.starts_with("```")) && calls.peek() != Some(&a)
    });
    let mut next = text.len();
    let mut tail = true;
    let mut keep = vec![true; found.len()];
    for (k, f) in found.iter().enumerate().rev() {
        let gap = text.get(f.end..next).unwrap_or_default();
        tail = tail && f.fenced && gap.trim().is_empty();
        if f.fenced
            && (!tail || other_fence)
            && let Some(slot) = keep.get_mut(k)
        {
            *slot = false;
        }
        next = f.start;
    }
    let mut keep = keep.into_iter();
    found.retain(|_| keep.next().unwrap_or(false));
}

/// The calls `value` (the text `list`, the markup `markup`) holds under
/// `rule`, every name declared, and the text of any text blocks among them.
fn calls_in(
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
fn fence_rule(tool: bool) -> Rule {
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
fn call_of(
    m: &Map<String, Value>,
    rule: Rule,
    declared: Declared,
) -> Option<(String, Args, &'static str)> {
    let kind = match m.get("type") {
        None => None,
        Some(Value::String(t)) if CALL_TYPES.contains(&t.as_str()) => Some(t.as_str()),
        Some(_) => return None,
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
    let mut present = ARGS.iter().filter(|k| m.contains_key(**k));
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
            let args: Map<String, Value> = m
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "name" | "type" | "id"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let flat = match rule.flat {
                _ if kind.is_some() => true,
                Flat::Never => false,
                Flat::IfAny => !args.is_empty(),
                Flat::Always => true,
            };
            if !flat || args.contains_key("input_schema") || args.contains_key("inputSchema") {
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

fn call(name: &str, args: Args, markup: &str, family: &'static str) -> Leaked {
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
        let Ok((_, _, end)) = tolerant::parse_prefix(t) else {
            break;
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

/// The opener right before byte `s` (after whitespace), and whether `s` is
/// the first non-blank of its line.
fn opener<'t>(text: &'t str, s: usize, steps: &mut usize) -> (Option<Open<'t>>, bool) {
    let bytes = text.as_bytes();
    let mut w = s;
    let mut newline = false;
    while let Some(&b) = w.checked_sub(1).and_then(|p| bytes.get(p)) {
        if !b.is_ascii_whitespace() {
            break;
        }
        newline |= b == b'\n';
        w -= 1;
        *steps += 1;
    }
    let line_start = newline || w == 0;
    let open = match w.checked_sub(1).and_then(|p| bytes.get(p)) {
        Some(b'>') => tag_before(text, w, b'<')
            .and_then(|(start, inner)| is_tag_name(inner).then_some((start, Opener::Tag))),
        Some(b']') => tag_before(text, w, b'[').and_then(|(start, inner)| {
            if let Some(name) = tool_use_name(inner) {
                Some((start, Opener::ToolUse(name)))
            } else {
                is_bracket_name(inner).then_some((start, Opener::Tag))
            }
        }),
        _ if newline => fence_before(text, w),
        _ => None,
    };
    let open = open.map(|(start, kind)| Open {
        start,
        kind,
        line_start: starts_line(text, start),
    });
    (open, line_start)
}

/// `<inner>` or `[inner]` ending at byte `end`, within `MAX_TAG` bytes: its
/// start and its inner text.
fn tag_before(text: &str, end: usize, open: u8) -> Option<(usize, &str)> {
    let bytes = text.as_bytes();
    let lo = end.saturating_sub(MAX_TAG);
    let window = bytes.get(lo..end.checked_sub(1)?)?;
    let k = window.iter().rposition(|&b| b == open || b == b'\n')?;
    let start = lo + k;
    (bytes.get(start) == Some(&open)).then_some(())?;
    Some((start, text.get(start + 1..end - 1)?))
}

/// Only blanks, or tags, before byte `at` on its line.
fn starts_line(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    let lo = at.saturating_sub(MAX_TAG);
    let before = bytes.get(lo..at).unwrap_or_default();
    let line = match before.iter().rposition(|&b| b == b'\n') {
        Some(k) => before.get(k + 1..).unwrap_or_default(),
        None if lo == 0 => before,
        None => return false,
    };
    match line.iter().rposition(|b| !matches!(b, b' ' | b'\t')) {
        None => true,
        Some(k) => matches!(line.get(k), Some(b'>' | b']')),
    }
}

/// `name`, `tool-use`, `minimax:tool_call`: a wrapper's tag name (not a
/// closing tag, nor one of `NOT_WRAPPERS`).
fn is_tag_name(inner: &str) -> bool {
    let mut chars = inner.chars();
    let name = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'));
    name && !NOT_WRAPPERS.contains(&inner.to_ascii_lowercase().as_str())
}

/// `TOOL_REQUEST`: a bracket marker, not a closing one (`END_…`).
fn is_bracket_name(inner: &str) -> bool {
    is_tag_name(inner) && !inner.to_ascii_uppercase().starts_with("END")
}

/// `Tool Use: NAME` (or `tool_use:`, `Tool call:`): NAME.
fn tool_use_name(inner: &str) -> Option<&str> {
    let (head, name) = inner.split_once(':')?;
    let head = head.trim().to_ascii_lowercase().replace(['_', ' '], "");
    let name = name.trim();
    let plain = !name.is_empty() && !name.contains(char::is_whitespace);
    (matches!(head.as_str(), "tooluse" | "toolcall") && plain).then_some(name)
}

/// A fence line (```` ```json ````) ending at byte `end`: where its backticks
/// start, and whether it says `tool_call`.
fn fence_before(text: &str, end: usize) -> Option<(usize, Opener<'_>)> {
    let bytes = text.as_bytes();
    let lo = end.saturating_sub(MAX_TAG);
    let window = bytes.get(lo..end)?;
    let line_start = match window.iter().rposition(|&b| b == b'\n') {
        Some(k) => lo + k + 1,
        None if lo == 0 => 0,
        None => return None,
    };
    let line = text.get(line_start..end)?;
    let indent = line.len() - line.trim_start().len();
    let line = line.trim_start();
    let info = line.trim_start_matches('`');
    let ticks = line.len() - info.len();
    let info = info.trim().to_ascii_lowercase();
    if ticks < 3 || !FENCES.contains(&info.as_str()) {
        return None;
    }
    let tool = info.starts_with("tool");
    Some((line_start + indent, Opener::Fence { tool }))
}

/// What follows byte `e`, after whitespace.
fn closer(text: &str, e: usize) -> Closer {
    let rest = text.get(e..).unwrap_or_default();
    let t = rest.trim_start();
    let at = e + (rest.len() - t.len());
    if t.is_empty() {
        return Closer::End;
    }
    if t.starts_with("```") {
        let ticks = t.len() - t.trim_start_matches('`').len();
        return Closer::Fence(at + ticks);
    }
    let head = match t.char_indices().nth(MAX_TAG) {
        Some((k, _)) => t.get(..k).unwrap_or(t),
        None => t,
    };
    if let Some(inner) = head.strip_prefix("</")
        && let Some((name, _)) = inner.split_once('>')
        && is_tag_name(name)
    {
        return Closer::Tag(at + 2 + name.len() + 1);
    }
    if let Some(inner) = head.strip_prefix('[')
        && let Some((name, _)) = inner.split_once(']')
    {
        let bare = name.strip_prefix('/').unwrap_or(name);
        if (name.starts_with('/') || name.to_ascii_uppercase().starts_with("END"))
            && is_tag_name(bare)
        {
            return Closer::Tag(at + 1 + name.len() + 1);
        }
    }
    let value = t.strip_prefix(',').map_or(t, str::trim_start);
    if value.starts_with('{') || value.starts_with('[') {
        return Closer::Next;
    }
    Closer::Other
}

/// The value in the first `"key": "x"` (or `'key': 'x'`) within two levels of
/// nesting of `text`, the start of a value cut off or broken.
fn prefix_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    // The last string read at this depth, if it was a key candidate.
    let mut key_is_name = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' | b'[' => {
                depth += 1;
                key_is_name = false;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                key_is_name = false;
            }
            b'"' | b'\'' => {
                let (s, end) = string_at(text, i, b)?;
                let after = text.get(end..).unwrap_or_default().trim_start();
                if key_is_name && depth <= 2 {
                    return (!s.contains('\\')).then_some(s);
                }
                key_is_name = s == key && after.starts_with(':');
                i = end;
                continue;
            }
            b':' | b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => key_is_name = false,
        }
        i += 1;
    }
    None
}

/// The string quoted by `q` at byte `i`: its raw inner text and the byte after
/// its closing quote.
fn string_at(text: &str, i: usize, q: u8) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    let mut k = i + 1;
    let mut escaped = false;
    while let Some(&b) = bytes.get(k) {
        if escaped {
            escaped = false;
        } else if b == b'\\' {
            escaped = true;
        } else if b == q {
            return Some((text.get(i + 1..k)?, k + 1));
        }
        k += 1;
    }
    None
}
