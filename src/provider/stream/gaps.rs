//! Streams with a gap (an event that could not be used), chat streams of more
//! than one choice, and Responses streams whose `response.completed` output
//! disagrees with their items.

use serde_json::{Value, json};

use super::{Assembled, Fed, Streams, Unfinished};

const ANY: usize = usize::MAX;

/// Feeds every event (a `None` is a record that could not be read); what
/// the stream gave at its end (or completing).
fn run(events: Vec<Option<Value>>) -> Assembled {
    let mut s = Streams::default();
    let mut done = None;
    for (i, e) in events.into_iter().enumerate() {
        let Some(e) = e else {
            s.unreadable();
            continue;
        };
        let (ended, fed) = s.feed(e, (i as u64, i as u64 + 1, 0), ANY);
        assert!(ended.is_none());
        if let Fed::Done(d) = fed {
            assert!(done.is_none(), "one stream, one response");
            done = Some(d);
        }
    }
    done.or_else(|| s.finish()).unwrap()
}

fn chunk(choice: u64, delta: Value, finish: Option<&str>) -> Option<Value> {
    Some(json!({"id": "x", "object": "chat.completion.chunk",
        "choices": [{"index": choice, "delta": delta, "finish_reason": finish}]}))
}

fn call(index: u64, name: Option<&str>, args: &str) -> Value {
    let mut f = json!({"arguments": args});
    if let Some(name) = name {
        f["name"] = json!(name);
    }
    json!({"tool_calls": [{"index": index, "id": format!("c{index}"), "function": f}]})
}

#[test]
fn a_chat_stream_with_a_gap_rejects_its_open_calls_not_finished_choices() {
    let events = vec![
        chunk(0, call(0, Some("bash"), "{\"command\": \"rm -rf /"), None),
        chunk(1, call(0, Some("glob"), "{}"), None),
        chunk(1, json!({}), Some("tool_calls")),
        None,
        chunk(0, call(0, None, "\"}"), None),
        chunk(0, json!({}), Some("tool_calls")),
    ];
    let done = run(events);
    // Choice 0's call was open when the gap came; choice 1 had finished.
    assert_eq!(done.incomplete, [(0, Unfinished::Lost)]);
    let record = done.record.unwrap();
    assert_eq!(
        record["choices"][1]["message"]["tool_calls"][0]["function"]["name"],
        "glob"
    );
    assert!(done.whole);
}

#[test]
fn a_chat_chunk_of_the_wrong_shape_loses_the_call_it_names_only() {
    let mut two = call(0, Some("glob"), "{}");
    two["tool_calls"]
        .as_array_mut()
        .unwrap()
        .push(json!({"index": 1, "id": "c1", "function": {"name": "bash", "arguments": "{"}}));
    let events = vec![
        chunk(0, two, None),
        // The wrong shape: arguments that are no string, for call 1.
        chunk(
            0,
            json!({"tool_calls": [{"index": 1, "function": {"arguments": 5}}]}),
            None,
        ),
        chunk(0, call(1, None, "}"), None),
        chunk(0, json!({}), Some("tool_calls")),
    ];
    assert_eq!(run(events).incomplete, [(1, Unfinished::Lost)]);
    // A chunk whose call cannot be told loses every call of its choice.
    let events = vec![
        chunk(0, call(0, Some("glob"), "{}"), None),
        chunk(0, json!({"tool_calls": {"index": 0}}), None),
        chunk(0, call(1, Some("glob"), "{}"), None),
        chunk(0, json!({}), Some("tool_calls")),
    ];
    assert_eq!(run(events).incomplete, [(0, Unfinished::Lost)]);
}

#[test]
fn two_choices_keep_their_calls_apart_as_unstreamed() {
    let events = vec![
        chunk(0, call(0, Some("glob"), "{\"pat"), None),
        chunk(1, call(0, Some("glob"), "{\"pat"), None),
        chunk(0, call(0, None, "tern\": \"*.rs\"}"), None),
        chunk(1, call(0, None, "tern\": \"*.md\"}"), None),
        chunk(1, json!({}), Some("tool_calls")),
        // Choice 0 not finished yet: the stream is not complete.
        chunk(0, json!({}), Some("tool_calls")),
    ];
    let done = run(events);
    let calls =
        |c: usize| done.record.as_ref().unwrap()["choices"][c]["message"]["tool_calls"].clone();
    assert_eq!(
        calls(0),
        json!([{"id": "c0", "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\": \"*.rs\"}"}}])
    );
    assert_eq!(
        calls(1),
        json!([{"id": "c0", "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\": \"*.md\"}"}}])
    );
    assert!(done.incomplete.is_empty());
}

#[test]
fn a_chat_stream_cut_with_one_choice_finished_cuts_the_other_only() {
    let events = vec![
        chunk(0, call(0, Some("glob"), "{"), None),
        chunk(1, call(0, Some("glob"), "{}"), Some("tool_calls")),
    ];
    let done = run(events);
    // Choices in index order: choice 0's call is call 0.
    assert_eq!(done.incomplete, [(0, Unfinished::CutOff)]);
    assert!(!done.whole);
}

fn a_start() -> Option<Value> {
    Some(
        json!({"type": "message_start", "message": {"type": "message", "role": "assistant", "content": []}}),
    )
}

fn a_block(i: u64) -> Option<Value> {
    Some(
        json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": format!("t{i}"), "name": "bash", "input": {}}}),
    )
}

fn a_json(i: Value, json: &str) -> Option<Value> {
    Some(
        json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json}}),
    )
}

fn a_stop(i: u64) -> Option<Value> {
    Some(json!({"type": "content_block_stop", "index": i}))
}

#[test]
fn an_anthropic_gap_loses_the_open_blocks_not_the_stopped_ones() {
    let stream = |gap: Option<Value>| {
        vec![
            a_start(),
            a_block(0),
            a_json(json!(0), "{\"command\": \"ls\"}"),
            a_stop(0),
            a_block(1),
            a_json(json!(1), "{\"command\": \"rm -rf /"),
            gap,
            a_json(json!(1), "\"}"),
            a_stop(1),
            Some(json!({"type": "message_stop"})),
        ]
    };
    // Unreadable, of the wrong shape naming no block, naming block 1 (the
    // attack's `"index": "0"` is an index of the wrong shape).
    for gap in [
        None,
        a_json(json!("1"), "tmp/build"),
        Some(json!({"type": "content_block_delta", "index": 1, "delta": 5})),
    ] {
        let done = run(stream(gap.clone()));
        assert_eq!(done.incomplete, [(1, Unfinished::Lost)], "{gap:?}");
    }
    // Naming block 0, stopped: nothing lost, and its input stays as it was.
    let done = run(stream(a_json(json!(0), "x")));
    assert!(done.incomplete.is_empty());
    let record = done.record.unwrap();
    assert_eq!(record["content"][0]["input"], json!({"command": "ls"}));
}

#[test]
fn an_anthropic_block_started_twice_is_not_taken_twice() {
    let done = run(vec![
        a_start(),
        a_block(0),
        a_json(json!(0), "{\"command\": \"ls\"}"),
        a_stop(0),
        a_block(0),
        a_json(json!(0), "{\"command\": \"rm\"}"),
        Some(json!({"type": "message_stop"})),
    ]);
    let record = done.record.unwrap();
    assert_eq!(
        record["content"],
        json!([{"type": "tool_use", "id": "t0", "name": "bash", "input": {"command": "ls"}}])
    );
}

fn r_added(i: u64) -> Option<Value> {
    Some(
        json!({"type": "response.output_item.added", "output_index": i,
        "item": {"type": "function_call", "id": format!("fc{i}"), "call_id": format!("call{i}"), "name": "glob", "arguments": ""}}),
    )
}

fn r_delta(i: u64, d: &str) -> Option<Value> {
    Some(json!({"type": "response.function_call_arguments.delta", "output_index": i, "delta": d}))
}

fn r_item(i: u64, args: &str) -> Value {
    json!({"type": "function_call", "id": format!("fc{i}"), "call_id": format!("call{i}"), "name": "glob", "arguments": args})
}

fn r_done(i: u64, args: &str) -> Option<Value> {
    Some(json!({"type": "response.output_item.done", "output_index": i, "item": r_item(i, args)}))
}

fn r_completed(output: Option<Value>) -> Option<Value> {
    let mut response = json!({"object": "response", "status": "completed"});
    if let Some(output) = output {
        response["output"] = output;
    }
    Some(json!({"type": "response.completed", "response": response}))
}

fn outputs(done: &Assembled) -> Value {
    done.record.as_ref().unwrap()["output"].clone()
}

#[test]
fn a_responses_gap_loses_items_not_done_until_their_whole_item_comes() {
    let base = |done0: bool| {
        let mut e = vec![
            r_added(0),
            r_added(1),
            r_delta(0, "{\"pat"),
            None,
            r_delta(0, "tern\": \"*\"}"),
        ];
        e.push(r_done(1, "{}"));
        if done0 {
            e.push(r_done(0, "{\"pattern\": \"*\"}"));
        }
        e.push(r_completed(None));
        e
    };
    let done = run(base(false));
    assert_eq!(done.incomplete, [(0, Unfinished::Lost)]);
    // Its whole item came after the gap: whole again.
    let done = run(base(true));
    assert!(done.incomplete.is_empty());
    // A delta after the item is done is refused.
    let done = run(vec![
        r_added(0),
        r_done(0, "{}"),
        r_delta(0, "x"),
        r_completed(None),
    ]);
    assert_eq!(outputs(&done), json!([r_item(0, "{}")]));
}

#[test]
fn a_completed_output_that_disagrees_with_the_stream_loses_no_call() {
    let stream = |output: Option<Value>| {
        vec![
            r_added(0),
            r_delta(0, "{}"),
            r_done(0, "{}"),
            r_added(1),
            r_delta(1, "{\"a\""),
            r_completed(output),
        ]
    };
    // Empty or absent: the streamed items (item 1 never done: cut off).
    for output in [None, Some(json!([])), Some(json!(5))] {
        let done = run(stream(output.clone()));
        assert_eq!(outputs(&done).as_array().unwrap().len(), 2, "{output:?}");
        assert_eq!(done.incomplete, [(1, Unfinished::CutOff)], "{output:?}");
    }
    // The whole of item 1, given: taken; the same item 0: nothing changes.
    let done = run(stream(Some(json!([
        r_item(0, "{}"),
        r_item(1, "{\"a\": 1}")
    ]))));
    assert!(done.incomplete.is_empty());
    assert_eq!(
        outputs(&done),
        json!([r_item(0, "{}"), r_item(1, "{\"a\": 1}")])
    );
    // Item 0 given with other arguments: rejected; an item only given: added.
    let done = run(stream(Some(json!([
        r_item(0, "{\"x\": 1}"),
        r_item(7, "{}")
    ]))));
    assert_eq!(
        done.incomplete,
        [(0, Unfinished::Contradicted), (1, Unfinished::CutOff)]
    );
    assert_eq!(outputs(&done)[2], r_item(7, "{}"));
    // Found by place when it has no id.
    let mut no_id = r_item(0, "{\"y\": 2}");
    no_id.as_object_mut().unwrap().remove("id");
    let done = run(stream(Some(json!([no_id]))));
    assert_eq!(done.incomplete[0], (0, Unfinished::Contradicted));
    assert_eq!(outputs(&done).as_array().unwrap().len(), 2);
}

#[test]
fn a_gap_that_may_have_held_text_is_told() {
    // A text delta whose text is no string.
    let text = |i: Value| {
        Some(
            json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": 5}}),
        )
    };
    let text_block = Some(
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
    );
    let stream = |gap: Option<Value>| {
        vec![
            a_start(),
            a_block(0),
            text_block.clone(),
            gap,
            a_stop(0),
            a_stop(1),
        ]
    };
    // Naming the text block, naming nothing, unreadable: told.
    for gap in [text(json!(1)), text(json!("1")), None] {
        assert!(run(stream(gap.clone())).text_lost, "{gap:?}");
    }
    // Naming the tool_use block: only its call is lost.
    let done = run(stream(a_json(json!(0), "x").map(|mut e| {
        e["delta"]["partial_json"] = json!(5);
        e
    })));
    assert!(!done.text_lost);
    assert_eq!(done.incomplete, [(0, Unfinished::Lost)]);
    // A chat chunk naming its call and holding no text: not told.
    let done = run(vec![
        chunk(0, call(0, Some("glob"), "{"), None),
        chunk(
            0,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": 5}}]}),
            None,
        ),
        chunk(0, json!({}), Some("tool_calls")),
    ]);
    assert!(!done.text_lost);
    let done = run(vec![
        chunk(0, json!({"content": "a"}), None),
        chunk(0, json!({"content": "b", "tool_calls": 5}), None),
        chunk(0, json!({}), Some("stop")),
    ]);
    assert!(done.text_lost);
}

#[test]
fn a_gap_of_another_stream_kind_or_chat_id_loses_nothing() {
    let mut s = Streams::default();
    let first = chunk(0, call(0, Some("glob"), "{}"), None).unwrap();
    s.feed(first, (0, 1, 0), ANY);
    let other = json!({"id": "y", "object": "chat.completion.chunk", "choices": 5});
    assert!(matches!(
        s.feed(other, (1, 2, 0), ANY),
        (None, Fed::Record(_))
    ));
    let anthropic = json!({"type": "content_block_delta"});
    assert!(matches!(
        s.feed(anthropic, (2, 3, 0), ANY),
        (None, Fed::Record(_))
    ));
    let last = chunk(0, json!({}), Some("stop")).unwrap();
    let (None, Fed::Done(done)) = s.feed(last, (3, 4, 0), ANY) else {
        panic!()
    };
    assert!(done.incomplete.is_empty());
}
