//! The marks around a candidate value: the wrapper tag, marker or fence line
//! before it, and what follows it; the name at the head of a value cut off.
//! Every look is bounded by `MAX_TAG` bytes or by a whitespace run.

use memchr::memchr3;

/// The longest wrapper tag or marker looked for next to a candidate
/// (`<tool-use>`, `[TOOL_REQUEST]`, `[Tool Use: NAME]`, a fence line).
const MAX_TAG: usize = 80;

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

/// Where the markup of a broken call in a wrapper ends: after the next closing
/// tag or fence in its paragraph, else at the end of the paragraph.
pub(super) fn closing_after(text: &str, from: usize) -> usize {
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

/// The value in the first `"key": "x"` (or `'key': 'x'`) within two levels of
/// nesting of `text`, the start of a value cut off or broken.
pub(super) fn prefix_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
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
