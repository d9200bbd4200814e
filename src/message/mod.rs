//! Stage 6: the messages. Every sentence a model (or a person) reads about a call
//! is written here, in one place.
//!
//! Validator errors become short `path: message` items: the path dotted like Zod
//! (`edits.0.path`, nothing at the root), the message an instruction rather than
//! validator jargon. Items are ordered missing-required first, then type errors,
//! then the rest, each group in document order; anyOf/oneOf failures are reduced to
//! the closest branch instead of a dump of every branch.

use std::fmt::Write as _;
use std::io;

use serde_json::Value;

use crate::registry::SchemaError;

mod diagnosis;
pub(crate) mod heal;
mod leak;
pub(crate) mod provider;
#[cfg(test)]
mod tests;

pub(crate) use self::diagnosis::ranked_errors;
#[cfg(test)]
pub(crate) use self::diagnosis::validation_errors;

/// One problem with a call's arguments, as the model reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ArgError {
    /// Dotted path (`todos.0.status`); empty at the root.
    pub path: String,
    /// The instruction, e.g. `Required`.
    pub message: String,
    /// On the last entry of a capped list, how many errors it stands for (its
    /// message is that count, worded by [`More`]); `None` on every error.
    #[serde(skip)]
    left_out: Option<usize>,
}

impl ArgError {
    /// An error about the arguments as a whole.
    pub fn root(message: impl Into<String>) -> Self {
        Self {
            path: String::new(),
            message: message.into(),
            left_out: None,
        }
    }

    /// An error at `path`.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
            left_out: None,
        }
    }

    /// The last entry of a capped list: how many errors were left out.
    fn more(n: usize) -> Self {
        Self {
            left_out: Some(n),
            ..Self::root(More(n).to_string())
        }
    }

    /// On the last entry of a capped list (`(+N more)`), how many errors it
    /// stands for; `None` on an error.
    pub fn left_out(&self) -> Option<usize> {
        self.left_out
    }

    /// `path: message`, or just the message at the root.
    pub fn line(&self) -> String {
        if self.path.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.path, self.message)
        }
    }
}

/// How much of the error list goes into one instruction, after which prefix
/// (`#[non_exhaustive]`: start from [`Style::default`]).
///
/// ```
/// use callfix::{Outcome, Style, Toolset};
/// use serde_json::json;
///
/// let mut style = Style::default();
/// style.prefix = "Fix the call.".to_owned();
/// style.max_errors = 1;
/// let tools = Toolset::from_schemas([("t".to_owned(), json!({"required": ["a", "b"]}))])
///     .with_style(style);
/// let Outcome::Rejected { message, .. } = tools.check("t", json!({})) else { panic!() };
/// assert_eq!(message, "Fix the call. a: Required; (+1 more)");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Style {
    /// Text before the errors.
    pub prefix: String,
    /// At most this many errors; the rest are counted as `(+N more)`.
    pub max_errors: usize,
    /// Each `path: message` is cut to at most this many characters.
    pub max_chars: usize,
}

impl Default for Style {
    fn default() -> Self {
        Self {
            prefix: DEFAULT_PREFIX.to_owned(),
            max_errors: 5,
            max_chars: 100,
        }
    }
}

/// The default start of every instruction.
pub const DEFAULT_PREFIX: &str = "Please rewrite the input with valid arguments. Errors:";

/// The one-line instruction for a rejected call.
pub(crate) fn instruction(style: &Style, errors: &[ArgError]) -> String {
    let mut text = style.prefix.clone();
    push_errors(&mut text, style, errors);
    single(text)
}

/// The instruction once the same call has been rejected `times` times in a row:
/// retrying will not help, so the model is told to stop and ask.
pub(crate) fn loop_instruction(
    style: &Style,
    tool: &str,
    times: u32,
    errors: &[ArgError],
) -> String {
    let mut text = format!(
        "Stop retrying: this exact call to {} was rejected {times} times. Do not send it again; \
         ask the user how to proceed. Errors:",
        quote(tool)
    );
    push_errors(&mut text, style, errors);
    single(text)
}

/// ` e1; e2; …; (+N more)`, each cut to `max_chars`.
fn push_errors(text: &mut String, style: &Style, errors: &[ArgError]) {
    // A capped list ends with the count of what it left out.
    let (errors, left_out) = match errors.split_last() {
        Some((last, rest)) if !rest.is_empty() => match last.left_out {
            Some(n) => (rest, n),
            None => (errors, 0),
        },
        _ => (errors, 0),
    };
    for (i, e) in errors.iter().take(style.max_errors.max(1)).enumerate() {
        text.push_str(if i == 0 { " " } else { "; " });
        text.push_str(&cut(&one_line(&e.line()), style.max_chars));
    }
    let more = errors.len().saturating_sub(style.max_errors.max(1)) + left_out;
    if more > 0 {
        let _ = write!(text, "; {}", More(more));
    }
}

/// `(+N more)`: the count of errors a capped list leaves out, as every list
/// words it.
struct More(usize);

impl std::fmt::Display for More {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "(+{} more)", self.0)
    }
}

/// Cuts `s` to at most `max` characters (never inside a UTF-8 sequence), ending
/// with `…` when anything was cut.
pub(crate) fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some(_) => {
            let keep = max.saturating_sub(1);
            let end = s.char_indices().nth(keep).map_or(s.len(), |(i, _)| i);
            format!("{}…", s.get(..end).unwrap_or(s))
        }
    }
}

/// The message for a call to a tool the registry does not have.
pub(crate) fn unknown_tool(
    style: &Style,
    name: &str,
    listed: &[String],
    total: usize,
    suggestion: Option<&str>,
) -> String {
    // Every name is cut to `--max-chars`: the model's (which may be anything) and
    // the operator's.
    let short = |n: &str| cut(n, style.max_chars);
    let names: Vec<String> = listed.iter().map(|n| short(n)).collect();
    let mut text = format!("Unknown tool {}.", quote(&short(name)));
    if total == 0 {
        text.push_str(" No tools are available.");
    } else {
        let _ = write!(text, " Available tools: {}", names.join(", "));
        if total > names.len() {
            let _ = write!(text, " (+{} more)", total - names.len());
        }
    }
    if let Some(s) = suggestion {
        let _ = write!(text, " (did you mean {}?)", quote(&short(s)));
    }
    // The listed names are the registry's, which an MCP server may have sent.
    single(text)
}

/// A call whose tool exists but whose schema does not compile.
pub(crate) fn broken_schema(name: &str, error: &SchemaError) -> String {
    single(format!(
        "Tool {} cannot be checked: its schema is broken ({})",
        quote(name),
        crate::error::Chain(error)
    ))
}

/// Argument text that salvage could not use, worded.
pub(crate) fn unusable(e: &crate::salvage::Unusable) -> ArgError {
    use crate::salvage::Unusable;
    match e {
        Unusable::Invalid(e) => invalid_json(e),
        Unusable::CutOff { line, column } => cut_off_arguments(*line, *column),
        Unusable::TwoValues => two_values(),
        Unusable::RepeatedKey(path) => repeated_key(path),
    }
}

/// Arguments that are not valid JSON: where it broke, and whether it was cut off.
pub(crate) fn invalid_json(err: &serde_json::Error) -> ArgError {
    let at = format!("line {} column {}", err.line(), err.column());
    if err.is_eof() {
        ArgError::root(format!(
            "arguments are incomplete JSON (cut off at {at}); send the complete arguments"
        ))
    } else {
        let what = err.to_string();
        let what = what
            .rsplit_once(" at line ")
            .map_or(what.as_str(), |(w, _)| w);
        ArgError::root(format!("arguments are not valid JSON: {what} at {at}"))
    }
}

/// The validator rejected the arguments without an error callfix can describe.
pub(crate) fn schema_mismatch() -> ArgError {
    ArgError::root("arguments do not match the tool's schema")
}

/// Argument text that ends before its value does, at `line`:`column`.
pub(crate) fn cut_off_arguments(line: usize, column: usize) -> ArgError {
    ArgError::root(format!(
        "arguments are incomplete JSON (cut off at line {line} column {column}); send the complete arguments"
    ))
}

/// Argument text holding two different values (a model that emitted twice).
pub(crate) fn arguments_as_text(provider: &str) -> ArgError {
    ArgError::root(format!(
        "the arguments must be a JSON object, not a string holding one ({provider} calls carry an object)"
    ))
}

/// A call that gives arguments by position (`read('/a', 3)`) where the schema
/// does not say which parameter each value means: the tool's name, then how
/// to call it, with `example` (the parameters to show, and whether there are
/// more).
pub(crate) fn name_the_arguments(tool: &str, example: (&[&str], bool)) -> ArgError {
    let (names, more) = example;
    let mut shown: Vec<String> = names.iter().map(|n| format!("{}: …", quote(n))).collect();
    if more {
        shown.push("…".to_owned());
    }
    ArgError::root(format!(
        "{tool}: call the tool with named JSON arguments, e.g. {{{}}}",
        shown.join(", ")
    ))
}

/// A string of the arguments holds a lone surrogate escape (`\ud83d`).
pub(crate) fn lone_surrogate(path: &str) -> ArgError {
    ArgError::at(
        path.to_owned(),
        "holds a lone surrogate escape, which is no character".to_owned(),
    )
}

/// What is said of a key named twice in one object.
const GIVEN_TWICE: &str = "given twice; send each key once";

/// A key named twice in one object of the arguments (given as text).
pub(crate) fn repeated_key(path: &str) -> ArgError {
    ArgError::at(path.to_owned(), GIVEN_TWICE.to_owned())
}

/// A call of a record in which a key is named twice, read two ways by
/// readers that keep the first or the last value (`path`: the key in its
/// arguments; empty when it is not in them).
pub(crate) fn read_two_ways(path: &str) -> ArgError {
    if path.is_empty() {
        ArgError::root(format!("a key of this call is {GIVEN_TWICE}"))
    } else {
        repeated_key(path)
    }
}

/// Two different JSON values where one was expected.
pub(crate) fn two_values() -> ArgError {
    ArgError::root("arguments hold two different JSON values; send exactly one object")
}

/// A streamed call whose stream ended before the call was complete.
pub(crate) fn stream_cut_off() -> String {
    "the stream ended before this call was complete; send the complete call".to_owned()
}

/// A streamed call an event of whose stream could not be used: a part of its
/// arguments may be missing.
pub(crate) fn stream_event_lost() -> String {
    "an event of this call's stream could not be read, so a part of its arguments \
     may be missing; send the complete call"
        .to_owned()
}

/// A Responses call that `response.completed` gives with other arguments than
/// its streamed events did.
pub(crate) fn stream_contradicted() -> String {
    "the stream's response.completed gives this call other arguments than its \
     events did; send the call again"
        .to_owned()
}

/// A streamed call whose argument text took its stream past
/// `--max-record-bytes`.
pub(crate) fn stream_call_too_large(limit: usize) -> String {
    format!(
        "the stream grew over the limit of {limit} bytes (--max-record-bytes) with this \
         call's arguments; send the call again with smaller arguments, or on its own"
    )
}

/// A stream whose reassembled response grew past `--max-record-bytes`: it is
/// dropped, and the rest of it skipped.
pub(crate) fn stream_too_large(source: &str, line: u64, limit: usize) -> String {
    format!(
        "stream starting at {source}:{line} grew over the limit of {limit} bytes \
         (--max-record-bytes) as it was reassembled; the rest of it is skipped"
    )
}

/// An error result for a call kept in a converted history with `{}` in place
/// of arguments that were not an object: the instruction, then what was sent
/// (cut to 200 characters), so the model sees its own mistake.
pub(crate) fn with_arguments_sent(instruction: &str, sent: &str) -> String {
    format!(
        "{instruction} (arguments as sent: {})",
        cut(&one_line(sent), 200)
    )
}

/// An envelope with no arguments at all.
pub(crate) fn missing_arguments() -> ArgError {
    ArgError::root("arguments are missing; send a JSON object")
}

/// Blank arguments where the schema needs some.
pub(crate) fn empty_arguments() -> ArgError {
    ArgError::root("arguments are empty; send a JSON object")
}

/// Record-level problems (the record never got as far as a call).
///
/// `line` is where the record starts in `source`; the error's own line is
/// relative to the record.
pub(crate) fn record_not_json(source: &str, line: u64, err: &serde_json::Error) -> String {
    let what = err.to_string();
    let what = what
        .rsplit_once(" at line ")
        .map_or(what.as_str(), |(w, _)| w);
    let abs = line + err.line() as u64 - 1;
    format!(
        "record at {source}:{line} is not valid JSON: {what} at line {abs} column {}",
        err.column()
    )
}

/// A record that is not UTF-8.
pub(crate) fn not_utf8(valid_up_to: usize) -> String {
    format!("arguments are not valid UTF-8 (bad byte at offset {valid_up_to})")
}

/// A record the input cut off.
pub(crate) fn record_cut_off(source: &str, line: u64) -> String {
    format!("record at {source}:{line} is incomplete: it was cut off before its end")
}

/// A record over `--max-record-bytes`.
pub(crate) fn record_too_large(source: &str, line: u64, size: usize, limit: usize) -> String {
    format!(
        "record at {source}:{line} is {size} bytes, over the limit of {limit} bytes \
         (--max-record-bytes)"
    )
}

/// A record over `--max-record-values`.
pub(crate) fn record_too_many_values(source: &str, line: u64, values: u64, limit: u64) -> String {
    format!(
        "record at {source}:{line} holds {values} JSON values, over the limit of {limit} \
         (--max-record-values)"
    )
}

/// A record with no recognisable call.
pub(crate) fn record_unrecognised(source: &str, line: u64, reason: &str) -> String {
    format!("record at {source}:{line} has no recognisable tool call: {reason}")
}

/// `word` or `words`, by count.
pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// `path.key`; a key holding a control or line-separator character is written as
/// a JSON string, so a model cannot put a line break into a message.
pub(crate) fn join(path: &str, key: &str) -> String {
    let key: std::borrow::Cow<'_, str> = if key.chars().any(breaks_lines) {
        quote(key).into()
    } else {
        key.into()
    };
    if path.is_empty() {
        key.into_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Characters that can end or redraw a line: the C0 controls (newline, carriage
/// return, ESC and the escape sequences it starts), DEL, the C1 controls (CSI,
/// OSC, NEL = U+0085), and Unicode's line and paragraph separators (U+2028,
/// U+2029), which Python's `splitlines()` and JavaScript split lines at.
pub(crate) fn breaks_lines(c: char) -> bool {
    // `is_control` is Unicode's Cc: U+0000–U+001F, U+007F–U+009F.
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Unicode's bidirectional embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069): shown raw, they reorder the rest of the line on screen, so
/// a value could make a line read as something it does not say ("Trojan
/// Source").
pub(crate) fn reorders_text(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The one visible escape: `s` with every character [`breaks_lines`] or
/// [`reorders_text`] names written as a JSON-style escape (`\n`, `\r`, `\t`, else `\u` and four hex
/// digits: `\u001b`, `\u0085`, `\u2028`), so that what it is stays visible and
/// a terminal or a line reader acts on none of it. Every writer whose output is
/// read as lines goes through it: messages, `-f human` and `-f args`, `--stats`,
/// `check`'s human and GitHub formats, diagnostics on stderr. A message and a
/// human-readable result are always exactly one line, whatever the model put in
/// its call. A lone surrogate escape the record was read with (masked,
/// `surrogates.rs`) is shown as the escape sent (`\ud83d`), never as the mask.
pub(crate) fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(crate::surrogates::MARK) {
        let shown = crate::surrogates::shown(s);
        return one_line(&shown).into_owned().into();
    }
    let escaped = |c: char| breaks_lines(c) || reorders_text(c);
    if !s.chars().any(escaped) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if escaped(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.into()
}

/// `s` as a JSON string for a message (`"glob"`): JSON escapes the C0
/// controls, [`one_line`] what JSON leaves raw (DEL, C1, U+2028, U+2029).
/// `text` through [`one_line`], without a copy when nothing needs escaping.
fn single(text: String) -> String {
    match one_line(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(escaped) => escaped,
    }
}

pub(crate) fn quote(s: &str) -> String {
    single(Value::String(s.to_owned()).to_string())
}

/// What a repair changed, for a person approving the call (an agent hook's
/// reason): `callfix repaired the input: offset: "2" → 2 (coerce-number)`.
#[cfg(feature = "cli")]
pub(crate) fn repaired(repairs: &[crate::kinds::Repair]) -> String {
    let each: Vec<String> = repairs
        .iter()
        .map(|r| {
            let path = if r.path.is_empty() {
                "(input)"
            } else {
                &r.path
            };
            let (from, kind) = (short_json(&r.from), r.kind.name());
            match (&r.from, &r.to) {
                // A removal, and a repair of the text (salvage, extraction):
                // nothing to show after an arrow (as `-f human` writes them).
                _ if matches!(
                    r.kind,
                    crate::kinds::Kind::DropPlaceholder | crate::kinds::Kind::DropUnknown
                ) =>
                {
                    format!("{path}: {from} removed ({kind})")
                }
                (Value::String(_), Value::Null) => format!("{path}: {from} ({kind})"),
                (_, to) => format!("{path}: {from} → {} ({kind})", short_json(to)),
            }
        })
        .collect();
    // A person reads it (Claude Code shows it): one line, nothing raw.
    single(format!("callfix repaired the input: {}", each.join("; ")))
}

/// Compact JSON of a value, cut to a short length without first rendering a huge
/// value in full.
pub(crate) fn short_json(v: &Value) -> String {
    const MAX: usize = 40;
    let mut w = Limited {
        buf: Vec::new(),
        limit: MAX * 4,
    };
    let complete = serde_json::to_writer(&mut w, v).is_ok();
    let text = String::from_utf8_lossy(&w.buf);
    if complete {
        cut(&text, MAX)
    } else {
        // Force the ellipsis: the value was longer than what was rendered.
        let shown: String = text.chars().take(MAX - 1).collect();
        format!("{shown}…")
    }
}

struct Limited {
    buf: Vec<u8>,
    limit: usize,
}

impl io::Write for Limited {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len() + data.len() > self.limit {
            let room = self.limit.saturating_sub(self.buf.len());
            self.buf
                .extend_from_slice(data.get(..room).unwrap_or_default());
            return Err(io::Error::other("long value"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
