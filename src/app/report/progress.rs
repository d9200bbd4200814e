//! The progress line of `callfix report` on a terminal's stderr: the input
//! being read, the records and calls read so far, redrawn in place at most
//! a few times a second and cleared at the end. It is only made when stderr
//! is a terminal; otherwise the report is fed directly, at no cost.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use crate::output::{Position, Sink};
use crate::provider::{Call, Origin};
use crate::report::Report;
use crate::report::own::Tally;
use crate::spelling::Spellings;
use crate::verdict::Verdict;

/// The shortest time between two redraws (and before the first: a quick
/// run shows nothing).
pub(super) const EVERY: Duration = Duration::from_millis(250);

/// Back to the line's start and erase it.
const CLEAR: &str = "\r\x1b[2K";

/// A sink that passes everything on to the report and keeps the line.
pub(super) struct Progress<'r, W: Write> {
    report: &'r mut Report,
    out: W,
    every: Duration,
    source: String,
    records: u64,
    calls: u64,
    next: Instant,
    shown: bool,
}

impl<'r, W: Write> Progress<'r, W> {
    /// A line on `out` (stderr), redrawn at most once per `every`.
    pub(super) fn new(report: &'r mut Report, out: W, every: Duration) -> Self {
        Progress {
            report,
            out,
            every,
            source: String::new(),
            records: 0,
            calls: 0,
            next: Instant::now() + every,
            shown: false,
        }
    }

    /// Erases the line, if it was drawn, for something else said on stderr
    /// (it is drawn again at the next redraw).
    fn clear(&mut self) {
        if self.shown {
            let _ = write!(self.out, "{CLEAR}");
            let _ = self.out.flush();
        }
    }

    fn tick(&mut self) {
        // A clock read per result: tens of nanoseconds beside microseconds
        // of judging.
        let now = Instant::now();
        if now < self.next {
            return;
        }
        self.next = now + self.every;
        self.shown = true;
        let name: String = crate::message::one_line(&self.source)
            .chars()
            .take(60)
            .collect();
        // A failed write to stderr loses a progress line, nothing else.
        let _ = write!(
            self.out,
            "{CLEAR}{name}: {} records, {} calls",
            self.records,
            self.calls + self.report.unjudged()
        );
        let _ = self.out.flush();
    }

    /// Clears the line, if it was drawn.
    pub(super) fn finish(mut self) {
        self.clear();
    }
}

impl<W: Write> super::Fed for Progress<'_, W> {
    fn next_input(&mut self, name: &str, label: &str) {
        name.clone_into(&mut self.source);
        self.report.set_label(label);
    }

    fn interrupt(&mut self) {
        self.clear();
    }
}

impl<W: Write> Sink for Progress<'_, W> {
    fn begin_record(&mut self, spellings: Spellings) {
        self.report.begin_record(spellings);
    }

    fn origin(&mut self, origin: &Origin) {
        self.records += 1;
        self.report.origin(origin);
        self.tick();
    }

    fn diagnostic(&mut self, message: &str) {
        self.report.diagnostic(message);
    }

    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        self.calls += 1;
        self.report.call(at, call, verdict)
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        self.report.record(at, verdict)
    }
}

impl<W: Write> Tally for Progress<'_, W> {
    fn count_unjudged(&mut self) {
        self.report.count_unjudged();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::{Input, Summary};
    use crate::toolset::Toolset;
    use serde_json::json;

    fn log(n: usize) -> Vec<u8> {
        let line = json!({"model": "m", "choices": [{"message": {"role": "assistant",
            "tool_calls": [{"id": "c", "type": "function",
            "function": {"name": "t", "arguments": "{}"}}]}}]});
        format!("{line}\n").repeat(n).into_bytes()
    }

    fn run(every: Duration, n: usize) -> (Report, String) {
        let tools = Toolset::from_schemas([("t".to_owned(), json!({}))]);
        let mut report = Report::default();
        let mut err = Vec::new();
        let mut progress = Progress::new(&mut report, &mut err, every);
        super::super::Fed::next_input(&mut progress, "log.jsonl", "log.jsonl");
        let bytes = log(n);
        tools
            .filter()
            .stream(
                Input::from_bytes(&bytes, "log.jsonl"),
                &mut progress,
                &mut Summary::default(),
            )
            .unwrap();
        progress.finish();
        (report, String::from_utf8(err).unwrap())
    }

    #[test]
    fn the_line_is_redrawn_in_place_and_cleared_at_the_end() {
        let (report, err) = run(Duration::ZERO, 3);
        assert_eq!(report.total().calls, 3, "everything reaches the report");
        assert_eq!(
            err,
            format!(
                "{CLEAR}log.jsonl: 1 records, 0 calls{CLEAR}log.jsonl: 2 records, 1 calls\
                 {CLEAR}log.jsonl: 3 records, 2 calls{CLEAR}"
            )
        );
    }

    #[test]
    fn a_quick_run_draws_nothing_and_clears_nothing() {
        let (report, err) = run(Duration::from_secs(3600), 1000);
        assert_eq!(report.total().calls, 1000);
        assert_eq!(err, "");
    }
}
