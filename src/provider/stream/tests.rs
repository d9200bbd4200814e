use serde_json::json;

use super::{Fed, Streams};

fn chunk(id: &str, delta: serde_json::Value, finish: Option<&str>) -> serde_json::Value {
    json!({"id": id, "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

#[test]
fn a_record_that_is_no_event_comes_back_as_it_is() {
    let mut s = Streams::default();
    let call = json!({"name": "glob", "arguments": {}});
    assert_eq!(s.feed(call.clone(), (0, 1, 0)), (None, Fed::Record(call)));
    assert!(s.finish().is_none());
}

#[test]
fn a_new_stream_ends_the_open_one_as_cut_off() {
    let mut s = Streams::default();
    let start = json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "glob", "arguments": "{}"}}]});
    assert_eq!(
        s.feed(chunk("a", start, None), (0, 1, 0)),
        (None, Fed::Kept)
    );
    let (Some(done), Fed::Kept) = s.feed(chunk("b", json!({"content": "hi"}), None), (1, 2, 0))
    else {
        panic!()
    };
    assert_eq!(done.first, (0, 1, 0));
    assert_eq!(done.incomplete, [0]);
    let Some(last) = s.finish() else { panic!() };
    assert_eq!(last.first, (1, 2, 0));
    assert_eq!(last.record["choices"][0]["message"]["content"], "hi");
    assert!(last.incomplete.is_empty());
}

#[test]
fn earlier_calls_of_a_cut_stream_were_whole() {
    let mut s = Streams::default();
    for (i, delta) in [
        json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "glob", "arguments": "{}"}}]}),
        json!({"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "read", "arguments": "{\"file"}}]}),
    ]
    .into_iter()
    .enumerate()
    {
        s.feed(chunk("a", delta, None), (i as u64, i as u64 + 1, 0));
    }
    let done = s.finish().unwrap();
    assert_eq!(done.incomplete, [1]);
    let calls = &done.record["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls[1]["function"]["arguments"], "{\"file");
}

#[test]
fn anthropic_input_that_does_not_parse_stays_text_for_salvage() {
    let mut s = Streams::default();
    for event in [
        json!({"type": "message_start", "message": {"type": "message", "role": "assistant", "content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "glob", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"a\": 1,}"}}),
        json!({"type": "content_block_stop", "index": 0}),
    ] {
        assert_eq!(s.feed(event, (0, 1, 0)), (None, Fed::Kept));
    }
    let (None, Fed::Done(done)) = s.feed(json!({"type": "message_stop"}), (0, 1, 0)) else {
        panic!()
    };
    assert_eq!(done.record["content"][0]["input"], "{\"a\": 1,}");
    assert!(done.incomplete.is_empty());
}
