//! An Anthropic messages conversation healed: an assistant message's
//! `tool_use` blocks, answered by `tool_result` blocks at the start of the
//! next (user) message. A result whose call is missing becomes text.

use serde_json::{Map, Value};

use super::{Healer, Ids, Pending, Waiting, anthropic_id, marked, role, text_part, with_note};

pub(super) fn heal(messages: Vec<Value>, healer: &mut dyn Healer) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    let mut ids = Ids::default();
    let mut iter = messages.into_iter().enumerate().peekable();
    while let Some((i, mut message)) = iter.next() {
        if role(&message) == Some("user") {
            out.push(results(
                i,
                message,
                &mut Waiting::default(),
                Vec::new(),
                healer,
            ));
            continue;
        }
        let Some(Value::Array(blocks)) = message
            .as_object_mut()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .and_then(|m| m.get_mut("content"))
        else {
            out.push(message);
            continue;
        };
        if !blocks.iter().any(|b| is_call(b) || is_result(b)) {
            out.push(message);
            continue;
        }
        let sent_blocks = std::mem::take(blocks);
        let mut kept = Vec::with_capacity(sent_blocks.len());
        let mut pending = Waiting::default();
        let mut removed = Vec::new();
        // Results in an assistant message answer nothing there: they are
        // moved to the next user message, as if sent there.
        let mut misplaced = Vec::new();
        let mut k = 0;
        for block in sent_blocks {
            if is_result(&block) {
                misplaced.push(block);
                continue;
            }
            if !is_call(&block) {
                kept.push(block);
                continue;
            }
            let decided =
                Pending::decide(healer, &mut ids, (i, k), block, anthropic_id, &mut removed);
            let Some((block, waiting)) = decided else {
                continue;
            };
            k += 1;
            pending.push(waiting);
            kept.push(block);
        }
        kept.extend(removed.iter().map(|t| text_part(t)));
        let emptied = kept.is_empty();
        *blocks = kept;
        // A message that held only results is gone with them.
        if !emptied {
            out.push(message);
        }
        match iter.next_if(|(_, m)| role(m) == Some("user")) {
            Some((j, next)) => out.push(results(j, next, &mut pending, misplaced, healer)),
            None if !pending.is_empty() || !misplaced.is_empty() => {
                let mut m = Map::new();
                m.insert("role".into(), Value::String("user".into()));
                m.insert("content".into(), Value::Array(Vec::new()));
                let made = results(i, Value::Object(m), &mut pending, misplaced, healer);
                out.push(made);
            }
            None => {}
        }
    }
    out
}

fn is_call(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_use")
}

fn is_result(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_result")
}

/// User message `i` with its `tool_result` blocks (and `moved`, the results
/// of the assistant message before it) paired with `pending` (the calls of
/// that message): each result of a call first, in the order sent, then one
/// made for each call without, then the other blocks, then the results whose
/// call is missing, as text. A `tool_use` block (a user makes no calls) is
/// kept as text. A message with nothing to change is left as it is.
fn results(
    i: usize,
    mut message: Value,
    pending: &mut Waiting,
    moved: Vec<Value>,
    healer: &mut dyn Healer,
) -> Value {
    let Some(m) = message.as_object_mut() else {
        return message;
    };
    let work = !pending.is_empty() || !moved.is_empty();
    let blocks = match m.get_mut("content") {
        Some(Value::Array(blocks)) => std::mem::take(blocks),
        Some(Value::String(s)) if work && !s.is_empty() => vec![text_part(s)],
        _ if !work => return message,
        _ => Vec::new(),
    };
    if !work && !blocks.iter().any(|b| is_result(b) || is_call(b)) {
        m.insert("content".into(), Value::Array(blocks));
        return message;
    }
    let mut answered = Vec::new();
    let mut others = Vec::new();
    let mut orphans = Vec::new();
    for mut block in moved.into_iter().chain(blocks) {
        if is_call(&block) {
            others.push(text_part(&healer.misplaced(i, "user", &block)));
            continue;
        }
        if !is_result(&block) {
            others.push(block);
            continue;
        }
        let sent = block.get("tool_use_id");
        let Some(p) = pending.answer(sent) else {
            orphans.extend(orphan(block, &*healer));
            continue;
        };
        if let Some(b) = block.as_object_mut() {
            if p.sent.as_deref() != Some(p.id.as_str()) {
                b.insert("tool_use_id".into(), Value::String(p.id.clone()));
            }
            if let Some(note) = &p.note {
                let content = b.get("content").cloned().unwrap_or(Value::Null);
                if !marked(&content, healer) {
                    b.insert("content".into(), with_note(content, note));
                }
                if b.get("is_error") != Some(&Value::Bool(true)) {
                    b.insert("is_error".into(), Value::Bool(true));
                }
            }
        }
        answered.push(block);
    }
    for p in pending.unanswered() {
        let mut b = Map::new();
        b.insert("type".into(), Value::String("tool_result".into()));
        b.insert("tool_use_id".into(), Value::String(p.id.clone()));
        b.insert("is_error".into(), Value::Bool(true));
        let text = p.note.clone().unwrap_or_else(|| healer.missing());
        b.insert("content".into(), Value::String(text));
        answered.push(Value::Object(b));
    }
    answered.extend(others);
    answered.extend(orphans);
    m.insert("content".into(), Value::Array(answered));
    message
}

/// A `tool_result` block whose call is missing, as text blocks (its own
/// content blocks kept after the note).
fn orphan(block: Value, healer: &dyn Healer) -> Vec<Value> {
    let id = match block.get("tool_use_id") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let note = healer.orphan(&id);
    match block.get("content").cloned().unwrap_or(Value::Null) {
        Value::Array(parts) => std::iter::once(text_part(&note)).chain(parts).collect(),
        other => match with_note(other, &note) {
            Value::String(s) => vec![text_part(&s)],
            v => vec![v],
        },
    }
}
