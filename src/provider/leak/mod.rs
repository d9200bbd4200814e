//! Tool calls written into assistant text instead of emitted as calls.
//!
//! The families are data: one row each in `table::ROWS` (`table.rs`), read by
//! one scanner (`scan.rs`). A row gives the sentinels that open the markup, the closing
//! sentinel that ends one call (or none, when the call ends where its JSON or
//! call list does), what is removed from the text around calls (wrapper
//! closings, stop tokens), and the syntax between: JSON call objects, a name
//! and a separator before JSON arguments, a function tag with XML parameters
//! (`tags.rs`: tag and parameter syntaxes are data too), call notation, or a
//! body reader of its own where the syntax truly differs (DeepSeek V3's
//! fenced arguments, Harmony's header, the three bodies of `<tool_call>`).
//!
//! To add a family: add its row to `ROWS` (a new `Tag`/`Params` constant if
//! its XML differs), its openings and closings to `LEAK_TOKENS` in
//! `tests/fuzz/grammar/vocab.rs`, fixtures of the whole markup and of the markup cut
//! off to `tests.rs` and `tests/cli/`, and its line to the table below and to
//! docs/providers.md.
//!
//! | family | markup |
//! |---|---|
//! | `dsml` | DeepSeek DSML / MiniMax: `<[｜DSML｜]invoke name="x"><[｜DSML｜]parameter name="p" string="true">…` |
//! | `qwen-coder` | `<function=x><parameter=p>…</parameter></function>` |
//! | `hermes` | `<tool_call>{"name", "arguments"}</tool_call>` (Hermes, Qwen) |
//! | `minicpm` | `<function name="x"><param name="p">…</param></function>` (MiniCPM5) |
//! | `seed` | `<seed:tool_call><function=x><parameter=p>…</parameter></function></seed:tool_call>` |
//! | `qwen3-coder` | `<tool_call><function=x>…</function></tool_call>` |
//! | `glm` | `<tool_call>x<arg_key>p</arg_key><arg_value>…</arg_value></tool_call>` |
//! | `kimi-k2` | `<\|tool_call_begin\|>functions.x:0<\|tool_call_argument_begin\|>{…}<\|tool_call_end\|>` (section tokens plural or singular) |
//! | `deepseek-v3` | `<｜tool▁call▁begin｜>[function<｜tool▁sep｜>]x…<｜tool▁call▁end｜>` |
//! | `mistral` | `[TOOL_CALLS][{"name", "arguments"}]`, `[TOOL_CALLS]x[ARGS]{…}` |
//! | `llama3` | `<\|python_tag\|>{"name", "parameters"}`, `<function=x>{…}</function>` |
//! | `llama4` | `<\|python_start\|>{"type": "function", "name", "parameters"}` |
//! | `granite` | `<\|tool_call\|>[{"name", "arguments"}]`, `<tool_call>[…]` (3.1, no closing tag) |
//! | `cohere` | `<\|START_ACTION\|>[{"tool_name", "parameters"}]<\|END_ACTION\|>` |
//! | `harmony` | `<\|channel\|>commentary to=functions.x <\|constrain\|>json<\|message\|>{…}<\|call\|>` |
//! | `pythonic` | `<\|python_start\|>[x(p="…", n=1)]<\|python_end\|>` (Llama 4), or the bare list |
//! | `call` | call notation starting the message (and lines after it that are each one call): `x(p: "…")`, `x('…')`, `x({p: "…"})`; also inside `<tool_call>` |
//! | `json` | the fallback (`fallback.rs`): a `{"name", "arguments"\|"parameters"}` object or list of them naming declared tools, as the whole message (xLAM, Llama 3 JSON), after a wrapper tag of any name, before a closing tag, in a fence ending the message, after `[Tool Use: x]` |
//! | `tool_use` | the fallback: an Anthropic `tool_use` block (JSON or Python dict repr) as the message or on lines ending it |
//!
//! A family is recognised only by its sentinels, and not inside quoted text
//! (`quoted.rs`: a code span, a fenced block in backticks or tildes, an HTML
//! comment, `<pre>`, `<code>`, an indented code block: prose quoting the
//! syntax is no call); a sentinel that
//! starts with a letter (`function=`) only where a word starts. The
//! sentinel-free syntaxes (a bare pythonic or JSON call list) are recognised
//! only when they are the whole message and every name in them is a declared
//! tool; one call in call notation only when it starts the message and names a
//! declared tool (prose may follow, from the next line, a call with
//! arguments). Markup that is not closed, or JSON that does not parse, is
//! reported as malformed: it is never completed or guessed at; a call cut off
//! keeps the name written before the cut (`cut.rs`). Why a call cannot be
//! read is data, a [`LeakProblem`] (`problem.rs`), worded in
//! `message/leak.rs`: a reader tells one problem from another by its kind. A complete call whose
//! closing token never came, with nothing after it in the message, is read
//! (`<tool_call>{…}`, `<tool_call><function=…>…</function>`, Cohere's list):
//! only a whole JSON value or a closed `</function>` counts as complete.
//!
//! Every reader moves through the text with one checked cursor (`cursor.rs`):
//! no reader indexes or slices the text by hand, so none can panic on it, and
//! the recursive readers (pythonic values, and the JavaScript object literals
//! of call notation, read by `crate::tolerant`) stop at 128 levels
//! (`pythonic::MAX_DEPTH`). A call in a list of several holds its own
//! element's markup, not the list's, so the markup held is linear in the text;
//! a list of one call holds the whole markup (sentinels and brackets included).
//! The search for openings and for code spans is one pass over the text, and
//! a reader that looks ahead for a closing (`scan::Ctx::occurs`) remembers
//! where it found one, so reading is linear too (the tests count the bytes
//! the cursors look at).

mod cursor;
mod cut;
mod deepseek;
mod fallback;
mod harmony;
mod json;
mod problem;
mod pythonic;
mod quoted;
mod scan;
mod table;
mod tags;
mod tool_call;

use serde_json::{Map, Value};

use cursor::Cursor;
pub(crate) use problem::{LeakProblem, PythonProblem};
pub(crate) use table::sentinel_free;

/// One call found in text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Leaked {
    /// The tool name (empty when the markup is too broken to tell).
    pub name: String,
    /// The arguments, or why they cannot be read.
    pub args: Result<Map<String, Value>, LeakProblem>,
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
pub(crate) struct Written {
    /// The top-level arguments whose value is untyped text (XML parameter
    /// families: `<parameter=p>3</parameter>`): each holds a `Value::String` of
    /// the text, which the schema types when the call is judged.
    pub untyped: Vec<String>,
    /// Arguments given by position (`read('/a')`), in order, after the named
    /// ones in `args`: the schema maps them to names when that is unambiguous,
    /// or the call is rejected with an instruction to name them. In the call
    /// they stand before any named one (`read('/a', offset=3)`: positional
    /// `["/a"]`, args `{"offset": 3}`), as Python requires. One object as the
    /// only argument (`read({file_path: "/a"})`) is the arguments, in `args`,
    /// not a positional value.
    pub positional: Vec<Value>,
}

/// Whether a tool of this name is declared: a call list with no sentinel is a
/// call only when every name in it is.
pub type Declared<'a> = &'a dyn Fn(&str) -> bool;

/// Finds every leaked call in `text`, in order; returns them and the text with
/// their markup removed.
pub(crate) fn find(text: &str, declared: Declared) -> (Vec<Leaked>, String) {
    let mut calls = Vec::new();
    let mut clean = String::with_capacity(text.len());
    let mut at = 0;
    let mut openings = Openings::new(text);
    let mut ctx = scan::Ctx::new(text, declared);
    while let Some((start, opening)) = openings.next(text, at) {
        clean.push_str(text.get(at..start).unwrap_or_default());
        let rest = text.get(start..).unwrap_or_default();
        // An opening that starts with a letter starts a word (`function=`,
        // not `myfunction=`).
        let in_word = opening.starts_with(|c: char| c.is_ascii_alphabetic())
            && text
                .get(..start)
                .and_then(|before| before.chars().next_back())
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let read = table::row_for(opening, rest)
            .filter(|_| !in_word)
            .map(|row| (row, scan::read(row, opening, rest, &mut ctx)));
        let Some((row, (found, used))) =
            read.filter(|(_, (found, used))| !found.is_empty() || *used > 0)
        else {
            // Not markup after all: the opening's first byte (ASCII) is text.
            clean.push_str(rest.get(..1).unwrap_or_default());
            at = start + 1;
            continue;
        };
        calls.extend(found.into_iter().map(|mut l| {
            if l.family.is_empty() {
                l.family = row.family;
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
        && let Some((bare, prose)) = bare(text.trim(), declared)
    {
        return (bare, prose.to_owned());
    }
    if calls.is_empty()
        && clean.len() == text.len()
        && let Some(found) = fallback::find(text, declared)
    {
        return found;
    }
    if !calls.is_empty() || clean.len() != text.len() {
        for closing in table::ROWS.iter().flat_map(|r| r.strip) {
            clean = clean.replace(closing, "");
        }
    }
    (calls, clean.trim().to_owned())
}

/// Where each opening next occurs outside code, remembered between calls so that
/// the text is searched once per opening, not once per call found (which was
/// quadratic).
struct Openings {
    /// Every opening of the table, once.
    all: Vec<&'static str>,
    /// Per opening: `None` not searched yet; `Some(None)` no more in the text;
    /// `Some(Some(i))` the next one at byte `i`.
    next: Vec<Option<Option<usize>>>,
    /// Per opening: the first code range that does not end before its last
    /// occurrence (occurrences only move forward, so this does too).
    code_at: Vec<usize>,
    /// Quoted text (`quoted.rs`), in order: byte ranges where nothing is a
    /// call.
    code: Vec<(usize, usize)>,
    /// Work done on code ranges (building them, and checking occurrences
    /// against them): linear in the text.
    steps: usize,
}

impl Openings {
    fn new(text: &str) -> Self {
        let mut all: Vec<&'static str> = Vec::new();
        for opening in table::ROWS.iter().flat_map(|r| r.openings) {
            if !all.contains(opening) {
                all.push(opening);
            }
        }
        let mut steps = 0;
        let code = quoted::ranges(text, &mut steps);
        Openings {
            next: vec![None; all.len()],
            code_at: vec![0; all.len()],
            all,
            code,
            steps,
        }
    }

    /// The first opening at or after byte `from` of `text`, outside code.
    fn next(&mut self, text: &str, from: usize) -> Option<(usize, &'static str)> {
        let search = |from: usize, pat: &str| text.get(from..)?.find(pat).map(|i| i + from);
        let mut best: Option<(usize, &'static str)> = None;
        let code = &self.code;
        let mut steps = 0;
        for ((slot, code_at), pat) in self.next.iter_mut().zip(&mut self.code_at).zip(&self.all) {
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
                best = Some((i, *pat));
            }
        }
        self.steps += steps;
        best
    }
}

/// A message that is nothing but a call list with no sentinel: a pythonic
/// list, every name in it declared (JSON calls with no sentinel:
/// `fallback.rs`). A list cut
/// off is a call (not closed) when the name it starts with is declared. Or a
/// message that starts with one call in call notation to a declared tool
/// (`read(file_path="/a")`), alone on its line, perhaps with prose on the
/// lines after it when every argument is named; never `name(1…)`, a manual
/// page or a C call. Returns the calls and the text left.
fn bare<'t>(text: &'t str, declared: Declared) -> Option<(Vec<Leaked>, &'t str)> {
    let tag = |mut calls: Vec<Leaked>, family| {
        for c in &mut calls {
            c.family = family;
        }
        Some((calls, ""))
    };
    if let Some(name) = pythonic::call_name(text) {
        if !declared(name) || pythonic::digits_first(text) {
            return None;
        }
        return match pythonic::leading_call(text) {
            Ok((call, end)) => {
                let markup = text.get(..end).unwrap_or_default();
                let after = text.get(end..).unwrap_or_default();
                // Prose may follow on later lines, not on the call's own
                // (`bash(1) is a manual section` is prose), and only after a
                // call whose arguments are all named: `read() reads a file`,
                // `glob('*.py')` then its explanation, are Python or C in
                // prose. Lines that are each one call are calls too.
                let rest_of_line = after.split('\n').next();
                let alone = rest_of_line.is_none_or(|l| l.trim().is_empty());
                let more = if alone {
                    call_lines(after, declared)
                } else {
                    Vec::new()
                };
                let mut prose = after.trim();
                for (line, _) in &more {
                    prose = prose.get(line.len()..).unwrap_or_default().trim();
                }
                let named = !call.args.is_empty() && call.positional.is_empty();
                if !prose.is_empty() && (!named || !alone) {
                    return None;
                }
                // One call holds the whole markup; several, each its own.
                let mut calls = pythonic::leaked_calls(vec![call], markup);
                for (line, call) in more {
                    calls.extend(pythonic::leaked_calls(vec![call], line));
                }
                let (calls, _) = tag(calls, "call")?;
                Some((calls, prose))
            }
            Err(pythonic::Stop::Cut) => tag(unclosed_call(text, name).0, "call"),
            Err(pythonic::Stop::Deep) => tag(malformed(text, name, pythonic::too_deep()).0, "call"),
            Err(pythonic::Stop::Bad(_)) => None,
        };
    }
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

/// The lines at the start of `rest` (after a call alone on its line) that
/// are each one whole call in call notation to a declared tool, in order,
/// each with its line; up to the first line that is not (prose after them
/// stays prose). A line is read on its own: linear in the text.
fn call_lines<'t>(rest: &'t str, declared: Declared) -> Vec<(&'t str, pythonic::Named)> {
    let mut found = Vec::new();
    let mut rest = rest.trim_start();
    while let Some(name) = pythonic::call_name(rest) {
        let line = rest.split('\n').next().unwrap_or_default().trim_end();
        let whole = pythonic::leading_call(line)
            .ok()
            .filter(|(_, end)| *end == line.len());
        let Some((call, _)) = whole.filter(|_| declared(name) && !pythonic::digits_first(line))
        else {
            break;
        };
        found.push((line, call));
        rest = rest.get(line.len()..).unwrap_or_default().trim_start();
    }
    found
}

fn malformed(markup: &str, name: &str, why: LeakProblem) -> scan::Read {
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
fn unclosed(text: &str) -> scan::Read {
    unclosed_call(text, "")
}

/// The same, for a call whose name could be read before the markup was cut off
/// (the call is rejected all the same; its result names the tool).
fn unclosed_call(text: &str, name: &str) -> scan::Read {
    malformed(text, name, LeakProblem::NotClosed)
}

/// A call read from `markup`.
fn found(name: String, args: Map<String, Value>, markup: &str) -> scan::Read {
    (vec![leaked(name, Ok(args), markup)], markup.len())
}

fn leaked(name: String, args: Result<Map<String, Value>, LeakProblem>, markup: &str) -> Leaked {
    Leaked {
        name,
        args,
        markup: markup.to_owned(),
        family: "",
        written: Written::default(),
    }
}

fn no_name(markup: &str) -> scan::Read {
    malformed(markup, "", LeakProblem::NoName)
}

/// JSON that does not parse, with the parser's reason.
fn not_json(e: &serde_json::Error) -> LeakProblem {
    LeakProblem::NotJson(e.to_string())
}

/// `name="value"` (or `name='value'`) in a tag head.
fn attribute(head: &str, name: &str) -> Option<String> {
    let pat = format!("{name}=");
    head.match_indices(&pat)
        // Whole attribute names only (`name=` must not match `filename=`).
        .find(|(at, _)| {
            head.get(..*at)
                .and_then(|before| before.chars().next_back())
                .is_none_or(char::is_whitespace)
        })
        .and_then(|(at, _)| {
            let value = head.get(at + pat.len()..)?;
            // Double quotes, or single (MiniCPM5's template allows both).
            let q = value.chars().next().filter(|q| matches!(q, '"' | '\''))?;
            let (v, _) = value.get(1..)?.split_once(q)?;
            Some(v.to_owned())
        })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_attack;
#[cfg(test)]
mod tests_families;
