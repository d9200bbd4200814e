//! Tool calls written into assistant text instead of emitted as calls.
//!
//! One file per family of call syntax, each behind `Family`: the sentinels
//! that open its markup, and how to read the markup that starts there.
//!
//! | family | markup |
//! |---|---|
//! | `dsml` | DeepSeek DSML / MiniMax: `<[｜DSML｜]invoke name="x"><[｜DSML｜]parameter name="p" string="true">…` |
//! | `qwen-coder` | `<function=x><parameter=p>…</parameter></function>` |
//! | `hermes` | `<tool_call>{"name", "arguments"}</tool_call>` (Hermes, Qwen) |
//! | `qwen3-coder` | `<tool_call><function=x>…</function></tool_call>` |
//! | `glm` | `<tool_call>x<arg_key>p</arg_key><arg_value>…</arg_value></tool_call>` |
//! | `kimi-k2` | `<\|tool_call_begin\|>functions.x:0<\|tool_call_argument_begin\|>{…}<\|tool_call_end\|>` |
//! | `deepseek-v3` | `<｜tool▁call▁begin｜>[function<｜tool▁sep｜>]x…<｜tool▁call▁end｜>` |
//! | `mistral` | `[TOOL_CALLS][{"name", "arguments"}]`, `[TOOL_CALLS]x[ARGS]{…}` |
//! | `llama3` | `<\|python_tag\|>{"name", "parameters"}` |
//! | `granite` | `<\|tool_call\|>[{"name", "arguments"}]` |
//! | `cohere` | `<\|START_ACTION\|>[{"tool_name", "parameters"}]<\|END_ACTION\|>` |
//! | `harmony` | `<\|channel\|>commentary to=functions.x <\|constrain\|>json<\|message\|>{…}<\|call\|>` |
//! | `pythonic` | `<\|python_start\|>[x(p="…", n=1)]<\|python_end\|>` (Llama 4), or the bare list |
//! | `json` | a bare `{"name", "arguments"\|"parameters"}` object or list of them (xLAM, Llama 3 JSON) |
//!
//! A family is recognised only by its sentinels, and not inside a code span or
//! a fenced code block (prose quoting the syntax is no call). The two
//! sentinel-free syntaxes (a bare pythonic or JSON call list) are recognised
//! only when they are the whole message and every name in them is a declared
//! tool. Markup that is
//! not closed, or JSON that does not parse, is reported as malformed: it is
//! never completed or guessed at.
//!
//! Every reader moves through the text with one checked cursor (`cursor.rs`):
//! no reader indexes or slices the text by hand, so none can panic on it, and
//! the one recursive reader (pythonic values) stops at 128 levels
//! (`pythonic::MAX_DEPTH`). A call in a list of several holds its own
//! element's markup, not the list's, so the markup held is linear in the text;
//! a list of one call holds the whole markup (sentinels and brackets included).
//! The search for openings and for code spans is one pass over the text.

mod cohere;
mod cursor;
mod deepseek;
mod dsml;
mod fallback;
mod harmony;
mod json_list;
mod kimi;
mod mistral;
mod pythonic;
mod qwen_coder;
mod tool_call;

use std::collections::HashMap;

use serde_json::{Map, Value};

use cursor::Cursor;

/// One call found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaked {
    /// The tool name (empty when the markup is too broken to tell).
    pub name: String,
    /// The arguments, or why they cannot be read.
    pub args: Result<Map<String, Value>, String>,
    /// The markup as it stood in the text: the call's own element when it is
    /// one of several in a list, else the whole markup.
    pub markup: String,
    /// The call syntax it was written in (`hermes`, `glm`, …).
    pub family: &'static str,
    /// How its argument values were written, when not as JSON.
    pub written: Written,
}

/// How a leaked call's argument values were written, for the judge to read
/// them by the schema. The default: JSON values (or Python literals), kept as
/// read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Written {
    /// The top-level arguments whose value is untyped text (XML parameter
    /// families: `<parameter=p>3</parameter>`): each holds a `Value::String` of
    /// the text, which the schema types when the call is judged.
    pub untyped: Vec<String>,
    /// Arguments given by position (`read('/a')`), in order, after the named
    /// ones in `args`: the schema maps them to names when that is unambiguous,
    /// or the call is rejected with an instruction to name them.
    pub positional: Vec<Value>,
}

/// One family of call syntax.
trait Family: Sync {
    /// Its name in reports.
    fn name(&self) -> &'static str;
    /// The sentinels that open its markup.
    fn openings(&self) -> &'static [&'static str];
    /// Closing sentinels of wrappers, removed from the text around calls.
    fn closings(&self) -> &'static [&'static str] {
        &[]
    }
    /// Reads the markup at the start of `text` (which starts with one of the
    /// openings): the calls it holds (none for a wrapper) and its length (on
    /// a character boundary of `text`).
    fn read(&self, text: &str) -> (Vec<Leaked>, usize);
}

/// Every family, in the order their openings are tried at one position.
static FAMILIES: [&dyn Family; 11] = [
    &dsml::Dsml,
    &qwen_coder::QwenCoder,
    &tool_call::ToolCall,
    &kimi::Kimi,
    &deepseek::DeepSeek,
    &mistral::Mistral,
    &json_list::Llama3,
    &json_list::Granite,
    &cohere::Cohere,
    &harmony::Harmony,
    &pythonic::Llama4,
];

/// Whether a tool of this name is declared: a call list with no sentinel is a
/// call only when every name in it is.
pub type Declared<'a> = &'a dyn Fn(&str) -> bool;

/// Finds every leaked call in `text`, in order; returns them and the text with
/// their markup removed.
pub fn find(text: &str, declared: Declared) -> (Vec<Leaked>, String) {
    let mut calls = Vec::new();
    let mut clean = String::with_capacity(text.len());
    let mut at = 0;
    let mut openings = Openings::new(text);
    while let Some((start, family)) = openings.next(text, at) {
        clean.push_str(text.get(at..start).unwrap_or_default());
        let (found, used) = family.read(text.get(start..).unwrap_or_default());
        calls.extend(found.into_iter().map(|mut l| {
            if l.family.is_empty() {
                l.family = family.name();
            }
            l
        }));
        // Past the markup; every opening starts with an ASCII byte, so one
        // byte on is a character boundary too.
        at = start + used.max(1);
    }
    clean.push_str(text.get(at..).unwrap_or_default());
    if calls.is_empty()
        && clean.len() == text.len()
        && let Some(bare) = bare(text.trim(), declared)
    {
        return (bare, String::new());
    }
    if calls.is_empty()
        && clean.len() == text.len()
        && let Some(found) = fallback::find(text, declared)
    {
        return found;
    }
    if !calls.is_empty() || clean.len() != text.len() {
        for closing in FAMILIES.iter().flat_map(|f| f.closings()) {
            clean = clean.replace(closing, "");
        }
    }
    (calls, clean.trim().to_owned())
}

/// Where each opening next occurs outside code, remembered between calls so that
/// the text is searched once per opening, not once per call found (which was
/// quadratic).
struct Openings {
    all: Vec<(&'static str, &'static dyn Family)>,
    /// Per opening: `None` not searched yet; `Some(None)` no more in the text;
    /// `Some(Some(i))` the next one at byte `i`.
    next: Vec<Option<Option<usize>>>,
    /// Per opening: the first code range that does not end before its last
    /// occurrence (occurrences only move forward, so this does too).
    code_at: Vec<usize>,
    /// Code spans and fenced blocks, in order: byte ranges where nothing is a
    /// call.
    code: Vec<(usize, usize)>,
    /// Work done on code ranges (building them, and checking occurrences
    /// against them): linear in the text.
    steps: usize,
}

impl Openings {
    fn new(text: &str) -> Self {
        let all: Vec<_> = FAMILIES
            .iter()
            .flat_map(|f| f.openings().iter().map(move |o| (*o, *f)))
            .collect();
        let mut steps = 0;
        let code = code_ranges(text, &mut steps);
        Openings {
            next: vec![None; all.len()],
            code_at: vec![0; all.len()],
            all,
            code,
            steps,
        }
    }

    /// The first opening at or after byte `from` of `text`, outside code.
    fn next(&mut self, text: &str, from: usize) -> Option<(usize, &'static dyn Family)> {
        let search = |from: usize, pat: &str| text.get(from..)?.find(pat).map(|i| i + from);
        let mut best: Option<(usize, &'static dyn Family)> = None;
        let code = &self.code;
        let mut steps = 0;
        for ((slot, code_at), (pat, family)) in
            self.next.iter_mut().zip(&mut self.code_at).zip(&self.all)
        {
            let mut at = match *slot {
                Some(Some(i)) if i >= from => Some(i),
                Some(None) => None,
                _ => search(from, pat),
            };
            while let Some(i) = at {
                while code.get(*code_at).is_some_and(|&(_, end)| end <= i) {
                    *code_at += 1;
                    steps += 1;
                }
                steps += 1;
                match code.get(*code_at) {
                    Some(&(start, end)) if start <= i => at = search(end, pat),
                    _ => break,
                }
            }
            *slot = Some(at);
            if let Some(i) = at
                && best.is_none_or(|(b, _)| i < b)
            {
                best = Some((i, *family));
            }
        }
        self.steps += steps;
        best
    }
}

/// The byte ranges of code spans and fenced code blocks: a run of backticks
/// up to the next run of the same length. A run with no match is literal.
/// One pass: every run is found once, and each run's next run of the same
/// length is known before matching starts (looking for it from each opener
/// was quadratic).
fn code_ranges(text: &str, steps: &mut usize) -> Vec<(usize, usize)> {
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

/// A message that is nothing but a pythonic call list with no sentinel, every
/// name in it declared. A list cut off is a call (not closed) when the name it
/// starts with is declared. (JSON calls with no sentinel: `fallback.rs`.)
fn bare(text: &str, declared: Declared) -> Option<Vec<Leaked>> {
    let tag = |mut calls: Vec<Leaked>, family| {
        for c in &mut calls {
            c.family = family;
        }
        Some(calls)
    };
    if let Some(first) = pythonic::first_name(text) {
        return match pythonic::whole(text) {
            Ok(Some(calls)) if calls.iter().all(|c| declared(&c.name)) => {
                tag(pythonic::leaked_calls(calls, text), "pythonic")
            }
            Err(pythonic::Stop::Cut) if declared(first) => {
                tag(unclosed_call(text, first).0, "pythonic")
            }
            Err(pythonic::Stop::Deep) if declared(first) => {
                tag(malformed(text, "", pythonic::too_deep()).0, "pythonic")
            }
            _ => None,
        };
    }
    None
}

/// The name in `[{"name": "x"` or `{"name": "x"` at the start of `text`.
fn json_first_name(text: &str) -> Option<&str> {
    let t = text.strip_prefix('[').unwrap_or(text).trim_start();
    let t = t.strip_prefix('{')?.trim_start();
    let t = t.strip_prefix("\"name\"")?.trim_start();
    let t = t.strip_prefix(':')?.trim_start();
    let (name, _) = t.strip_prefix('"')?.split_once('"')?;
    (!name.contains('\\')).then_some(name)
}

fn malformed(markup: &str, name: &str, why: String) -> (Vec<Leaked>, usize) {
    (
        vec![Leaked {
            name: name.to_owned(),
            args: Err(why),
            markup: markup.to_owned(),
            family: "",
            written: Written::default(),
        }],
        markup.len(),
    )
}

/// The markup from `open` (which `text` starts with) to `close`, if the text
/// closes it, and the body between the two.
fn enclosed<'t>(text: &'t str, open: &str, close: &str) -> Option<(&'t str, &'t str)> {
    let mut c = Cursor::new(text);
    if !c.eat(open) {
        return None;
    }
    let body = c.take_until(close)?;
    Some((c.done(), body))
}

/// A call whose markup is never closed: the rest of the text is its markup.
fn unclosed(text: &str) -> (Vec<Leaked>, usize) {
    unclosed_call(text, "")
}

/// The same, for a call whose name could be read before the markup was cut off
/// (the call is rejected all the same; its result names the tool).
fn unclosed_call(text: &str, name: &str) -> (Vec<Leaked>, usize) {
    malformed(
        text,
        name,
        "the tool call written in the text is not closed".into(),
    )
}

/// A call read from `markup`.
fn found(name: String, args: Map<String, Value>, markup: &str) -> (Vec<Leaked>, usize) {
    (vec![leaked(name, Ok(args), markup)], markup.len())
}

/// A call read from `markup` whose argument values are all untyped text.
fn found_untyped(name: String, args: Map<String, Value>, markup: &str) -> (Vec<Leaked>, usize) {
    let mut call = leaked(name, Ok(args), markup);
    if let Ok(args) = &call.args {
        call.written.untyped = args.keys().cloned().collect();
    }
    (vec![call], markup.len())
}

fn leaked(name: String, args: Result<Map<String, Value>, String>, markup: &str) -> Leaked {
    Leaked {
        name,
        args,
        markup: markup.to_owned(),
        family: "",
        written: Written::default(),
    }
}

/// A call to `name` whose arguments are the JSON object `json`.
fn object_call(name: &str, json: &str, markup: &str) -> (Vec<Leaked>, usize) {
    match serde_json::from_str::<Value>(json.trim()) {
        Ok(Value::Object(args)) => found(name.to_owned(), args, markup),
        Ok(_) => malformed(markup, name, not_an_object()),
        Err(e) => malformed(markup, name, not_json(&e)),
    }
}

fn no_name(markup: &str) -> (Vec<Leaked>, usize) {
    malformed(
        markup,
        "",
        "the tool call written in the text has no name".into(),
    )
}

fn not_json(e: &serde_json::Error) -> String {
    format!("the tool call written in the text is not valid JSON: {e}")
}

/// Arguments given as an object, or as JSON text holding one.
fn object_args(value: Option<&Value>) -> Result<Map<String, Value>, String> {
    match value {
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(not_an_object()),
        },
        None => Ok(Map::new()),
        Some(_) => Err(not_an_object()),
    }
}

fn not_an_object() -> String {
    "the arguments of the tool call written in the text are not a JSON object".to_owned()
}

/// The one JSON value the cursor stands before (after whitespace), moving past
/// it; a value cut off by the end of the text is "not closed". Returns the
/// value and its text.
fn json_value<'t>(c: &mut Cursor<'t>) -> Result<(Value, &'t str), String> {
    let rest = c.rest();
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => match c.take(values.byte_offset()) {
            Some(json) => Ok((v, json)),
            None => Err("the tool call written in the text is not valid JSON".into()),
        },
        Some(Err(e)) if e.is_eof() => Err("the tool call written in the text is not closed".into()),
        Some(Err(e)) => Err(not_json(&e)),
        None => Err("the tool call written in the text is empty".into()),
    }
}

/// `{"name"|"tool_name", "arguments"|"parameters"}` objects, one or a list,
/// parsed from `json` into `value`. A call in a list of several holds its
/// own element as its markup; a lone call holds `markup`.
fn json_calls(value: &Value, json: &str, markup: &str) -> Vec<Leaked> {
    let (items, spans) = match value {
        Value::Array(items) if items.len() > 1 => (items.iter().collect(), element_spans(json)),
        Value::Array(items) => (items.iter().collect(), Vec::new()),
        other => (vec![other], Vec::new()),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(k, item)| {
            let markup = if spans.is_empty() {
                markup
            } else {
                spans.get(k).copied().unwrap_or_default()
            };
            let name = ["name", "tool_name"]
                .iter()
                .find_map(|key| item.get(*key).and_then(Value::as_str))
                .unwrap_or_default()
                .to_owned();
            if name.is_empty() {
                return leaked(
                    name,
                    Err("the tool call written in the text has no name".into()),
                    markup,
                );
            }
            let args = item.get("arguments").or_else(|| item.get("parameters"));
            leaked(name, object_args(args), markup)
        })
        .collect()
}

/// The text of each element of the JSON array `json` (valid JSON, perhaps
/// with whitespace around), in one pass.
fn element_spans(json: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut start = 0;
    let mut push = |from: usize, to: usize| {
        let span = json.get(from..to).unwrap_or_default().trim();
        if !span.is_empty() {
            spans.push(span);
        }
    };
    for (i, b) in json.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth == 1 {
                    start = i + 1;
                }
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    push(start, i);
                }
            }
            b',' if depth == 1 => {
                push(start, i);
                start = i + 1;
            }
            _ => {}
        }
    }
    spans
}

/// `name="value"` in a tag head.
fn attribute(head: &str, name: &str) -> Option<String> {
    let pat = format!("{name}=\"");
    head.match_indices(&pat)
        // Whole attribute names only (`name=` must not match `filename=`).
        .find(|(at, _)| {
            head.get(..*at)
                .and_then(|before| before.chars().next_back())
                .is_none_or(char::is_whitespace)
        })
        .and_then(|(at, _)| {
            let value = head.get(at + pat.len()..)?;
            value.split_once('"').map(|(v, _)| v.to_owned())
        })
}

#[cfg(test)]
mod tests;
