//! An OpenAI chat conversation healed: an assistant message's `tool_calls`,
//! then one `role: tool` message per call (`tool_call_id`), before any other
//! message. A result whose call is missing becomes a user message.

use serde_json::{Map, Value};

use super::{Healer, Ids, Pending, Waiting, any_id, append_text, marked, role, with_note};

pub(super) fn heal(messages: Vec<Value>, healer: &mut dyn Healer) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    let mut ids = Ids::default();
    let mut iter = messages.into_iter().enumerate().peekable();
    while let Some((i, mut message)) = iter.next() {
        if role(&message) == Some("tool") {
            out.push(orphan(message, healer));
            continue;
        }
        if role(&message) != Some("assistant")
            && let Some(m) = message.as_object_mut()
            && let Some(Value::Array(calls)) = m.get("tool_calls")
            && !calls.is_empty()
            && let Some(Value::Array(calls)) = m.shift_remove("tool_calls")
        {
            // Only an assistant message makes calls: these are kept as text.
            let name = m.get("role").and_then(Value::as_str).unwrap_or("role-less");
            let name = name.to_owned();
            let notes: Vec<String> = (calls.iter())
                .map(|c| healer.misplaced(i, &name, c))
                .collect();
            append_text(m, &notes.join("\n"));
            out.push(message);
            continue;
        }
        let Some(Value::Array(calls)) = message
            .as_object_mut()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .and_then(|m| m.get_mut("tool_calls"))
        else {
            out.push(message);
            continue;
        };
        let sent_calls = std::mem::take(calls);
        let mut kept = Vec::with_capacity(sent_calls.len());
        let mut pending = Waiting::default();
        let mut removed = Vec::new();
        for (k, call) in sent_calls.into_iter().enumerate() {
            let decided = Pending::decide(healer, &mut ids, (i, k), call, any_id, &mut removed);
            if let Some((call, waiting)) = decided {
                pending.push(waiting);
                kept.push(call);
            }
        }
        if let Some(m) = message.as_object_mut() {
            if kept.is_empty() {
                m.shift_remove("tool_calls");
            } else if let Some(slot) = m.get_mut("tool_calls") {
                *slot = Value::Array(kept);
            }
            if !removed.is_empty() {
                append_text(m, &removed.join("\n"));
            }
        }
        out.push(message);
        let mut orphans = Vec::new();
        while let Some((_, mut result)) = iter.next_if(|(_, m)| role(m) == Some("tool")) {
            let sent = result.get("tool_call_id");
            let Some(p) = pending.answer(sent) else {
                orphans.push(result);
                continue;
            };
            if let Some(m) = result.as_object_mut() {
                if p.sent.as_deref() != Some(p.id.as_str()) {
                    m.insert("tool_call_id".into(), Value::String(p.id.clone()));
                }
                if let Some(note) = &p.note {
                    let content = m.get("content").cloned().unwrap_or(Value::Null);
                    if !marked(&content, healer) {
                        m.insert("content".into(), with_note(content, note));
                    }
                }
            }
            out.push(result);
        }
        for p in pending.unanswered() {
            let mut m = Map::new();
            m.insert("role".into(), Value::String("tool".into()));
            m.insert("tool_call_id".into(), Value::String(p.id.clone()));
            m.insert(
                "content".into(),
                Value::String(p.note.clone().unwrap_or_else(|| healer.missing())),
            );
            out.push(Value::Object(m));
        }
        out.extend(orphans.into_iter().map(|o| orphan(o, healer)));
    }
    out
}

/// A `role: tool` message whose call is missing, kept as a user message.
fn orphan(result: Value, healer: &dyn Healer) -> Value {
    let id = match result.get("tool_call_id") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let content = result.get("content").cloned().unwrap_or(Value::Null);
    let mut m = Map::new();
    m.insert("role".into(), Value::String("user".into()));
    m.insert("content".into(), with_note(content, &healer.orphan(&id)));
    Value::Object(m)
}
