use serde_json::{Value, json};

use super::*;

/// A healer that keeps every call and words notes plainly.
struct Plain;

impl Healer for Plain {
    fn call(&mut self, _message: usize, call: &Value) -> Decided {
        let bad = call.get("name").and_then(Value::as_str) == Some("bad");
        Decided {
            fix: Fix::Keep,
            note: bad.then(|| "[n] bad".to_owned()),
        }
    }
    fn misplaced(&mut self, _message: usize, role: &str, call: &Value) -> String {
        format!("[n] {role} call {call}")
    }
    fn missing(&self) -> String {
        "[n] missing".into()
    }
    fn orphan(&self, id: &str) -> String {
        format!("[n] orphan {id}")
    }
    fn marked(&self, text: &str) -> bool {
        text.starts_with("[n] ")
    }
}

fn body(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn detects_each_provider() {
    let openai = body(json!({"messages": [{"role": "system", "content": "s"}]}));
    let anthropic = body(json!({"system": "s", "messages": []}));
    let blocks =
        body(json!({"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}));
    let tools = body(json!({"messages": [], "tools": [{"name": "a", "input_schema": {}}]}));
    assert_eq!(detect(&openai), Some(Provider::OpenAi));
    assert_eq!(detect(&anthropic), Some(Provider::Anthropic));
    assert_eq!(detect(&blocks), Some(Provider::Anthropic));
    assert_eq!(detect(&tools), Some(Provider::Anthropic));
    assert_eq!(
        detect(&body(json!({"messages": []}))),
        Some(Provider::OpenAi)
    );
    assert_eq!(detect(&body(json!({"messages": {}}))), None);
}

#[test]
fn ids_are_kept_unless_taken_or_unfit() {
    let mut ids = Ids::default();
    assert_eq!(ids.assign(Some("a"), 0, 0, any_id), "a");
    assert_eq!(ids.assign(Some("a"), 1, 0, any_id), "a_1_0");
    assert_eq!(ids.assign(None, 1, 1, any_id), "call_1_1");
    assert_eq!(ids.assign(Some("a b"), 2, 0, anthropic_id), "a_b_2_0");
    ids.used.insert("call_3_0".into());
    assert_eq!(ids.assign(Some(""), 3, 0, any_id), "call_3_0_2");
}

#[test]
fn openai_results_paired_made_and_orphans_kept() {
    let messages = vec![
        json!({"role": "tool", "tool_call_id": "early", "content": "e"}),
        json!({"role": "assistant", "tool_calls": [{"id": "a", "name": "ok"}, {"id": "b", "name": "bad"}]}),
        json!({"role": "tool", "tool_call_id": "x", "content": "orphan"}),
        json!({"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "said"}]}),
    ];
    let out = heal(Provider::OpenAi, messages, &mut Plain);
    assert_eq!(
        out[0],
        json!({"role": "user", "content": "[n] orphan early\ne"})
    );
    assert_eq!(out[2]["content"][0]["text"], "[n] bad");
    assert_eq!(out[2]["content"][1]["text"], "said");
    assert_eq!(
        out[3],
        json!({"role": "tool", "tool_call_id": "a", "content": "[n] missing"})
    );
    assert_eq!(out[4]["role"], "user");
    assert_eq!(out.len(), 5);
    // Healed again: nothing changes.
    assert_eq!(heal(Provider::OpenAi, out.clone(), &mut Plain), out);
}

#[test]
fn anthropic_results_first_and_a_user_turn_made() {
    let messages = vec![
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "ok", "input": {}}]}),
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "bad", "input": {}}]}),
        json!({"role": "user", "content": [{"type": "text", "text": "t"}, {"type": "tool_result", "tool_use_id": "a", "content": "r"}]}),
    ];
    let out = heal(Provider::Anthropic, messages, &mut Plain);
    assert_eq!(out.len(), 4);
    assert_eq!(out[1]["content"][0]["tool_use_id"], "a");
    assert_eq!(out[1]["content"][0]["content"], "[n] missing");
    assert_eq!(out[2]["content"][0]["id"], "a_1_0");
    // The result naming "a" after the second turn answers its call (sent as
    // "a", now a_1_0), and comes first.
    let last = out[3]["content"].as_array().unwrap();
    assert_eq!(last[0]["tool_use_id"], "a_1_0");
    assert_eq!(last[0]["is_error"], true);
    assert_eq!(last[0]["content"], "[n] bad\nr");
    assert_eq!(last[1]["text"], "t");
    assert_eq!(last.len(), 2);
    assert_eq!(heal(Provider::Anthropic, out.clone(), &mut Plain), out);
}

#[test]
fn untouched_messages_are_left_as_they_are() {
    let messages = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "t"}]}),
        json!({"role": "assistant", "content": "plain"}),
    ];
    assert_eq!(
        heal(Provider::Anthropic, messages.clone(), &mut Plain),
        messages
    );
    assert_eq!(
        heal(Provider::OpenAi, messages.clone(), &mut Plain),
        messages
    );
}

#[test]
fn an_anthropic_result_in_an_assistant_message_moves_to_the_next_user_message() {
    let messages = vec![
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "f", "input": {}},
            {"type": "tool_result", "tool_use_id": "a", "content": "x"}]}),
        json!({"role": "assistant", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "again"}]}),
    ];
    let out = heal(Provider::Anthropic, messages, &mut Plain);
    assert_eq!(
        Value::Array(out),
        json!([
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "x"}]},
            // An assistant message of results only is gone; its result,
            // answering no call waiting, is kept as text.
            {"role": "user", "content": [{"type": "text", "text": "[n] orphan a\nagain"}]},
        ])
    );
}

#[test]
fn calls_outside_assistant_messages_become_text() {
    let anthropic = vec![json!({"role": "user", "content": [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "a", "name": "f", "input": {}}]})];
    let out = heal(Provider::Anthropic, anthropic, &mut Plain);
    assert_eq!(
        out,
        vec![json!({"role": "user", "content": [
            {"type": "text", "text": "hi"},
            {"type": "text", "text": "[n] user call {\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"f\",\"input\":{}}"}]})]
    );
    let openai = vec![json!({"role": "user", "content": "hi", "tool_calls": [{"id": "a"}]})];
    let out = heal(Provider::OpenAi, openai, &mut Plain);
    assert_eq!(
        out,
        vec![json!({"role": "user", "content": "hi\n[n] user call {\"id\":\"a\"}"})]
    );
}
