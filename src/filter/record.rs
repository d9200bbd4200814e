//! One record through the stages after the framer (and the stream assembler):
//! the calls taken out of the envelope, each judged, and one result per call
//! handed to the sink.

use serde_json::Value;

use super::{Conversation, Filter, StreamError, Summary, lone_surrogate, tell_operator};
use crate::message;
use crate::output::{Position, Sink};
use crate::provider::stream::Assembled;
use crate::provider::{self, Extracted};
use crate::repair::Kind;
use crate::spelling::Spellings;
use crate::verdict::{self, Fault, Verdict};

/// A record as the framer read it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Record<'b> {
    /// Where it is (its first call's position).
    pub(super) at: Position,
    /// Its lone surrogate escapes were masked to parse it.
    pub(super) masked: bool,
    /// Its bytes (for number spellings).
    pub(super) bytes: &'b [u8],
    /// Calls (by order) a stream left unfinished.
    pub(super) incomplete: &'b [usize],
}

impl Filter<'_> {
    /// Judges a response a stream reassembled, numbered by its first record.
    pub(super) fn assembled<S: Sink>(
        &self,
        done: Assembled,
        source: &str,
        summary: &mut Summary,
        printer: &mut S,
    ) -> Result<(), StreamError> {
        let (index, line, offset) = done.first;
        let record = Record {
            at: Position {
                index,
                call: 0,
                line,
                offset,
            },
            masked: false,
            bytes: b"",
            incomplete: &done.incomplete,
        };
        self.judge(Ok(done.record), record, source, summary, printer)
    }

    /// Judges every call of one parsed record (or says why it has none).
    pub(super) fn judge<S: Sink>(
        &self,
        parsed: Result<Value, String>,
        record: Record<'_>,
        source: &str,
        summary: &mut Summary,
        printer: &mut S,
    ) -> Result<(), StreamError> {
        let (registry, options) = (self.registry, self.options);
        let Record {
            at,
            masked,
            bytes,
            incomplete,
        } = record;
        let declared = |name: &str| registry.contains(name);
        let from_text = options
            .policy
            .enabled
            .has(Kind::ExtractFromText)
            .then_some(&declared as provider::Declared);
        let mut text = None;
        let mut conversation = Conversation::Input(source);
        let calls = parsed.and_then(|value| {
            conversation = Conversation::of(&value, options, source);
            if options.whole_messages {
                text = provider::assistant_text(&value, &declared);
            }
            match provider::extract(value, from_text) {
                Extracted::Calls(calls) => Ok(calls),
                Extracted::Unrecognised(reason) => {
                    Err(message::record_unrecognised(source, at.line, &reason))
                }
            }
        });
        match calls {
            Err(text) => {
                // A broken record: its message is its own, no tool's.
                let mut verdict = Verdict::rejected(text, Fault::Call);
                verdict.finish(&options.style, "");
                summary.broken_records += 1;
                printer.record(at, verdict).map_err(StreamError::Write)?;
            }
            Ok(calls) => {
                if calls.is_empty() {
                    summary.records_without_calls += 1;
                }
                let mut spellings = Spellings::scan(bytes);
                spellings.masked = masked;
                for call in &calls {
                    if let provider::Args::Text(text) = &call.args {
                        spellings.add(text.as_bytes());
                    }
                }
                printer.begin_record(spellings);
                let mut results = Vec::with_capacity(calls.len());
                for (i, mut call) in calls.into_iter().enumerate() {
                    if incomplete.contains(&i) {
                        call.args = provider::Args::Malformed(message::stream_cut_off());
                    }
                    let mut verdict = match masked.then(|| lone_surrogate(&call)).flatten() {
                        Some(path) => Verdict::invalid(None, vec![message::lone_surrogate(&path)]),
                        None => verdict::judge(registry, &mut call, options.policy),
                    };
                    summary
                        .loops
                        .check(&conversation, &call.name, &mut verdict, options);
                    verdict.finish(&options.style, &call.name);
                    summary.count(&call.name, &verdict);
                    if let Some(leak) = &call.leaked {
                        *summary.leaks.entry(leak.family).or_insert(0) += 1;
                    }
                    tell_operator(registry, &call.name, &verdict, summary, printer);
                    match &text {
                        // An assistant message is written whole (`--to`).
                        Some(_) => results.push((call, verdict)),
                        None => printer
                            .call(Position { call: i, ..at }, call, verdict)
                            .map_err(StreamError::Write)?,
                    }
                }
                if let Some(text) = &text
                    && !results.is_empty()
                {
                    printer
                        .message(at, text, results)
                        .map_err(StreamError::Write)?;
                }
            }
        }
        Ok(())
    }
}
