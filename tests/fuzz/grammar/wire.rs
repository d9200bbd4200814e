//! Garbage on the wire: SSE framing, MCP messages, hook payloads, plain bytes.

use proptest::prelude::*;
use serde_json::{Value, json};

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
