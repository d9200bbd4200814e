//! Stage 6: the messages. Every sentence a model (or a person) reads about a call
//! is written here, in one place.
//!
//! Validator errors become short `path: message` items: the path dotted like Zod
//! (`edits.0.path`, nothing at the root), the message an instruction rather than
//! validator jargon. Items are ordered missing-required first, then type errors,
//! then the rest, each group in document order; anyOf/oneOf failures are reduced to
//! the closest branch instead of a dump of every branch.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value};

use crate::provider::json_type;
use crate::registry::{SchemaError, Tool};
use crate::suggest;

/// One problem with a call's arguments, as the model reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ArgError {
    /// Dotted path (`todos.0.status`); empty at the root.
    pub path: String,
    pub message: String,
}

impl ArgError {
    pub fn root(message: impl Into<String>) -> Self {
        Self {
            path: String::new(),
            message: message.into(),
        }
    }

    /// The last entry of a capped list: how many errors were left out.
    fn more(n: usize) -> Self {
        Self::root(format!("(+{n} more)"))
    }

    /// For the entry made by [`ArgError::more`], its count.
    fn more_count(&self) -> Option<usize> {
        if !self.path.is_empty() {
            return None;
        }
        self.message
            .strip_prefix("(+")?
            .strip_suffix(" more)")?
            .parse()
            .ok()
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

/// How much of the error list goes into one instruction.
#[derive(Debug, Clone)]
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

pub const DEFAULT_PREFIX: &str = "Please rewrite the input with valid arguments. Errors:";

/// The one-line instruction for a rejected call.
pub fn instruction(style: &Style, errors: &[ArgError]) -> String {
    let mut text = style.prefix.clone();
    push_errors(&mut text, style, errors);
    text
}

/// The instruction once the same call has been rejected `times` times in a row:
/// retrying will not help, so the model is told to stop and ask.
pub fn loop_instruction(style: &Style, tool: &str, times: u32, errors: &[ArgError]) -> String {
    let mut text = format!(
        "Stop retrying: this exact call to {} was rejected {times} times. Do not send it again; \
         ask the user how to proceed. Errors:",
        quote(tool)
    );
    push_errors(&mut text, style, errors);
    text
}

/// ` e1; e2; …; (+N more)`, each cut to `max_chars`.
fn push_errors(text: &mut String, style: &Style, errors: &[ArgError]) {
    // A capped list ends with the count of what it left out.
    let (errors, left_out) = match errors.split_last() {
        Some((last, rest)) if !rest.is_empty() => match last.more_count() {
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
        let _ = write!(text, "; (+{more} more)");
    }
}

/// Cuts `s` to at most `max` characters (never inside a UTF-8 sequence), ending
/// with `…` when anything was cut.
pub fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some(_) => {
            let keep = max.saturating_sub(1);
            let end = s.char_indices().nth(keep).map_or(s.len(), |(i, _)| i);
            format!("{}…", &s[..end])
        }
    }
}

/// The message for a call to a tool the registry does not have.
pub fn unknown_tool<'a>(
    style: &Style,
    name: &str,
    available: impl ExactSizeIterator<Item = &'a str>,
    suggestion: Option<&str>,
) -> String {
    const LISTED: usize = 20;
    let total = available.len();
    // Every name is cut to `--max-chars`: the model's (which may be anything) and
    // the operator's.
    let short = |n: &str| cut(n, style.max_chars);
    let names: Vec<String> = available.take(LISTED).map(short).collect();
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
    text
}

/// A call whose tool exists but whose schema does not compile.
pub fn broken_schema(name: &str, error: &SchemaError) -> String {
    format!(
        "Tool {} cannot be checked: its schema is broken ({error})",
        quote(name)
    )
}

/// Arguments that are not valid JSON: where it broke, and whether it was cut off.
pub fn invalid_json(err: &serde_json::Error) -> ArgError {
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
pub fn schema_mismatch() -> ArgError {
    ArgError::root("arguments do not match the tool's schema")
}

/// Argument text that ends before its value does, at `line`:`column`.
pub fn cut_off_arguments(line: usize, column: usize) -> ArgError {
    ArgError::root(format!(
        "arguments are incomplete JSON (cut off at line {line} column {column}); send the complete arguments"
    ))
}

/// Argument text holding two different values (a model that emitted twice).
pub fn arguments_as_text(provider: &str) -> ArgError {
    ArgError::root(format!(
        "the arguments must be a JSON object, not a string holding one ({provider} calls carry an object)"
    ))
}

/// A string of the arguments holds a lone surrogate escape (`\ud83d`).
pub fn lone_surrogate(path: &str) -> ArgError {
    ArgError {
        path: path.to_owned(),
        message: "holds a lone surrogate escape, which is no character".to_owned(),
    }
}

pub fn two_values() -> ArgError {
    ArgError::root("arguments hold two different JSON values; send exactly one object")
}

pub fn missing_arguments() -> ArgError {
    ArgError::root("arguments are missing; send a JSON object")
}

pub fn empty_arguments() -> ArgError {
    ArgError::root("arguments are empty; send a JSON object")
}

/// Record-level problems (the record never got as far as a call).
///
/// `line` is where the record starts in `source`; the error's own line is
/// relative to the record.
pub fn record_not_json(source: &str, line: u64, err: &serde_json::Error) -> String {
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

pub fn not_utf8(valid_up_to: usize) -> String {
    format!("arguments are not valid UTF-8 (bad byte at offset {valid_up_to})")
}

pub fn record_cut_off(source: &str, line: u64) -> String {
    format!("record at {source}:{line} is incomplete: it was cut off before its end")
}

pub fn record_too_large(source: &str, line: u64, size: usize, limit: usize) -> String {
    format!(
        "record at {source}:{line} is {size} bytes, over the limit of {limit} bytes \
         (--max-record-bytes)"
    )
}

pub fn record_too_many_values(source: &str, line: u64, values: u64, limit: u64) -> String {
    format!(
        "record at {source}:{line} holds {values} JSON values, over the limit of {limit} \
         (--max-record-values)"
    )
}

pub fn record_unrecognised(source: &str, line: u64, reason: &str) -> String {
    format!("record at {source}:{line} has no recognisable tool call: {reason}")
}

// ---------------------------------------------------------------------------
// Validation errors → ArgError

/// At most this many errors are kept per call (the model reads `--max-errors` of
/// them); the rest are counted in a last `(+N more)` entry.
pub const MAX_ERRORS: usize = 100;

/// Arguments with more values than this get only their first error reported.
pub const ALL_ERRORS_UP_TO: usize = 100_000;

/// Whether `v` holds more than `limit` values (counted without recursion, stopping
/// at the limit).
pub fn more_values_than(v: &Value, limit: usize) -> bool {
    let mut stack = vec![v];
    let mut seen = 0usize;
    while let Some(v) = stack.pop() {
        seen += 1;
        if seen > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    false
}

/// Errors read from the validator per call before the rest are only counted.
const MAX_ERRORS_READ: usize = 10_000;

/// Each kept error's message is cut to this many characters (a million-value
/// enum is not listed whole).
pub const MAX_ERROR_CHARS: usize = 1000;

/// Every schema error of `args`, converted, deduplicated and ordered; at most
/// [`MAX_ERRORS`] of them.
pub fn validation_errors(tool: &Tool, args: &Value) -> Vec<ArgError> {
    let mut items = Vec::new();
    let doc = Doc::new(args);
    // The validator collects every error before handing out the first, so for
    // very large arguments only the first error is asked for (it stops there).
    if more_values_than(args, ALL_ERRORS_UP_TO) {
        if let Err(err) = tool.validator.validate(args) {
            convert(&err, &tool.schema, &doc, &mut items);
        }
        let mut out: Vec<ArgError> = items.into_iter().map(|i| i.error).take(1).collect();
        out.push(ArgError::root(format!(
            "(further errors not listed: the arguments hold more than {ALL_ERRORS_UP_TO} values)"
        )));
        return out;
    }
    // A call with very many errors is described by the first ones the validator
    // reports (in schema and document order), so time and memory stay bounded.
    let mut unread = 0usize;
    for err in tool.validator.iter_errors(args) {
        if items.len() >= MAX_ERRORS_READ {
            unread += 1;
            continue;
        }
        convert(&err, &tool.schema, &doc, &mut items);
    }
    // Missing first, then type errors, then the rest; each in document order.
    items.sort_by(|a, b| {
        a.rank
            .cmp(&b.rank)
            .then_with(|| a.position.cmp(&b.position))
    });
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    let mut out: Vec<ArgError> = Vec::with_capacity(items.len().min(MAX_ERRORS + 1));
    let mut more = unread;
    for mut item in items {
        if seen.contains(&item.error) {
            continue;
        }
        if out.len() == MAX_ERRORS {
            more += 1;
            continue;
        }
        seen.insert(item.error.clone());
        item.error.message = cut(&item.error.message, MAX_ERROR_CHARS);
        out.push(item.error);
    }
    if more > 0 {
        out.push(ArgError::more(more));
    }
    out
}

struct Item {
    /// 0 missing required, 1 wrong type, 2 anything else.
    rank: u8,
    /// Where the value (or, for a missing key, its parent) sits in the document.
    position: Vec<usize>,
    error: ArgError,
}

fn convert(err: &ValidationError<'_>, schema: &Value, doc: &Doc<'_>, out: &mut Vec<Item>) {
    let pointer = err.instance_path().as_str();
    let segments = pointer_segments(pointer);
    let position = document_position(doc, &segments);
    let path = segments.join(".");
    let instance = err.instance();
    let push = |out: &mut Vec<Item>, rank, path: String, message: String| {
        out.push(Item {
            rank,
            position: position.clone(),
            error: ArgError { path, message },
        });
    };
    match err.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            push(out, 0, join(&path, &name), "Required".into());
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                // In the order the schema lists them, when it can be found.
                TypeKind::Multiple(set) => match schema.pointer(err.schema_path().as_str()) {
                    Some(Value::Array(types)) if types.iter().all(Value::is_string) => types
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" or "),
                    _ => set
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(" or "),
                },
            };
            push(
                out,
                1,
                path,
                format!("expected {expected}, got {}", json_type(instance)),
            );
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let allowed = allowed_keys(schema, err.schema_path().as_str());
            let declared: Vec<&str> = allowed.iter().flatten().map(String::as_str).collect();
            // Where each key sits in its object, found in one pass (not per key).
            for key in unexpected {
                let message = match (suggest::near_miss_of(key, &declared), &allowed) {
                    (Some(meant), _) => {
                        format!("unrecognized key (did you mean {}?)", quote(meant))
                    }
                    (None, Some(list)) if !list.is_empty() => {
                        format!("unrecognized key (allowed: {})", list.join(", "))
                    }
                    _ => "unrecognized key".to_owned(),
                };
                // Positioned where the key itself sits, not at its parent.
                let mut key_segments = segments.clone();
                key_segments.push(key.clone());
                let key_position = document_position(doc, &key_segments);
                out.push(Item {
                    rank: 2,
                    position: key_position,
                    error: ArgError {
                        path: join(&path, key),
                        message,
                    },
                });
            }
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            reduce_branches(
                context, &segments, instance, schema, doc, out, &position, &path,
            );
        }
        kind => push(out, 2, path, describe(kind, instance)),
    }
}

/// Picks what to say about a failed anyOf/oneOf: when every branch rejects the
/// value's type or value outright, one "expected A or B" line; otherwise the errors
/// of the closest branch.
#[allow(clippy::too_many_arguments)]
fn reduce_branches(
    context: &[Vec<ValidationError<'static>>],
    at: &[String],
    instance: &Value,
    schema: &Value,
    doc: &Doc<'_>,
    out: &mut Vec<Item>,
    position: &[usize],
    path: &str,
) {
    let here = |e: &ValidationError<'_>| pointer_segments(e.instance_path().as_str()) == at;
    let shallow = |e: &ValidationError<'_>| {
        here(e)
            && matches!(
                e.kind(),
                ValidationErrorKind::Type { .. }
                    | ValidationErrorKind::Constant { .. }
                    | ValidationErrorKind::Enum { .. }
            )
    };
    if context.iter().all(|branch| branch.iter().all(shallow)) {
        let mut types: Vec<String> = Vec::new();
        let mut values: Vec<String> = Vec::new();
        for e in context.iter().flatten() {
            match e.kind() {
                ValidationErrorKind::Type { kind } => match kind {
                    TypeKind::Single(t) => types.push(t.to_string()),
                    TypeKind::Multiple(set) => types.extend(set.iter().map(|t| t.to_string())),
                },
                ValidationErrorKind::Constant { expected_value } => {
                    values.push(short_json(expected_value));
                }
                ValidationErrorKind::Enum { options } => {
                    if let Value::Array(opts) = options.as_ref() {
                        values.extend(opts.iter().map(short_json));
                    }
                }
                _ => {}
            }
        }
        dedup(&mut types);
        dedup(&mut values);
        let message = match (types.is_empty(), values.is_empty()) {
            (false, true) => format!(
                "expected {}, got {}",
                types.join(" or "),
                json_type(instance)
            ),
            (true, false) => format!(
                "expected one of {}, got {}",
                values.join(", "),
                short_json(instance)
            ),
            _ => format!(
                "expected {} or one of {}, got {}",
                types.join(" or "),
                values.join(", "),
                short_json(instance)
            ),
        };
        out.push(Item {
            rank: 1,
            position: position.to_vec(),
            error: ArgError {
                path: path.to_owned(),
                message,
            },
        });
        return;
    }
    // A branch whose discriminator (a const/enum on a direct child) failed is a
    // worse match than one whose details failed; then the fewest errors wins.
    let discriminator_mismatch = |branch: &[ValidationError<'_>]| {
        branch.iter().any(|e| {
            matches!(
                e.kind(),
                ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
            ) && pointer_segments(e.instance_path().as_str()).len() == at.len() + 1
        })
    };
    let best = context
        .iter()
        .filter(|branch| !branch.iter().all(shallow))
        .min_by_key(|branch| (discriminator_mismatch(branch), branch.len()));
    if let Some(branch) = best {
        for e in branch {
            convert(e, schema, doc, out);
        }
    }
}

/// The message for every other kind of error.
fn describe(kind: &ValidationErrorKind, instance: &Value) -> String {
    use ValidationErrorKind as K;
    match kind {
        K::Enum { options } => {
            let list = match options.as_ref() {
                Value::Array(opts) => opts.iter().map(short_json).collect::<Vec<_>>().join(", "),
                other => short_json(other),
            };
            format!("expected one of {list}, got {}", short_json(instance))
        }
        K::Constant { expected_value } => format!(
            "expected {}, got {}",
            short_json(expected_value),
            short_json(instance)
        ),
        K::Minimum { limit } => format!("must be >= {limit}"),
        K::Maximum { limit } => format!("must be <= {limit}"),
        K::ExclusiveMinimum { limit } => format!("must be > {limit}"),
        K::ExclusiveMaximum { limit } => format!("must be < {limit}"),
        K::MultipleOf { multiple_of } => format!("must be a multiple of {multiple_of}"),
        K::MinLength { limit } => {
            format!("must be at least {limit} {}", plural(*limit, "character"))
        }
        K::MaxLength { limit } => {
            format!("must be at most {limit} {}", plural(*limit, "character"))
        }
        K::Pattern { pattern } => format!("must match pattern {pattern}"),
        K::Format { format } => format!("must be a valid {format}"),
        K::MinItems { limit } => format!("must have at least {limit} item(s)"),
        K::MaxItems { limit } => format!("must have at most {limit} item(s)"),
        K::AdditionalItems { limit } => format!("must have at most {limit} item(s)"),
        K::UniqueItems => "must not contain duplicate items".into(),
        K::Contains => "must contain at least one matching item".into(),
        K::MinProperties { limit } => format!("must have at least {limit} key(s)"),
        K::MaxProperties { limit } => format!("must have at most {limit} key(s)"),
        K::UnevaluatedItems { .. } => "has unexpected items".into(),
        K::FalseSchema => "not allowed".into(),
        K::Not { .. } => "is not allowed here".into(),
        K::OneOfMultipleValid { .. } => {
            "matches more than one allowed shape; make it match exactly one".into()
        }
        K::PropertyNames { error } => format!(
            "key {}: {}",
            short_json(error.instance()),
            describe(error.kind(), error.instance())
        ),
        K::ContentEncoding { content_encoding } => format!("must be valid {content_encoding}"),
        K::FromUtf8 { .. } => "must decode to valid UTF-8".into(),
        K::ContentMediaType { content_media_type } => format!("must be valid {content_media_type}"),
        K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. } => {
            "could not be checked against its pattern".into()
        }
        K::Custom { message, .. } => message.clone(),
        K::Referencing(e) => format!("schema reference could not be resolved: {e}"),
        // Listed for completeness; handled in `convert`.
        K::Required { .. }
        | K::Type { .. }
        | K::AdditionalProperties { .. }
        | K::UnevaluatedProperties { .. }
        | K::AnyOf { .. }
        | K::OneOfNotValid { .. } => "is invalid".into(),
    }
}

/// `word` or `words`, by count.
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// `path.key`; a key holding a control or line-separator character is written as
/// a JSON string, so a model cannot put a line break into a message.
fn join(path: &str, key: &str) -> String {
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

/// Characters that can end or redraw a line: controls (newline, carriage return,
/// escape sequences) and Unicode's line and paragraph separators.
fn breaks_lines(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}')
}

/// `s` with every character that could break or redraw a line written as a
/// visible JSON-style escape (`\n`, `\u001b`): a message and a human-readable
/// result are always exactly one line, whatever the model put in its call.
pub fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(breaks_lines) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if breaks_lines(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.into()
}

fn dedup(v: &mut Vec<String>) {
    let mut seen = Vec::with_capacity(v.len());
    v.retain(|s| {
        if seen.contains(s) {
            false
        } else {
            seen.push(s.clone());
            true
        }
    });
}

fn quote(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// Unescaped segments of a JSON pointer (`/a~1b/0` → `["a/b", "0"]`).
pub fn pointer_segments(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The position of each key of one object.
type KeyIndex<'a> = HashMap<&'a str, usize>;

/// The arguments, with the position of each key in its object found once per
/// object (so that thousands of errors in one large object stay linear).
struct Doc<'a> {
    value: &'a Value,
    keys: std::cell::RefCell<HashMap<*const Map<String, Value>, KeyIndex<'a>>>,
}

impl<'a> Doc<'a> {
    fn new(value: &'a Value) -> Self {
        Doc {
            value,
            keys: Default::default(),
        }
    }

    /// The position of `key` in `map`, a map inside this document.
    fn key_position(&self, map: &'a Map<String, Value>, key: &str) -> Option<usize> {
        if map.len() <= 16 {
            return map.keys().position(|k| k == key);
        }
        let mut cache = self.keys.borrow_mut();
        let index = cache.entry(std::ptr::from_ref(map)).or_insert_with(|| {
            map.keys()
                .enumerate()
                .map(|(i, k)| (k.as_str(), i))
                .collect()
        });
        index.get(key).copied()
    }
}

/// The position of a path in document order: the key or element index at each
/// level. Missing levels sort last.
fn document_position(doc: &Doc<'_>, segments: &[String]) -> Vec<usize> {
    let mut cur = Some(doc.value);
    segments
        .iter()
        .map(|seg| match cur {
            Some(Value::Object(map)) => {
                let pos = doc.key_position(map, seg);
                cur = map.get(seg.as_str());
                pos.unwrap_or(usize::MAX)
            }
            Some(Value::Array(items)) => {
                let i = seg.parse::<usize>().unwrap_or(usize::MAX);
                cur = items.get(i);
                i
            }
            _ => usize::MAX,
        })
        .collect()
}

/// The declared property names of the object schema that owns an
/// `additionalProperties` (or `unevaluatedProperties`) keyword.
fn allowed_keys(schema: &Value, keyword_path: &str) -> Option<Vec<String>> {
    let owner = keyword_path.rsplit_once('/').map(|(owner, _)| owner)?;
    let node = schema.pointer(owner)?;
    let props = node.get("properties")?.as_object()?;
    Some(props.keys().cloned().collect())
}

/// Compact JSON of a value, cut to a short length without first rendering a huge
/// value in full.
pub fn short_json(v: &Value) -> String {
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
            let room = self.limit - self.buf.len();
            self.buf.extend_from_slice(&data[..room]);
            return Err(io::Error::other("long value"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value) -> Tool {
        Tool::from_schema(schema)
    }

    fn lines_raw(schema: Value, args: Value) -> Vec<ArgError> {
        validation_errors(&tool(schema), &args)
    }

    fn lines(schema: Value, args: Value) -> Vec<String> {
        validation_errors(&tool(schema), &args)
            .iter()
            .map(ArgError::line)
            .collect()
    }

    fn read_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 1},
                "limit": {"type": "number", "maximum": 2000},
                "mode": {"enum": ["a", "b", "c"]},
            },
            "required": ["file_path"],
            "additionalProperties": false,
        })
    }

    #[test]
    fn the_example_from_the_brief() {
        let errors = validation_errors(&tool(read_schema()), &json!({"limit": "5"}));
        assert_eq!(
            instruction(&Style::default(), &errors),
            "Please rewrite the input with valid arguments. Errors: file_path: Required; limit: expected number, got string"
        );
    }

    #[test]
    fn required_then_type_then_rest_in_document_order() {
        let got = lines(
            read_schema(),
            json!({"mode": "d", "offset": 0, "limit": true, "extra": 1}),
        );
        assert_eq!(
            got,
            [
                "file_path: Required",
                "limit: expected number, got boolean",
                "mode: expected one of \"a\", \"b\", \"c\", got \"d\"",
                "offset: must be >= 1",
                "extra: unrecognized key (allowed: file_path, offset, limit, mode)",
            ]
        );
    }

    #[test]
    fn nested_paths_are_dotted() {
        let schema = json!({"type": "object", "properties": {"edits": {"type": "array",
            "items": {"type": "object", "required": ["path"],
                      "properties": {"path": {"type": "string", "minLength": 1}}}}}});
        assert_eq!(
            lines(schema, json!({"edits": [{"path": "a"}, {}, {"path": ""}]})),
            [
                "edits.1.path: Required",
                "edits.2.path: must be at least 1 character"
            ]
        );
    }

    #[test]
    fn root_errors_have_no_path() {
        assert_eq!(
            lines(read_schema(), json!("just text")),
            ["expected object, got string"]
        );
    }

    #[test]
    fn each_keyword_has_an_instruction() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 200, "pattern": "^[a-z]+$"},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "minItems": 1, "uniqueItems": true},
            "n": {"type": "integer", "exclusiveMaximum": 10, "multipleOf": 2},
            "k": {"const": "x"},
        }});
        let long = "a".repeat(201);
        assert_eq!(
            lines(
                schema.clone(),
                json!({"name": long, "when": "yesterday", "tags": []})
            ),
            [
                "name: must be at most 200 characters",
                "when: must be a valid date-time",
                "tags: must have at least 1 item(s)",
            ]
        );
        assert_eq!(
            lines(
                schema,
                json!({"name": "A1", "tags": [1, 1], "n": 11, "k": "y"})
            ),
            [
                "name: must match pattern ^[a-z]+$",
                "tags: must not contain duplicate items",
                "n: must be < 10",
                "n: must be a multiple of 2",
                "k: expected \"x\", got \"y\"",
            ]
        );
    }

    #[test]
    fn any_of_type_mismatch_becomes_one_line() {
        let schema = json!({"type": "object", "properties": {
            "target": {"anyOf": [{"type": "string"}, {"type": "array"}]}}});
        assert_eq!(
            lines(schema, json!({"target": 5})),
            ["target: expected string or array, got number"]
        );
    }

    #[test]
    fn one_of_picks_the_closest_branch() {
        let schema = json!({"type": "object", "properties": {"op": {"oneOf": [
            {"type": "object", "required": ["kind", "path"],
             "properties": {"kind": {"const": "delete"}, "path": {"type": "string"}}},
            {"type": "object", "required": ["kind", "path", "text"],
             "properties": {"kind": {"const": "write"}, "path": {"type": "string"},
                            "text": {"type": "string"}}},
        ]}}});
        assert_eq!(
            lines(schema, json!({"op": {"kind": "write", "path": "a"}})),
            ["op.text: Required"]
        );
    }

    #[test]
    fn any_of_consts_become_one_list() {
        let schema = json!({"anyOf": [{"const": "a"}, {"const": "b"}]});
        assert_eq!(
            lines(schema, json!("c")),
            ["expected one of \"a\", \"b\", got \"c\""]
        );
    }

    #[test]
    fn instruction_truncates_each_error_and_counts_the_rest() {
        let errors: Vec<ArgError> = (0..8)
            .map(|i| ArgError {
                path: format!("p{i}"),
                message: "é".repeat(150),
            })
            .collect();
        let text = instruction(&Style::default(), &errors);
        assert!(text.ends_with("; (+3 more)"), "{text}");
        for part in text.split("; ").take(5) {
            let part = part
                .strip_prefix(DEFAULT_PREFIX)
                .map_or(part, str::trim_start);
            assert_eq!(part.chars().count(), 100, "{part}");
            assert!(part.ends_with('…'));
        }
    }

    #[test]
    fn errors_are_capped_and_the_rest_counted_in_json_and_in_the_instruction() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}});
        let args = json!({"a": vec![1; 20_000]});
        let errors = lines_raw(schema, args);
        assert_eq!(errors.len(), MAX_ERRORS + 1);
        assert_eq!(errors[0].line(), "a.0: expected string, got number");
        // The first 10,000 are read and ordered; all 20,000 are counted.
        assert_eq!(errors[MAX_ERRORS].line(), "(+19900 more)");
        let text = instruction(&Style::default(), &errors);
        assert!(
            text.ends_with("a.4: expected string, got number; (+19995 more)"),
            "{text}"
        );
    }

    #[test]
    fn a_huge_enum_is_not_listed_whole() {
        let options: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
        let schema = json!({"type": "object", "properties": {"e": {"enum": options}}});
        let errors = lines_raw(schema, json!({"e": "x"}));
        assert!(
            errors[0].message.chars().count() <= MAX_ERROR_CHARS,
            "{}",
            errors[0].message.len()
        );
    }

    #[test]
    fn cut_respects_character_boundaries() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "ab…");
        assert_eq!(cut("日本語テキスト", 4), "日本語…");
        assert_eq!(cut("", 0), "");
    }

    #[test]
    fn unknown_tool_lists_and_suggests() {
        assert_eq!(
            unknown_tool(
                &Style::default(),
                "todo_write",
                ["read", "write", "todowrite"].into_iter(),
                Some("todowrite")
            ),
            "Unknown tool \"todo_write\". Available tools: read, write, todowrite (did you mean \"todowrite\"?)"
        );
        let many: Vec<String> = (0..25).map(|i| format!("t{i}")).collect();
        let text = unknown_tool(
            &Style::default(),
            "x",
            many.iter().map(String::as_str),
            None,
        );
        assert!(text.ends_with("t19 (+5 more)"), "{text}");
    }

    #[test]
    fn invalid_json_says_where() {
        let err = serde_json::from_str::<Value>("{\"a\": 1,, }").unwrap_err();
        assert_eq!(
            invalid_json(&err).message,
            "arguments are not valid JSON: key must be a string at line 1 column 9"
        );
        let err = serde_json::from_str::<Value>("{\"command\":\"rm -rf /tmp/scra").unwrap_err();
        assert_eq!(
            invalid_json(&err).message,
            "arguments are incomplete JSON (cut off at line 1 column 28); send the complete arguments"
        );
    }

    #[test]
    fn short_json_never_renders_huge_values_whole() {
        let big = Value::String("x".repeat(10_000_000));
        let s = short_json(&big);
        assert_eq!(s.chars().count(), 40);
        assert!(s.ends_with('…'));
        assert_eq!(short_json(&json!([1, 2])), "[1,2]");
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn cut_is_bounded_and_a_prefix(s in "\\PC{0,300}", max in 1usize..150) {
            let c = cut(&s, max);
            prop_assert!(c.chars().count() <= max);
            if s.chars().count() <= max {
                prop_assert_eq!(&c, &s);
            } else {
                let kept = c.strip_suffix('…').unwrap();
                prop_assert!(s.starts_with(kept));
            }
        }
    }
}
