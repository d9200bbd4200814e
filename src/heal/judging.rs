//! The judging side of `heal`: each call of a body judged with the toolset
//! as the filter judges it, and the notes worded (the
//! [`conversation::Healer`] the conversation walk asks).

use serde_json::{Map, Value};

use super::{Action, HealedCall};
use crate::filter::{Judge, Tally};
use crate::message::heal as words;
use crate::provider::conversation::{self, Decided, Fix};
use crate::provider::{self, Args, Extracted, Provider};
use crate::spelling::Spellings;
use crate::toolset::Toolset;
use crate::verdict::{Fault, Status, Verdict};

/// Heals the messages of one body of `provider`'s shape.
pub(super) fn heal_body(
    mut body: Map<String, Value>,
    provider: Provider,
    tools: &Toolset,
    spellings: &mut Spellings,
) -> (Map<String, Value>, Vec<HealedCall>) {
    let messages = match body.get_mut("messages") {
        Some(Value::Array(m)) => std::mem::take(m),
        _ => return (body, Vec::new()),
    };
    let mut judging = Judging {
        tools,
        provider,
        spellings,
        calls: Vec::new(),
    };
    let healed = conversation::heal(provider, messages, &mut judging);
    if let Some(slot) = body.get_mut("messages") {
        *slot = Value::Array(healed);
    }
    (body, judging.calls)
}

/// The [`conversation::Healer`] of one body: judges each call with the
/// toolset, as the filter does, and words the notes.
struct Judging<'a> {
    tools: &'a Toolset,
    provider: Provider,
    /// The record's number spellings, and those of the arguments sent as
    /// text (added as each call is read, so a repaired call keeps `1e2`).
    spellings: &'a mut Spellings,
    calls: Vec<HealedCall>,
}

impl Judging<'_> {
    /// Counts an entry of message `message` that is no call (`reason`) as a
    /// neutralised call, its verdict worded (what stderr says).
    fn no_call(&mut self, message: usize, reason: String) {
        let mut verdict = Verdict::rejected(reason, Fault::Call);
        verdict.finish(&self.tools.options().style, "");
        self.calls.push(HealedCall {
            message,
            call: None,
            verdict,
            action: Action::Neutralised,
        });
    }

    fn unreadable(&mut self, message: usize, object: &Value, reason: String) -> Decided {
        let sent = self.spellings.to_text(object);
        let text = words::unreadable_call(&reason, &sent);
        self.no_call(message, reason);
        Decided {
            fix: Fix::Remove(text),
            note: None,
        }
    }
}

impl conversation::Healer for Judging<'_> {
    fn call(&mut self, message: usize, object: &Value) -> Decided {
        let mut call = match provider::extract(object.clone(), None) {
            Extracted::Calls(mut calls)
                if calls.len() == 1 && calls.first().is_some_and(|c| c.leaked.is_none()) =>
            {
                calls.pop()
            }
            Extracted::Calls(_) => None,
            Extracted::Unrecognised(reason) => return self.unreadable(message, object, reason),
        };
        let Some(mut judged) = call.take() else {
            return self.unreadable(message, object, "not one tool call".to_owned());
        };
        if let Args::Text(text) = &judged.args {
            self.spellings.add(text.as_bytes());
        }
        let sent = judged.clone();
        let options = self.tools.options();
        let judge = Judge::new(self.tools.registry(), options);
        let mut verdict = judge.judge(&mut judged, self.spellings.masked);
        judge.settle(&judged.name, &mut verdict, Tally::Nothing);
        let api = self.provider.api();
        let (fix, note, action) = match (verdict.status(), verdict.args()) {
            (Status::Valid, Some(_))
                if sent.args_as_text == self.provider.writer().args_as_text() =>
            {
                (Fix::Keep, None, Action::Unchanged)
            }
            (Status::Valid | Status::Repaired, Some(args)) => {
                let mut written = judged.clone();
                let fitting = api.tool_name(&written.name);
                if fitting != written.name && !fitting.is_empty() {
                    written.rename(&fitting);
                }
                (
                    Fix::Replace(provider::write_call(&written, args, self.spellings)),
                    None,
                    Action::Repaired,
                )
            }
            _ => {
                let as_object = match &sent.args {
                    Args::Text(t) => serde_json::from_str::<Value>(t)
                        .ok()
                        .filter(Value::is_object),
                    Args::Value(v) if v.is_object() => Some(v.clone()),
                    _ => None,
                };
                let args_sent = match (&as_object, &sent.args) {
                    (Some(_), _) => None,
                    (None, Args::Text(t)) => Some(t.clone()),
                    (None, Args::Value(v)) => Some(self.spellings.to_text(v)),
                    (None, Args::Missing) => Some(String::new()),
                    (None, Args::Malformed(m)) => Some(m.clone()),
                };
                let mut name = api.tool_name(&sent.name);
                if name.is_empty() {
                    name = "unknown_tool".to_owned();
                }
                let renamed_from = (name != sent.name).then_some(sent.name.as_str());
                let instruction = verdict.message().unwrap_or_default();
                let note = words::rejected(instruction, renamed_from, args_sent.as_deref());
                let fix = if renamed_from.is_none() && args_sent.is_none() {
                    Fix::Keep
                } else {
                    let mut written = sent.clone();
                    if renamed_from.is_some() {
                        written.rename(&name);
                    }
                    let args = as_object.unwrap_or_else(|| Value::Object(Map::new()));
                    Fix::Replace(provider::write_call(&written, &args, self.spellings))
                };
                (fix, Some(note), Action::Neutralised)
            }
        };
        self.calls.push(HealedCall {
            message,
            call: Some(judged),
            verdict,
            action,
        });
        Decided { fix, note }
    }

    fn misplaced(&mut self, message: usize, role: &str, object: &Value) -> String {
        let sent = self.spellings.to_text(object);
        let reason = words::misplaced_call_reason(role);
        self.no_call(message, reason);
        words::misplaced_call(role, &sent)
    }

    fn missing(&self) -> String {
        words::missing_result()
    }

    fn orphan(&self, id: &str) -> String {
        words::orphan_result(id)
    }

    fn marked(&self, text: &str) -> bool {
        text.starts_with(words::MARK)
    }
}
