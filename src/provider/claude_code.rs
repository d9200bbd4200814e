//! Claude Code hooks: a `PreToolUse` payload
//! `{"session_id", "hook_event_name": "PreToolUse", "tool_name", "tool_input",
//! "tool_use_id", …}` is a call; other hook events hold none. The hook's answers
//! (`hookSpecificOutput`) are written here too: [`hook_answer`].

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::call::{Call, read_call};
use super::problem::{Envelope, ProviderProblem};
use super::roles::{Api, Reader, Roles, Writer};

pub(super) struct ClaudeCode;

/// Claude Code reads its hook payloads and writes its hook's answers; its API
/// is Anthropic's.
pub(super) static ROLES: Roles = Roles {
    reader: Some(&ClaudeCode),
    writer: &ClaudeCode,
    api: &ClaudeCode,
};

impl Reader for ClaudeCode {
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        let event = map.field("hook_event_name")?.as_str()?;
        if event != "PreToolUse" {
            return Some(Ok(Vec::new()));
        }
        let call = read_call(
            std::mem::take(map),
            Provider::ClaudeCode,
            Envelope::ClaudeCode,
            &["tool_name"],
            &["tool_input"],
            &[&["tool_use_id"]],
        );
        Some(call.map(|c| vec![c]))
    }
}

impl Writer for ClaudeCode {
    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value {
        json!({"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": args, "tool_use_id": id})
    }

    /// The hook's answer that blocks the call and shows Claude why.
    fn error_result(&self, _id: &Value, _name: &str, message: &str) -> Value {
        decision("deny", message, None)
    }
}

impl Api for ClaudeCode {
    /// Claude Code speaks the Anthropic API: its tool definitions.
    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"name": name, "description": description, "input_schema": parameters})
    }
}

/// What a `PreToolUse` hook answers for a checked call.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookAnswer<'a> {
    /// No opinion: the call goes on under the user's own permission rules.
    Pass,
    /// Run the call with `input` instead; `allow` runs it at once, else the
    /// user is asked (and sees the repaired input).
    Repaired {
        /// The repaired `tool_input`.
        input: &'a Value,
        /// What was changed, for the user.
        reason: &'a str,
        /// Approve it too.
        allow: bool,
    },
    /// Block the call; `reason` is shown to Claude.
    Block {
        /// The instruction for the model.
        reason: &'a str,
    },
}

/// The JSON to print on stdout for `answer` (`None`: print nothing, exit 0).
#[cfg(feature = "cli")]
pub(crate) fn hook_answer(answer: HookAnswer<'_>) -> Option<Value> {
    match answer {
        HookAnswer::Pass => None,
        HookAnswer::Repaired {
            input,
            reason,
            allow,
        } => Some(decision(
            if allow { "allow" } else { "ask" },
            reason,
            Some(input),
        )),
        HookAnswer::Block { reason } => Some(decision("deny", reason, None)),
    }
}

fn decision(decision: &str, reason: &str, input: Option<&Value>) -> Value {
    let mut out = Map::new();
    out.insert("hookEventName".into(), json!("PreToolUse"));
    out.insert("permissionDecision".into(), json!(decision));
    out.insert("permissionDecisionReason".into(), json!(reason));
    if let Some(input) = input {
        out.insert("updatedInput".into(), input.clone());
    }
    json!({ "hookSpecificOutput": out })
}
