//! The marks around a candidate value: the wrapper tag, marker or fence line
//! before it, and what follows it; the name at the head of a value cut off.
//! Every look is bounded by `MAX_TAG` bytes or by a whitespace run.

use memchr::memchr3;

use super::shape::{ARGS, CALL_TYPES};

/// The longest wrapper tag or marker looked for next to a candidate
/// (`<tool-use>`, `[TOOL_REQUEST]`, `[Tool Use: NAME]`, a fence line).
const MAX_TAG: usize = 80;

/// Parts of tool-ish tag names that hold what came back, or a thought or an
/// example, rather than a call (`tool_response`, `function_results`,
/// `tool_call_example`): what they hold is text.
const NOT_WRAPPERS: [&str; 9] = [
    "result",
    "response",
    "output",
    "observation",
    "think",
    "thought",
    "reason",
    "example",
    "sample",
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

/// What stands just before a candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Opener<'t> {
    /// `<name>` or `[NAME]`.
    Tag,
    /// `[Tool Use: NAME]`.
    ToolUse(&'t str),
    /// A fence line, ```` ```info ````: whether `tool_call`-like.
    Fence { tool: bool },
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Open<'t> {
    pub(super) start: usize,
    pub(super) kind: Opener<'t>,
    /// Only whitespace or other tags before it on its line.
    pub(super) line_start: bool,
}

/// What follows a value, after whitespace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Closer {
    End,
    /// A closing tag (`</name>`, `[END_NAME]`, `[/NAME]`), ending here.
    Tag(usize),
    /// A fence's closing backticks, ending here.
    Fence(usize),
    /// Another object or list follows (after a comma, perhaps).
    Next,
    Other,
}

/// Where each paragraph of `text` ends (each `\n\n`), in one pass: looked up
/// for every broken call, never searched for again (searching from each one
/// was quadratic in a paragraph of many).
pub(super) fn paragraph_ends(text: &str, steps: &mut usize) -> Vec<usize> {
    *steps += text.len() / 64 + 1;
    text.match_indices("\n\n").map(|(at, _)| at).collect()
}

/// Where the markup of a broken call in a wrapper ends: after the next closing
/// tag or fence in its paragraph, else at the end of the paragraph (`ends`,
/// from [`paragraph_ends`]).
pub(super) fn closing_after(text: &str, from: usize, ends: &[usize]) -> usize {
    let end = ends
        .get(ends.partition_point(|&e| e < from))
        .copied()
        .unwrap_or(text.trim_end().len());
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

/// The opener right before byte `s` (after whitespace), and whether `s` is
/// the first non-blank of its line.
pub(super) fn opener<'t>(text: &'t str, s: usize, steps: &mut usize) -> (Option<Open<'t>>, bool) {
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

/// Only blanks, or whole tags (`<tools>`, `[TOOL_REQUEST]`), before byte
/// `at` on its line. A blockquote's `>` is no tag: a line in one is quoted
/// prose, never a line start.
fn starts_line(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    let lo = at.saturating_sub(MAX_TAG);
    let before = bytes.get(lo..at).unwrap_or_default();
    let mut line = match before.iter().rposition(|&b| b == b'\n') {
        Some(k) => before.get(k + 1..).unwrap_or_default(),
        None if lo == 0 => before,
        None => return false,
    };
    loop {
        line = line.trim_ascii();
        let open = match line.last() {
            None => return true,
            Some(b'>') => b'<',
            Some(b']') => b'[',
            Some(_) => return false,
        };
        match line.iter().rposition(|&b| b == open) {
            Some(k) => line = line.get(..k).unwrap_or_default(),
            None => return false,
        }
    }
}

/// Tag names that say "tool call" (`tools`, `tool-use`, `assistant`,
/// `function_call`, `invoke`, `action`, `TOOL_REQUEST`), as a part of the name
/// in any case: an allow-list, for any other tag (`<usage>`, `<user>`,
/// `[Sample]`) may hold an example.
const TOOLISH: [&str; 7] = [
    "tool",
    "function",
    "call",
    "action",
    "invoke",
    "assistant",
    "request",
];

/// `tools`, `tool-use`, `minimax:tool_call`: a wrapper's tag name (not a
/// closing tag, naming a tool call, nor one of `NOT_WRAPPERS`).
fn is_tag_name(inner: &str) -> bool {
    let mut chars = inner.chars();
    let name = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'));
    let lower = inner.to_ascii_lowercase();
    name && TOOLISH.iter().any(|t| lower.contains(t))
        && !NOT_WRAPPERS.iter().any(|t| lower.contains(t))
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
pub(super) fn closer(text: &str, e: usize) -> Closer {
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

/// The start of a value cut off or broken, read as far as it shows a call's
/// shape: a top-level object (or the first of a list of them) whose first key
/// is `name`, or whose first key is a call `type` (then string keys such as
/// `id` until `name`, or a `function` object whose first key is `name`).
/// A `name` nested in data, or after other keys, is no call's.
pub(super) fn head(text: &str) -> Option<Head<'_>> {
    let t = text.trim_start();
    let t = match t.strip_prefix('[') {
        Some(list) => skip_text_blocks(list),
        None => t,
    };
    let mut t = t.trim_start().strip_prefix('{')?;
    let mut kind = None;
    // At most a type, an id and a function object before the name.
    for k in 0..4 {
        let (key, rest) = string(t)?;
        let rest = rest.trim_start().strip_prefix(':')?.trim_start();
        if key == "function" && kind.is_some() {
            let inner = rest.strip_prefix('{')?;
            let (key, rest) = string(inner)?;
            let rest = rest.trim_start().strip_prefix(':')?;
            let (name, rest) = string(rest)?;
            return (key == "name").then_some(Head {
                kind,
                name,
                args_next: args_next(rest),
            });
        }
        let (value, rest) = string(rest)?;
        match key {
            "name" => {
                return Some(Head {
                    kind,
                    name: value,
                    args_next: args_next(rest),
                });
            }
            "type" if k == 0 && CALL_TYPES.contains(&value) => kind = Some(value),
            _ if kind.is_some() => {}
            _ => return None,
        }
        t = rest.trim_start().strip_prefix(',')?;
    }
    None
}

/// What the start of a value cut off or broken shows of a call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Head<'t> {
    /// Its call `type`, if it starts with one.
    pub(super) kind: Option<&'t str>,
    pub(super) name: &'t str,
    /// The key right after the name holds the arguments (`arguments`,
    /// `parameters`, `input`).
    pub(super) args_next: bool,
}

/// Whether `rest` (after a name's value) goes on with an arguments key.
fn args_next(rest: &str) -> bool {
    rest.trim_start()
        .strip_prefix(',')
        .and_then(string)
        .is_some_and(|(key, _)| ARGS.contains(&key))
}

/// A content list's text blocks (`{"type": "text", "text": "…"},`) skipped:
/// the rest of the list.
fn skip_text_blocks(mut list: &str) -> &str {
    while let Some(rest) = text_block(list) {
        list = rest;
    }
    list
}

/// The text after one text block and its comma at the start of `t`.
fn text_block(t: &str) -> Option<&str> {
    let t = t.trim_start().strip_prefix('{')?;
    let (key, t) = string(t)?;
    let (kind, t) = string(t.trim_start().strip_prefix(':')?)?;
    let t = t.trim_start().strip_prefix(',')?;
    let (key2, t) = string(t)?;
    let (_, t) = string(t.trim_start().strip_prefix(':')?)?;
    let t = t
        .trim_start()
        .strip_prefix('}')?
        .trim_start()
        .strip_prefix(',')?;
    (key == "type" && kind == "text" && key2 == "text").then_some(t)
}

/// The quoted string (no escapes) at the start of `text`, after whitespace,
/// and the text after it.
fn string(text: &str) -> Option<(&str, &str)> {
    let t = text.trim_start();
    let q = *t.as_bytes().first()?;
    if q != b'"' && q != b'\'' {
        return None;
    }
    let offset = text.len() - t.len();
    let (s, end) = string_at(text, offset, q)?;
    (!s.contains('\\')).then_some((s, text.get(end..)?))
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
