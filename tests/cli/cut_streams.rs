//! A call read from the text of a streamed message that never came to its end
//! (no finish, or cut for tokens): a call found because the message ended
//! there (a bare JSON call, call notation, markup whose closing never came)
//! may have had more to come, so it is rejected as cut off, never completed.
//! A call whose markup closed before the cut is read as usual.

use serde_json::{Value, json};

use crate::{callfix, json_lines};

/// An OpenAI chat stream writing `text` in 7-character deltas, ending with
/// `finish` (none: the stream just stops).
fn chat(text: &str, finish: Option<&str>) -> String {
    let event = |delta: Value, finish: Value| {
        let chunk = json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    let mut out = event(json!({"role": "assistant", "content": ""}), Value::Null);
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(7) {
        let piece: String = piece.iter().collect();
        out.push_str(&event(json!({"content": piece}), Value::Null));
    }
    if let Some(finish) = finish {
        out.push_str(&event(json!({}), json!(finish)));
        out.push_str("data: [DONE]\n\n");
    }
    out
}

/// An Anthropic stream writing `text` as one text block, stopping for `stop`
/// (none: no `message_stop`).
fn anthropic(text: &str, stop: Option<&str>) -> String {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "m1", "type": "message", "role": "assistant", "content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    if let Some(stop) = stop {
        events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}}));
        events.push(json!({"type": "message_stop"}));
    }
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

fn statuses(stream: String) -> Vec<(String, String)> {
    let out = callfix()
        .args(["-f", "json"])
        .write_stdin(stream)
        .output()
        .unwrap();
    json_lines(&out.stdout)
        .iter()
        .map(|r| {
            let status = r["status"].as_str().unwrap_or_default().to_owned();
            let error = r["errors"][0]["message"].as_str().unwrap_or_default();
            (status, error.to_owned())
        })
        .collect()
}

const BARE: &str =
    r#"{"name": "bash", "arguments": {"command": "make deploy", "description": "deploy"}}"#;

#[test]
fn a_bare_call_in_a_stream_cut_off_is_rejected_as_cut_off() {
    for finish in [None, Some("length")] {
        let out = statuses(chat(BARE, finish));
        assert_eq!(out.len(), 1, "{finish:?}: {out:?}");
        assert_eq!(out[0].0, "rejected", "{finish:?}");
        assert!(
            out[0].1.contains("stream ended"),
            "{finish:?}: {}",
            out[0].1
        );
    }
    let out = statuses(chat(BARE, Some("stop")));
    assert_eq!(out[0].0, "repaired", "a finished stream is read: {out:?}");
}

#[test]
fn call_notation_and_unclosed_markup_cut_off_are_rejected_as_well() {
    let texts = [
        "glob(pattern=\"*.rs\")",
        "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}",
    ];
    for text in texts {
        let out = statuses(anthropic(text, None));
        assert_eq!(out.len(), 1, "{text}: {out:?}");
        assert_eq!(out[0].0, "rejected", "{text}");
        let out = statuses(anthropic(text, Some("max_tokens")));
        assert_eq!(out[0].0, "rejected", "{text}: max_tokens");
        let out = statuses(anthropic(text, Some("end_turn")));
        assert_ne!(
            out[0].0, "rejected",
            "{text}: a finished message is read: {out:?}"
        );
    }
}

#[test]
fn markup_closed_before_the_cut_is_read() {
    let text = "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}\n</tool_call>\nNow I will wa";
    let out = statuses(chat(text, None));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].0, "repaired", "{out:?}");
}
