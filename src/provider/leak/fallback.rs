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
//!   `<tool-use>`, `<assistant>`, `[TOOL_REQUEST]`: a name holding `tool`,
//!   `function`, `call`, `action`, `invoke`, `assistant` or `request`, and
//!   none of `result`, `response`, `output`, `think`, `example`…), closed or
//!   not (a complete object is a complete call; the wrapper is not the call);
//!   any other tag (`<usage>`, `<user>`, `[Sample]`) may hold an example;
//! - at the start of a line right before a closing tag (`</tools>`,
//!   `[END_TOOL_REQUEST]`) whose opening is missing;
//! - the body of a fence (```` ```json ````, ```` ```tool_call ````, or none)
//!   that ends the message, after prose, when no other fenced block is in it;
//! - after a `[Tool Use: NAME]` marker at the start of a line, when the call
//!   ends the message (the object is the arguments, or the call itself);
//! - an Anthropic `tool_use` block on lines of its own that end the message.
//!
//! A line in a blockquote (`> `) is quoted prose, never a line start, and
//! nothing in quoted text (`quoted.rs`: code spans, fences in backticks or
//! tildes, HTML comments, `<pre>`, `<code>`, indented code blocks) is a call,
//! but the body of a backtick fence ending the message.
//!
//! Several values one after another (on lines of their own, or joined by
//! commas) are calls when every one of them is, in one of those places: the
//! whole message, `tool_use` blocks ending it, objects before a closing tag.
//!
//! Anywhere else (mid-paragraph, in a code span, in a fence among other
//! fences or followed by prose) the object is text. Arguments written flat
//! beside `name` (`{"name": "read", "file_path": "/a"}`) are read only where
//! something else says it is a call: a wrapper, a `[Tool Use]` marker, a
//! ```` ```tool_call ```` fence, or a `type` of `function`/`tool_use` — never
//! as the bare whole message, and never when a key is a package's or a tool
//! definition's (`description`, `version`, `input_schema`…): a package.json
//! or a list of tools is data. Every key but `name` (and a call `type`) is
//! then an argument, `id` too: the schema judges it. An object cut off by the
//! end of the text in one of these places is a call that is not closed
//! (rejected, never completed) when what was written has a call's shape —
//! `name` the first key of the top-level object, or after a call `type` —
//! and the name is declared. A whole message (one paragraph) that is such a
//! call but not valid JSON (a stray `}`, a missing comma, nesting too deep)
//! is rejected with the parser's reason, never left as text.
//!
//! Linear in the text: candidates are only `{`/`[` at those places; each is
//! parsed once (`crate::tolerant`, depth-limited) and the text it consumed is
//! never parsed again; every look back or ahead is bounded by `MAX_TAG` or
//! by a whitespace run next to the candidate.
//!
//! `marks.rs` reads what stands around a candidate (tags, markers, fences);
//! `shape.rs` says which values are calls, by the rule of their place.

use memchr::memchr2;
use serde_json::Value;

use super::{Declared, LeakProblem, Leaked, quoted};
use crate::tolerant::{self, Failure};

mod marks;
mod shape;
#[cfg(test)]
mod tests;

use marks::{Closer, Open, Opener, closer, closing_after, head, opener, paragraph_ends};
use shape::{ARGS, Rule, TAIL, WHOLE, WRAPPED, call, call_of, calls_in, fence_rule};

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
    /// After a `[Tool Use: NAME]` marker, which must end the message.
    tail_only: bool,
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

fn scan(text: &str, declared: Declared) -> Scan {
    let mut steps = 0;
    // Quoted text (`quoted.rs`): nothing in it is a call but the body of a
    // backtick fence that is the whole range.
    let code = quoted::ranges(text, &mut steps);
    let ends = paragraph_ends(text, &mut steps);
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
            Err(
                Failure::Invalid { at, .. }
                | Failure::Trailing { at }
                | Failure::Repeated { at, .. },
            ) => *at,
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
                    && head(consumed).is_some_and(|h| h.kind == Some("tool_use"));
                let placed = open.is_some() || chained || s == first || tail;
                let whole = s == first && open.is_none();
                if (placed || run_here.is_some())
                    && let Some(f) = broken(
                        text,
                        markup_start,
                        open,
                        (s, consumed),
                        failure,
                        whole,
                        (declared, &ends),
                    )
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
            (None, Closer::Other) if s == first => {
                // A whole-message call with stray closing brackets after it.
                let after = text.get(e..).unwrap_or_default();
                steps += after.len();
                let list = text.get(s..e).unwrap_or_default();
                if after.trim().bytes().all(|b| matches!(b, b'}' | b']'))
                    && let Some((calls, _)) =
                        calls_in(&value, list, list, WHOLE, declared, &mut steps)
                    && let Some(c) = calls.first()
                {
                    let end = text.trim_end().len();
                    let markup = text.get(s..end).unwrap_or_default();
                    let why = not_json(Failure::Trailing { at: e - s });
                    found.push(rejected(&c.name, markup, s, end, why));
                    break;
                }
                None
            }
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
                tail_only: false,
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
                tail_only: false,
            })
        })
        .collect()
}

/// A candidate that did not parse, in a call's place: a call that is not
/// closed (cut off by the end of the text) or not valid, when it has a call's
/// shape so far (`marks::head`) and the name is declared. Not valid and with
/// no wrapper or marker, it is a call only when it is the `whole` message
/// (one paragraph): a whole-message call to a declared tool is never left as
/// text.
fn broken(
    text: &str,
    start: usize,
    open: Option<Open>,
    consumed: (usize, &str),
    failure: Failure,
    whole: bool,
    (declared, ends): (Declared, &[usize]),
) -> Option<Found> {
    // Where the value starts, what the parser read of it, and where it broke.
    let (at, consumed) = consumed;
    let broke = at + consumed.len();
    let name = match open.map(|o| o.kind) {
        Some(Opener::ToolUse(name)) => name,
        _ => {
            let h = head(consumed)?;
            // Broken with nothing around it: a call only if it shows one
            // (`{"name": "read", "age": 41 "city": …}` is as likely a record).
            let shown = h.kind.is_some() || h.args_next;
            if open.is_none() && failure != Failure::Truncated && !shown {
                return None;
            }
            h.name
        }
    };
    if !declared(name) {
        return None;
    }
    let marker = matches!(open.map(|o| o.kind), Some(Opener::ToolUse(_)));
    // After a marker, or as the whole message, a line of prose after the
    // break says it was quoted (looked for up to the next blank, marker or tag
    // line: linear).
    if (marker || (whole && open.is_none())) && failure != Failure::Truncated {
        let after = text.get(broke..).unwrap_or_default();
        for line in after.lines().skip(1) {
            let line = line.trim_start();
            if line.is_empty() || line.starts_with(['[', '<']) {
                break;
            }
            if line.starts_with(char::is_alphabetic) {
                return None;
            }
        }
    }
    let whole = whole
        && !text
            .get(start..)
            .unwrap_or_default()
            .trim()
            .contains("\n\n");
    let end = match failure {
        Failure::Truncated => text.trim_end().len(),
        // Not JSON, and not the whole message either: text, as a bare
        // value that is not JSON always was.
        _ if open.is_none() && !whole => return None,
        _ if whole => text.trim_end().len(),
        _ => closing_after(text, broke, ends),
    };
    let markup = text.get(start..end).unwrap_or_default();
    let mut f = rejected(name, markup, start, end, not_json(failure));
    f.tail_only = marker;
    Some(f)
}

/// Why a candidate that did not parse is no call: the parser's reason.
fn not_json(failure: Failure) -> LeakProblem {
    match failure {
        Failure::Truncated => LeakProblem::NotClosed,
        Failure::Invalid { what, .. } if what.starts_with("nesting") => super::pythonic::too_deep(),
        Failure::Invalid { at, what } => LeakProblem::InvalidAt { at, expected: what },
        Failure::Trailing { at } => LeakProblem::TrailingAt(at),
        Failure::Repeated { path, .. } => LeakProblem::KeyTwice(path),
    }
}

/// One rejected call to `name` whose markup takes `start..end`.
fn rejected(name: &str, markup: &str, start: usize, end: usize, why: LeakProblem) -> Found {
    Found {
        start,
        end,
        calls: vec![call(name, Err(why), markup, "json")],
        kept: String::new(),
        fenced: false,
        tail_only: false,
    }
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
        tail_only: true,
    })
}

/// Drops fenced calls unless they end the message (only whitespace and other
/// fenced or marker calls after them) and no other fenced block is in the
/// message; and calls after a `[Tool Use]` marker unless they end it.
fn keep_final_fences(
    text: &str,
    code: &[(usize, usize)],
    found: &mut Vec<Found>,
    steps: &mut usize,
) {
    if !found.iter().any(|f| f.fenced || f.tail_only) {
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
        text.get(a..)
            .is_some_and(|t| t.starts_with("```") || t.starts_with("~~~"))
            && calls.peek() != Some(&a)
    });
    let mut next = text.len();
    let mut tail = true;
    let mut keep = vec![true; found.len()];
    for (k, f) in found.iter().enumerate().rev() {
        let gap = text.get(f.end..next).unwrap_or_default();
        tail = tail && (f.fenced || f.tail_only) && gap.trim().is_empty();
        let drop = (f.fenced && (!tail || other_fence)) || (f.tail_only && !tail);
        if drop && let Some(slot) = keep.get_mut(k) {
            *slot = false;
        }
        next = f.start;
    }
    let mut keep = keep.into_iter();
    found.retain(|_| keep.next().unwrap_or(false));
}
