use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::{Value, json};

use super::{Assembled, Fed, Kind, Streams, TooLarge, Unfinished};

/// No limit that matters.
const ANY: usize = usize::MAX;

fn chunk(id: &str, delta: Value, finish: Option<&str>) -> Value {
    json!({"id": id, "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// Feeds every event (at line `i + 1`) with `limit`; what each gave.
fn feed_all(s: &mut Streams, events: Vec<Value>, limit: usize) -> Vec<(Option<Assembled>, Fed)> {
    events
        .into_iter()
        .enumerate()
        .map(|(i, e)| s.feed(e, (i as u64, i as u64 + 1, 0), limit))
        .collect()
}

fn anthropic_start() -> Value {
    json!({"type": "message_start", "message": {"type": "message", "role": "assistant", "content": []}})
}

fn anthropic_block(i: u64) -> Value {
    json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": format!("t{i}"), "name": "glob", "input": {}}})
}

fn anthropic_json(i: u64, json: &str) -> Value {
    json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json}})
}

#[test]
fn a_record_that_is_no_event_comes_back_as_it_is() {
    let mut s = Streams::default();
    let call = json!({"name": "glob", "arguments": {}});
    assert_eq!(
        s.feed(call.clone(), (0, 1, 0), ANY),
        (None, Fed::Record(call))
    );
    assert!(s.finish().is_none());
}

#[test]
fn a_new_stream_ends_the_open_one_as_cut_off() {
    let mut s = Streams::default();
    let start = json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "glob", "arguments": "{}"}}]});
    assert_eq!(
        s.feed(chunk("a", start, None), (0, 1, 0), ANY),
        (None, Fed::Kept)
    );
    let (Some(done), Fed::Kept) =
        s.feed(chunk("b", json!({"content": "hi"}), None), (1, 2, 0), ANY)
    else {
        panic!()
    };
    assert_eq!(done.first, (0, 1, 0));
    assert_eq!(done.incomplete, [(0, Unfinished::CutOff)]);
    let Some(last) = s.finish() else { panic!() };
    assert_eq!(last.first, (1, 2, 0));
    assert_eq!(
        last.record.unwrap()["choices"][0]["message"]["content"],
        "hi"
    );
    assert!(last.incomplete.is_empty());
}

#[test]
fn earlier_calls_of_a_cut_stream_were_whole() {
    let mut s = Streams::default();
    feed_all(
        &mut s,
        vec![
            chunk(
                "a",
                json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "glob", "arguments": "{}"}}]}),
                None,
            ),
            chunk(
                "a",
                json!({"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "read", "arguments": "{\"file"}}]}),
                None,
            ),
        ],
        ANY,
    );
    let done = s.finish().unwrap();
    assert_eq!(done.incomplete, [(1, Unfinished::CutOff)]);
    let record = done.record.unwrap();
    let calls = &record["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls[1]["function"]["arguments"], "{\"file");
}

#[test]
fn anthropic_input_that_does_not_parse_stays_text_for_salvage() {
    let mut s = Streams::default();
    for event in [
        anthropic_start(),
        anthropic_block(0),
        anthropic_json(0, "{\"a\": 1,}"),
        json!({"type": "content_block_stop", "index": 0}),
    ] {
        assert_eq!(s.feed(event, (0, 1, 0), ANY), (None, Fed::Kept));
    }
    let (None, Fed::Done(done)) = s.feed(json!({"type": "message_stop"}), (0, 1, 0), ANY) else {
        panic!()
    };
    assert_eq!(done.record.unwrap()["content"][0]["input"], "{\"a\": 1,}");
    assert!(done.incomplete.is_empty());
}

/// The same stream, once as it is and once with `bad` fed after its second
/// event: `bad` comes back as a record, and the stream comes out the same.
fn bad_event_changes_nothing(stream: &[Value], bad: &Value) {
    let mut s = Streams::default();
    feed_all(&mut s, stream.to_vec(), ANY);
    let whole = s.finish();
    let mut s = Streams::default();
    let (before, after) = stream.split_at(2.min(stream.len()));
    feed_all(&mut s, before.to_vec(), ANY);
    assert_eq!(
        s.feed(bad.clone(), (9, 9, 0), ANY),
        (None, Fed::Record(bad.clone())),
        "{bad}"
    );
    let rest: Vec<(Option<Assembled>, Fed)> = after
        .iter()
        .map(|e| s.feed(e.clone(), (1, 2, 0), ANY))
        .collect();
    assert!(rest.iter().all(|(ended, _)| ended.is_none()), "{bad}");
    let got = s.finish();
    assert_eq!(got.map(|a| a.record), whole.map(|a| a.record), "{bad}");
}

#[test]
fn an_anthropic_event_of_the_wrong_shape_comes_back_as_a_record() {
    let stream = [
        anthropic_start(),
        anthropic_block(0),
        anthropic_json(0, "{\"pattern\": \"*\"}"),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "hi"}}),
    ];
    for bad in [
        // The crash: a delta with no delta.
        json!({"type": "content_block_delta", "index": 0}),
        json!({"type": "content_block_delta", "index": 0, "delta": "x"}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 5}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": []}}),
        json!({"type": "content_block_delta", "index": 7, "delta": {"type": "input_json_delta", "partial_json": "{"}}),
        json!({"type": "content_block_delta", "index": -1, "delta": {"type": "input_json_delta", "partial_json": "{"}}),
        json!({"type": "content_block_start", "index": 2, "content_block": "s"}),
        json!({"type": "content_block_start", "index": 2, "content_block": null}),
        json!({"type": "content_block_start", "content_block": {"type": "text"}}),
        json!({"type": "content_block_stop", "index": 5}),
        json!({"type": "content_block_stop"}),
        json!({"type": "message_delta", "delta": 5}),
        json!({"type": "message_start", "message": "x"}),
        json!({"type": "message_start"}),
    ] {
        bad_event_changes_nothing(&stream, &bad);
    }
}

#[test]
fn a_responses_event_of_the_wrong_shape_comes_back_as_a_record() {
    let stream = [
        json!({"type": "response.created", "response": {"object": "response", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "call_id": "c", "name": "glob", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"}),
    ];
    for bad in [
        json!({"type": "response.output_item.added", "output_index": 1, "item": "s"}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": [1]}),
        json!({"type": "response.output_item.added", "output_index": "1", "item": {}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": 5}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 3, "delta": "x"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 3, "arguments": "x"}),
        json!({"type": "response.in_progress", "response": "s"}),
        json!({"type": "response.created", "response": 5}),
    ] {
        bad_event_changes_nothing(&stream, &bad);
    }
}

#[test]
fn a_chat_chunk_of_the_wrong_shape_comes_back_as_a_record() {
    let stream = [
        chunk(
            "a",
            json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "glob", "arguments": "{"}}]}),
            None,
        ),
        chunk(
            "a",
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}),
            None,
        ),
    ];
    for bad in [
        json!({"id": "a", "object": "chat.completion.chunk", "choices": 7}),
        json!({"id": "a", "object": "chat.completion.chunk", "choices": [1]}),
        chunk("a", json!("x"), None),
        chunk("a", json!({"tool_calls": {"index": 0}}), None),
        chunk("a", json!({"tool_calls": ["x"]}), None),
        chunk(
            "a",
            json!({"tool_calls": [{"index": -1, "function": {"arguments": "x"}}]}),
            None,
        ),
        chunk(
            "a",
            json!({"tool_calls": [{"index": 0, "function": "glob"}]}),
            None,
        ),
        chunk(
            "a",
            json!({"tool_calls": [{"index": 0, "function": {"arguments": {}}}]}),
            None,
        ),
        chunk(
            "a",
            json!({"tool_calls": [{"index": 0, "function": {"name": 5}}]}),
            None,
        ),
    ] {
        bad_event_changes_nothing(&stream, &bad);
    }
}

#[test]
fn anthropic_argument_text_is_handed_on_for_its_number_spellings() {
    let mut s = Streams::default();
    feed_all(
        &mut s,
        vec![
            anthropic_start(),
            anthropic_block(0),
            anthropic_json(0, "{\"n\": 1E"),
            anthropic_json(0, "3}"),
            json!({"type": "content_block_stop", "index": 0}),
        ],
        ANY,
    );
    let done = s.finish().unwrap();
    assert_eq!(done.spelled, "{\"n\": 1E3}\n");
}

#[test]
fn a_call_past_the_limit_is_dropped_and_the_others_stay() {
    let mut s = Streams::default();
    let mut events = vec![anthropic_start(), anthropic_block(0), anthropic_block(1)];
    events.push(anthropic_json(1, "{\"pattern\": \"*\"}"));
    for _ in 0..10 {
        events.push(anthropic_json(0, &"a".repeat(100)));
    }
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events.push(json!({"type": "content_block_stop", "index": 1}));
    events.push(json!({"type": "message_stop"}));
    let fed = feed_all(&mut s, events, 700);
    let Some((None, Fed::Done(done))) = fed.last() else {
        panic!("{fed:?}")
    };
    assert_eq!(done.incomplete, [(0, Unfinished::TooLarge)]);
    let record = done.record.as_ref().unwrap();
    assert_eq!(record["content"][0]["input"], json!({}));
    assert_eq!(record["content"][1]["input"], json!({"pattern": "*"}));
}

#[test]
fn each_provider_drops_a_call_past_the_limit() {
    let big = "a".repeat(100);
    let chat: Vec<Value> = std::iter::once(chunk("a", json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "glob", "arguments": ""}}]}), None))
        .chain((0..10).map(|_| chunk("a", json!({"tool_calls": [{"index": 0, "function": {"arguments": big}}]}), None)))
        .collect();
    let responses: Vec<Value> = std::iter::once(json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "call_id": "c", "name": "glob", "arguments": ""}}))
        .chain((0..10).map(|_| json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": big})))
        .collect();
    for events in [chat, responses] {
        let mut s = Streams::default();
        let fed = feed_all(&mut s, events, 500);
        assert!(fed.iter().all(|f| *f == (None, Fed::Kept)), "{fed:?}");
        let done = s.finish().unwrap();
        assert_eq!(done.incomplete, [(0, Unfinished::TooLarge)]);
    }
}

#[test]
fn a_stream_past_the_limit_comes_out_once_and_its_rest_is_dropped() {
    let mut s = Streams::default();
    let events: Vec<Value> = (0..100)
        .map(|i| chunk("a", json!({"tool_calls": [{"index": i, "id": "c", "function": {"name": "glob", "arguments": "{}"}}]}), None))
        .collect();
    let fed = feed_all(&mut s, events, 1000);
    let done: Vec<&Assembled> = fed
        .iter()
        .filter_map(|(_, f)| match f {
            Fed::Done(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].record, Err(TooLarge));
    assert_eq!(done[0].first, (0, 1, 0));
    // What was kept is freed: the rest is read in constant memory.
    assert!(matches!(
        s.open.as_ref().map(|o| &o.kind),
        Some(Kind::Dropped)
    ));
    assert!(fed.iter().all(|(ended, _)| ended.is_none()));
    // Its end closes it quietly; the next stream is read as ever.
    assert_eq!(
        s.feed(chunk("a", json!({}), Some("stop")), (0, 1, 0), 1000),
        (None, Fed::Kept)
    );
    assert!(s.open.is_none());
    s.feed(chunk("b", json!({"content": "hi"}), None), (0, 1, 0), 1000);
    assert!(s.finish().unwrap().record.is_ok());
}

#[test]
fn text_past_the_limit_drops_the_stream() {
    for events in [
        vec![anthropic_start(), json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})]
            .into_iter()
            .chain((0..20).map(|_| json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a".repeat(100)}})))
            .collect::<Vec<_>>(),
        (0..20).map(|_| chunk("a", json!({"content": "a".repeat(100)}), None)).collect(),
    ] {
        let mut s = Streams::default();
        let fed = feed_all(&mut s, events, 1000);
        let n = fed.iter().filter(|(_, f)| matches!(f, Fed::Done(a) if a.record == Err(TooLarge))).count();
        assert_eq!(n, 1, "{fed:?}");
        assert!(s.finish().is_none());
    }
}

// ------------------------------------------------------------ complexity

/// Bytes allocated on this thread (the test allocator counts them).
struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    let _ = ALLOCATED.try_with(|c| c.set(c.get().saturating_add(bytes)));
}

// SAFETY: every call is handed to `System` unchanged; counting touches only a
// thread-local `Cell` that needs no allocation. Test-only: the unit tests'
// allocator, so that copies can be counted rather than timed.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Bytes allocated while `events` are fed (built beforehand) and the stream is
/// finished.
fn allocated_feeding(events: Vec<Value>) -> usize {
    let mut s = Streams::default();
    let before = ALLOCATED.with(Cell::get);
    for e in events {
        s.feed(e, (0, 1, 0), ANY);
    }
    let done = s.finish();
    let after = ALLOCATED.with(Cell::get);
    drop(done);
    after - before
}

/// One call in `n` fragments of ten bytes, for each provider.
fn fragmented(n: usize) -> [Vec<Value>; 4] {
    let piece = "0123456789";
    let chat = std::iter::once(chunk("a", json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "glob", "arguments": ""}}]}), None))
        .chain((0..n).map(|_| chunk("a", json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}), None)))
        .collect();
    let responses = std::iter::once(json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "call_id": "c", "name": "glob", "arguments": ""}}))
        .chain((0..n).map(|_| json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": piece})))
        .collect();
    let anthropic = [anthropic_start(), anthropic_block(0)]
        .into_iter()
        .chain((0..n).map(|_| anthropic_json(0, piece)))
        .collect();
    let text = [anthropic_start(), json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})]
        .into_iter()
        .chain((0..n).map(|_| json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})))
        .collect();
    [chat, responses, anthropic, text]
}

#[test]
fn fragments_are_appended_in_place_not_copied_per_fragment() {
    // 20,000 fragments make 200 KB of text. Appending in place allocates a
    // small multiple of it (doubling, the parse at the end); copying the text
    // so far per fragment would allocate about 2 GB.
    let n = 20_000;
    for (which, events) in fragmented(n).into_iter().enumerate() {
        let bytes = allocated_feeding(events);
        assert!(
            bytes < 40 * 10 * n,
            "stream {which}: {bytes} bytes allocated"
        );
    }
}

/// `n` whole calls, each in a start and two fragments, for each provider.
fn many_calls(n: u64) -> [Vec<Value>; 3] {
    let chat = (0..n)
        .flat_map(|i| {
            [
                chunk("a", json!({"tool_calls": [{"index": i, "id": "c", "function": {"name": "glob", "arguments": "{\"pattern\":"}}]}), None),
                chunk("a", json!({"tool_calls": [{"index": i, "function": {"arguments": "\"*\"}"}}]}), None),
            ]
        })
        .collect();
    let responses = (0..n)
        .flat_map(|i| {
            [
                json!({"type": "response.output_item.added", "output_index": i, "item": {"type": "function_call", "call_id": "c", "name": "glob", "arguments": ""}}),
                json!({"type": "response.function_call_arguments.delta", "output_index": i, "delta": "{\"pattern\":"}),
                json!({"type": "response.function_call_arguments.delta", "output_index": i, "delta": "\"*\"}"}),
            ]
        })
        .collect();
    let anthropic = std::iter::once(anthropic_start())
        .chain((0..n).flat_map(|i| {
            [
                anthropic_block(i),
                anthropic_json(i, "{\"pattern\":"),
                anthropic_json(i, "\"*\"}"),
                json!({"type": "content_block_stop", "index": i}),
            ]
        }))
        .collect();
    [chat, responses, anthropic]
}

thread_local! {
    static COMPARED: Cell<usize> = const { Cell::new(0) };
}

/// One comparison of two call indexes (counted by `Key`).
pub(super) fn compared() {
    let _ = COMPARED.try_with(|c| c.set(c.get().saturating_add(1)));
}

#[test]
fn many_calls_cost_each_the_same() {
    // Memory: a constant per call (no call is copied when another is added).
    for (small, large) in many_calls(1_000).into_iter().zip(many_calls(10_000)) {
        let (small, large) = (allocated_feeding(small), allocated_feeding(large));
        assert!(large < 15 * small, "{small} → {large} bytes");
    }
    // Time: a call is found by its index in a map, about one comparison per
    // event, never by a scan of the calls so far (5,000 calls: 12.5 M).
    let n = 5_000;
    for events in many_calls(n) {
        let count = events.len();
        let before = COMPARED.with(Cell::get);
        allocated_feeding(events);
        let compared = COMPARED.with(Cell::get) - before;
        assert!(
            compared <= 2 * count,
            "{compared} comparisons for {count} events"
        );
    }
}
