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
//!
//! `--loop-limit`: a hook runs as one process per call, so the rejections of a
//! session are counted in a small file under the state dir ([`Loops`]), as the
//! filter counts them in memory.

use std::fs;
use std::io::{self, Read, Write};
use std::path::PathBuf;

use crate::filter::{Judge, Repeats, Tally};
use crate::provider::claude_code::{HookAnswer, hook_answer};
use crate::provider::{self, Extracted};
use crate::registry::Lookup;
use crate::spelling::Spellings;
use crate::surrogates;
use crate::verdict::{Status, Verdict};
use serde_json::Value;

use super::cli::{HookAgent, HookArgs, RepairedDecision};
use super::{Ctx, Ended, judge_options, load_registry};

/// The largest payload read (a tool input holding a whole file is large).
const MAX_PAYLOAD: u64 = 64 * 1024 * 1024;

pub(crate) fn command(args: &HookArgs, ctx: &Ctx) -> anyhow::Result<Ended> {
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
            ctx.report("error:", &format!("{e:#}"));
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
    let payload_session = payload.get("session_id").cloned();
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
    let judge = Judge::new(&registry, &options);
    let mut verdict = judge.judge(&mut call, masked);
    let mut loops = session_id(payload_session.as_ref()).and_then(Loops::open);
    let tally = match &mut loops {
        Some(loops) => Tally::Repeats(loops),
        None => Tally::Nothing,
    };
    judge.settle(&call.name, &mut verdict, tally);
    let reason = crate::message::repaired(&verdict.repairs);
    let answer = match (verdict.status, verdict.args()) {
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

/// The session id of a payload, as text (`None`: no `session_id`, so no loop
/// memory).
fn session_id(id: Option<&Value>) -> Option<String> {
    match id? {
        Value::Null => None,
        Value::String(id) => Some(id.clone()),
        other => Some(other.to_string()),
    }
}

/// The environment variable naming the dir where the hook keeps its loop counts.
const STATE_DIR_VAR: &str = "CALLFIX_STATE_DIR";

/// Where loop counts are kept: `$CALLFIX_STATE_DIR`, else
/// `$XDG_STATE_HOME/callfix`, else `~/.local/state/callfix` (`None`: none of
/// them is set, so no loop memory).
fn state_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    var(STATE_DIR_VAR)
        .or_else(|| var("XDG_STATE_HOME").map(|p| p.join("callfix")))
        .or_else(|| var("HOME").map(|p| p.join(".local/state/callfix")))
        .or_else(|| var("LOCALAPPDATA").map(|p| p.join("callfix")))
}

/// The rejected calls of one session and how often each came: a file of
/// [`MAGIC`] then records of a 16-byte digest and a little-endian `u32` count,
/// oldest first. A file that cannot be read or is not of this form is no
/// counts; one that cannot be written loses the count. Nothing here fails the
/// hook.
struct Loops {
    path: PathBuf,
}

/// The first bytes of a loop-count file (a format change changes them).
const MAGIC: &[u8; 16] = b"callfix-loops-1\n";
/// One record: a digest and a count.
const RECORD: usize = 20;
/// Distinct rejected calls remembered per session; past it the oldest goes.
const MAX_CALLS: usize = 1024;
/// A session's file untouched this long is deleted when another session's
/// file is made (Claude Code resumes a session rarely after a week; its counts
/// start again then).
const STALE: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);
/// Entries of the state dir looked at for stale files, per new file.
const MAX_PRUNE_SCAN: usize = 4096;

impl Loops {
    /// The counts of `session` (a name made from its digest: a session id is no
    /// file name).
    fn open(session: String) -> Option<Loops> {
        let name = format!("loops-{:032x}", digest(&["session", &session]));
        Some(Loops {
            path: state_dir()?.join(name),
        })
    }

    /// The records in the file; none if it is missing, unreadable or malformed.
    fn read(&self) -> Vec<([u8; 16], u32)> {
        let max = MAGIC.len() + MAX_CALLS * RECORD;
        let mut bytes = Vec::new();
        let read =
            fs::File::open(&self.path).and_then(|f| f.take(max as u64 + 1).read_to_end(&mut bytes));
        let Some(body) = bytes.strip_prefix(MAGIC.as_slice()) else {
            return Vec::new();
        };
        if read.is_err() || bytes.len() > max || body.len() % RECORD != 0 {
            return Vec::new();
        }
        body.chunks_exact(RECORD)
            .filter_map(|r| {
                let (key, count) = r.split_first_chunk::<16>()?;
                Some((*key, u32::from_le_bytes(count.try_into().ok()?)))
            })
            .collect()
    }

    /// Replaces the file at once (a new file renamed over it: a reader never
    /// sees half of it); on any error the old file stays.
    fn write(&self, records: &[([u8; 16], u32)]) {
        let mut bytes = MAGIC.to_vec();
        for (key, count) in records {
            bytes.extend_from_slice(key);
            bytes.extend_from_slice(&count.to_le_bytes());
        }
        let Some(dir) = self.path.parent() else {
            return;
        };
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = self
            .path
            .with_extension(format!("{}-{nanos}.tmp", std::process::id()));
        let written = fs::create_dir_all(dir).and_then(|()| {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            f.write_all(&bytes)?;
            drop(f);
            fs::rename(&tmp, &self.path)
        });
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
    }
}

impl Repeats for Loops {
    /// Counts one more rejection of this call to `tool` in the file: how many
    /// there have been in this session, this one included.
    fn count(&mut self, tool: &str, verdict: &Verdict) -> u32 {
        // The same text the filter counts by.
        let call = crate::filter::repeat_text(verdict);
        let key = digest(&["call", tool, &call]).to_le_bytes();
        let mut records = self.read();
        if records.is_empty() {
            prune(self.path.parent());
        }
        let times = match records.iter().position(|(k, _)| *k == key) {
            Some(i) => records.remove(i).1.saturating_add(1),
            None => 1,
        };
        records.push((key, times));
        let excess = records.len().saturating_sub(MAX_CALLS);
        records.drain(..excess);
        self.write(&records);
        times
    }
}

/// Deletes the loop-count files (and left-over temporary files) in `dir` not
/// modified for [`STALE`]; looks at [`MAX_PRUNE_SCAN`] entries at most.
fn prune(dir: Option<&std::path::Path>) {
    let Some(entries) = dir.and_then(|d| fs::read_dir(d).ok()) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for entry in entries.take(MAX_PRUNE_SCAN).flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with("loops-") {
            continue;
        }
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > STALE);
        if stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// A 128-bit FNV-1a digest of the parts, each prefixed by its length: stable
/// across builds, as a file read by the next callfix must be.
fn digest(parts: &[&str]) -> u128 {
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for part in parts {
        let len = (part.len() as u64).to_le_bytes();
        for b in len.iter().chain(part.as_bytes()) {
            h ^= u128::from(*b);
            h = h.wrapping_mul(PRIME);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_stable_across_builds() {
        // The next callfix reads this callfix's files: a change here resets
        // every session's counts (then change MAGIC too).
        // FNV-1a 128 of each part's u64 LE length then its bytes.
        assert_eq!(
            format!("{:032x}", digest(&["session", "s1"])),
            "e84472b7f9a9abcd07e8b0199c4be014"
        );
        assert_ne!(digest(&["ab", "c"]), digest(&["a", "bc"]));
        assert_eq!(digest(&[]), 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d);
    }
}
