//! `callfix hook claude-code`: one `PreToolUse` payload on stdin, the hook's
//! answer on stdout.
//!
//! Never exit 2: Claude Code reads exit code 2 as "block this call". A payload
//! callfix cannot read, a usage error and a config that cannot be used are
//! non-blocking errors (exit 1, the reason on stderr, shown to the user;
//! [`super::main`] maps every 2 of a hook run to 1); a tool it has no schema
//! for, or another hook event, gets no opinion (exit 0, nothing printed). Tool
//! input holding a lone surrogate escape (which serde_json refuses) is read with
//! the escape masked and blocked, naming the path, as the filter rejects it: a
//! payload that is not JSON would have let the call run unchecked.

use std::io::{self, Read, Write};

use callfix::provider::claude_code::{HookAnswer, hook_answer};
use callfix::provider::{self, Extracted};
use callfix::registry::Lookup;
use callfix::spelling::Spellings;
use callfix::surrogates;
use callfix::verdict::{self, Status, Verdict};
use serde_json::Value;

use super::cli::{HookAgent, HookArgs, RepairedDecision};
use super::{Ended, judge_options, load_registry, report};

/// The largest payload read (a tool input holding a whole file is large).
const MAX_PAYLOAD: u64 = 64 * 1024 * 1024;

pub(crate) fn command(args: &HookArgs) -> anyhow::Result<Ended> {
    let HookAgent::ClaudeCode = args.agent;
    match answer(args) {
        Ok(Some((out, spellings))) => {
            let mut stdout = io::stdout().lock();
            spellings.write(&mut stdout, &out)?;
            writeln!(stdout)?;
            stdout.flush()?;
            Ok(Ended::Clean)
        }
        Ok(None) => Ok(Ended::Clean),
        Err(e) => {
            report("error:", &format!("{e:#}"));
            Ok(Ended::Findings)
        }
    }
}

/// The answer to print, with the payload's number spellings.
fn answer(args: &HookArgs) -> anyhow::Result<Option<(Value, Spellings)>> {
    let registry = load_registry(&args.schemas)?;
    let mut text = Vec::new();
    io::stdin().take(MAX_PAYLOAD).read_to_end(&mut text)?;
    // Valid JSON that serde_json refuses: a lone surrogate escape, masked.
    let (payload, masked): (Value, bool) = match serde_json::from_slice(&text) {
        Ok(payload) => (payload, false),
        Err(e) => match surrogates::mask(&text).and_then(|m| serde_json::from_slice(&m).ok()) {
            Some(payload) => (payload, true),
            None => anyhow::bail!("the hook payload on stdin is not JSON: {e}"),
        },
    };
    let calls = match provider::extract(payload, None) {
        Extracted::Calls(calls) => calls,
        Extracted::Unrecognised(why) => anyhow::bail!("not a Claude Code hook payload: {why}"),
    };
    let Some(mut call) = calls.into_iter().next() else {
        return Ok(None);
    };
    if matches!(registry.lookup(&call.name), Lookup::Unknown) {
        return Ok(None);
    }
    let options = judge_options(&args.judge);
    let mut verdict = match masked.then(|| lone_surrogate(&call.args)).flatten() {
        Some(path) => Verdict::invalid(None, vec![callfix::message::lone_surrogate(&path)]),
        None => verdict::judge(&registry, &mut call, options.policy),
    };
    verdict.finish(&options.style, &call.name);
    let reason = callfix::message::repaired(&verdict.repairs);
    let answer = match (verdict.status, &verdict.args) {
        (Status::Valid, _) => HookAnswer::Pass,
        (Status::Repaired, Some(input)) => HookAnswer::Repaired {
            input,
            reason: &reason,
            allow: args.repaired == RepairedDecision::Allow,
        },
        _ => HookAnswer::Block {
            reason: verdict.message.as_deref().unwrap_or_default(),
        },
    };
    Ok(hook_answer(answer).map(|out| (out, Spellings::scan(&text))))
}

/// Where a masked payload's tool input holds a lone surrogate escape, if it
/// does (`""`: at its root).
fn lone_surrogate(args: &provider::Args) -> Option<String> {
    match args {
        provider::Args::Value(v) => surrogates::find(v),
        provider::Args::Text(t) if t.contains(surrogates::MARK) => Some(
            serde_json::from_str::<Value>(t)
                .ok()
                .as_ref()
                .and_then(surrogates::find)
                .unwrap_or_default(),
        ),
        _ => None,
    }
}
