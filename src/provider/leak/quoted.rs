//! The one place that decides what part of a message is quoted text: where
//! nothing is a call, in any family (prose quoting a call's syntax, a call
//! commented out, an example). Quoted are, as CommonMark and HTML read them:
//!
//! - a code span or fenced block in backticks: a run of backticks up to the
//!   next run of the same length (a run with no match is literal);
//! - a fenced block in tildes: a line starting (after space, `>` and a list
//!   marker) with three or more `~`, up to the next such line with at least
//!   as many and nothing after them;
//! - an HTML comment `<!-- … -->`, and `<pre>…</pre>`, `<code>…</code>` (any
//!   case, attributes allowed);
//! - an indented code block: lines indented by four spaces or a tab, the
//!   first after a blank line (blank lines inside the run belong to it).
//!
//! A container with no closing is literal, as a backtick run with no match
//! is: what follows it is read as usual. The ranges of all kinds are merged
//! into one ordered list of disjoint byte ranges. Every kind is found in one
//! pass over the text (each closing searched for at most once per container,
//! and once after it was not found): linear.

use std::collections::HashMap;

use memchr::memmem;

/// The byte ranges of quoted text in `text`, in order and disjoint.
/// `steps` counts the work done, for the linearity tests.
pub(super) fn ranges(text: &str, steps: &mut usize) -> Vec<(usize, usize)> {
    let mut all = backticks(text, steps);
    all.extend(tildes(text, steps));
    all.extend(html(text, steps));
    all.extend(indented_code(text, steps));
    all.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(all.len());
    for (start, end) in all {
        *steps += 1;
        match out.last_mut() {
            Some((_, last)) if start < *last => *last = (*last).max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// Code spans and fenced code blocks in backticks: a run of backticks up to
/// the next run of the same length. A run with no match is literal. One pass:
/// every run is found once, and each run's next run of the same length is
/// known before matching starts (looking for it from each opener was
/// quadratic).
fn backticks(text: &str, steps: &mut usize) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let mut i = 0;
    while let Some(j) = bytes.get(i..).and_then(|b| memchr::memchr(b'`', b)) {
        let start = i + j;
        let len = bytes
            .get(start..)
            .map_or(0, |b| b.iter().take_while(|&&b| b == b'`').count());
        runs.push((start, len));
        i = start + len.max(1);
        *steps += 1;
    }
    let mut next_same = vec![None; runs.len()];
    let mut last: HashMap<usize, usize> = HashMap::new();
    for (k, (slot, &(_, len))) in next_same.iter_mut().zip(&runs).enumerate().rev() {
        *slot = last.insert(len, k);
        *steps += 1;
    }
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(&(start, _)) = runs.get(k) {
        *steps += 1;
        match next_same.get(k).copied().flatten() {
            Some(close) => {
                if let Some(&(at, len)) = runs.get(close) {
                    out.push((start, at + len));
                }
                k = close + 1;
            }
            None => k += 1,
        }
    }
    out
}

/// The run of tildes a line starts with, after space, blockquote `>`s and a
/// list marker: where it starts in the line, its length, and whether only
/// space follows it.
fn tilde_run(line: &str) -> Option<(usize, usize, bool)> {
    let mut rest = line.trim_start_matches([' ', '\t', '>']);
    for marker in ["- ", "* ", "+ "] {
        if let Some(after) = rest.strip_prefix(marker) {
            rest = after.trim_start_matches([' ', '\t']);
        }
    }
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0
        && let Some(after) = rest
            .get(digits..)
            .and_then(|r| r.strip_prefix(". ").or_else(|| r.strip_prefix(") ")))
    {
        rest = after.trim_start_matches([' ', '\t']);
    }
    let after = rest.trim_start_matches('~');
    let len = rest.len() - after.len();
    (len >= 3).then_some((line.len() - rest.len(), len, after.trim().is_empty()))
}

/// Fenced blocks in tildes: an opening line, up to the next line that closes
/// it (a run at least as long, nothing after it). One pass over the lines.
fn tildes(text: &str, steps: &mut usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        *steps += 1;
        let start = at;
        at += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let Some((k, len, bare)) = tilde_run(body) else {
            continue;
        };
        match open {
            Some((from, need)) if bare && len >= need => {
                out.push((from, start + k + len));
                open = None;
            }
            Some(_) => {}
            None => open = Some((start + k, len)),
        }
    }
    out
}

/// HTML comments and `<pre>`/`<code>` elements, each up to its closing.
fn html(text: &str, steps: &mut usize) -> Vec<(usize, usize)> {
    const KINDS: [(&str, &str); 3] = [("<!--", "-->"), ("<pre", "</pre>"), ("<code", "</code>")];
    let lower = text.as_bytes().to_ascii_lowercase();
    // Per kind: the byte before which its closing is known not to occur from
    // the last search on (`None`: not searched yet, or found).
    let mut none_after: [Option<usize>; 3] = [None; 3];
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(j) = lower.get(i..).and_then(|b| memchr::memchr(b'<', b)) {
        let s = i + j;
        i = s + 1;
        *steps += 1;
        let rest = lower.get(s..).unwrap_or_default();
        for (k, (open, close)) in KINDS.iter().enumerate() {
            if !rest.starts_with(open.as_bytes()) {
                continue;
            }
            // `<pre>` or `<pre class=…>`, not `<preview>`.
            let head_ends = k == 0
                || rest
                    .get(open.len())
                    .is_some_and(|b| *b == b'>' || b.is_ascii_whitespace());
            if !head_ends || none_after.get(k).copied().flatten().is_some_and(|n| n <= s) {
                break;
            }
            let from = s + open.len();
            let found = lower
                .get(from..)
                .and_then(|b| memmem::find(b, close.as_bytes()));
            *steps += found.map_or(lower.len().saturating_sub(from), |f| f + close.len()) / 64 + 1;
            match found {
                Some(f) => {
                    let end = from + f + close.len();
                    out.push((s, end));
                    i = end;
                }
                None => {
                    if let Some(slot) = none_after.get_mut(k) {
                        *slot = Some(from);
                    }
                }
            }
            break;
        }
    }
    out
}

/// CommonMark indented code blocks: runs of lines indented by four spaces or
/// a tab, the first after a blank line (blank lines inside a run belong to
/// it). One pass over the lines.
fn indented_code(text: &str, steps: &mut usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut block: Option<(usize, usize)> = None;
    let mut prev_blank = false;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        *steps += 1;
        let start = at;
        at += line.len();
        let blank = line.trim().is_empty();
        let body = line.trim_start_matches(' ');
        let indented = !blank && (line.len() - body.len() >= 4 || body.starts_with('\t'));
        match block.as_mut() {
            Some((_, end)) if indented => *end = at,
            Some(_) if blank => {}
            Some(_) => {
                out.extend(block.take());
            }
            None if indented && prev_blank => block = Some((start, at)),
            None => {}
        }
        prev_blank = blank;
    }
    out.extend(block);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(text: &str) -> Vec<&str> {
        ranges(text, &mut 0)
            .into_iter()
            .filter_map(|(a, b)| text.get(a..b))
            .collect()
    }

    #[test]
    fn each_container_is_quoted() {
        assert_eq!(quoted("a `b` c"), ["`b`"]);
        assert_eq!(quoted("x\n~~~\nq\n~~~\ny"), ["~~~\nq\n~~~"]);
        assert_eq!(
            quoted("x\n~~~~xml\nq\n~~~\n~~~~~\ny"),
            ["~~~~xml\nq\n~~~\n~~~~~"]
        );
        assert_eq!(quoted("> ~~~\n> q\n> ~~~"), ["~~~\n> q\n> ~~~"]);
        assert_eq!(quoted("1. ~~~\n   q\n   ~~~"), ["~~~\n   q\n   ~~~"]);
        assert_eq!(quoted("a <!-- q --> b"), ["<!-- q -->"]);
        assert_eq!(
            quoted("a <PRE class=\"x\">q</Pre> b"),
            ["<PRE class=\"x\">q</Pre>"]
        );
        assert_eq!(quoted("a <code>q</code> b"), ["<code>q</code>"]);
        assert_eq!(quoted("a:\n\n    q\n\nb"), ["    q\n"]);
    }

    #[test]
    fn what_is_not_closed_or_not_a_container_is_literal() {
        for text in [
            "a ~~~ b ~~~ c",
            "~~ strike ~~",
            "x\n~~~\nq",
            "a <!-- q",
            "a <pre>q",
            "a <preview>q</pre>",
            "a <codex>q</code>",
            "a `b",
            "a:\n    q",
        ] {
            assert_eq!(quoted(text), Vec::<&str>::new(), "{text:?}");
        }
    }

    #[test]
    fn overlapping_containers_merge() {
        let text = "<!-- `a --> b` c";
        assert_eq!(quoted(text), ["<!-- `a --> b`"]);
    }

    #[test]
    fn linear() {
        for unit in ["<pre ", "<!--", "<code>", "~~~\n", "`", "\n\n    x\n", "<"] {
            let small = unit.repeat(1_000);
            let big = unit.repeat(10_000);
            let (mut s, mut b) = (0, 0);
            ranges(&small, &mut s);
            ranges(&big, &mut b);
            assert!(b <= 12 * s.max(1), "{unit:?}: {s} → {b}");
        }
    }
}
