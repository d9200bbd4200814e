//! `callfix hook claude-code`: one `PreToolUse` payload on stdin, the hook's
//! answer on stdout.
//!
//! Never exit 2: Claude Code reads exit code 2 as "block this call". A payload
//! callfix cannot read is a non-blocking error (exit 1, shown to the user); a
//! tool it has no schema for, or another hook event, gets no opinion (exit 0,
//! nothing printed).

use std::io::{self, Read, Write};

use callfix::provider::claude_code::{HookAnswer, hook_answer};
use callfix::provider::{self, Extracted};
use callfix::registry::Lookup;
use callfix::spelling::Spellings;
use callfix::verdict::{self, Status};
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
    let payload: Value = serde_json::from_slice(&text)
        .map_err(|e| anyhow::anyhow!("the hook payload on stdin is not JSON: {e}"))?;
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
    let mut verdict = verdict::judge(&registry, &mut call, options.policy);
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
