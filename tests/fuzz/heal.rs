//! `heal`'s grammar: conversations (OpenAI chat and Anthropic messages bodies)
//! of valid calls among calls with garbage, pythonic and cut arguments,
//! unknown and ill-formed tool names, missing, duplicate and numeric ids,
//! results missing, orphaned or doubled, in any order of turns; healed in
//! process, as it came and `--to` the other provider.
//!
//! Invariants: no panic; every call paired with exactly one result and every
//! result with its call, ids unique, arguments JSON objects; every valid call
//! byte-exact; no call lost (each is in the output, or, when it could not be
//! read as a call, said in its message's text); healing the output changes
//! nothing.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

use callfix::Toolset;
use callfix::heal::Healer;
use callfix::provider::Provider;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::grammar::{self, NONCE};

fn given() -> &'static Toolset {
    static TOOLS: OnceLock<Toolset> = OnceLock::new();
    TOOLS.get_or_init(|| {
        Toolset::from_path(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")).unwrap()
    })
}

/// One turn of a generated conversation.
#[derive(Debug, Clone)]
pub(crate) enum Turn {
    User(String),
    /// Calls: (id, tool name, argument text); a valid call's text holds the nonce.
    Calls(Vec<(Value, String, String)>),
    /// A result naming this id.
    Result(Value, String),
    /// Something that is no call at all, where a call goes.
    NotACall(Value),
    /// A valid call in a user message, where no call can be.
    UserCall(Value),
    /// A call and its result both in the assistant message (Anthropic; on
    /// OpenAI the call and a result after it).
    ResultInCall(Value, String),
    /// User text holding a lone surrogate escape (written as [`LONE`]).
    Lone,
    /// Content parts with no counterpart in the other provider (images,
    /// audio, documents, a refusal).
    Parts,
}

/// Stands in the generated text for a lone surrogate escape, put in after
/// the body is written (serde_json writes none).
const LONE: &str = "LONE-SURROGATE";

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => prop::sample::select(vec!["c1", "c2", "c3", "toolu_1", "a b", "", "call_2_0"]).prop_map(Value::from),
        1 => Just(Value::Null),
        1 => (0..3i64).prop_map(Value::from),
    ]
}

fn args() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just(format!("{{\"pattern\": \"{NONCE}\"}}")),
        2 => grammar::plain_garbage().prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        1 => Just("{'pattern': 'x', }".to_owned()),
        1 => Just("{\"pattern\": \"cut".to_owned()),
        1 => Just("{\"pattern\": 5}".to_owned()),
        1 => Just("{\"pattern\": \"1e2\", \"n\": 1E2}".to_owned()),
        1 => Just("[]".to_owned()),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "glob",
        "glob",
        "Glob",
        "delete",
        "read file!",
        "",
        "mcp__x__glob",
    ])
    .prop_map(str::to_owned)
}

/// The turns every reader takes as a conversation (the report fuzz reads
/// them too).
pub(crate) fn turns() -> impl Strategy<Value = Vec<Turn>> {
    prop::collection::vec(
        prop_oneof![
            2 => "[a-z ]{0,8}".prop_map(Turn::User),
            3 => prop::collection::vec((id(), name(), args()).prop_map(|(i, n, a)| (i, n, a)), 1..4).prop_map(Turn::Calls),
            3 => (id(), "[a-z]{0,6}").prop_map(|(i, t)| Turn::Result(i, t)),
            1 => prop::sample::select(vec![json!("x"), json!(1), json!({"type": "function"}), json!({"function": {"arguments": "{}"}})]).prop_map(Turn::NotACall),
        ],
        0..10,
    )
}

/// [`turns`], and the ones only `heal` sorts out: calls and results where
/// none can be, a lone surrogate escape, content with no counterpart.
pub(crate) fn hostile_turns() -> impl Strategy<Value = Vec<Turn>> {
    prop::collection::vec(
        prop_oneof![
            2 => "[a-z ]{0,8}".prop_map(Turn::User),
            3 => prop::collection::vec((id(), name(), args()).prop_map(|(i, n, a)| (i, n, a)), 1..4).prop_map(Turn::Calls),
            3 => (id(), "[a-z]{0,6}").prop_map(|(i, t)| Turn::Result(i, t)),
            1 => prop::sample::select(vec![json!("x"), json!(1), json!({"type": "function"}), json!({"function": {"arguments": "{}"}})]).prop_map(Turn::NotACall),
            1 => id().prop_map(Turn::UserCall),
            1 => (id(), "[a-z]{0,6}").prop_map(|(i, t)| Turn::ResultInCall(i, t)),
            1 => Just(Turn::Lone),
            1 => Just(Turn::Parts),
        ],
        0..10,
    )
}

pub(crate) fn openai(turns: &[Turn]) -> Value {
    let mut messages = vec![];
    for t in turns {
        let m = match t {
            Turn::User(s) => json!({"role": "user", "content": s}),
            Turn::Calls(calls) => {
                json!({"role": "assistant", "content": null, "tool_calls": calls.iter().map(|(i, n, a)| {
                let mut c = json!({"type": "function", "function": {"name": n, "arguments": a}});
                if !i.is_null() { c["id"] = i.clone(); }
                c
            }).collect::<Vec<_>>()})
            }
            Turn::Result(i, s) => json!({"role": "tool", "tool_call_id": i, "content": s}),
            Turn::NotACall(v) => json!({"role": "assistant", "content": "", "tool_calls": [v]}),
            Turn::UserCall(i) => json!({"role": "user", "content": "u", "tool_calls": [
                {"id": i, "type": "function", "function": {"name": "glob", "arguments": format!("{{\"pattern\": \"{NONCE}\"}}")}}]}),
            Turn::ResultInCall(i, s) => {
                messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\": \"x\"}"}}]}));
                json!({"role": "tool", "tool_call_id": i, "content": s})
            }
            Turn::Lone => json!({"role": "user", "content": format!("cut {LONE}")}),
            Turn::Parts => {
                messages.push(json!({"role": "user", "content": [
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    {"type": "image_url", "image_url": "http://x/y.png"},
                    {"type": "input_audio", "input_audio": {"data": "AAA", "format": "wav"}},
                    {"type": "text"}]}));
                json!({"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]})
            }
        };
        messages.push(m);
    }
    json!({"model": "m", "messages": messages})
}

pub(crate) fn anthropic(turns: &[Turn]) -> Value {
    let mut messages = vec![];
    for t in turns {
        messages.push(match t {
            Turn::User(s) => json!({"role": "user", "content": s}),
            Turn::Calls(calls) => json!({"role": "assistant", "content": calls.iter().map(|(i, n, a)| {
                let input = serde_json::from_str::<Value>(a).unwrap_or_else(|_| Value::String(a.clone()));
                let mut c = json!({"type": "tool_use", "name": n, "input": input});
                if !i.is_null() { c["id"] = i.clone(); }
                c
            }).collect::<Vec<_>>()}),
            Turn::Result(i, s) => json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": s}]}),
            Turn::NotACall(v) => json!({"role": "assistant", "content": [{"type": "tool_use", "input": v}]}),
            Turn::UserCall(i) => json!({"role": "user", "content": [{"type": "text", "text": "u"},
                {"type": "tool_use", "id": i, "name": "glob", "input": {"pattern": NONCE}}]}),
            Turn::ResultInCall(i, s) => json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": i, "name": "glob", "input": {"pattern": "x"}},
                {"type": "tool_result", "tool_use_id": i, "content": s}]}),
            Turn::Lone => json!({"role": "user", "content": format!("cut {LONE}")}),
            Turn::Parts => json!({"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "d"}},
                {"type": "tool_result", "tool_use_id": "none", "content": [
                    {"type": "image", "source": {"type": "url", "url": "http://x/a.png"}}]}]}),
        });
    }
    json!({"model": "m", "max_tokens": 5, "system": "s", "messages": messages})
}

/// Every call answered by exactly one result (OpenAI: `tool` messages right
/// after its turn; Anthropic: `tool_result` blocks first in the next
/// message), every result by its call, ids unique, arguments objects. Gives
/// the number of calls.
pub(crate) fn paired(body: &Value, provider: Provider) -> Result<usize, String> {
    let messages = body["messages"].as_array().ok_or("no messages")?;
    let mut seen = HashSet::new();
    let mut waiting: Vec<String> = vec![];
    let mut calls = 0;
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        i += 1;
        let (ids, results): (Vec<String>, Vec<String>) = if provider == Provider::OpenAi {
            if m["role"] == "tool" {
                return Err(format!("a result without its call: {body}"));
            }
            let mut ids = vec![];
            for c in m["tool_calls"].as_array().into_iter().flatten() {
                let args: Value =
                    serde_json::from_str(c["function"]["arguments"].as_str().ok_or("arguments")?)
                        .map_err(|e| format!("{e}: {body}"))?;
                if !args.is_object() {
                    return Err(format!("arguments not an object: {body}"));
                }
                ids.push(c["id"].as_str().ok_or("id")?.to_owned());
            }
            let mut got = vec![];
            while let Some(r) = messages.get(i).filter(|r| r["role"] == "tool") {
                got.push(r["tool_call_id"].as_str().ok_or("tool_call_id")?.to_owned());
                i += 1;
            }
            waiting = ids.clone();
            (ids, got)
        } else {
            let blocks: Vec<Value> = m["content"].as_array().cloned().unwrap_or_default();
            let got: Vec<String> = blocks
                .iter()
                .take_while(|b| b["type"] == "tool_result")
                .map(|b| b["tool_use_id"].as_str().unwrap_or("?").to_owned())
                .collect();
            if blocks.iter().filter(|b| b["type"] == "tool_result").count() != got.len() {
                return Err(format!("results not first: {body}"));
            }
            let mut ids = vec![];
            for b in blocks.iter().filter(|b| b["type"] == "tool_use") {
                if !b["input"].is_object() {
                    return Err(format!("input not an object: {body}"));
                }
                let id = b["id"].as_str().ok_or("id")?;
                if id.is_empty()
                    || !id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    return Err(format!("id {id:?}: {body}"));
                }
                ids.push(id.to_owned());
            }
            let want = std::mem::replace(&mut waiting, ids.clone());
            (want, got)
        };
        let mut a = ids.clone();
        let mut b = results.clone();
        a.sort();
        b.sort();
        if a != b {
            return Err(format!("calls {a:?} answered by {b:?}: {body}"));
        }
        if provider == Provider::OpenAi {
            for id in &ids {
                if !seen.insert(id.clone()) {
                    return Err(format!("id {id} twice: {body}"));
                }
            }
            calls += ids.len();
        }
    }
    if provider == Provider::Anthropic {
        if !waiting.is_empty() {
            return Err(format!("last calls unanswered: {body}"));
        }
        for m in messages {
            for b in m["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|b| b["type"] == "tool_use")
            {
                calls += 1;
                if !seen.insert(b["id"].as_str().unwrap_or("").to_owned()) {
                    return Err(format!("id twice: {body}"));
                }
            }
        }
    }
    Ok(calls)
}

/// Heals `turns` in both shapes and both `--to` targets; every invariant
/// broken is an `Err`.
pub(crate) fn check(turns: &[Turn]) -> Result<(), String> {
    let sent: usize = turns
        .iter()
        .map(|t| match t {
            Turn::Calls(c) => c.len(),
            Turn::NotACall(_) | Turn::UserCall(_) | Turn::ResultInCall(..) => 1,
            _ => 0,
        })
        .sum();
    let valid = turns
        .iter()
        .flat_map(|t| match t {
            Turn::Calls(c) => c.clone(),
            _ => vec![],
        })
        .filter(|(_, n, a)| n == "glob" && a.contains(NONCE))
        .count();
    for (from, body) in [
        (Provider::OpenAi, openai(turns)),
        (Provider::Anthropic, anthropic(turns)),
    ] {
        for to in [from, Provider::OpenAi, Provider::Anthropic] {
            let healer = Healer::new(Some(given()))
                .to(to)
                .map_err(|e| e.to_string())?;
            let lone = turns.iter().any(|t| matches!(t, Turn::Lone));
            let text = body.to_string().replace(LONE, "\\ud83d");
            if lone {
                // No `Value` holds a lone surrogate: the library refuses it
                // (the command heals it: tests/cli/heal_findings.rs).
                if healer.heal(text.as_bytes()).is_ok() {
                    return Err(format!("a lone surrogate read into a Value: {text}"));
                }
                continue;
            }
            let healed = healer
                .heal(text.as_bytes())
                .map_err(|e| format!("{e}: {text}"))?;
            if healed.calls().len() != sent {
                return Err(format!(
                    "{} results for {sent} calls: {text}",
                    healed.calls().len()
                ));
            }
            let unreadable = healed.calls().iter().filter(|c| c.call().is_none()).count();
            let out = healed.to_text();
            let calls = paired(healed.request(), to)?;
            if calls + unreadable != sent {
                return Err(format!(
                    "{calls} calls + {unreadable} unreadable out of {sent}: {out}"
                ));
            }
            let said = out.matches("A tool call that could not be read").count()
                + out.matches("A tool call in a user message").count();
            if said != unreadable {
                return Err(format!("{unreadable} unreadable calls, {said} said: {out}"));
            }
            if from == to && from == Provider::OpenAi {
                let exact = out
                    .matches(&format!("{{\\\"pattern\\\": \\\"{NONCE}\\\"}}"))
                    .count();
                if exact < valid {
                    return Err(format!("{exact} of {valid} valid calls byte-exact: {out}"));
                }
            }
            let again = Healer::new(Some(given()))
                .heal(out.as_bytes())
                .map_err(|e| e.to_string())?;
            if again.changed() || again.to_text() != out {
                return Err(format!(
                    "healing twice changed it:\n{out}\n{}",
                    again.to_text()
                ));
            }
        }
    }
    Ok(())
}
