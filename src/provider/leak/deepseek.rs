//! DeepSeek V3 and V3.1 special tokens: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>
//! function<｜tool▁sep｜>read` then the arguments in a ```json fence
//! (V3), or `<｜tool▁call▁begin｜>read<｜tool▁sep｜>{…}` (V3.1), each call ending
//! with `<｜tool▁call▁end｜>`.

use super::cursor::Cursor;
use super::json::object_call;
use super::scan::{Ctx, Read};
use super::{LeakProblem, cut, enclosed, malformed, no_name, unclosed_call};

const CALL: &str = "<｜tool▁call▁begin｜>";
const END: &str = "<｜tool▁call▁end｜>";
const SEP: &str = "<｜tool▁sep｜>";

/// `<｜tool▁call▁begin｜>…<｜tool▁call▁end｜>` at the start of `text`.
pub(super) fn read(text: &str, _ctx: &mut Ctx) -> Read {
    let Some((markup, inner)) = enclosed(text, CALL, END) else {
        return unclosed_call(text, cut_name(text).unwrap_or(""));
    };
    let Some((kind, rest)) = inner.split_once(SEP) else {
        return no_name(markup);
    };
    let (name, json) = if kind.trim() == "function" {
        // V3: the name on the first line, then a ```json fence.
        let (name, rest) = rest.split_once('\n').unwrap_or((rest, ""));
        let fenced = rest
            .trim()
            .strip_prefix("```json")
            .and_then(|r| r.trim_end().strip_suffix("```"));
        match fenced {
            Some(json) => (name.trim(), json),
            None => {
                return malformed(markup, name.trim(), LeakProblem::ArgsNotFenced);
            }
        }
    } else {
        (kind.trim(), rest)
    };
    if name.is_empty() {
        return no_name(markup);
    }
    object_call(name, json, markup)
}

/// The name in a call cut off, when it was written out: V3.1's up to the
/// separator, V3's (after `function` and the separator) up to its newline.
fn cut_name(text: &str) -> Option<&str> {
    let mut c = Cursor::new(text);
    c.eat(CALL);
    let kind = c.take_until(SEP)?;
    if kind.trim() != "function" {
        return cut::plain(kind);
    }
    c.take_until("\n").and_then(cut::plain)
}
