//! The one scanner over the family table: reads the markup of a row
//! (`table.rs`) at an opening, by the row's closing and syntax.

use serde_json::Value;

use super::cursor::Cursor;
use super::json::{json_calls, json_value, object_call};
use super::table::{self, Id, Row, Syntax};
use super::{
    Declared, LeakProblem, Leaked, cut, enclosed, found, malformed, no_name, not_json, pythonic,
    tags, unclosed,
};

/// What reading a row's markup gives: the calls it holds (none for a
/// wrapper) and its length, on a character boundary of the text read.
pub(super) type Read = (Vec<Leaked>, usize);

/// What a reader knows besides its text: the declared tools, and where
/// closing sentinels were last found (so that looking ahead for one is done
/// once per closing over the text, not once per opening).
pub(super) struct Ctx<'d> {
    declared: Declared<'d>,
    /// The whole text: a reader's text is a suffix of it.
    whole: &'d str,
    /// Its length.
    len: usize,
    /// Per closing sentinel: the byte of the last occurrence found
    /// (`Some(None)`: none after the last search).
    seen: Vec<(&'static str, Option<Option<usize>>)>,
}

impl<'d> Ctx<'d> {
    pub(super) fn new(text: &'d str, declared: Declared<'d>) -> Self {
        Ctx {
            declared,
            whole: text,
            len: text.len(),
            seen: Vec::new(),
        }
    }

    pub(super) fn declared(&self, name: &str) -> bool {
        (self.declared)(name)
    }

    /// Whether `rest` (a suffix of the whole text) starts a line: nothing but
    /// space stands before it on its line.
    pub(super) fn starts_line(&self, rest: &str) -> bool {
        let before = self
            .whole
            .get(..self.len.saturating_sub(rest.len()))
            .unwrap_or_default();
        // Back over space only, to the line's start or the first other
        // character: each byte is looked at by the next opening only.
        let space = before.len() - before.trim_end_matches([' ', '\t', '\r']).len();
        super::cursor::looked(space);
        before
            .get(..before.len() - space)
            .is_none_or(|b| b.is_empty() || b.ends_with('\n'))
    }

    /// Whether `pat` occurs in `rest` (a suffix of the whole text). Searches
    /// only text not searched for `pat` before: linear over all calls.
    pub(super) fn occurs(&mut self, pat: &'static str, rest: &str) -> bool {
        let from = self.len.saturating_sub(rest.len());
        let k = match self.seen.iter().position(|(p, _)| *p == pat) {
            Some(k) => k,
            None => {
                self.seen.push((pat, None));
                self.seen.len() - 1
            }
        };
        let Some((_, last)) = self.seen.get_mut(k) else {
            return false;
        };
        match *last {
            Some(None) => false,
            Some(Some(at)) if at >= from => true,
            _ => {
                let found = rest.find(pat);
                super::cursor::looked(found.map_or(rest.len(), |i| i + pat.len()));
                *last = Some(found.map(|i| i + from));
                matches!(last, Some(Some(_)))
            }
        }
    }
}

/// Reads the markup of `row` at the start of `text`, which starts with
/// `opening`. A call cut off keeps the name written before the cut.
pub(super) fn read(row: &Row, opening: &str, text: &str, ctx: &mut Ctx) -> Read {
    let (mut calls, used) = read_row(row, opening, text, ctx);
    if let [call] = calls.as_mut_slice()
        && call.name.is_empty()
        && call
            .args
            .as_ref()
            .err()
            .is_some_and(|why| *why == cut::NOT_CLOSED)
        && let Some(name) = cut::name(row, opening, text)
    {
        call.name = name;
    }
    (calls, used)
}

fn read_row(row: &Row, opening: &str, text: &str, ctx: &mut Ctx) -> Read {
    match (&row.syntax, row.close) {
        (Syntax::Section { calls, end }, _) => section(opening, calls, end, text, ctx),
        (Syntax::Around(inner), Some(close)) => {
            let Some((markup, body)) = enclosed(text, opening, close) else {
                let after = text.get(opening.len()..).unwrap_or_default();
                if cut::prose_after(after) {
                    return (Vec::new(), 0);
                }
                return unclosed(text);
            };
            // A JSON call object for a body (Doubao writes Seed's wrapper
            // around Hermes JSON when asked for it): read as `<tool_call>`'s.
            let mut calls = if body.trim_start().starts_with('{') {
                closed(&Syntax::Calls { join: None }, body, markup, ctx)
            } else {
                inner_call(inner, body, markup, ctx)
            };
            for call in &mut calls {
                call.family = row.family;
            }
            (calls, markup.len())
        }
        (Syntax::Wrapper, _) => {
            let mut c = Cursor::new(text);
            match c.take_until(">") {
                Some(_) => (Vec::new(), c.at()),
                None => (Vec::new(), text.len()),
            }
        }
        (Syntax::Reader(read), _) => read(text, ctx),
        (syntax, Some(close)) => {
            let Some((markup, inner)) = enclosed(text, opening, close) else {
                return match syntax {
                    Syntax::Calls { .. } => complete_at_end(syntax, opening, text, ctx),
                    _ => unclosed(text),
                };
            };
            (closed(syntax, inner, markup, ctx), markup.len())
        }
        (syntax, None) => open_ended(syntax, opening, text),
    }
}

/// The one call of `row` that is all of `body` (perhaps with space around),
/// inside a wrapper whose markup is `markup`: the call holds the wrapper's
/// markup. Anything else in the body makes it malformed.
pub(super) fn inner_call(row: &Row, body: &str, markup: &str, ctx: &mut Ctx) -> Vec<Leaked> {
    let body = body.trim();
    let opening = row.openings.iter().find(|o| body.starts_with(**o));
    let (mut calls, used) = match opening {
        Some(opening) => read(row, opening, body, ctx),
        None => no_name(body),
    };
    if body
        .get(used..)
        .is_none_or(|after| !after.trim().is_empty())
    {
        let name = calls.first().map_or("", |c| c.name.as_str());
        return malformed(markup, name, LeakProblem::MoreAfterFunction).0;
    }
    for call in &mut calls {
        call.markup = markup.to_owned();
    }
    calls
}

/// A body between its opening and its closing sentinel.
fn closed(syntax: &Syntax, inner: &str, markup: &str, ctx: &Ctx) -> Vec<Leaked> {
    match syntax {
        Syntax::Calls { .. } => {
            let why = match crate::json::parse_str_unrepeated(inner.trim()) {
                Ok(Ok(value)) => return json_calls(&value, inner, markup),
                Ok(Err(path)) => LeakProblem::KeyTwice(path),
                Err(e) => not_json(&e),
            };
            let name = cut::json_name(inner)
                .and_then(cut::plain)
                .unwrap_or_default();
            malformed(markup, name, why).0
        }
        Syntax::Named { id, sep } => {
            let Some((head, json)) = inner.split_once(sep) else {
                return malformed(markup, "", LeakProblem::NoArguments).0;
            };
            let name = match id.read_declared(head, ctx) {
                Ok(name) => name,
                Err(why) => return malformed(markup, "", why).0,
            };
            if name.is_empty() {
                return no_name(markup).0;
            }
            object_call(name, json, markup).0
        }
        Syntax::Tag(tag) => tags::body(tag, inner, markup).0,
        Syntax::Notation => pythonic::body_call(inner, markup),
        Syntax::Wrapper | Syntax::Section { .. } | Syntax::Around(_) | Syntax::Reader(_) => {
            Vec::new()
        }
    }
}

/// JSON calls whose closing sentinel never came (Cohere's `<|END_ACTION|>`):
/// read when one whole JSON value follows the opening and nothing but space
/// after it, the message ending there; a value cut off is not closed.
fn complete_at_end(syntax: &Syntax, opening: &str, text: &str, ctx: &Ctx) -> Read {
    let mut c = Cursor::new(text);
    c.eat(opening);
    let Ok((_, json)) = json_value(&mut c) else {
        return unclosed(text);
    };
    c.skip_space();
    if !c.is_at_end() {
        return unclosed(text);
    }
    (closed(syntax, json, text, ctx), text.len())
}

/// A body that ends where its syntax does.
fn open_ended(syntax: &Syntax, opening: &str, text: &str) -> Read {
    let mut c = Cursor::new(text);
    c.eat(opening);
    match syntax {
        Syntax::Calls { join } => json_run(c, *join, text),
        Syntax::Named { id, sep } => {
            let Some(head) = c.take_until(sep) else {
                return malformed(text, "", LeakProblem::NoSeparator(sep));
            };
            let name = id.read(head);
            if name.is_empty() || name.contains(char::is_whitespace) {
                return no_name(c.done());
            }
            match json_value(&mut c) {
                Ok((Value::Object(args), _)) => found(name.to_owned(), args, c.done()),
                Ok(_) => malformed(c.done(), name, LeakProblem::ArgsNotAnObject),
                Err(why) => malformed(text, name, why),
            }
        }
        Syntax::Notation => pythonic::read(text, opening),
        Syntax::Tag(_)
        | Syntax::Wrapper
        | Syntax::Section { .. }
        | Syntax::Around(_)
        | Syntax::Reader(_) => unclosed(text),
    }
}

/// JSON call values from the cursor on, several joined by `join`. One call
/// holds the whole markup; several, each its own JSON.
fn json_run(mut c: Cursor<'_>, join: Option<&str>, text: &str) -> Read {
    let mut values = Vec::new();
    loop {
        match json_value(&mut c) {
            Ok(value) => values.push(value),
            Err(why) => return malformed(text, "", why),
        }
        let Some(join) = join else { break };
        let mut after = c;
        after.skip_space();
        if !after.eat(join) || after.rest().trim().is_empty() {
            break;
        }
        c = after;
    }
    let count: usize = values
        .iter()
        .map(|(v, _)| v.as_array().map_or(1, Vec::len))
        .sum();
    let markup = c.done();
    let calls = values
        .iter()
        .flat_map(|(value, json)| {
            let own = if count == 1 { markup } else { json.trim() };
            json_calls(value, json, own)
        })
        .collect();
    (calls, markup.len())
}

/// A section's opening at the start of `text`, perhaps repeated: removed
/// when a call or the section's end follows, else a malformed call.
fn section(opening: &str, calls: &[&str], end: &str, text: &str, ctx: &mut Ctx) -> Read {
    let mut c = Cursor::new(text);
    while c.eat(opening) {
        c.skip_space();
    }
    if calls.iter().any(|call| c.starts_with(call)) {
        return (Vec::new(), c.at());
    }
    let mut to_end = Cursor::new(text);
    let markup = match to_end.take_until(end) {
        Some(_) => to_end.done(),
        None => text,
    };
    let why = if c.is_at_end() {
        LeakProblem::NotClosed
    } else {
        LeakProblem::EmptySection(opening.to_owned())
    };
    // Named by the first call written after the garbage, if one was: read
    // within the section's markup only (markups do not overlap: linear).
    let name = calls
        .first()
        .and_then(|call| {
            let garbage = markup.get(c.at()..)?;
            let rest = garbage.get(garbage.find(call)?..)?;
            let row = table::row_for(call, rest)?;
            let mut inner = Ctx::new(rest, ctx.declared);
            let (found, _) = read_row(row, call, rest, &mut inner);
            found.into_iter().next().map(|l| l.name)
        })
        .unwrap_or_default();
    malformed(markup, &name, why)
}

/// The most digits a lenient Kimi id's trailing run may hold (its index and
/// any digits ending the name).
const MAX_INDEX_DIGITS: usize = 9;

impl Id {
    /// The name in the id `head`, or why it cannot be told.
    fn read_declared<'h>(self, head: &'h str, ctx: &Ctx) -> Result<&'h str, LeakProblem> {
        let head = head.trim();
        let Id::Kimi = self else {
            return Ok(self.read(head));
        };
        let well_formed = head
            .strip_prefix("functions.")
            .and_then(|rest| rest.rsplit_once(':'))
            .is_some_and(|(name, index)| {
                !name.is_empty() && !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit())
            });
        if well_formed || !head.starts_with("functions") {
            return Ok(self.read(head));
        }
        // `functions` without its `.`, or an index without its `:`: every
        // reading, and the declared ones among them. With its `:` the index
        // is told; without it, each split of the trailing digits is one
        // (`exec_25`: `exec_25`, `exec_2:5`, `exec_:25`).
        let name = head.strip_prefix("functions").unwrap_or(head);
        let name = name.strip_prefix('.').unwrap_or(name);
        let readings: Vec<&str> = match name.rsplit_once(':') {
            Some((name, _)) => vec![name],
            None => {
                let bare = name.trim_end_matches(|c: char| c.is_ascii_digit());
                // Each reading is looked up: a run longer than an index is
                // no reading (linear, not quadratic, in the id).
                let run = name.len() - bare.len();
                (bare.len()..=name.len())
                    .rev()
                    .filter(|_| run <= MAX_INDEX_DIGITS)
                    .filter_map(|end| name.get(..end))
                    .filter(|n| !n.is_empty())
                    .collect()
            }
        };
        let declared: Vec<&str> = readings
            .iter()
            .copied()
            .filter(|n| ctx.declared(n))
            .collect();
        match (readings.as_slice(), declared.as_slice()) {
            ([one], _) | (_, [one]) => Ok(one),
            (_, []) => Err(LeakProblem::IdNamesNoTool(head.to_owned())),
            (_, several) => Err(LeakProblem::IdNamesTools {
                id: head.to_owned(),
                tools: several.iter().map(|n| (*n).to_owned()).collect(),
            }),
        }
    }

    /// The name in the id `head`.
    pub(super) fn read(self, head: &str) -> &str {
        let head = head.trim();
        match self {
            Id::Plain => head,
            Id::Kimi => {
                let name = head.strip_prefix("functions.").unwrap_or(head);
                name.rsplit_once(':').map_or(name, |(n, _)| n).trim()
            }
        }
    }
}
