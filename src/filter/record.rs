//! One record through the stages after the framer, in two steps:
//!
//! - [`Filter::prepare`] is pure: it parses the record, takes the calls out of
//!   the envelope and judges each one. With `--jobs`, it runs on worker threads.
//! - [`Filter::deliver`] is sequential, in input order: it reassembles streams,
//!   counts repeats (loop detection) and statistics, words the messages and hands
//!   one result per call to the sink.

use serde_json::Value;

use super::{Conversation, Filter, Judge, Options, StreamError, Summary, Tally, tell_operator};
use crate::input::{Ending, RecordMeta};
use crate::message;
use crate::output::{Position, Printer, Sink};
use crate::provider::stream::{self, Assembled, Fed, Streams, Unfinished};
use crate::provider::{self, Call, Extracted};
use crate::repair::Kind;
use crate::spelling::Spellings;
use crate::surrogates;
use crate::verdict::{Fault, Status, Verdict};

/// A record after the pure stages.
#[derive(Debug)]
pub(crate) enum Prepared {
    /// An event of a streamed response: only the sequential stage can tell what
    /// it completes. (And whether its lone surrogate escapes were masked to
    /// read it.)
    Event(Value, (u64, u64, u64), bool),
    /// The record's calls, judged (or why it has none).
    Judged(Box<Judged>),
}

/// The calls of one record, judged; nothing counted, worded or written yet.
#[derive(Debug)]
pub(crate) struct Judged {
    /// Where the record is (its first call's position).
    at: Position,
    /// Its number spellings, for the sink.
    spellings: Spellings,
    /// Its conversation id (`--session`), if it has one.
    session: Option<String>,
    /// The assistant message's text, when whole messages are written (`--to`).
    text: Option<String>,
    /// Which model wrote it and why its turn stopped.
    origin: provider::Origin,
    /// The judged calls, or why the record holds none.
    calls: Result<Vec<Judgement>, String>,
    /// The results a worker wrote already (`--jobs`), end to end.
    written: Vec<u8>,
}

/// One judged call.
#[derive(Debug)]
// Boxing `Pending`, every call's variant with one job, would cost an allocation
// per call to save moving a few hundred bytes within one record's vector.
#[allow(clippy::large_enum_variant)]
pub(super) enum Judgement {
    /// To be counted, worded and written in input order.
    Pending(Call, Verdict),
    /// Valid or repaired, and written by a worker (its bytes end at `end` in the
    /// record's `written`): only counted in order. Such a result depends on no
    /// earlier record: loop detection and message wording touch rejections only.
    Written {
        tool: String,
        status: Status,
        repairs: Vec<&'static str>,
        leak: Option<&'static str>,
        end: usize,
    },
}

impl Filter<'_> {
    /// Parses and judges one framed record. Pure: safe to run on any thread.
    /// With `fork` (a worker's printer), valid and repaired calls are written
    /// there at once.
    /// `line` is the record's parse when the framer made it
    /// ([`RecordMeta::parsed`]).
    pub(super) fn prepare(
        &self,
        meta: &RecordMeta,
        line: Option<crate::json::Line>,
        bytes: &[u8],
        source: &str,
        fork: Option<&mut Printer<Vec<u8>>>,
    ) -> Prepared {
        let parsed = parse(meta, line, bytes, source, self.options);
        self.prepare_parsed(meta, parsed, bytes, source, fork)
    }

    /// [`Filter::prepare`] of a record already parsed by [`parse`] (`callfix
    /// report` parses first to choose the tools by the record's own `tools`).
    pub(crate) fn prepare_parsed(
        &self,
        meta: &RecordMeta,
        parsed: ParsedRecord,
        bytes: &[u8],
        source: &str,
        fork: Option<&mut Printer<Vec<u8>>>,
    ) -> Prepared {
        let first = (meta.index, meta.line, meta.offset);
        match parsed.value {
            Ok(value) if stream::is_event(&value) => Prepared::Event(value, first, parsed.masked),
            _ => {
                // Only a number with an exponent can be spelled two ways; the
                // framer says whether the record has one.
                let spelled = if meta.exponent { bytes } else { b"" };
                let mut judged = self.judge(parsed, first, spelled, (&[], true, false), source);
                if let Some(fork) = fork {
                    judged.write_ahead(fork);
                }
                Prepared::Judged(Box::new(judged))
            }
        }
    }

    /// Judges every call of one parsed record (or says why it has none), the
    /// record numbered `index` at `line` and byte `offset` (`first`).
    fn judge(
        &self,
        parsed: ParsedRecord,
        first: (u64, u64, u64),
        bytes: &[u8],
        (incomplete, whole, text_lost): (&[(usize, Unfinished)], bool, bool),
        source: &str,
    ) -> Judged {
        let (registry, options) = (self.registry, self.options);
        let judge = Judge::new(registry, options);
        let (index, line, offset) = first;
        let at = Position {
            index,
            call: 0,
            line,
            offset,
        };
        let declared = |name: &str| registry.contains(name);
        let from_text = options
            .policy
            .enabled
            .has(Kind::ExtractFromText)
            .then_some(&declared as provider::Declared);
        let mut text = None;
        let mut session = None;
        // A message cut off: its text, to tell which calls read from it may
        // have had more to come.
        let mut cut_text = None;
        let mut origin = provider::Origin::default();
        let ParsedRecord {
            value: parsed,
            masked,
            first_wins,
        } = parsed;
        let calls = parsed.and_then(|value| {
            session = Conversation::session(&value, options);
            origin = provider::origin(&value);
            if !whole {
                cut_text = provider::assistant_raw_text(&value);
            }
            if options.whole_messages {
                text = provider::assistant_text(&value, &declared);
            }
            match provider::extract(value, from_text) {
                Extracted::Calls(mut calls) => {
                    if let Some(first_wins) = first_wins {
                        first_wins.reject_differing(&mut calls, from_text);
                    }
                    Ok(calls)
                }
                Extracted::Unrecognised(reason) => {
                    Err(message::record_unrecognised(source, at.line, &reason))
                }
            }
        });
        let mut spellings = Spellings::default();
        let calls = calls.map(|calls| {
            spellings = Spellings::scan(bytes);
            spellings.masked = masked;
            for call in &calls {
                if let provider::Args::Text(text) = &call.args {
                    spellings.add(text.as_bytes());
                }
            }
            calls
                .into_iter()
                .enumerate()
                .map(|(i, mut call)| {
                    // `incomplete` is in ascending order: one lookup per call.
                    if let Ok(at) = incomplete.binary_search_by_key(&i, |x| x.0) {
                        call.args = provider::Args::Malformed(match incomplete.get(at) {
                            Some((_, Unfinished::TooLarge)) => {
                                message::stream_call_too_large(options.max_record_bytes)
                            }
                            Some((_, Unfinished::Lost)) => message::stream_event_lost(),
                            Some((_, Unfinished::Contradicted)) => message::stream_contradicted(),
                            _ => message::stream_cut_off(),
                        });
                    } else if text_lost && call.leaked.is_some() {
                        call.args = provider::Args::Malformed(message::stream_event_lost());
                    } else if let (Some(text), Some(leak)) = (&cut_text, &call.leaked)
                        && !matches!(call.args, provider::Args::Malformed(_))
                        && provider::read_by_its_end(leak, text)
                    {
                        call.args = provider::Args::Malformed(message::stream_cut_off());
                    }
                    let verdict = judge.judge(&mut call, masked);
                    Judgement::Pending(call, verdict)
                })
                .collect()
        });
        Judged {
            at,
            spellings,
            session,
            text,
            origin,
            calls,
            written: Vec::new(),
        }
    }

    /// Takes prepared records in input order: feeds stream events to `streams`
    /// and writes each record's results.
    pub(crate) fn deliver<S: Sink>(
        &self,
        prepared: Prepared,
        streams: &mut Streams,
        source: &str,
        summary: &mut Summary,
        printer: &mut S,
    ) -> Result<(), StreamError> {
        match prepared {
            Prepared::Judged(judged) => {
                // A record among a stream's events that cannot be read, or
                // read as anything: it may have been one of them.
                if judged.calls.is_err() {
                    streams.unreadable();
                }
                self.write(*judged, source, summary, printer)
            }
            Prepared::Event(value, at, masked) => {
                let (ended, mut fed) = streams.feed(value, at, self.options.max_record_bytes);
                if let Some(ended) = ended {
                    self.assembled(ended, source, summary, printer)?;
                }
                if masked {
                    match &mut fed {
                        Fed::Kept => streams.masked(),
                        Fed::Done(done) => done.masked = true,
                        Fed::Record(_) => {}
                    }
                }
                match fed {
                    Fed::Kept => Ok(()),
                    // `is_event` and `feed` agree; judged as a record all the same.
                    Fed::Record(value) => {
                        let parsed = ParsedRecord {
                            masked,
                            ..ParsedRecord::of(Ok(value))
                        };
                        let judged = self.judge(parsed, at, b"", (&[], true, false), source);
                        self.write(judged, source, summary, printer)
                    }
                    Fed::Done(done) => self.assembled(done, source, summary, printer),
                }
            }
        }
    }

    /// Judges and writes a response a stream reassembled, numbered by its first
    /// record.
    pub(crate) fn assembled<S: Sink>(
        &self,
        done: Assembled,
        source: &str,
        summary: &mut Summary,
        printer: &mut S,
    ) -> Result<(), StreamError> {
        let (_, line, _) = done.first;
        let record = done.record.map_err(|stream::TooLarge| {
            message::stream_too_large(source, line, self.options.max_record_bytes)
        });
        let parsed = ParsedRecord {
            masked: done.masked,
            ..ParsedRecord::of(record)
        };
        let judged = self.judge(
            parsed,
            done.first,
            done.spelled.as_bytes(),
            (&done.incomplete, done.whole, done.text_lost),
            source,
        );
        self.write(judged, source, summary, printer)
    }

    /// The sequential end of one record: loop detection, messages, counts, and
    /// one result per call to the sink.
    fn write<S: Sink>(
        &self,
        judged: Judged,
        source: &str,
        summary: &mut Summary,
        printer: &mut S,
    ) -> Result<(), StreamError> {
        let (registry, options) = (self.registry, self.options);
        let judge = Judge::new(registry, options);
        let Judged {
            at,
            spellings,
            session,
            text,
            origin,
            calls,
            written,
        } = judged;
        printer.origin(&origin);
        let calls = match calls {
            Ok(calls) => calls,
            Err(text) => {
                // A broken record: its message is its own, no tool's.
                let mut verdict = Verdict::rejected(text, Fault::Call);
                verdict.finish(&options.style, "");
                summary.broken_records += 1;
                return printer.record(at, verdict).map_err(StreamError::Write);
            }
        };
        if calls.is_empty() {
            summary.records_without_calls += 1;
        }
        let conversation = match session {
            Some(id) => Conversation::Session(id),
            None => Conversation::Input(source),
        };
        printer.begin_record(spellings);
        let mut results = Vec::with_capacity(if text.is_some() { calls.len() } else { 0 });
        let mut start = 0;
        for (i, judgement) in calls.into_iter().enumerate() {
            let (call, mut verdict) = match judgement {
                Judgement::Pending(call, verdict) => (call, verdict),
                Judgement::Written {
                    tool,
                    status,
                    repairs,
                    leak,
                    end,
                } => {
                    summary.count_parts(&tool, status, Fault::Call, repairs.into_iter());
                    if let Some(family) = leak {
                        *summary.leaks.entry(family).or_insert(0) += 1;
                    }
                    // The ends were recorded as the worker wrote: in order and in range.
                    let bytes = written.get(start..end).unwrap_or_default();
                    printer.forked(bytes).map_err(StreamError::Write)?;
                    start = end;
                    continue;
                }
            };
            judge.settle(&call.name, &mut verdict, Tally::Run(summary, &conversation));
            if let Some(leak) = &call.leaked {
                *summary.leaks.entry(leak.family).or_insert(0) += 1;
            }
            let say = &mut |message: &str| printer.diagnostic(message);
            tell_operator(registry, &call.name, &verdict, summary, say);
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
        Ok(())
    }
}

impl Judged {
    /// Writes the valid and repaired calls to `fork` now (a worker's printer),
    /// unless the record is written as a whole message.
    fn write_ahead(&mut self, fork: &mut Printer<Vec<u8>>) {
        let (Ok(calls), None) = (&mut self.calls, &self.text) else {
            return;
        };
        let mut begun = false;
        for (i, judgement) in calls.iter_mut().enumerate() {
            let Judgement::Pending(call, verdict) = judgement else {
                continue;
            };
            if verdict.status == Status::Rejected {
                continue;
            }
            if !begun {
                fork.begin_record(self.spellings.clone());
                begun = true;
            }
            let before = fork.out_mut().len();
            let at = Position { call: i, ..self.at };
            if fork.call(at, call, verdict).is_err() {
                // Left to the sink, which will say what failed.
                fork.out_mut().truncate(before);
                continue;
            }
            *judgement = Judgement::Written {
                tool: std::mem::take(&mut call.name),
                status: verdict.status,
                repairs: verdict.repairs.iter().map(|r| r.kind.name()).collect(),
                leak: call.leaked.as_ref().map(|l| l.family),
                end: fork.out_mut().len(),
            };
        }
        self.written = std::mem::take(fork.out_mut());
    }
}

/// A framed record, parsed ([`parse`]).
#[derive(Debug)]
pub(crate) struct ParsedRecord {
    /// The record, or the message that says why there is none.
    pub(crate) value: Result<Value, String>,
    /// Its lone surrogate escapes were masked to parse it.
    pub(crate) masked: bool,
    /// When an object in it names a key twice: how a reader that keeps the
    /// first value reads it (`value` keeps the last).
    pub(crate) first_wins: Option<Box<FirstWins>>,
}

/// A record in which an object names a key twice, read keeping the first value.
#[derive(Debug)]
pub(crate) struct FirstWins {
    /// The record so read.
    value: Value,
    /// Where keys are named twice (segments of each path; the first few).
    repeated: Vec<Vec<String>>,
}

/// How many repeated keys of one record are located for messages.
const REPEATED_LOCATED: usize = 64;

/// How deep in a call's arguments the key named twice is looked for.
const KEY_LEVELS_TRIED: usize = 16;

impl ParsedRecord {
    /// A record read from one value (no masking, no key named twice).
    fn of(value: Result<Value, String>) -> Self {
        ParsedRecord {
            value,
            masked: false,
            first_wins: None,
        }
    }
}

/// Parses a framed record (or takes `line`, the framer's parse of it). A
/// record the framer flagged (too large, too many values, cut off) or that is
/// not JSON comes out as the message that says so.
pub(crate) fn parse(
    meta: &RecordMeta,
    line: Option<crate::json::Line>,
    bytes: &[u8],
    source: &str,
    options: &Options,
) -> ParsedRecord {
    let failed = |text| ParsedRecord {
        value: Err(text),
        masked: false,
        first_wins: None,
    };
    if let Some(size) = meta.oversized {
        return failed(message::record_too_large(
            source,
            meta.line,
            size,
            options.max_record_bytes,
        ));
    }
    if meta.values > options.max_record_values {
        return failed(message::record_too_many_values(
            source,
            meta.line,
            meta.values,
            options.max_record_values,
        ));
    }
    let read = match line {
        Some(line) => Ok((line.value, line.repeated)),
        None => crate::json::parse_once(bytes),
    };
    match read {
        Ok((v, repeated)) => ParsedRecord {
            value: Ok(v),
            masked: false,
            first_wins: repeated.then(|| first_wins(bytes)).flatten(),
        },
        Err(_) if meta.ending != Ending::Complete => {
            failed(message::record_cut_off(source, meta.line))
        }
        // Valid JSON that serde_json refuses: a lone surrogate escape.
        Err(e) => match surrogates::mask(bytes).and_then(|m| serde_json::from_slice(&m).ok()) {
            Some(v) => ParsedRecord {
                value: Ok(v),
                masked: true,
                first_wins: None,
            },
            None => failed(message::record_not_json(source, meta.line, &e)),
        },
    }
}

impl FirstWins {
    /// Rejects each of `calls` (read from the same record, last value kept)
    /// that this reading makes differently ([`reject_two_readings`]); `from_text`
    /// as the calls were extracted.
    pub(crate) fn reject_differing(
        self,
        calls: &mut [Call],
        from_text: Option<provider::Declared<'_>>,
    ) {
        if let Extracted::Calls(other) = provider::extract(self.value, from_text) {
            reject_two_readings(calls, other, &self.repeated);
        }
    }
}

/// `bytes` (a record in which a key is named twice) read keeping the first value.
pub(crate) fn first_wins(bytes: &[u8]) -> Option<Box<FirstWins>> {
    let value = crate::json::parse_first_wins(bytes).ok()?;
    let repeated = std::str::from_utf8(bytes)
        .map(|text| crate::span::Spanned::parse(text).repeated_keys(REPEATED_LOCATED))
        .unwrap_or_default();
    Some(Box::new(FirstWins { value, repeated }))
}

/// Calls of a record that names a key twice whose reading depends on which
/// value a reader keeps: each call whose name or arguments differ between
/// `calls` (last value kept) and `first_wins` (the same record, first value
/// kept) is marked to be rejected, naming the repeated key behind the
/// difference. When the two readings do not even have the same calls, every
/// call is.
fn reject_two_readings(calls: &mut [Call], first_wins: Vec<Call>, repeated: &[Vec<String>]) {
    let same_calls = calls.len() == first_wins.len();
    for (i, call) in calls.iter_mut().enumerate() {
        let other = first_wins.get(i).filter(|_| same_calls);
        // What the tool runs with: its name and arguments (not the rest of
        // the envelope, such as MCP's `_meta`).
        if other.is_some_and(|o| o.name == call.name && o.args == call.args) {
            continue;
        }
        let differ = match (&call.args, other) {
            (provider::Args::Value(a), Some(o)) if o.name == call.name => match &o.args {
                provider::Args::Value(b) => crate::json::first_difference(a, b),
                _ => None,
            },
            _ => None,
        };
        call.read_two_ways =
            Some(differ.map_or_else(String::new, |d| repeated_key_in(&d, repeated)));
    }
}

/// The dotted path of the key named twice that makes arguments differ at
/// `differ` (a path in them): of the record's repeated keys, the one whose
/// path ends with the longest start of `differ` (`input.options` for
/// `options.x`: the key is `options`); `differ` itself when none does.
pub(super) fn repeated_key_in(differ: &[String], repeated: &[Vec<String>]) -> String {
    // Only the first few levels are tried: each costs a pass over the
    // repeated keys, and a record may hold many calls.
    let tried = differ.len().min(KEY_LEVELS_TRIED);
    let key = (1..=tried).rev().find_map(|n| {
        let start = differ.get(..n)?;
        repeated.iter().any(|p| p.ends_with(start)).then_some(start)
    });
    key.unwrap_or(differ).join(".")
}
