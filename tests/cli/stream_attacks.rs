//! Provider streams as an attacker steering a model would send them: events of
//! the wrong shape, streams too large or never ending, number spellings. Every
//! bad event gives a result (or is judged as a record), and every later call is
//! still judged.

use serde_json::{Value, json};

use crate::{callfix, json_lines};

/// A valid call, written after the attack: it must come out judged.
const LAST: &str = r#"{"name":"glob","arguments":{"pattern":"*"}}"#;

/// `callfix -f json ARGS` on `lines`: its exit code and results.
fn run(args: &[&str], lines: &[String]) -> (i32, Vec<Value>) {
    let mut stdin = lines.join("\n");
    stdin.push('\n');
    let out = callfix()
        .args(["-f", "json"])
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (code, json_lines(&out.stdout))
}

fn lines(events: &[Value]) -> Vec<String> {
    events.iter().map(Value::to_string).collect()
}

/// `LAST`, the last record, is judged valid (a stream left open comes out
/// after it, at the end of the input).
fn last_is_judged(out: &[Value]) {
    let end = out
        .iter()
        .filter_map(|r| r["index"].as_u64())
        .max()
        .unwrap();
    let last = out.iter().find(|r| r["index"] == end).unwrap();
    assert_eq!(last["tool"], "glob", "{out:?}");
    assert_eq!(last["status"], "valid", "{out:?}");
    assert_eq!(last["args"], json!({"pattern": "*"}), "{out:?}");
}

/// An Anthropic stream of one call block (of type `block`) to `tool`: its
/// start, a `content_block_delta` for each of `deltas`, its stop and the
/// message's.
fn anthropic_call(block: &str, tool: &str, deltas: Vec<Value>) -> Vec<String> {
    let mut events = vec![
        json!({"type": "message_start", "message": {"type": "message", "role": "assistant", "content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": block, "id": "t", "name": tool, "input": {}}}),
    ];
    events.extend(
        deltas
            .into_iter()
            .map(|delta| json!({"type": "content_block_delta", "index": 0, "delta": delta})),
    );
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events.push(json!({"type": "message_stop"}));
    lines(&events)
}

/// An `input_json_delta` of `partial` JSON.
fn json_delta(partial: &str) -> Value {
    json!({"type": "input_json_delta", "partial_json": partial})
}

#[test]
fn a_delta_with_no_delta_is_one_result_and_the_next_call_is_judged() {
    let input = [
        r#"{"type":"content_block_delta","index":0}"#.to_owned(),
        LAST.to_owned(),
    ];
    for jobs in ["1", "2"] {
        let (_, out) = run(&["--jobs", jobs], &input);
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0]["status"], "rejected");
        last_is_judged(&out);
    }
}

#[test]
fn anthropic_events_of_the_wrong_shape_never_crash() {
    let start = json!({"type": "message_start", "message": {"type": "message", "role": "assistant", "content": []}});
    let block = json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "glob", "input": {}}});
    let stop = json!({"type": "message_stop"});
    let attacks = [
        vec![
            json!({"type": "message_start", "message": "x"}),
            stop.clone(),
        ],
        vec![
            json!({"type": "message_start", "message": [1]}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
            stop.clone(),
        ],
        vec![
            start.clone(),
            json!({"type": "message_delta", "delta": "x"}),
            stop.clone(),
        ],
        vec![
            json!({"type": "content_block_start", "index": 0, "content_block": "s"}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}}),
            stop.clone(),
        ],
        vec![
            json!({"type": "content_block_start", "index": 0, "content_block": 7}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
            stop.clone(),
        ],
        vec![
            start.clone(),
            block.clone(),
            json!({"type": "content_block_delta", "index": 0, "delta": 5}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 5}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": null}}),
            json!({"type": "content_block_delta", "index": "0", "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
            json!({"type": "content_block_delta", "index": 9, "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
            json!({"type": "content_block_stop", "index": -1}),
            stop.clone(),
        ],
        vec![
            start.clone(),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": 5}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "more"}}),
            stop.clone(),
        ],
    ];
    for attack in attacks {
        let mut input = lines(&attack);
        input.push(LAST.to_owned());
        let (_, out) = run(&[], &input);
        last_is_judged(&out);
    }
}

#[test]
fn responses_and_chat_events_of_the_wrong_shape_never_crash() {
    let chunk = |delta: Value| json!({"id": "s", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
    let attacks = [
        vec![
            json!({"type": "response.output_item.added", "output_index": 0, "item": "s"}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "x"}),
            json!({"type": "response.function_call_arguments.done", "output_index": 0, "arguments": "{}"}),
        ],
        vec![
            json!({"type": "response.created", "response": "s"}),
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "name": "glob"}}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": 5}),
        ],
        vec![
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "name": "glob", "arguments": 5}}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"}),
            json!({"type": "response.completed", "response": 5}),
        ],
        vec![
            json!({"id": "s", "object": "chat.completion.chunk", "choices": 7}),
            json!({"id": "s", "object": "chat.completion.chunk", "choices": [1, null]}),
            chunk(json!("x")),
            chunk(json!({"tool_calls": 5})),
            chunk(json!({"tool_calls": [{"index": -1, "function": {"name": "glob"}}]})),
            chunk(json!({"tool_calls": [{"index": 0, "function": "glob"}]})),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"name": 5, "arguments": []}}]})),
        ],
    ];
    for attack in attacks {
        let mut input = lines(&attack);
        input.push(LAST.to_owned());
        let (_, out) = run(&[], &input);
        last_is_judged(&out);
    }
}

#[test]
fn an_anthropic_stream_keeps_number_spellings() {
    let input = anthropic_call(
        "tool_use",
        "read",
        vec![
            json_delta("{\"file_path\": \"/a\", \"offset\": 1E3, "),
            json_delta("\"limit\": 2e1}"),
        ],
    );
    let out = callfix().write_stdin(input.join("\n")).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"file_path\":\"/a\",\"offset\":1E3,\"limit\":2e1}\n"
    );
}

#[test]
fn an_anthropic_call_with_a_part_in_another_delta_type_is_rejected_never_shortened() {
    // Found by an attack pass: the part in a delta of another type was
    // dropped and `rm -rf /` came out valid.
    let stream = |middle: Value, block: &str| {
        let head = json_delta("{\"description\": \"Clean\", \"command\": \"rm -rf /");
        let mut input = anthropic_call(block, "bash", vec![head, middle, json_delta("\"}")]);
        input.push(LAST.to_owned());
        input
    };
    for block in ["tool_use", "server_tool_use", "mcp_tool_use"] {
        for delta in [
            json!({"type": "future_delta", "partial_json": "tmp/build"}),
            json!({"type": "text_delta", "text": "tmp/build"}),
        ] {
            let (code, out) = run(&[], &stream(delta, block));
            assert_eq!(code, 1, "{out:?}");
            assert_eq!(out[0]["tool"], "bash", "{out:?}");
            assert_eq!(out[0]["status"], "rejected", "{out:?}");
            assert!(
                out[0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("may be missing"),
                "{out:?}"
            );
            last_is_judged(&out);
        }
        // Whole, a server or MCP tool's streamed input is its input too.
        let (_, out) = run(&[], &stream(json_delta("tmp/build"), block));
        assert_eq!(out[0]["status"], "valid", "{block}: {out:?}");
        assert_eq!(
            out[0]["args"]["command"], "rm -rf /tmp/build",
            "{block}: {out:?}"
        );
    }
}

/// A chat chunk of stream `id` with `delta` for call `index` (a new call when
/// `name` is given).
fn chat_call(id: &str, index: u64, name: Option<&str>, args: &str) -> String {
    let mut function = json!({"arguments": args});
    if let Some(name) = name {
        function["name"] = json!(name);
    }
    json!({"id": id, "object": "chat.completion.chunk", "choices": [{"index": 0,
        "delta": {"tool_calls": [{"index": index, "id": format!("c{index}"), "function": function}]},
        "finish_reason": null}]})
    .to_string()
}

fn chat_finish(id: &str) -> String {
    json!({"id": id, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
        .to_string()
}

#[test]
fn chat_chunks_without_their_object_are_a_stream_all_the_same() {
    // Found by an attack pass: some servers leave out `object`, and each
    // chunk was a record without calls: the call went by unjudged.
    let unnamed = |line: String| line.replace(r#""object":"chat.completion.chunk","#, "");
    let input: Vec<String> = [
        chat_call("u", 0, Some("read"), "{\"file_path\": "),
        chat_call("u", 0, None, "7}"),
        chat_finish("u"),
    ]
    .into_iter()
    .map(unnamed)
    .chain([LAST.to_owned()])
    .collect();
    assert!(!input[0].contains("object"), "{input:?}");
    let (code, out) = run(&[], &input);
    assert_eq!(code, 1, "{out:?}");
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0]["tool"], "read", "{out:?}");
    assert_eq!(
        out[0]["errors"][0]["message"], "expected string, got number",
        "{out:?}"
    );
    last_is_judged(&out);
}

#[test]
fn a_lone_surrogate_escape_in_streamed_arguments_is_rejected_where_it_is() {
    // Found by an attack pass: the events were masked to be read, but the
    // reassembled call was judged unmasked, and came out valid with the
    // mask's characters (U+F0000 and the escape's hex digits) for the escape.
    // `@` stands for the escape, written into the event's JSON.
    let anthropic = anthropic_call(
        "tool_use",
        "read",
        vec![json_delta("{\"file_path\": \"/a@"), json_delta("\"}")],
    );
    let responses = lines(&[
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": "read", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{\"file_path\": \"/a@\"}"}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": "read", "arguments": "{\"file_path\": \"/a@\"}"}}),
        json!({"type": "response.completed", "response": {"id": "r", "status": "completed", "output": []}}),
    ]);
    let chat = vec![
        chat_call("s", 0, Some("read"), "{\"file_path\": \"/a@"),
        chat_call("s", 0, None, "\"}"),
        chat_finish("s"),
    ];
    // A pair split over two events: one reader joins the halves, another
    // keeps two lone ones.
    let split = vec![
        chat_call("p", 0, Some("read"), "{\"file_path\": \"/a@"),
        chat_call("p", 0, None, "#\"}"),
        chat_finish("p"),
    ];
    for stream in [anthropic, responses, chat, split] {
        let mut input: Vec<String> = stream
            .iter()
            .map(|l| l.replace('@', "\\ud83d").replace('#', "\\ude00"))
            .collect();
        input.push(LAST.to_owned());
        let (code, out) = run(&[], &input);
        assert_eq!(code, 1, "{out:?}");
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0]["status"], "rejected", "{out:?}");
        assert_eq!(out[0]["errors"][0]["path"], "file_path", "{out:?}");
        assert!(
            out[0]["message"]
                .as_str()
                .unwrap()
                .contains("lone surrogate"),
            "{out:?}"
        );
        last_is_judged(&out);
    }
}

#[test]
fn a_streamed_call_over_max_record_bytes_is_rejected_and_the_rest_goes_on() {
    let mut input = vec![chat_call("s", 0, Some("glob"), "{\"pattern\": \"")];
    // 40 fragments of 100 bytes: each record is small, the call is 4 KB.
    for _ in 0..40 {
        input.push(chat_call("s", 0, None, &"a".repeat(100)));
    }
    input.push(chat_call("s", 0, None, "\"}"));
    input.push(chat_call("s", 1, Some("glob"), "{\"pattern\": \"*\"}"));
    input.push(chat_finish("s"));
    input.push(LAST.to_owned());
    let (code, out) = run(&["--max-record-bytes", "1000"], &input);
    assert_eq!(code, 1);
    assert_eq!(out.len(), 3, "{out:?}");
    assert_eq!(out[0]["status"], "rejected");
    assert!(
        out[0]["message"]
            .as_str()
            .unwrap()
            .contains("over the limit of 1000 bytes (--max-record-bytes)"),
        "{out:?}"
    );
    assert_eq!(out[1]["status"], "valid");
    assert_eq!(out[1]["args"], json!({"pattern": "*"}));
    last_is_judged(&out);
}

#[test]
fn each_provider_caps_a_streamed_call_by_max_record_bytes() {
    let big = "a".repeat(300);
    let anthropic = anthropic_call("tool_use", "glob", vec![json_delta(&big); 10]);
    let responses = {
        let mut e = vec![
            json!({"type": "response.created", "response": {"object": "response", "output": []}}),
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "call_id": "c", "name": "glob", "arguments": ""}}),
        ];
        for _ in 0..10 {
            e.push(json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": big}));
        }
        lines(&e)
    };
    for input in [anthropic, responses] {
        let mut input = input;
        input.push(LAST.to_owned());
        let (_, out) = run(&["--max-record-bytes", "1000"], &input);
        assert_eq!(out.len(), 2, "{out:?}");
        // The Responses stream never completes: it comes out at the end.
        let call = out.iter().find(|r| r["index"] == 0).unwrap();
        assert_eq!(call["tool"], "glob");
        assert_eq!(call["status"], "rejected");
        assert!(
            call["message"]
                .as_str()
                .unwrap()
                .contains("(--max-record-bytes)"),
            "{out:?}"
        );
        last_is_judged(&out);
    }
}

#[test]
fn a_stream_that_never_ends_is_rejected_once_and_later_records_are_judged() {
    // 2,000 calls of 20 bytes each: no call is over the cap, the stream is.
    let mut input: Vec<String> = (0..2000)
        .map(|i| chat_call("s", i, Some("glob"), "{\"pattern\": \"*.rs\"}"))
        .collect();
    input.push(LAST.to_owned());
    let (code, out) = run(&["--max-record-bytes", "10000"], &input);
    assert_eq!(code, 1);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0]["status"], "rejected");
    let message = out[0]["message"].as_str().unwrap();
    assert!(message.contains("stream starting at stdin:1"), "{message}");
    assert!(
        message.contains("over the limit of 10000 bytes (--max-record-bytes)"),
        "{message}"
    );
    last_is_judged(&out);
}

#[test]
fn the_rest_of_a_stream_past_the_cap_is_read_and_dropped_then_the_next_stream_is_judged() {
    let mut input: Vec<String> = (0..2000)
        .map(|i| chat_call("s", i, Some("glob"), "{\"pattern\": \"*.rs\"}"))
        .collect();
    input.push(chat_finish("s"));
    input.push(chat_call("t", 0, Some("glob"), "{\"pattern\": \"*\"}"));
    input.push(chat_finish("t"));
    let (_, out) = run(&["--max-record-bytes", "10000"], &input);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0]["status"], "rejected");
    assert_eq!(out[1]["status"], "valid");
    assert_eq!(out[1]["args"], json!({"pattern": "*"}));
}
