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

/// Every leak family's openings, closings and inner tokens
/// (`src/provider/leak/*.rs`).
pub(crate) const LEAK_TOKENS: &[&str] = &[
    // dsml
    "<｜DSML｜invoke ",
    "<invoke ",
    "<｜DSML｜function_calls>",
    "<function_calls>",
    "<minimax:tool_call>",
    "</｜DSML｜function_calls>",
    "</function_calls>",
    "</minimax:tool_call>",
    "<｜DSML｜parameter name=\"",
    "</｜DSML｜parameter>",
    "</｜DSML｜invoke>",
    "<parameter name=\"",
    "</invoke>",
    " string=\"true\"",
    "name=\"",
    "name=\"\"",
    // qwen-coder, qwen3-coder
    "<function=",
    "</function>",
    "<parameter=",
    "</parameter>",
    // hermes, glm
    "<tool_call>",
    "</tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    // kimi-k2
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "functions.",
    "functions.glob:0",
    // deepseek-v3
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
    "function<｜tool▁sep｜>",
    // mistral
    "[TOOL_CALLS]",
    "[ARGS]",
    // llama3, granite
    "<|python_tag|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|tool_call|>",
    // cohere
    "<|START_ACTION|>",
    "<|END_ACTION|>",
    // harmony
    "<|start|>assistant<|channel|>commentary to=functions.",
    "<|start|>assistant to=functions.",
    "<|channel|>commentary to=functions.",
    " <|constrain|>json",
    "<|message|>",
    "<|call|>",
    // pythonic (Llama 4)
    "<|python_start|>",
    "<|python_end|>",
    // part 15: new families
    "<function name=\"",
    "<param name=\"",
    "</param>",
    "<![CDATA[",
    "]]>",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "function=",
    "function=glob>",
    "<function=glob{",
    "functionsglob0",
    "functions.glob0",
    "<tool_call>[",
    "{\"type\": \"function\", \"function\": {\"name\": \"glob\", \"parameters\": {}}}",
    // call notation (`pythonic.rs`): `:` or `=`, a positional value, an
    // object literal, JSON's literals, on lines of their own
    "glob(pattern: ",
    "glob('*')",
    "glob({pattern: '*'})",
    "glob(pattern=",
    "read(file_path: \"/a\", offset: 3)",
    "read(file_path='/a')",
    "read({file_path: \"/a\"})",
    "read('/a')",
    "read({",
    "read(",
    "file_path: ",
    ", offset: ",
    "true",
    "null",
    "\nglob(pattern: '*')",
    // part 15: fallback wrappers
    "<tools>",
    "</tools>",
    "<assistant>",
    "</assistant>",
    "<tool-use>",
    "</tool-use>",
    "[TOOL_REQUEST]",
    "[END_TOOL_REQUEST]",
    "[Tool Use: glob] ",
    "```tool_call\n",
    "\n```",
    "{'type': 'tool_use', 'id': 'toolu_1', 'name': 'glob', 'input': ",
    "{\"type\": \"function\", \"function\": ",
    "{\"type\": \"function\", \"name\": \"glob\", \"parameters\": ",
    "{\"name\": \"glob\", \"pattern\": ",
];

/// Text around and inside markup: names, punctuation, JSON and Python bits.
const FILLER: &[&str] = &[
    "glob",
    "read",
    "bash",
    "nope",
    "pattern",
    "file_path",
    "=",
    "\"",
    "'",
    ">",
    "<",
    "/",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    " ",
    "\n",
    "`",
    "```",
    "```json\n",
    "\\",
    "\u{2028}",
    "\u{1b}[2J",
    "x",
    "120",
    "I will look. ",
    "{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}}",
    "{\"pattern\": \"*\"}",
    "[{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}}]",
    "{\"tool_name\": \"glob\", \"parameters\": {}}",
    "glob(pattern='*')",
    "[glob(pattern=\"*\")]",
    "{\"name\": \"glob\", \"arguments\": ",
];

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
const LEAK_TEMPLATES: &[&str] = &[
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
const BARE_TEMPLATES: &[&str] = &[
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

/// Prose with code spans that quote sentinels: never a call.
fn inert_prose() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("I will look. ".to_owned()),
            prop::sample::select(LEAK_TOKENS).prop_map(|t| format!("`{}` ", t.replace('`', ""))),
            (prop::sample::select(LEAK_TOKENS), 1usize..50)
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
            let chunk = |choice: Value| json!({"id": id, "object": "chat.completion.chunk", "model": "m", "choices": [choice]});
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
                json!({"type": "response.completed", "response": response("completed", json!([item(want, "completed")]))}),
            ]
        }
        _ => Vec::new(),
    }
}

// ------------------------------------------------------------------ garbage

/// A text repeated: the combinator that reaches deep nesting and many calls.
fn repeat(open: &'static str, close: &'static str, n: usize, leaf: &str) -> String {
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

/// How many times to repeat: mostly small, sometimes deep enough to overflow a
/// stack that has no depth limit.
fn count() -> impl Strategy<Value = usize> {
    prop_oneof![8 => 0usize..8, 2 => 8usize..300, 1 => 300usize..30_000]
}

/// An index-like value: right, wrong type, out of range.
fn index() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(0),
        json!(1),
        json!(7),
        json!(-1),
        json!("0"),
        json!(null),
        json!(1.5),
        json!([0]),
        json!({}),
    ])
}

/// A fragment of argument text.
fn fragment() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "",
            "{",
            "}",
            "{\"pattern\": ",
            "\"*\"}",
            "{\"pattern\": \"*\"}",
            "1E3",
            "\"",
            "[",
            "{\"a\":",
        ])
        .prop_map(|s| json!(s)),
        Just(json!(5)),
        Just(json!(null)),
        Just(json!({"pattern": "*"})),
        Just(json!(["x"])),
    ]
}

/// A value that should be an object and may not be.
fn maybe_object(object: Value) -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => Just(object),
        1 => prop::sample::select(vec![json!("x"), json!(1), json!(null), json!([]), json!([{}]), json!(true), json!({})]),
    ]
}

/// Anthropic Messages events with every field right, wrong or missing.
fn anthropic_event() -> impl Strategy<Value = Value> {
    let kind = prop::sample::select(vec![
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    ]);
    let block = prop_oneof![
        maybe_object(json!({"type": "tool_use", "id": "toolu_g", "name": "glob", "input": {}})),
        maybe_object(json!({"type": "text", "text": ""})),
        maybe_object(json!({"type": "tool_use", "name": 5})),
    ];
    let delta = prop_oneof![
        fragment().prop_flat_map(|f| maybe_object(
            json!({"type": "input_json_delta", "partial_json": f})
        )),
        maybe_object(json!({"type": "text_delta", "text": "hi"})),
        maybe_object(json!({"stop_reason": "tool_use"})),
    ];
    let message = maybe_object(json!({"id": "msg_g", "role": "assistant", "content": []}));
    (
        kind,
        prop::option::of(index()),
        prop::option::of(block),
        prop::option::of(delta),
        prop::option::of(message),
    )
        .prop_map(|(kind, index, block, delta, message)| {
            let mut e = json!({"type": kind});
            for (k, v) in [
                ("index", index),
                ("content_block", block),
                ("delta", delta),
                ("message", message),
            ] {
                if let Some(v) = v {
                    e[k] = v;
                }
            }
            e
        })
}

/// OpenAI chat completion chunks.
fn chat_chunk() -> impl Strategy<Value = Value> {
    let call = (
        prop::option::of(index()),
        prop::option::of(prop::sample::select(vec![
            "glob",
            "read",
            "",
            "gl",
            // Names with a namespace, a token or a path (`rename-tool`).
            "functions.glob",
            "srv__glob",
            "glob<|channel|>commentary",
            "../x/glob",
        ])),
        prop::option::of(fragment()),
        prop::option::of(prop::sample::select(vec![
            json!("call_g"),
            json!(null),
            json!(3),
        ])),
    )
        .prop_map(|(index, name, args, id)| {
            let mut c = json!({"function": {}});
            if let Some(i) = index {
                c["index"] = i;
            }
            if let Some(n) = name {
                c["function"]["name"] = json!(n);
            }
            if let Some(a) = args {
                c["function"]["arguments"] = a;
            }
            if let Some(id) = id {
                c["id"] = id;
            }
            c
        });
    let calls = prop_oneof![
        3 => prop::collection::vec(call, 0..3).prop_map(Value::Array),
        1 => prop::sample::select(vec![json!("x"), json!({}), json!(null), json!([1])]),
    ];
    let choice = (
        calls,
        prop::sample::select(vec![
            json!(null),
            json!("tool_calls"),
            json!("stop"),
            json!(1),
        ]),
    )
        .prop_flat_map(|(calls, finish)| {
            maybe_object(
                json!({"index": 0, "delta": {"tool_calls": calls}, "finish_reason": finish}),
            )
        });
    (
        prop::sample::select(vec![json!("chatcmpl-g1"), json!("chatcmpl-g2"), json!(null), json!(1)]),
        prop_oneof![
            3 => prop::collection::vec(choice, 0..3).prop_map(Value::Array),
            1 => prop::sample::select(vec![json!("x"), json!({}), json!(null)]),
        ],
    )
        .prop_map(|(id, choices)| {
            json!({"id": id, "object": "chat.completion.chunk", "choices": choices})
        })
}

/// OpenAI Responses events.
fn responses_event() -> impl Strategy<Value = Value> {
    let kind = prop::sample::select(vec![
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.output_item.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.completed",
        "response.output_text.delta",
    ]);
    let item = maybe_object(
        json!({"type": "function_call", "name": "glob", "call_id": "call_g", "arguments": ""}),
    );
    let response = maybe_object(json!({"id": "resp_g", "object": "response", "output": []}));
    (
        kind,
        prop::option::of(index()),
        prop::option::of(item),
        prop::option::of(fragment()),
        prop::option::of(fragment()),
        prop::option::of(response),
    )
        .prop_map(|(kind, index, item, delta, args, response)| {
            let mut e = json!({"type": kind});
            for (k, v) in [
                ("output_index", index),
                ("item", item),
                ("delta", delta),
                ("arguments", args),
                ("response", response),
            ] {
                if let Some(v) = v {
                    e[k] = v;
                }
            }
            e
        })
}

/// One stream event of any provider, as a JSON line or an SSE `data:` line.
pub(crate) fn stream_event() -> impl Strategy<Value = Vec<u8>> {
    (
        prop_oneof![anthropic_event(), chat_chunk(), responses_event()],
        any::<bool>(),
    )
        .prop_map(|(e, sse)| {
            if sse {
                format!("data: {e}").into_bytes()
            } else {
                e.to_string().into_bytes()
            }
        })
}

/// Assistant text made of leak tokens and filler, with a repeat combinator.
fn leak_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        3 => prop::sample::select(LEAK_TOKENS).prop_map(str::to_owned),
        2 => prop::sample::select(FILLER).prop_map(str::to_owned),
        1 => (prop::sample::select(LEAK_TOKENS), prop::sample::select(FILLER), count())
            .prop_map(|(a, b, n)| format!("{a}{b}").repeat(n.min(3000))),
        1 => "[a-z=\"<>/ ]{0,8}",
    ];
    prop::collection::vec(token, 0..12).prop_map(|v| v.concat())
}

/// An assistant message whose text is leak soup.
pub(crate) fn leak_record() -> impl Strategy<Value = Vec<u8>> {
    (leak_text(), 0u8..3)
        .prop_map(|(text, how)| {
            match how {
                0 => json!({"role": "assistant", "content": text}),
                1 => json!({"role": "assistant", "content": [{"type": "text", "text": text}]}),
                _ => json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}),
            }
            .to_string()
            .into_bytes()
        })
}

/// Splits markup into tokens: a tag opening up to its `=`, `>` or space
/// (`<function=`, `</parameter`, `<invoke`), `>`, `"`, `=`, runs of space,
/// runs of other text.
fn tokens(markup: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_tag = false;
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.is_empty() {
            out.push(std::mem::take(cur));
        }
    };
    for c in markup.chars() {
        match c {
            '<' => {
                flush(&mut cur, &mut out);
                cur.push(c);
                in_tag = true;
            }
            '>' | '"' | '=' => {
                if c == '=' && in_tag {
                    cur.push(c);
                    flush(&mut cur, &mut out);
                } else {
                    flush(&mut cur, &mut out);
                    out.push(c.to_string());
                }
                in_tag = false;
            }
            c if c.is_whitespace() => {
                if in_tag || !cur.chars().all(char::is_whitespace) {
                    flush(&mut cur, &mut out);
                }
                in_tag = false;
                cur.push(c);
            }
            c => {
                if !in_tag && cur.chars().all(char::is_whitespace) {
                    flush(&mut cur, &mut out);
                }
                cur.push(c);
            }
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// A change to a family's markup, token-wise.
#[derive(Debug, Clone)]
enum Edit {
    /// Delete from one token up to a later closing tag (`</…`): an opening
    /// tag that never closes before the markup's end.
    DeleteToClosing(prop::sample::Index, prop::sample::Index),
    DeleteRange(prop::sample::Index, usize),
    Truncate(prop::sample::Index),
    Duplicate(prop::sample::Index),
    Insert(prop::sample::Index, &'static str),
    EmptyName,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => any::<(prop::sample::Index, prop::sample::Index)>().prop_map(|(i, j)| Edit::DeleteToClosing(i, j)),
        2 => (any::<prop::sample::Index>(), 1usize..6).prop_map(|(i, n)| Edit::DeleteRange(i, n)),
        1 => any::<prop::sample::Index>().prop_map(Edit::Truncate),
        1 => any::<prop::sample::Index>().prop_map(Edit::Duplicate),
        2 => (any::<prop::sample::Index>(), prop::sample::select(LEAK_TOKENS)).prop_map(|(i, t)| Edit::Insert(i, t)),
        1 => Just(Edit::EmptyName),
    ]
}

fn apply_edit(tokens: &mut Vec<String>, e: &Edit) {
    if tokens.is_empty() {
        return;
    }
    let n = tokens.len();
    match e {
        Edit::DeleteToClosing(i, j) => {
            let from = i.index(n);
            let closings: Vec<usize> = (from + 1..n)
                .filter(|&k| tokens[k].starts_with("</"))
                .collect();
            if !closings.is_empty() {
                tokens.drain(from..closings[j.index(closings.len())]);
            }
        }
        Edit::DeleteRange(i, k) => {
            let from = i.index(n);
            tokens.drain(from..(from + k).min(n));
        }
        Edit::Truncate(i) => tokens.truncate(i.index(n)),
        Edit::Duplicate(i) => {
            let at = i.index(n);
            let t = tokens[at].clone();
            tokens.insert(at, t);
        }
        Edit::Insert(i, t) => tokens.insert(i.index(n + 1), (*t).to_owned()),
        Edit::EmptyName => {
            for t in tokens.iter_mut().filter(|t| *t == "glob") {
                t.clear();
            }
        }
    }
}

/// A family's markup, edited token-wise: tags left open, names left out,
/// sentinels doubled or dropped — the near misses a model writes.
pub(crate) fn markup_record() -> impl Strategy<Value = Vec<u8>> {
    (
        0..LEAK_TEMPLATES.len(),
        prop::collection::vec(edit(), 1..4),
        any::<bool>(),
    )
        .prop_map(|(i, edits, prose)| {
            let mut t = tokens(&LEAK_TEMPLATES[i].replace('@', "*"));
            for e in &edits {
                apply_edit(&mut t, e);
            }
            let text = t.concat();
            let text = if prose {
                format!("I will look. {text}")
            } else {
                text
            };
            json!({"role": "assistant", "content": text})
                .to_string()
                .into_bytes()
        })
}

/// A Python literal, recursively, with deep nesting by repetition.
fn py_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("'*'".to_owned()),
        Just("\"a\\\"b\"".to_owned()),
        Just("120".to_owned()),
        Just("-1.5e3".to_owned()),
        Just("True".to_owned()),
        Just("None".to_owned()),
        Just("x".to_owned()),
        Just("'".to_owned()),
        Just("".to_owned()),
    ];
    let nested = leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!(
                "{{{}}}",
                v.iter()
                    .map(|x| format!("'k': {x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            inner.prop_map(|x| format!("glob(pattern={x})")),
        ]
    });
    (
        nested,
        count(),
        prop::sample::select(vec![
            ("[", "]"),
            ("{'a': ", "}"),
            ("(", ")"),
            ("[", ""),
            ("glob(p=", ")"),
        ]),
    )
        .prop_map(|(leaf, n, (open, close))| repeat(open, close, n, &leaf))
}

/// A pythonic call list, bare (the whole message) or after
/// `<|python_start|>`; or calls in call notation (`name: value` or
/// `name=value`, a positional value first, one object literal as the
/// arguments), one a line starting the message or inside `<tool_call>`.
pub(crate) fn pythonic_record() -> impl Strategy<Value = Vec<u8>> {
    let call = (
        prop::sample::select(vec!["glob", "read", "nope", "g.lob"]),
        prop::option::of(py_value()),
        prop::collection::vec(
            (
                prop::sample::select(vec!["pattern", "file_path", "offset", "x"]),
                py_value(),
            ),
            0..3,
        ),
        prop::sample::select(vec!["=", ": ", " = "]),
        any::<bool>(),
    )
        .prop_map(|(name, positional, kv, sep, literal)| {
            let args: Vec<String> = kv.iter().map(|(k, v)| format!("{k}{sep}{v}")).collect();
            if literal && positional.is_none() {
                // `read({file_path: '/a'})`: a JavaScript object literal.
                let keys: Vec<String> = kv.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                return format!("{name}({{{}}})", keys.join(", "));
            }
            let all: Vec<String> = positional.into_iter().chain(args).collect();
            format!("{name}({})", all.join(", "))
        });
    (
        prop::collection::vec(call, 0..4),
        count(),
        0u8..6,
        any::<bool>(),
    )
        .prop_map(|(calls, many, how, closed)| {
            if how >= 3 {
                // Call notation: lines that are each one call, or one call
                // inside `<tool_call>`; cut off when not closed.
                let mut text = if how == 5 && many > 8 {
                    vec!["glob(pattern: '*')"; many.min(5000)].join("\n")
                } else if how == 4 {
                    let first = calls.first().cloned().unwrap_or_default();
                    format!("<tool_call>{first}</tool_call>")
                } else {
                    calls.join("\n")
                };
                if !closed {
                    text.pop();
                }
                return json!({"role": "assistant", "content": text})
                    .to_string()
                    .into_bytes();
            }
            let mut list = calls.join(", ");
            if many > 8 {
                // Many calls in one list.
                list = vec!["glob(pattern='*')"; many.min(5000)].join(", ");
            }
            let list = if closed {
                format!("[{list}]")
            } else {
                format!("[{list}")
            };
            let text = match how {
                0 => list,
                1 => format!("<|python_start|>{list}<|python_end|>"),
                _ => format!("I will call <|python_start|>{list}"),
            };
            json!({"role": "assistant", "content": text})
                .to_string()
                .into_bytes()
        })
}

/// SSE framing lines, broken lines and stray brackets.
pub(crate) fn sse_lines() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(vec![
                "data: [DONE]",
                "data:[DONE]",
                "event: message_start",
                "event: content_block_delta",
                "id: 3",
                ": keep-alive",
                "retry: 1000",
                "",
                "data:",
                "data: ",
                "data: {\"t\":\"f\"x",
                "{\"t\":\"f\"x",
                "[",
                "data: [",
                "]",
                "data: {\"name\":\"glob\",\"arguments\":{\"pattern\":",
                "data: 2 cats",
                "2 cats",
                "data: \"text\"",
                "data: {\"type\":\"message_stop\"}",
            ])
            .prop_map(str::to_owned),
            "data: [^\n]{0,20}",
        ],
        1..4,
    )
    .prop_map(|v| v.join("\n").into_bytes())
}

/// MCP JSON-RPC messages, as records of the filter or lines of the proxy.
pub(crate) fn mcp_message() -> impl Strategy<Value = Value> {
    let id = prop::sample::select(vec![
        json!(1),
        json!("a"),
        json!(null),
        json!(1.0),
        json!({}),
        json!(2),
    ]);
    let schema = prop::sample::select(vec![
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
        json!({"type": "object", "properties": {"q": {"type": "string", "pattern": "(?=a)a"}}}),
        json!({"$schema": "http://example.com/custom", "type": "object"}),
        json!({"type": "object", "properties": {"q": {"$ref": "http://example.com/s.json"}}}),
        json!("not a schema"),
        json!({"type": "object", "properties": {"glob": {"type": "integer"}}}),
        json!(true),
    ]);
    let tool = (
        prop::sample::select(vec!["fz_echo", "search", "", "glob"]),
        schema,
    )
        .prop_map(|(name, s)| json!({"name": name, "inputSchema": s}));
    let args = prop::sample::select(vec![
        json!({"q": "x"}),
        json!({}),
        json!({"q": 1}),
        json!("{\"q\":\"x\"}"),
        json!(null),
        json!([1]),
    ]);
    prop_oneof![
        id.clone().prop_map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fz", "version": "0"}}})),
        Just(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        id.clone().prop_map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})),
        id.clone().prop_map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"cursor": "c"}})),
        (id.clone(), prop::collection::vec(tool, 0..4), any::<bool>()).prop_map(|(id, tools, more)| {
            let mut r = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}});
            if more {
                r["result"]["nextCursor"] = json!("c");
            }
            r
        }),
        (id.clone(), prop::sample::select(vec!["fz_echo", "search", "glob", "read", ""]), args).prop_map(|(id, name, args)| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}})),
        id.clone().prop_map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": "x"})),
        Just(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})),
        id.clone().prop_map(|id| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})),
        id.clone().prop_map(|id| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})),
        id.prop_map(|id| json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "ok"}], "isError": false}})),
    ]
}

/// Claude Code hook payloads, right and wrong.
pub(crate) fn hook_payload() -> impl Strategy<Value = Value> {
    let input = prop::sample::select(vec![
        json!({"pattern": "*"}),
        json!({"pattern": 5}),
        json!({"file_path": "/a", "offset": "2"}),
        json!({}),
        json!("{\"pattern\":\"*\"}"),
        json!(null),
        json!([1]),
        json!({"command": "ls\u{1b}[2J"}),
    ]);
    (
        prop::sample::select(vec![
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "",
            "pretooluse",
        ]),
        prop::sample::select(vec![
            json!("glob"),
            json!("Read"),
            json!("read"),
            json!("nope"),
            json!(""),
            json!(3),
            json!(null),
        ]),
        prop::option::of(input),
        any::<bool>(),
    )
        .prop_map(|(event, name, input, id)| {
            let mut p = json!({"session_id": "s", "hook_event_name": event, "tool_name": name});
            if let Some(i) = input {
                p["tool_input"] = i;
            }
            if id {
                p["tool_use_id"] = json!("toolu_g");
            }
            p
        })
}

/// Lines any model or transport might write.
pub(crate) fn plain_garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::sample::select(vec![
            "2 cats",
            "[",
            "]",
            "{",
            "{\"t\":\"f\"x",
            "null",
            "\"x\"",
            "1e400",
            "\u{feff}{}",
            "{}",
            "[1,",
            "{\"name\":",
            "\\ud800",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        "[^\n{\\[]{0,30}".prop_map(String::into_bytes),
        prop::collection::vec(
            any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
            0..20
        ),
    ]
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
