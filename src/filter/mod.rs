//! The filter: runs every record of an input through the stages and writes one
//! result per call. This is the `callfix` command without a subcommand.

use std::io::{self, Read};

use serde_json::Value;

use crate::input::Framer;
use crate::message::{self, Style};
use crate::output::{Position, Sink};
use crate::provider::stream::Streams;
use crate::provider::{self, Call};
use crate::registry::Registry;
use crate::repair::Policy;
use crate::spelling::Spellings;
use crate::surrogates;
use crate::verdict::{Fault, Verdict};

pub(crate) use record::first_wins;
#[cfg(feature = "cli")]
pub(crate) use record::parse as parse_record;
pub(crate) use settle::{Conversation, Judge, Loops, Tally};
/// The hook's own loop memory, and a call as its repeats are recognised.
#[cfg(feature = "cli")]
pub(crate) use settle::{Repeats, repeat_text};
pub use summary::{Counts, Summary};

/// Why a stream stopped early. `Display` says what failed and why, on one
/// line (`cannot read the input: stream did not contain valid UTF-8`).
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The input could not be read.
    #[error("cannot read the input: {}", crate::error::io_reason(.0))]
    Read(io::Error),
    /// A result could not be written.
    #[error("cannot write results: {}", crate::error::io_reason(.0))]
    Write(io::Error),
}

/// Settings of one filter run. Start from [`Options::default`] and set the
/// fields you need (the struct is `#[non_exhaustive]`, so a setting added later
/// breaks no caller):
///
/// ```
/// let mut options = callfix::Options::default();
/// options.loop_limit = 5;
/// options.style.prefix = "Fix the call.".to_owned();
/// options.policy.enabled = callfix::Enabled::NONE;
/// let tools = callfix::Toolset::from_schemas([]).with_options(options);
/// assert_eq!(tools.options().loop_limit, 5);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// How messages are worded.
    pub style: Style,
    /// Which repairs run.
    pub policy: Policy,
    /// Records larger than this are rejected without being parsed.
    pub max_record_bytes: usize,
    /// Records holding more JSON values than this are rejected without being
    /// parsed (memory per value is far above its bytes).
    pub max_record_values: u64,
    /// The same rejected call this many times in one conversation tells the model
    /// to stop (0: never).
    pub loop_limit: u32,
    /// JSON pointer to a record's conversation id; without it, each input source
    /// is one conversation.
    pub session: Option<String>,
    /// Write an assistant message's calls as the whole message (`--to` with
    /// `--format call`), which needs the message's text.
    pub whole_messages: bool,
    /// Threads that parse and judge records (`0`: one per core). Results come
    /// out in input order and are the same for any number. At most [`MAX_JOBS`]
    /// run: a larger number is taken as that.
    pub jobs: usize,
}

/// The most threads a filter runs: far more than a machine's cores pays
/// nothing, and each thread holds its own buffers (tens of thousands of threads
/// ran the process out of memory: an abort).
pub const MAX_JOBS: usize = 256;

impl Default for Options {
    fn default() -> Self {
        Self {
            style: Style::default(),
            policy: Policy::default(),
            max_record_bytes: 64 * 1024 * 1024,
            max_record_values: 1_000_000,
            loop_limit: 3,
            session: None,
            whole_messages: false,
            jobs: 1,
        }
    }
}

/// A filter run: the tools and the settings every input goes through. Made by
/// [`Toolset::filter`](crate::Toolset::filter), which shows it at work.
#[derive(Debug, Clone, Copy)]
pub struct Filter<'r> {
    /// The tools calls are checked against.
    pub(crate) registry: &'r Registry,
    /// How calls are checked and records read.
    pub(crate) options: &'r Options,
}

/// Tells whether a read of an input would return at once ([`Input::ready`]).
pub type Ready = fn() -> bool;

/// One input of a run.
#[derive(Debug)]
pub struct Input<'a, R> {
    /// The bytes.
    pub reader: R,
    /// Its name in messages (`stdin`, a file path).
    pub source: &'a str,
    /// The number of its first record (numbering continues across inputs).
    pub first_index: u64,
    /// The line its first byte is on, for messages (1, unless the bytes are one
    /// line of a larger file).
    pub first_line: u64,
    /// How many bytes to read at a time (less for a small input in memory).
    pub buffer: usize,
    /// Whether a read would return at once (input is waiting, or it ended). With
    /// `--jobs`, results are written out before every read that may block; this
    /// tells which reads cannot, so work goes on in parallel across them. `None`:
    /// any read may block.
    pub ready: Option<Ready>,
}

impl<'a, R: Read> Input<'a, R> {
    /// `reader`, named `source` in messages, its first record numbered 0 and
    /// starting on line 1, read 64 KiB at a time.
    pub fn new(reader: R, source: &'a str) -> Self {
        Input {
            reader,
            source,
            first_index: 0,
            first_line: 1,
            buffer: crate::input::CHUNK,
            ready: None,
        }
    }
}

impl<'a, R: Read> Input<'a, R> {
    /// A framer over the input's bytes (records past `limit` bytes are not
    /// kept), its name, and its `ready` probe.
    pub(crate) fn framer(self, limit: usize) -> (Framer<R>, &'a str, Option<Ready>) {
        let framer = Framer::with_capacity(self.reader, limit, self.first_index, self.buffer)
            .first_line(self.first_line);
        (framer, self.source, self.ready)
    }
}

impl<'a> Input<'a, &'a [u8]> {
    /// Bytes in memory, read in one piece (so a small record costs a small
    /// buffer).
    pub fn from_bytes(bytes: &'a [u8], source: &'a str) -> Self {
        Input {
            buffer: bytes.len().clamp(1, crate::input::CHUNK),
            ready: Some(|| true),
            ..Input::new(bytes, source)
        }
    }
}

impl Filter<'_> {
    /// Runs every record of `input` through the stages, writing one result per
    /// call to `printer`; returns the number the next input's first record gets.
    /// `summary` counts what the run saw and also holds its loop memory: pass
    /// the same one to several inputs that are one conversation, a fresh one
    /// to keep them apart.
    pub fn stream<R: Read, S: Sink>(
        &self,
        input: Input<'_, R>,
        printer: &mut S,
        summary: &mut Summary,
    ) -> Result<u64, StreamError> {
        let jobs = jobs::resolve(self.options.jobs);
        if jobs > 1 {
            return self.stream_jobs(jobs, input, printer, summary);
        }
        let (framer, source, _) = input.framer(self.options.max_record_bytes);
        // One thread frames and parses: each line is parsed as it is framed.
        let mut framer = framer.parsing_lines(self.options.max_record_values);
        let mut buf = Vec::new();
        let mut streams = Streams::default();
        loop {
            // Results are flushed before the framer waits for more input.
            let mut flushed = Ok(());
            let next = framer.next_record(&mut buf, &mut || {
                if flushed.is_ok() {
                    flushed = printer.flush();
                }
            });
            flushed.map_err(StreamError::Write)?;
            let Some(mut meta) = next.map_err(StreamError::Read)? else {
                break;
            };
            summary.records += 1;
            let line = meta.parsed.take();
            let prepared = self.prepare(&meta, line, &buf, source, None);
            self.deliver(prepared, &mut streams, source, summary, printer)?;
        }
        if let Some(done) = streams.finish() {
            self.assembled(done, source, summary, printer)?;
        }
        Ok(framer.next_index())
    }

    /// `--tool NAME`: all of `input` is the bare arguments of one call to `name`.
    pub fn bare<R: Read, S: Sink>(
        &self,
        input: Input<'_, R>,
        name: &str,
        printer: &mut S,
        summary: &mut Summary,
    ) -> Result<(), StreamError> {
        let Input {
            mut reader,
            source,
            first_index: index,
            ..
        } = input;
        let limit = self.options.max_record_bytes;
        let mut bytes = Vec::new();
        reader
            .by_ref()
            .take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(StreamError::Read)?;
        let mut size = bytes.len();
        if size > limit {
            let rest = io::copy(&mut reader, &mut io::sink()).map_err(StreamError::Read)?;
            size = size.saturating_add(usize::try_from(rest).unwrap_or(usize::MAX));
        }
        let say = &mut |message: &str| printer.diagnostic(message);
        let (spellings, call, verdict) =
            self.bare_checked(name, bytes, size, source, Some(summary), say);
        if let Some(spellings) = spellings {
            printer.begin_record(spellings);
        }
        printer
            .call(
                Position {
                    index,
                    call: 0,
                    line: 1,
                    offset: 0,
                },
                call,
                verdict,
            )
            .map_err(StreamError::Write)
    }

    /// The core of [`Filter::bare`] once its input is read: `bytes` (the
    /// first of `size` bytes) as the arguments of one call to `name`. Gives
    /// the record's number spellings (none when the bytes are no text: too
    /// many, or not UTF-8), the call and its settled verdict. With a
    /// `summary`, the record, its repeats and its count are kept there and a
    /// broken schema is told to `say` once; without, nothing is counted (no
    /// loop detection). [`Toolset::check_bare`](crate::Toolset::check_bare)
    /// is this, for bytes in memory.
    pub(crate) fn bare_checked(
        &self,
        name: &str,
        bytes: Vec<u8>,
        size: usize,
        source: &str,
        mut summary: Option<&mut Summary>,
        say: &mut dyn FnMut(&str),
    ) -> (Option<Spellings>, Call, Verdict) {
        let (registry, options) = (self.registry, self.options);
        if let Some(summary) = summary.as_deref_mut() {
            summary.records += 1;
        }
        let limit = options.max_record_bytes;
        let text = if size > limit {
            Err(message::record_too_large(source, 1, size, limit))
        } else {
            String::from_utf8(bytes).map_err(|e| message::not_utf8(e.utf8_error().valid_up_to()))
        };
        let (spellings, call, verdict) = match text {
            Ok(text) => {
                let spellings = Spellings::scan(text.as_bytes());
                let mut call = provider::bare_call(name, text);
                let judge = Judge::new(registry, options);
                let mut verdict = judge.judge(&mut call, false);
                match summary.as_deref_mut() {
                    Some(summary) => {
                        let conversation = Conversation::Input(source);
                        let mut repeats = summary.loops.within(&conversation);
                        // Counted below under the name asked for, even if renamed.
                        judge.settle(&call.name, &mut verdict, Tally::Repeats(&mut repeats));
                        tell_operator(registry, &call.name, &verdict, summary, say);
                    }
                    None => judge.settle(&call.name, &mut verdict, Tally::Nothing),
                }
                (Some(spellings), call, verdict)
            }
            Err(text) => {
                let mut verdict = Verdict::rejected(text, Fault::Call);
                verdict.finish(&options.style, name);
                (None, provider::bare_call(name, String::new()), verdict)
            }
        };
        if let Some(summary) = summary {
            summary.count(name, &verdict);
        }
        (spellings, call, verdict)
    }
}

/// Where a call's arguments hold a masked lone surrogate escape, if they do
/// (`""`: at their root).
fn lone_surrogate(args: &provider::Args) -> Option<String> {
    match args {
        provider::Args::Value(v) => surrogates::find(v),
        provider::Args::Text(t) if t.contains(surrogates::MARK) => {
            let parsed = serde_json::from_str::<Value>(t).ok();
            Some(
                parsed
                    .as_ref()
                    .and_then(surrogates::find)
                    .unwrap_or_default(),
            )
        }
        _ => None,
    }
}

/// A broken schema is the operator's to fix: said on stderr (once per tool) as
/// well as in the model's message.
fn tell_operator(
    registry: &Registry,
    tool: &str,
    verdict: &Verdict,
    summary: &mut Summary,
    say: &mut dyn FnMut(&str),
) {
    if verdict.fault != Fault::Schema || summary.broken_tools.contains(tool) {
        return;
    }
    if let crate::registry::Lookup::Broken(error) = registry.lookup(tool) {
        say(&format!(
            "schema of tool \"{tool}\" is broken: {}",
            crate::error::Chain(error)
        ));
    }
    summary.broken_tools.insert(tool.to_owned());
}

mod jobs;
mod record;
mod settle;
mod summary;

#[cfg(test)]
mod tests;
