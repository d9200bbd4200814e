//! The filter: runs every record of an input through the stages and writes one
//! result per call. This is the `callfix` command without a subcommand.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::io::{self, Read};

use serde_json::Value;

use crate::input::Framer;
use crate::message::{self, Style, plural};
use crate::output::{Position, Sink};
use crate::provider;
use crate::provider::stream::Streams;
use crate::registry::Registry;
use crate::repair::Policy;
use crate::spelling::Spellings;
use crate::surrogates;
use crate::verdict::{self, Fault, Status, Verdict};

/// Why a stream stopped early.
#[derive(Debug)]
pub enum StreamError {
    /// The input could not be read.
    Read(io::Error),
    /// A result could not be written.
    Write(io::Error),
}

/// Settings of one filter run.
#[derive(Debug, Clone)]
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

/// Counts rejections of identical calls within one conversation, to stop a model
/// that keeps sending the same invalid call. Each call is kept as a fixed-size
/// digest, so memory does not grow with the size of the calls.
#[derive(Debug, Default)]
pub struct Loops {
    seen: HashMap<u128, u32>,
}

impl Loops {
    /// Distinct rejected calls remembered before the memory is reset.
    const CAPACITY: usize = 100_000;

    /// Counts a rejection in `conversation`; past `limit`, rewrites the message to
    /// say stop.
    pub(crate) fn check(
        &mut self,
        conversation: &Conversation<'_>,
        tool: &str,
        verdict: &mut Verdict,
        options: &Options,
    ) {
        if options.loop_limit == 0 || verdict.status != Status::Rejected {
            return;
        }
        let call = match (&verdict.args, &verdict.raw) {
            (Some(args), _) => canonical(args),
            (None, Some(raw)) => raw.trim().to_owned(),
            (None, None) => verdict
                .errors
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        };
        if self.seen.len() >= Self::CAPACITY {
            self.seen.clear();
        }
        let n = self
            .seen
            .entry(digest(&[
                conversation.kind(),
                conversation.id(),
                tool,
                &call,
            ]))
            .or_insert(0);
        *n += 1;
        if *n >= options.loop_limit {
            verdict.looped = Some(*n);
        }
    }
}

/// A 128-bit digest of the parts (two SipHash runs with different keys).
fn digest(parts: &[&str]) -> u128 {
    use std::hash::{Hash, Hasher};
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        salt.hash(&mut h);
        parts.hash(&mut h);
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// Which conversation a call belongs to, for loop detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Conversation<'a> {
    /// The value at `--session`'s pointer.
    Session(String),
    /// An input source (stdin, a file), without `--session` or a value there.
    Input(&'a str),
}

impl<'a> Conversation<'a> {
    /// The conversation id of `record` at `--session`'s pointer, if it has one.
    /// Nothing is allocated unless `--session` is set.
    fn session(record: &Value, options: &Options) -> Option<String> {
        match options.session.as_deref().and_then(|p| record.pointer(p))? {
            Value::String(id) => Some(id.clone()),
            other => Some(other.to_string()),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Conversation::Session(_) => "session",
            Conversation::Input(_) => "input",
        }
    }

    fn id(&self) -> &str {
        match self {
            Conversation::Session(id) => id,
            Conversation::Input(source) => source,
        }
    }
}

/// JSON with object keys sorted, so that key order does not hide a repeat.
fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&m[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

/// Counts of one tool's calls.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Calls seen.
    pub calls: u64,
    /// Calls valid as sent.
    pub valid: u64,
    /// Calls repaired.
    pub repaired: u64,
    /// Calls rejected.
    pub rejected: u64,
}

impl Counts {
    fn add(&mut self, status: Status) {
        self.calls += 1;
        match status {
            Status::Valid => self.valid += 1,
            Status::Repaired => self.repaired += 1,
            Status::Rejected => self.rejected += 1,
        }
    }
}

/// What a run saw, for `--stats` and the exit code.
#[derive(Debug, Default)]
pub struct Summary {
    /// Rejected calls seen so far, to recognise repeats.
    pub loops: Loops,
    /// Records read.
    pub records: u64,
    /// Records that are valid envelopes holding no call (a text-only message).
    pub records_without_calls: u64,
    /// Records that yielded no call because they are broken; each got one
    /// rejected result, counted here and not in `total`.
    pub broken_records: u64,
    /// All calls.
    pub total: Counts,
    /// Calls per tool, for at most [`Summary::MAX_TOOLS`] names of at most
    /// [`Summary::MAX_TOOL_NAME_BYTES`] bytes each (first come); left empty by a
    /// summary made [`Summary::without_per_tool`].
    pub per_tool: BTreeMap<String, Counts>,
    /// Calls to every other name: past the first [`Summary::MAX_TOOLS`], or
    /// longer than [`Summary::MAX_TOOL_NAME_BYTES`]. A model can invent a name
    /// per call; the summary's memory stays bounded whatever it sends.
    pub other_tools: Counts,
    /// Repairs made, by kind.
    pub repairs: BTreeMap<&'static str, u64>,
    /// Calls found written into assistant text, by call syntax.
    pub leaks: BTreeMap<&'static str, u64>,
    /// Calls rejected because their tool's schema is broken.
    pub schema_faults: u64,
    /// Tools whose broken schema the operator has been told about.
    pub broken_tools: BTreeSet<String>,
    /// Whether `per_tool` is left empty.
    no_per_tool: bool,
}

impl Summary {
    /// Tool names counted on a row of their own; calls to further names are
    /// counted together in [`Summary::other_tools`].
    pub const MAX_TOOLS: usize = 1000;
    /// The longest tool name counted on a row of its own, in bytes.
    pub const MAX_TOOL_NAME_BYTES: usize = 256;

    /// A summary that keeps no per-tool counts: each call then costs no lookup
    /// by tool name (the binary keeps them only for `--stats`).
    pub fn without_per_tool(self) -> Self {
        Summary {
            no_per_tool: true,
            ..self
        }
    }

    pub(crate) fn count(&mut self, tool: &str, verdict: &Verdict) {
        let repairs = verdict.repairs.iter().map(|r| r.kind.name());
        self.count_parts(tool, verdict.status, verdict.fault, repairs);
    }

    /// Counts a call's result from its parts (the result itself may already be
    /// written).
    pub(crate) fn count_parts(
        &mut self,
        tool: &str,
        status: Status,
        fault: Fault,
        repairs: impl Iterator<Item = &'static str>,
    ) {
        self.total.add(status);
        if !self.no_per_tool {
            let room =
                self.per_tool.len() < Self::MAX_TOOLS && tool.len() <= Self::MAX_TOOL_NAME_BYTES;
            match self.per_tool.get_mut(tool) {
                Some(c) => c.add(status),
                None if room => {
                    let mut c = Counts::default();
                    c.add(status);
                    self.per_tool.insert(tool.to_owned(), c);
                }
                None => self.other_tools.add(status),
            }
        }
        if fault == Fault::Schema {
            self.schema_faults += 1;
        }
        for kind in repairs {
            *self.repairs.entry(kind).or_insert(0) += 1;
        }
    }
}

impl Summary {
    /// Results that are rejections: rejected calls and broken records.
    pub fn failures(&self) -> u64 {
        self.total.rejected + self.broken_records
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.total;
        write!(
            f,
            "{} {}: {} {} ({} valid, {} repaired, {} rejected)",
            self.records,
            plural(self.records, "record"),
            t.calls,
            plural(t.calls, "call"),
            t.valid,
            t.repaired,
            t.rejected
        )?;
        if self.broken_records > 0 {
            let n = self.broken_records;
            write!(f, ", {n} broken {}", plural(n, "record"))?;
        }
        if self.records_without_calls > 0 {
            let n = self.records_without_calls;
            write!(f, ", {n} {} without calls", plural(n, "record"))?;
        }
        if !self.per_tool.is_empty() {
            // A name is the model's: written visibly, it is one line and no
            // escape sequence reaches the terminal.
            let rows: Vec<(std::borrow::Cow<'_, str>, &Counts)> = self
                .per_tool
                .iter()
                .map(|(tool, c)| (message::one_line(tool), c))
                .collect();
            let width = rows
                .iter()
                .map(|(k, _)| k.chars().count())
                .max()
                .unwrap_or(0)
                .max(4);
            write!(
                f,
                "\n  {:<width$}  {:>7}  {:>7}  {:>8}  {:>8}  {:>11}",
                "tool", "calls", "valid", "repaired", "rejected", "repair rate"
            )?;
            for (tool, c) in rows {
                let rate = 100.0 * c.repaired as f64 / c.calls.max(1) as f64;
                write!(
                    f,
                    "\n  {tool:<width$}  {:>7}  {:>7}  {:>8}  {:>8}  {:>10.1}%",
                    c.calls, c.valid, c.repaired, c.rejected, rate
                )?;
            }
        }
        let other = &self.other_tools;
        if other.calls > 0 {
            write!(
                f,
                "\n  + {} {} to other tools ({} valid, {} repaired, {} rejected): names past \
                 the first {}, or longer than {} bytes",
                other.calls,
                plural(other.calls, "call"),
                other.valid,
                other.repaired,
                other.rejected,
                Self::MAX_TOOLS,
                Self::MAX_TOOL_NAME_BYTES
            )?;
        }
        if !self.repairs.is_empty() {
            let list: Vec<String> = self
                .repairs
                .iter()
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            write!(f, "\n  repairs: {}", list.join(", "))?;
        }
        if !self.leaks.is_empty() {
            let list: Vec<String> = self
                .leaks
                .iter()
                .map(|(family, n)| format!("{family} {n}"))
                .collect();
            write!(
                f,
                "\n  calls written in text, by syntax: {}",
                list.join(", ")
            )?;
        }
        Ok(())
    }
}

/// A filter run: the tools and the settings every input goes through.
#[derive(Debug, Clone, Copy)]
pub struct Filter<'r> {
    /// The tools calls are checked against.
    pub registry: &'r Registry,
    /// How calls are checked and records read.
    pub options: &'r Options,
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
    fn framer(self, limit: usize) -> (Framer<R>, &'a str, Option<Ready>) {
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
        let (mut framer, source, _) = input.framer(self.options.max_record_bytes);
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
            let Some(meta) = next.map_err(StreamError::Read)? else {
                break;
            };
            summary.records += 1;
            let prepared = self.prepare(&meta, &buf, source, None);
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
        let (registry, options) = (self.registry, self.options);
        let Input {
            mut reader,
            source,
            first_index: index,
            ..
        } = input;
        let mut bytes = Vec::new();
        reader
            .by_ref()
            .take(options.max_record_bytes as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(StreamError::Read)?;
        summary.records += 1;
        let limit = options.max_record_bytes;
        let text = if bytes.len() > limit {
            let rest = io::copy(&mut reader, &mut io::sink()).map_err(StreamError::Read)?;
            let size = bytes.len() + usize::try_from(rest).unwrap_or(usize::MAX);
            Err(message::record_too_large(source, 1, size, limit))
        } else {
            String::from_utf8(bytes).map_err(|e| message::not_utf8(e.utf8_error().valid_up_to()))
        };
        let (call, verdict) = match text {
            Ok(text) => {
                printer.begin_record(Spellings::scan(text.as_bytes()));
                let mut call = provider::bare_call(name, text);
                let mut verdict = verdict::judge(registry, &mut call, options.policy);
                let conversation = Conversation::Input(source);
                summary
                    .loops
                    .check(&conversation, &call.name, &mut verdict, options);
                verdict.finish(&options.style, &call.name);
                tell_operator(registry, &call.name, &verdict, summary, printer);
                (call, verdict)
            }
            Err(text) => {
                let mut verdict = Verdict::rejected(text, Fault::Call);
                verdict.finish(&options.style, name);
                (provider::bare_call(name, String::new()), verdict)
            }
        };
        summary.count(name, &verdict);
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
}

/// Where a call's arguments hold a masked lone surrogate escape, if they do.
fn lone_surrogate(call: &provider::Call) -> Option<String> {
    match &call.args {
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
fn tell_operator<S: Sink>(
    registry: &Registry,
    tool: &str,
    verdict: &Verdict,
    summary: &mut Summary,
    printer: &mut S,
) {
    if verdict.fault != Fault::Schema || summary.broken_tools.contains(tool) {
        return;
    }
    if let crate::registry::Lookup::Broken(error) = registry.lookup(tool) {
        printer.diagnostic(&format!(
            "schema of tool \"{tool}\" is broken: {}",
            crate::error::Chain(error)
        ));
    }
    summary.broken_tools.insert(tool.to_owned());
}

#[cfg(test)]
mod summary_tests {
    use super::*;

    fn rejected(summary: &mut Summary, tool: &str) {
        summary.count_parts(tool, Status::Rejected, Fault::Call, std::iter::empty());
    }

    #[test]
    fn per_tool_rows_are_bounded_and_the_rest_counted_as_other() {
        let mut summary = Summary::default();
        for i in 0..Summary::MAX_TOOLS + 500 {
            rejected(&mut summary, &format!("made_up_{i}"));
        }
        rejected(&mut summary, "made_up_0");
        rejected(&mut summary, &"n".repeat(Summary::MAX_TOOL_NAME_BYTES + 1));
        assert_eq!(summary.per_tool.len(), Summary::MAX_TOOLS);
        assert_eq!(summary.per_tool["made_up_0"].calls, 2);
        assert_eq!(summary.other_tools.calls, 501);
        assert_eq!(summary.total.calls, Summary::MAX_TOOLS as u64 + 502);
        let said = summary.to_string();
        assert!(said.contains("+ 501 calls to other tools (0 valid, 0 repaired, 501 rejected)"));
        // A name within both limits still gets its row after others went to "other".
        let mut summary = Summary::default();
        rejected(&mut summary, &"n".repeat(Summary::MAX_TOOL_NAME_BYTES + 1));
        rejected(&mut summary, &"n".repeat(Summary::MAX_TOOL_NAME_BYTES));
        assert_eq!(summary.per_tool.len(), 1);
        assert_eq!(summary.other_tools.calls, 1);
    }

    #[test]
    fn tool_names_are_written_visibly_one_row_each() {
        let mut summary = Summary::default();
        rejected(&mut summary, "x\u{1b}]0;pwned\u{7}\ncallfix: 0 records");
        rejected(&mut summary, "y\u{85}\u{2028}\u{9b}\u{7f}");
        let said = summary.to_string();
        assert!(
            !said.chars().any(|c| c != '\n' && message::breaks_lines(c)),
            "{said:?}"
        );
        assert_eq!(said.lines().count(), 4, "{said}");
        assert!(
            said.contains("x\\u001b]0;pwned\\u0007\\ncallfix: 0 records"),
            "{said}"
        );
        assert!(said.contains("y\\u0085\\u2028\\u009b\\u007f"), "{said}");
    }
}

mod jobs;
mod record;

#[cfg(test)]
mod tests;
