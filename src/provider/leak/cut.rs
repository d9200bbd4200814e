//! The name of a call whose markup was cut off: the call is rejected all the
//! same ("not closed", never completed), but its result names the tool when
//! the name was written out before the cut (its end seen: the `>` of a tag
//! head, the closing quote of a JSON string, the `(` of call notation, the
//! separator after an id). A name the cut may have shortened is not kept.

use super::cursor::Cursor;
use super::table::{Row, Syntax};
use super::tags::{Head, Tag};
use super::{LeakProblem, attribute, pythonic};

/// The problem every reader gives a call cut off.
pub(super) const NOT_CLOSED: LeakProblem = LeakProblem::NotClosed;

/// The name written in the cut-off markup of `row` at the start of `text`
/// (which starts with `opening`), if its end was written.
pub(super) fn name(row: &Row, opening: &str, text: &str) -> Option<String> {
    let after = text.get(opening.len()..)?;
    let name = match &row.syntax {
        Syntax::Tag(tag) => tag_name(tag, after),
        Syntax::Around(_) if after.trim_start().starts_with('{') => json_name(after),
        Syntax::Around(inner) => {
            let body = after.trim_start();
            let opening = inner.openings.iter().find(|o| body.starts_with(**o))?;
            return name(inner, opening, body);
        }
        Syntax::Calls { .. } => json_name(after),
        Syntax::Named { id, sep } => {
            let head = Cursor::new(after).take_until(sep)?;
            Some(id.read(head))
        }
        Syntax::Notation => {
            let after = after.trim_start();
            pythonic::first_name(after).or_else(|| pythonic::call_name(after))
        }
        Syntax::Wrapper | Syntax::Section { .. } | Syntax::Reader(_) => None,
    }?;
    plain(name).map(str::to_owned)
}

/// Whether the text after an opening that was never closed is prose, not a
/// call cut off: a word that no call syntax writes there, followed on its
/// line by another word (`<seed:tool_call> tags; callfix reads them`), or
/// ending a sentence (`in <tool_call> tags.`). A call's body starts with
/// markup, JSON or a name followed by its `(`, `<` or line end; a cut right
/// after the opening or inside a name stays a call cut off. Looks at the
/// first word only, up to any `<` (linear over all openings).
pub(super) fn prose_after(after: &str) -> bool {
    let mut c = Cursor::new(after);
    c.skip_ascii_space();
    let word = c.take_while(|ch| !ch.is_whitespace() && ch != '<');
    let stem = word.trim_end_matches(['.', ',', ';', ':', '!', '?']);
    let plain_word = stem.starts_with(char::is_alphabetic)
        && stem
            .chars()
            .all(|ch| ch.is_alphanumeric() || "_-.".contains(ch));
    if !plain_word {
        return false;
    }
    let ends_sentence = stem.len() < word.len();
    let blank = c.take_while(|ch| ch == ' ' || ch == '\t');
    let next_word =
        !blank.is_empty() && c.peek().is_some_and(|ch| ch != '<' && !ch.is_whitespace());
    ends_sentence || next_word
}

/// A name as a call names a tool: one word, no markup in it.
pub(super) fn plain(name: &str) -> Option<&str> {
    let name = name.trim();
    let ok = !name.is_empty()
        && !name.contains(|c: char| c.is_whitespace() || "<>{}[]\"'=(),".contains(c));
    ok.then_some(name)
}

/// The name in a tag's head, when the head's `>` was written.
fn tag_name<'t>(tag: &Tag, after: &'t str) -> Option<&'t str> {
    let head = Cursor::new(after).take_until(">")?;
    match tag.head {
        Head::Eq => Some(head),
        Head::Attr => {
            let name = attribute(head, "name")?;
            // The attribute's value, as it stands in the head.
            head.find(name.as_str())
                .and_then(|at| head.get(at..at + name.len()))
        }
        Head::Quoted => {
            let mut c = Cursor::new(head.trim_start());
            let q = c.eat_any(&['"', '\''])?;
            let name = c.take_while(|ch| ch != q);
            c.eat_any(&[q])?;
            Some(name)
        }
    }
}

/// The `"name"` (or `"tool_name"`) of the first JSON call object in `text`
/// (`{…}` or `[{…}`), when its string was closed; keys before it may hold
/// plain strings, numbers or literals (Cohere's `"tool_call_id": "0"`).
pub(super) fn json_name(text: &str) -> Option<&str> {
    let mut c = Cursor::new(text);
    c.skip_space();
    if c.eat("[") {
        c.skip_space();
    }
    if !c.eat("{") {
        return None;
    }
    loop {
        c.skip_space();
        let key = string(&mut c)?;
        c.skip_space();
        if !c.eat(":") {
            return None;
        }
        c.skip_space();
        if matches!(key, "name" | "tool_name") {
            return string(&mut c);
        }
        if c.starts_with("\"") {
            string(&mut c)?;
        } else {
            let token = c.take_while(|ch| ch.is_ascii_alphanumeric() || "+-.".contains(ch));
            if token.is_empty() {
                return None;
            }
        }
        c.skip_space();
        if !c.eat(",") {
            return None;
        }
    }
}

/// A JSON string with no escape in it, closed.
fn string<'t>(c: &mut Cursor<'t>) -> Option<&'t str> {
    if !c.eat("\"") {
        return None;
    }
    let s = c.take_while(|ch| ch != '"' && ch != '\\');
    c.eat("\"").then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_kept_only_when_its_end_was_written() {
        assert_eq!(
            json_name(r#"[{"name": "read", "arguments": {"#),
            Some("read")
        );
        assert_eq!(
            json_name(r#"[{"tool_call_id": "0", "tool_name": "read", "parameters": {"#),
            Some("read")
        );
        assert_eq!(json_name(r#"{"name": "rea"#), None);
        assert_eq!(
            json_name(r#"{"arguments": {"a": 1}, "name": "read"}"#),
            None
        );
        assert_eq!(json_name(r#"{"name": "re\"ad""#), None);
        assert_eq!(plain(" read "), Some("read"));
        assert_eq!(plain("read file"), None);
        assert_eq!(plain(""), None);
    }
}
