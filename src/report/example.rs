//! The most frequent error paths of a report, with one example call each.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::Report;
use crate::message;
use crate::verdict::Class;

/// The longest example kept, in characters (then `…`).
pub const EXAMPLE_CHARS: usize = 160;

/// One error path: a tool, the class of its rejection and the path of its
/// first error, how often it was seen and the first call that showed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// The tool called (at most [`Report::MAX_NAME_BYTES`] bytes kept).
    pub tool: String,
    /// The class of the rejection.
    pub class: Class,
    /// The path of the first error (empty at the root).
    pub path: String,
    /// Calls rejected so.
    pub count: u64,
    /// The first such call's arguments as sent: one line, escaped, cut at
    /// [`EXAMPLE_CHARS`] characters.
    pub call: String,
}

impl Example {
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "tool": self.tool,
            "class": self.class.name(),
            "path": self.path,
            "count": self.count,
            "call": self.call,
        })
    }
}

/// At most [`Report::MAX_EXAMPLES`] paths; calls on further paths are not
/// listed (they are counted everywhere else).
#[derive(Debug, Default, Clone)]
pub(crate) struct Examples {
    seen: HashMap<(String, Class, String), Example>,
}

fn cut(s: &str, bytes: usize) -> &str {
    let mut end = s.len().min(bytes);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or_default()
}

/// `text` on one line, escaped, at most [`EXAMPLE_CHARS`] characters.
pub(crate) fn short(text: &str) -> String {
    let (head, more) = match text.char_indices().nth(EXAMPLE_CHARS) {
        Some((at, _)) => (text.get(..at).unwrap_or_default(), true),
        None => (text, false),
    };
    let mut out = message::one_line(head).into_owned();
    if more {
        out.push('…');
    }
    out
}

impl Examples {
    pub(crate) fn add(
        &mut self,
        tool: &str,
        class: Class,
        path: &str,
        call: impl FnOnce() -> String,
    ) {
        let tool = cut(tool, Report::MAX_NAME_BYTES);
        let path = cut(path, Report::MAX_NAME_BYTES);
        let key = (tool.to_owned(), class, path.to_owned());
        if let Some(e) = self.seen.get_mut(&key) {
            e.count += 1;
        } else if self.seen.len() < Report::MAX_EXAMPLES {
            let example = Example {
                tool: message::one_line(tool).into_owned(),
                class,
                path: message::one_line(path).into_owned(),
                count: 1,
                call: call(),
            };
            self.seen.insert(key, example);
        }
    }

    /// The `n` most frequent, most frequent first (then by tool, class, path).
    pub(crate) fn top(&self, n: usize) -> Vec<&Example> {
        let mut all: Vec<&Example> = self.seen.values().collect();
        all.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| (&a.tool, a.class, &a.path).cmp(&(&b.tool, b.class, &b.path)))
        });
        all.truncate(n);
        all
    }
}
