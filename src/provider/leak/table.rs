//! The families as data: one row per family of call syntax (`scan.rs` reads
//! a row's markup).
//!
//! A row says which sentinels open the markup, whether a closing sentinel
//! ends it (markup not closed by it is a call cut off: rejected, never
//! completed) or its body does (a JSON value, a call list), what is removed
//! from the text around calls (wrapper closings, stop tokens), and the
//! syntax between: JSON call objects, a name and a separator before JSON
//! arguments, a function tag with XML parameters, call notation, or a body
//! reader of its own for the syntaxes that truly differ (DeepSeek's two
//! layouts, Harmony's channel header, `<tool_call>`'s three bodies).
//!
//! Several rows may share an opening: the first whose syntax claims the text
//! after it reads it (Mistral's JSON list and its `name[ARGS]{…}`).

use super::scan::{Ctx, Read};
use super::tags::{self, Head, Params, Tag};
use super::{deepseek, harmony, pythonic, tool_call};

/// One family of call syntax.
pub(super) struct Row {
    /// Its name in reports (a body may name a sub-family of its own).
    pub(super) family: &'static str,
    /// The sentinels that open its markup.
    pub(super) openings: &'static [&'static str],
    /// The closing sentinel that ends one call's markup; `None` when the
    /// markup ends where its body does.
    pub(super) close: Option<&'static str>,
    /// Removed from the text around calls: wrapper closings, stop tokens.
    pub(super) strip: &'static [&'static str],
    /// What stands between the opening and the end.
    pub(super) syntax: Syntax,
}

/// The syntax of a row's body.
pub(super) enum Syntax {
    /// A wrapper around calls: its opening tag (to its `>`) is removed, and
    /// nothing is read from it.
    Wrapper,
    /// A section of calls: its opening (repeated or not) must be followed by
    /// one of `calls` (a call's opening, or the section's end); anything else
    /// is a malformed call, its markup up to `end` or the end of the text.
    Section {
        calls: &'static [&'static str],
        end: &'static str,
    },
    /// Calls of `row`'s syntax inside one wrapper of this row: the family of
    /// the calls is this row's (Seed's `<seed:tool_call>` around a
    /// Qwen-Coder function tag).
    Around(&'static Row),
    /// `{"name"|"tool_name", "arguments"|"parameters"}` JSON objects, one or a
    /// list, several joined by `join` when a separator is given. Claims a
    /// body that starts with `[` or `{`.
    Calls { join: Option<&'static str> },
    /// A call id, `sep`, then the arguments as one JSON object.
    Named { id: Id, sep: &'static str },
    /// A function tag (the opening is its start) and its parameters.
    Tag(&'static Tag),
    /// Call notation: a Python call list `[name(p="v"), …]`, or one call
    /// `name(p: "v")`. Claims a body that starts so.
    Notation,
    /// A reader of its own: given the text from the opening on.
    Reader(fn(&str, &mut Ctx) -> Read),
}

/// How a call's name is written before its separator.
#[derive(Clone, Copy)]
pub(super) enum Id {
    /// The name itself, one word.
    Plain,
    /// Kimi's `functions.NAME:INDEX`; written without its `.` or `:`
    /// (`functionsexec5`), the reading that names a declared tool, when only
    /// one does.
    Kimi,
}

const QWEN_PARAMS: Params = Params {
    open: "<parameter=",
    head: Head::Eq,
    close: "</parameter>",
    layout: true,
    string_attr: false,
    untyped: true,
};

/// `<function=x><parameter=p>…</parameter></function>` (Qwen-Coder), and
/// `<function=x>{…}</function>` (Llama 3.1's custom tools).
pub(super) static QWEN: Tag = Tag {
    head: Head::Eq,
    params: QWEN_PARAMS,
    json_body: Some("llama3"),
};

const DSML_PARAMS: Params = Params {
    open: "<｜DSML｜parameter ",
    head: Head::Attr,
    close: "</｜DSML｜parameter>",
    layout: false,
    string_attr: true,
    untyped: true,
};

static DSML: Tag = Tag {
    head: Head::Attr,
    params: DSML_PARAMS,
    json_body: None,
};

/// MiniCPM5: `<function name="x"><param name="p">…</param></function>`,
/// values as text, perhaps in `<![CDATA[…]]>`.
static MINICPM: Tag = Tag {
    head: Head::Quoted,
    params: Params {
        open: "<param ",
        close: "</param>",
        string_attr: false,
        ..DSML_PARAMS
    },
    json_body: None,
};

static MINIMAX: Tag = Tag {
    head: Head::Attr,
    params: Params {
        open: "<parameter ",
        close: "</parameter>",
        ..DSML_PARAMS
    },
    json_body: None,
};

const QWEN_ROW: Row = Row {
    family: "qwen-coder",
    openings: &["<function="],
    close: Some("</function>"),
    strip: &[],
    syntax: Syntax::Tag(&QWEN),
};

/// Every family, in the order rows sharing an opening are tried.
pub(super) static ROWS: &[Row] = &[
    Row {
        family: "dsml",
        openings: &["<｜DSML｜invoke "],
        close: Some("</｜DSML｜invoke>"),
        strip: &[],
        syntax: Syntax::Tag(&DSML),
    },
    Row {
        family: "dsml",
        openings: &["<invoke "],
        close: Some("</invoke>"),
        strip: &[],
        syntax: Syntax::Tag(&MINIMAX),
    },
    Row {
        family: "dsml",
        openings: &[
            "<｜DSML｜function_calls>",
            "<function_calls>",
            "<minimax:tool_call>",
        ],
        close: None,
        strip: &[
            "</｜DSML｜function_calls>",
            "</function_calls>",
            "</minimax:tool_call>",
        ],
        syntax: Syntax::Wrapper,
    },
    QWEN_ROW,
    Row {
        family: "minicpm",
        openings: &["<function name="],
        close: Some("</function>"),
        strip: &[],
        syntax: Syntax::Tag(&MINICPM),
    },
    Row {
        family: "llama3",
        openings: &["function="],
        close: None,
        strip: &[],
        syntax: Syntax::Reader(tags::bare_function),
    },
    Row {
        family: "seed",
        openings: &["<seed:tool_call>"],
        close: Some("</seed:tool_call>"),
        strip: &[],
        syntax: Syntax::Around(&QWEN_ROW),
    },
    Row {
        family: "hermes",
        openings: &["<tool_call>"],
        close: None,
        strip: &[],
        syntax: Syntax::Reader(tool_call::read),
    },
    Row {
        family: "kimi-k2",
        openings: &["<|tool_calls_section_begin|>"],
        close: None,
        strip: &["<|tool_calls_section_end|>"],
        syntax: Syntax::Section {
            calls: &["<|tool_call_begin|>", "<|tool_calls_section_end|>"],
            end: "<|tool_calls_section_end|>",
        },
    },
    // The singular spelling some servers' templates write.
    Row {
        family: "kimi-k2",
        openings: &["<|tool_call_section_begin|>"],
        close: None,
        strip: &["<|tool_call_section_end|>"],
        syntax: Syntax::Section {
            calls: &["<|tool_call_begin|>", "<|tool_call_section_end|>"],
            end: "<|tool_call_section_end|>",
        },
    },
    Row {
        family: "kimi-k2",
        openings: &["<|tool_call_begin|>"],
        close: Some("<|tool_call_end|>"),
        strip: &[],
        syntax: Syntax::Named {
            id: Id::Kimi,
            sep: "<|tool_call_argument_begin|>",
        },
    },
    Row {
        family: "deepseek-v3",
        openings: &["<｜tool▁calls▁begin｜>"],
        close: None,
        strip: &["<｜tool▁calls▁end｜>"],
        syntax: Syntax::Section {
            calls: &["<｜tool▁call▁begin｜>", "<｜tool▁calls▁end｜>"],
            end: "<｜tool▁calls▁end｜>",
        },
    },
    Row {
        family: "deepseek-v3",
        openings: &["<｜tool▁call▁begin｜>"],
        close: None,
        strip: &[],
        syntax: Syntax::Reader(deepseek::read),
    },
    Row {
        family: "mistral",
        openings: &["[TOOL_CALLS]"],
        close: None,
        strip: &[],
        syntax: Syntax::Calls { join: None },
    },
    Row {
        family: "mistral",
        openings: &["[TOOL_CALLS]"],
        close: None,
        strip: &[],
        syntax: Syntax::Named {
            id: Id::Plain,
            sep: "[ARGS]",
        },
    },
    Row {
        family: "llama3",
        openings: &["<|python_tag|>"],
        close: None,
        strip: &["<|eom_id|>", "<|eot_id|>"],
        syntax: Syntax::Calls { join: Some(";") },
    },
    Row {
        family: "llama3",
        openings: &["<|python_tag|>"],
        close: None,
        strip: &["<|eom_id|>", "<|eot_id|>"],
        syntax: Syntax::Notation,
    },
    Row {
        family: "granite",
        openings: &["<|tool_call|>"],
        close: None,
        strip: &[],
        syntax: Syntax::Calls { join: None },
    },
    Row {
        family: "cohere",
        openings: &["<|START_ACTION|>"],
        close: Some("<|END_ACTION|>"),
        strip: &[],
        syntax: Syntax::Calls { join: None },
    },
    Row {
        family: "harmony",
        openings: &[
            "<|start|>assistant<|channel|>commentary to=functions.",
            "<|start|>assistant to=functions.",
            "<|channel|>commentary to=functions.",
        ],
        close: None,
        strip: &[],
        syntax: Syntax::Reader(harmony::read),
    },
    Row {
        family: "pythonic",
        openings: &["<|python_start|>"],
        close: None,
        strip: &["<|python_end|>"],
        syntax: Syntax::Notation,
    },
    Row {
        family: "llama4",
        openings: &["<|python_start|>"],
        close: None,
        strip: &["<|python_end|>"],
        syntax: Syntax::Calls { join: Some(";") },
    },
];

/// The row that reads the markup opened by `opening` at the start of `text`:
/// the first of those sharing the opening whose syntax claims what follows.
pub(super) fn row_for(opening: &str, text: &str) -> Option<&'static Row> {
    let after = text.get(opening.len()..).unwrap_or_default().trim_start();
    let mut rows = ROWS.iter().filter(|r| r.openings.contains(&opening));
    let first = rows.clone().next();
    rows.find(|r| match r.syntax {
        Syntax::Calls { .. } => after.starts_with(['[', '{']),
        Syntax::Notation => {
            let list = after
                .strip_prefix('[')
                .is_some_and(|l| !l.trim_start().starts_with('{'));
            list || pythonic::call_name(after).is_some()
        }
        _ => true,
    })
    .or(first)
}

/// The row whose family is `family` (for a wrapper's inner call).
pub(super) fn row_named(family: &str) -> Option<&'static Row> {
    ROWS.iter().find(|r| r.family == family)
}

/// The families read with no sentinel, which stand as the whole message or
/// end it: a bare call list and a call in call notation (`pythonic`, `call`:
/// `bare` in `mod.rs`) and the JSON fallback (`json`, `tool_use`:
/// `fallback/`). `pythonic` also names the calls of Llama 4's
/// `<|python_start|>` row above, which count as read by the message's end
/// too.
const SENTINEL_FREE: [&str; 4] = ["json", "tool_use", "call", "pythonic"];

/// Whether calls of `family` are found with no sentinel ([`SENTINEL_FREE`]):
/// such a call is read because the message ended where it did.
pub(crate) fn sentinel_free(family: &str) -> bool {
    SENTINEL_FREE.contains(&family)
}
