//! The grammar the fuzz target writes in: valid calls in every envelope, and
//! garbage built from the vocabulary of every surface (leak sentinels, stream
//! events, pythonic lists, SSE framing, MCP messages, hook payloads).
//!
//! A stream is a list of [`Part`]s. The generator knows what each valid part
//! must give: [`build`] marks each with a nonce (`fzq<i>`) that no garbage can
//! hold, so the lines of the output holding a nonce must be exactly the
//! expected ones, byte for byte and in order. That expectation comes from the
//! generator, never from the run's own counters.

use proptest::prelude::*;
use serde_json::{Value, json};

/// The marker of valid calls; nothing in the vocabulary contains it.
pub(crate) const NONCE: &str = "fzq";

mod markup;
mod streams;
mod vocab;
mod wire;

pub(crate) use markup::{leak_record, markup_record, pythonic_record};
pub(crate) use streams::stream_event;
pub(crate) use vocab::LEAK_TOKENS;
pub(crate) use wire::{hook_payload, mcp_message, plain_garbage, sse_lines};

// ------------------------------------------------------------------ valid calls

/// The arguments of a valid call.
#[derive(Debug, Clone)]
pub(crate) enum Args {
    /// `glob` with `pattern` = the nonce.
    Glob,
    /// `read` with `file_path` = "/" + nonce and `offset` in this spelling.
    Read(&'static str),
}

impl Args {
    fn tool(&self) -> &'static str {
        match self {
            Args::Glob => "glob",
            Args::Read(_) => "read",
        }
    }

    /// The compact JSON text: what `-f args` must print, byte for byte.
    pub(crate) fn text(&self, nonce: &str) -> String {
        match self {
            Args::Glob => format!(r#"{{"pattern":"{nonce}"}}"#),
            Args::Read(offset) => format!(r#"{{"file_path":"/{nonce}","offset":{offset}}}"#),
        }
    }
}

fn args() -> impl Strategy<Value = Args> {
    prop_oneof![
        2 => Just(Args::Glob),
        1 => prop::sample::select(vec!["120", "1.50e1", "1E2", "2.0", "7"]).prop_map(Args::Read),
    ]
}

/// The markup of each leak family for `glob(pattern=N)`; `N` is replaced.
pub(super) const LEAK_TEMPLATES: &[&str] = &[
    "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"glob\">\n<｜DSML｜parameter name=\"pattern\" string=\"true\">@</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "<minimax:tool_call>\n<invoke name=\"glob\">\n<parameter name=\"pattern\">@</parameter>\n</invoke>\n</minimax:tool_call>",
    "<function=glob>\n<parameter=pattern>\n@\n</parameter>\n</function>",
    "<tool_call>\n<function=glob>\n<parameter=pattern>\n@\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"@\"}}\n</tool_call>",
    "<tool_call>glob\n<arg_key>pattern</arg_key>\n<arg_value>@</arg_value>\n</tool_call>",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.glob:0<|tool_call_argument_begin|>{\"pattern\": \"@\"}<|tool_call_end|><|tool_calls_section_end|>",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>glob\n```json\n{\"pattern\": \"@\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>glob<｜tool▁sep｜>{\"pattern\": \"@\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "[TOOL_CALLS][{\"name\": \"glob\", \"arguments\": {\"pattern\": \"@\"}, \"id\": \"D681PevKs\"}]",
    "[TOOL_CALLS]glob[ARGS]{\"pattern\": \"@\"}",
    "<|python_tag|>{\"name\": \"glob\", \"parameters\": {\"pattern\": \"@\"}}<|eom_id|>",
    "<|tool_call|>[{\"name\": \"glob\", \"arguments\": {\"pattern\": \"@\"}}]",
    "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"glob\", \"parameters\": {\"pattern\": \"@\"}}\n]<|END_ACTION|>",
    "<|start|>assistant<|channel|>commentary to=functions.glob <|constrain|>json<|message|>{\"pattern\": \"@\"}<|call|>",
    "<|channel|>commentary to=functions.glob <|constrain|>json<|message|>{\"pattern\": \"@\"}",
    "<|python_start|>[glob(pattern=\"@\")]<|python_end|>",
];

/// Sentinel-free lists: a call only as the whole message.
pub(super) const BARE_TEMPLATES: &[&str] = &[
    "[glob(pattern='@')]",
    "[{\"name\": \"glob\", \"arguments\": {\"pattern\": \"@\"}}]",
];

/// The envelope a valid call travels in.
#[derive(Debug, Clone)]
pub(crate) enum Shape {
    Generic,
    GenericText,
    OpenAiCall,
    AnthropicBlock,
    Gemini,
    Mcp,
    Hook,
    /// `data: ` + a generic call.
    SseData,
    /// Assistant text holding the family's markup, after prose quoting the
    /// sentinels in code (which is no call).
    Leak(usize, String),
    Bare(usize),
    /// A stream whose argument text is split at this fraction; SSE-framed or not.
    ChatStream(bool, u8),
    AnthropicStream(bool, u8),
    ResponsesStream(bool, u8),
}

/// The sentinels a code span can quote: a span ends at a line break here, and
/// a blank line then an indent would begin indented code (quoted text whose
/// lines are the call's own).
fn inline_tokens() -> Vec<&'static str> {
    LEAK_TOKENS
        .iter()
        .copied()
        .filter(|t| !t.contains('\n'))
        .collect()
}

/// Prose with code spans that quote sentinels: never a call.
fn inert_prose() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("I will look. ".to_owned()),
            prop::sample::select(inline_tokens())
                .prop_map(|t| format!("`{}` ", t.replace('`', ""))),
            (prop::sample::select(inline_tokens()), 1usize..50)
                .prop_map(|(t, n)| format!("`{}` ", t.replace('`', "").repeat(n))),
        ],
        0..4,
    )
    .prop_map(|v| v.concat())
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        1 => Just(Shape::Generic),
        1 => Just(Shape::GenericText),
        1 => Just(Shape::OpenAiCall),
        1 => Just(Shape::AnthropicBlock),
        1 => Just(Shape::Gemini),
        1 => Just(Shape::Mcp),
        1 => Just(Shape::Hook),
        1 => Just(Shape::SseData),
        3 => (0..LEAK_TEMPLATES.len(), inert_prose()).prop_map(|(i, p)| Shape::Leak(i, p)),
        1 => (0..BARE_TEMPLATES.len()).prop_map(Shape::Bare),
        2 => (any::<bool>(), any::<u8>()).prop_map(|(s, f)| Shape::ChatStream(s, f)),
        2 => (any::<bool>(), any::<u8>()).prop_map(|(s, f)| Shape::AnthropicStream(s, f)),
        2 => (any::<bool>(), any::<u8>()).prop_map(|(s, f)| Shape::ResponsesStream(s, f)),
    ]
}

fn split(text: &str, f: u8) -> (&str, &str) {
    let at = text.len() * usize::from(f) / 256;
    text.split_at(at)
}

/// Stream events as lines: `data: ` + JSON (with `event:` and blank lines) or
/// bare JSON Lines.
pub(crate) fn events(sse: bool, events: &[Value]) -> String {
    let mut out = Vec::new();
    for e in events {
        if sse {
            if let Some(t) = e.get("type").and_then(Value::as_str) {
                out.push(format!("event: {t}"));
            }
            out.push(format!("data: {e}"));
            out.push(String::new());
        } else {
            out.push(e.to_string());
        }
    }
    if sse {
        out.pop();
    }
    out.join("\n")
}

/// The input lines of one valid call (no final newline), and what `-f args`
/// must print for it.
fn render(shape: &Shape, args: &Args, nonce: &str) -> (String, String) {
    let want = args.text(nonce);
    let tool = args.tool();
    let value: Value = serde_json::from_str(&want).unwrap();
    // Objects built by text, so number spellings stay as written.
    let text = match shape {
        Shape::Generic => format!(r#"{{"name":"{tool}","arguments":{want}}}"#),
        Shape::GenericText => json!({"name": tool, "arguments": want}).to_string(),
        Shape::OpenAiCall => format!(
            r#"{{"id":"call_{nonce}","type":"function","function":{{"name":"{tool}","arguments":{}}}}}"#,
            json!(want)
        ),
        Shape::AnthropicBlock => {
            format!(r#"{{"type":"tool_use","id":"toolu_{nonce}","name":"{tool}","input":{want}}}"#)
        }
        Shape::Gemini => format!(r#"{{"functionCall":{{"name":"{tool}","args":{want}}}}}"#),
        Shape::Mcp => format!(
            r#"{{"jsonrpc":"2.0","id":"{nonce}","method":"tools/call","params":{{"name":"{tool}","arguments":{want}}}}}"#
        ),
        Shape::Hook => format!(
            r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"{tool}","tool_input":{want},"tool_use_id":"toolu_{nonce}"}}"#
        ),
        Shape::SseData => format!(r#"data: {{"name":"{tool}","arguments":{want}}}"#),
        Shape::Leak(i, prose) => {
            let markup = LEAK_TEMPLATES[*i].replace('@', nonce);
            let want = Args::Glob.text(nonce);
            let content = format!("{prose}{markup}");
            return (
                json!({"role": "assistant", "content": content}).to_string(),
                want,
            );
        }
        Shape::Bare(i) => {
            let markup = BARE_TEMPLATES[*i].replace('@', nonce);
            return (
                json!({"role": "assistant", "content": markup}).to_string(),
                Args::Glob.text(nonce),
            );
        }
        Shape::ChatStream(sse, _)
        | Shape::AnthropicStream(sse, _)
        | Shape::ResponsesStream(sse, _) => events(*sse, &stream_events(shape, &want, tool, nonce)),
    };
    let _ = value;
    (text, want)
}

/// The events of a stream shape writing one call of `tool` whose arguments
/// are `want`, split at the shape's fraction (none for other shapes).
pub(crate) fn stream_events(shape: &Shape, want: &str, tool: &str, nonce: &str) -> Vec<Value> {
    match shape {
        Shape::ChatStream(_, f) => {
            let (a, b) = split(want, *f);
            let id = format!("chatcmpl-{nonce}");
            // One stream in three from a server that leaves `object` out.
            let named = f % 3 != 1;
            let chunk = |choice: Value| {
                let mut chunk = json!({"id": id, "object": "chat.completion.chunk", "model": "m", "choices": [choice]});
                if !named && let Some(map) = chunk.as_object_mut() {
                    map.remove("object");
                }
                chunk
            };
            if f % 4 == 0 {
                // n = 2: a second choice's call 0, interleaved (a merge of the
                // two would spoil the nonce call; `cut.rs` never asks for it).
                let other = |delta: Value, finish: Value| {
                    chunk(json!({"index": 1, "delta": delta, "finish_reason": finish}))
                };
                let own = |delta: Value, finish: Value| {
                    chunk(json!({"index": 0, "delta": delta, "finish_reason": finish}))
                };
                let args = |text: &str| json!({"tool_calls": [{"index": 0, "function": {"arguments": text}}]});
                return vec![
                    own(
                        json!({"tool_calls": [{"index": 0, "id": format!("call_{nonce}"), "type": "function", "function": {"name": tool, "arguments": ""}}]}),
                        Value::Null,
                    ),
                    other(
                        json!({"tool_calls": [{"index": 0, "id": "call_other", "type": "function", "function": {"name": "glob", "arguments": ""}}]}),
                        Value::Null,
                    ),
                    own(args(a), Value::Null),
                    other(args("{\"pattern\": "), Value::Null),
                    own(args(b), Value::Null),
                    other(args("\"*.md\"}"), json!("tool_calls")),
                    own(json!({}), json!("tool_calls")),
                ];
            }
            vec![
                chunk(
                    json!({"index": 0, "delta": {"role": "assistant", "content": null}, "finish_reason": null}),
                ),
                chunk(
                    json!({"index": 0, "delta": {"tool_calls": [{"index": 0, "id": format!("call_{nonce}"), "type": "function", "function": {"name": tool, "arguments": ""}}]}, "finish_reason": null}),
                ),
                chunk(
                    json!({"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": a}}]}, "finish_reason": null}),
                ),
                chunk(
                    json!({"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": b}}]}, "finish_reason": null}),
                ),
                chunk(json!({"index": 0, "delta": {}, "finish_reason": "tool_calls"})),
            ]
        }
        Shape::AnthropicStream(_, f) => {
            let (a, b) = split(want, *f);
            vec![
                json!({"type": "message_start", "message": {"id": format!("msg_{nonce}"), "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": null}}),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": format!("toolu_{nonce}"), "name": tool, "input": {}}}),
                json!({"type": "ping"}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": a}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": b}}),
                json!({"type": "content_block_stop", "index": 0}),
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
                json!({"type": "message_stop"}),
            ]
        }
        Shape::ResponsesStream(_, f) => {
            let (a, b) = split(want, *f);
            let item = |args: &str, status: &str| json!({"id": format!("fc_{nonce}"), "type": "function_call", "status": status, "arguments": args, "call_id": format!("call_{nonce}"), "name": tool});
            let response = |status: &str, output: Value| json!({"id": format!("resp_{nonce}"), "object": "response", "status": status, "output": output});
            vec![
                json!({"type": "response.created", "response": response("in_progress", json!([]))}),
                json!({"type": "response.output_item.added", "output_index": 0, "item": item("", "in_progress")}),
                json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": a}),
                json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": b}),
                json!({"type": "response.function_call_arguments.done", "output_index": 0, "arguments": want}),
                json!({"type": "response.output_item.done", "output_index": 0, "item": item(want, "completed")}),
                // Servers that give the output only in the item events: the
                // completed output empty, or absent.
                match f % 3 {
                    0 => {
                        json!({"type": "response.completed", "response": response("completed", json!([]))})
                    }
                    1 => {
                        let mut r = response("completed", Value::Null);
                        r.as_object_mut().map(|r| r.remove("output"));
                        json!({"type": "response.completed", "response": r})
                    }
                    _ => {
                        json!({"type": "response.completed", "response": response("completed", json!([item(want, "completed")]))})
                    }
                },
            ]
        }
        _ => Vec::new(),
    }
}

// ------------------------------------------------------------------ garbage

/// How many times to repeat: mostly small, sometimes deep enough to overflow a
/// stack that has no depth limit.
pub(super) fn count() -> impl Strategy<Value = usize> {
    prop_oneof![8 => 0usize..8, 2 => 8usize..300, 1 => 300usize..30_000]
}

/// A text repeated: the combinator that reaches deep nesting and many calls.
pub(super) fn repeat(open: &'static str, close: &'static str, n: usize, leaf: &str) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * n + leaf.len());
    for _ in 0..n {
        s.push_str(open);
    }
    s.push_str(leaf);
    for _ in 0..n {
        s.push_str(close);
    }
    s
}

/// Which surfaces garbage comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Surface {
    Streams,
    Leaks,
    Pythonic,
    Sse,
    McpAndHook,
    All,
}

pub(crate) fn garbage(surface: Surface) -> BoxedStrategy<Vec<u8>> {
    let json_line = |s: BoxedStrategy<Value>| s.prop_map(|v| v.to_string().into_bytes()).boxed();
    match surface {
        Surface::Streams => stream_event().boxed(),
        Surface::Leaks => prop_oneof![1 => leak_record(), 3 => markup_record()].boxed(),
        Surface::Pythonic => pythonic_record().boxed(),
        Surface::Sse => prop_oneof![3 => sse_lines(), 1 => stream_event()].boxed(),
        Surface::McpAndHook => prop_oneof![
            json_line(mcp_message().boxed()),
            json_line(hook_payload().boxed()),
        ]
        .boxed(),
        Surface::All => prop_oneof![
            stream_event(),
            leak_record(),
            markup_record(),
            pythonic_record(),
            sse_lines(),
            json_line(mcp_message().boxed()),
            json_line(hook_payload().boxed()),
            plain_garbage(),
        ]
        .boxed(),
    }
}

/// One part of a stream.
#[derive(Debug, Clone)]
pub(crate) enum Part {
    Valid(Shape, Args),
    Garbage(Bytes),
}

/// Bytes shown as text in a minimal failing input.
#[derive(Clone)]
pub(crate) struct Bytes(pub(crate) Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

pub(crate) fn parts(surface: Surface) -> impl Strategy<Value = Vec<Part>> {
    // Number spellings ride along where the surface is about envelopes and
    // streams; the markup targets keep to `glob`, so that one finding does not
    // hide another.
    let args = match surface {
        Surface::Streams | Surface::Leaks | Surface::Pythonic | Surface::McpAndHook => {
            Just(Args::Glob).boxed()
        }
        _ => args().boxed(),
    };
    prop::collection::vec(
        prop_oneof![
            2 => (shape(), args).prop_map(|(s, a)| Part::Valid(s, a)),
            3 => garbage(surface).prop_map(|g| Part::Garbage(Bytes(g))),
        ],
        1..10,
    )
}

/// A stream ready to run.
#[derive(Debug)]
pub(crate) struct Case {
    pub(crate) input: Vec<u8>,
    /// What `-f args` must print for the valid parts, in order.
    pub(crate) want: Vec<String>,
    pub(crate) garbage: usize,
    /// Valid calls outside text (`check --calls` reports each call in text).
    pub(crate) recorded: usize,
}

pub(crate) fn build(parts: &[Part]) -> Case {
    let mut input = Vec::new();
    let mut want = Vec::new();
    let mut garbage = 0;
    let mut recorded = 0;
    for (i, p) in parts.iter().enumerate() {
        match p {
            Part::Valid(shape, args) => {
                let (text, w) = render(shape, args, &format!("{NONCE}{i}"));
                input.extend_from_slice(text.as_bytes());
                want.push(w);
                if !matches!(shape, Shape::Leak(..) | Shape::Bare(_)) {
                    recorded += 1;
                }
            }
            Part::Garbage(g) => {
                input.extend_from_slice(&g.0);
                garbage += 1;
            }
        }
        input.push(b'\n');
    }
    Case {
        input,
        want,
        garbage,
        recorded,
    }
}

/// The lines holding a nonce must be exactly the expected ones, in order.
pub(crate) fn exact(lines: &[String], want: &[String]) -> Result<(), String> {
    let got: Vec<&String> = lines.iter().filter(|l| l.contains(NONCE)).collect();
    if got
        .iter()
        .map(|s| s.as_str())
        .eq(want.iter().map(String::as_str))
    {
        Ok(())
    } else {
        Err(format!("valid calls: want {want:?}, got {got:?}"))
    }
}
