//! Garbage in the shape of provider stream events (Anthropic, Chat
//! Completions chunks, Responses events).

use proptest::prelude::*;
use serde_json::{Value, json};

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
    // Choices of one `n > 1` stream (their calls share call indexes), or an
    // index of the wrong shape.
    let choice = (
        calls,
        prop::sample::select(vec![
            json!(null),
            json!("tool_calls"),
            json!("stop"),
            json!(1),
        ]),
        prop_oneof![3 => Just(json!(0)), 2 => Just(json!(1)), 1 => index()],
    )
        .prop_flat_map(|(calls, finish, i)| {
            maybe_object(
                json!({"index": i, "delta": {"tool_calls": calls}, "finish_reason": finish}),
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
    let item = prop_oneof![
        maybe_object(
            json!({"type": "function_call", "name": "glob", "call_id": "call_g", "arguments": ""}),
        ),
        Just(
            json!({"type": "function_call", "id": "fc_g", "name": "glob", "call_id": "call_g", "arguments": "{}"}),
        ),
    ];
    // A completed output that is empty, absent, or disagrees with the items.
    let response = prop_oneof![
        maybe_object(json!({"id": "resp_g", "object": "response", "output": []})),
        Just(json!({"id": "resp_g", "object": "response", "status": "completed"})),
        Just(json!({"id": "resp_g", "object": "response", "output": [
            {"type": "function_call", "id": "fc_g", "name": "glob", "call_id": "call_g", "arguments": "{\"pattern\": \"x\"}"},
            {"type": "function_call", "name": "read", "arguments": "{}"},
            "s",
        ]})),
    ];
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

/// One stream event of any provider, as a JSON line or an SSE `data:` line;
/// sometimes cut (bytes a proxy dropped: a line that is no JSON).
pub(crate) fn stream_event() -> impl Strategy<Value = Vec<u8>> {
    (
        prop_oneof![anthropic_event(), chat_chunk(), responses_event()],
        any::<bool>(),
        prop_oneof![4 => Just(None), 1 => any::<prop::sample::Index>().prop_map(Some)],
    )
        .prop_map(|(e, sse, cut)| {
            let mut e = e.to_string();
            if let Some(cut) = cut {
                let mut at = cut.index(e.len());
                while !e.is_char_boundary(at) {
                    at -= 1;
                }
                e.truncate(at);
            }
            if sse {
                format!("data: {e}").into_bytes()
            } else {
                e.into_bytes()
            }
        })
}
