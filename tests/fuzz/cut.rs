//! Streams cut short (issue 26): a provider stream of one call whose last
//! delta or closing event never came, perhaps ending mid-arguments or in the
//! middle of its last line; and a streamed message whose text writes a call
//! (a bare list, call notation, markup whose closing never came) and then
//! stops, with no finish or finished for length.
//!
//! The call carries a nonce in its arguments, and no valid call may come out
//! with it: a stream cut short is never completed. A cut stream ends the
//! input (nothing after it could close it), after any other parts.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::grammar::{self, Args, Shape};

/// The text a streamed message writes before it stops (`@`: the nonce).
const TEXTS: &[&str] = &[
    "[glob(pattern='@')]",
    "glob(pattern: '@')",
    "glob(pattern=\"@\")",
    "glob({pattern: '@'})",
    "glob('@')",
    "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"@\"}}",
    "<tool_call>glob(pattern: '@')",
    "{\"name\": \"glob\", \"arguments\": {\"pattern\": \"@\"}}",
    "<function=glob>\n<parameter=pattern>\n@\n</parameter>\n",
];

/// A stream cut short.
#[derive(Debug, Clone)]
pub(crate) enum Cut {
    /// A tool-call stream (a `ChatStream`, `AnthropicStream` or
    /// `ResponsesStream` shape) of which only the first events came: the call
    /// opened, never closed; then, if a fraction is given, that much of the
    /// next event's line (a stream ending in the middle of a line).
    Events(Shape, prop::sample::Index, Option<u8>),
    /// A message's text streamed (OpenAI chat deltas or an Anthropic text
    /// block, SSE-framed or not), stopping after this fraction of the text
    /// past the call's name; finished for length or not at all.
    Text {
        anthropic: bool,
        sse: bool,
        text: usize,
        at: u8,
        for_length: bool,
    },
}

pub(crate) fn cut() -> impl Strategy<Value = Cut> {
    let stream = prop_oneof![
        // An odd fraction: one choice (`grammar::stream_events`).
        (any::<bool>(), any::<u8>()).prop_map(|(s, f)| Shape::ChatStream(s, f | 1)),
        (any::<bool>(), any::<u8>()).prop_map(|(s, f)| Shape::AnthropicStream(s, f)),
        (any::<bool>(), any::<u8>()).prop_map(|(s, f)| Shape::ResponsesStream(s, f)),
    ];
    prop_oneof![
        (
            stream,
            any::<prop::sample::Index>(),
            prop::option::of(1u8..)
        )
            .prop_map(|(shape, keep, torn)| Cut::Events(shape, keep, torn)),
        (
            any::<bool>(),
            any::<bool>(),
            0..TEXTS.len(),
            prop_oneof![1 => Just(255u8), 1 => any::<u8>()],
            any::<bool>(),
        )
            .prop_map(|(anthropic, sse, text, at, for_length)| Cut::Text {
                anthropic,
                sse,
                text,
                at,
                for_length,
            }),
    ]
}

/// How many of a stream's events may come for its call to be open, not
/// closed: from the event that opens the call up to the one before the one
/// that closes it.
fn open_events(shape: &Shape) -> std::ops::Range<usize> {
    match shape {
        // role, call start, arguments, arguments | finish
        Shape::ChatStream(..) => 2..5,
        // message_start, block start, ping, delta, delta | block stop, …
        Shape::AnthropicStream(..) => 2..6,
        // created, item added, delta, delta, arguments done | item done, …
        _ => 2..6,
    }
}

/// The input lines of a cut stream (no final newline).
pub(crate) fn render(cut: &Cut, nonce: &str) -> String {
    match cut {
        Cut::Events(shape, keep, torn) => {
            let want = Args::Glob.text(nonce);
            let all = grammar::stream_events(shape, &want, "glob", nonce);
            let open = open_events(shape);
            let kept = all
                .get(..open.start + keep.index(open.len()))
                .unwrap_or_default();
            let sse = matches!(
                shape,
                Shape::ChatStream(true, _)
                    | Shape::AnthropicStream(true, _)
                    | Shape::ResponsesStream(true, _)
            );
            let mut text = grammar::events(sse, kept);
            if let (Some(f), Some(next)) = (torn, all.get(kept.len())) {
                // The next event's line, cut in its middle (a char boundary).
                let line = grammar::events(sse, std::slice::from_ref(next));
                let mut at = (line.len() * usize::from(*f) / 256).max(1);
                while !line.is_char_boundary(at) {
                    at -= 1;
                }
                text.push_str(if sse { "\n\n" } else { "\n" });
                text.push_str(&line[..at]);
            }
            text
        }
        Cut::Text {
            anthropic,
            sse,
            text,
            at,
            for_length,
        } => {
            let full = TEXTS[*text].replace('@', nonce);
            // Never before the call's name is written, with the character
            // after it (`glob(`, `glob>`, `glob"`).
            let from = full.find("glob").unwrap_or(0) + "glob".len() + 1;
            let mut end = from + (full.len() - from) * usize::from(*at) / 255;
            while !full.is_char_boundary(end) {
                end -= 1;
            }
            let written = &full[..end];
            let events = if *anthropic {
                anthropic_text(written, *for_length)
            } else {
                chat_text(written, *for_length, nonce)
            };
            grammar::events(*sse, &events)
        }
    }
}

/// An OpenAI chat stream writing `text` in 7-character deltas, finished for
/// length or not at all.
fn chat_text(text: &str, for_length: bool, nonce: &str) -> Vec<Value> {
    let id = format!("chatcmpl-{nonce}");
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(7) {
        let piece: String = piece.iter().collect();
        out.push(chunk(json!({"content": piece}), Value::Null));
    }
    if for_length {
        out.push(chunk(json!({}), json!("length")));
    }
    out
}

/// An Anthropic stream writing `text` as one text block, stopped for
/// `max_tokens` or with no `message_stop` at all.
fn anthropic_text(text: &str, for_length: bool) -> Vec<Value> {
    let mut out = vec![
        json!({"type": "message_start", "message": {"id": "msg_c", "type": "message", "role": "assistant", "content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    if for_length {
        out.push(json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}}));
        out.push(json!({"type": "message_stop"}));
    }
    out
}

/// The cut stream alone gives one rejected result for its call (and, when
/// its last line is torn, at most one more for that broken line: a torn
/// `event:` line of SSE framing gives none), naming `glob` or
/// no tool (the body readers of `<tool_call>` keep no name of a call cut
/// off): its call is reported, once, and never passed.
pub(crate) fn alone(results: &[Value], cut: &Cut) -> Result<(), String> {
    let torn = matches!(cut, Cut::Events(_, _, Some(_)));
    let calls = results
        .iter()
        .filter(|r| r["tool"] == "glob" || r["tool"] == "")
        .count();
    let passed = results.iter().any(|r| r["status"] != "rejected");
    if calls != 1 || passed || results.len() > 1 + usize::from(torn) {
        return Err(format!(
            "a stream cut short gave {} results ({calls} for its call), want one rejected call: {results:?}",
            results.len(),
        ));
    }
    Ok(())
}
