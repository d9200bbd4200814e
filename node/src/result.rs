//! Results: what the filter hands over for each call ([`Line`], collected by
//! [`Collect`]), written as the JSON text JavaScript parses into a result
//! object: the object `callfix --format json` writes for the call, plus
//! `argsJson` (the arguments' JSON text, every number as the model sent it).
//! One string crosses into JavaScript per call, parsed there with one
//! `JSON.parse`: cheaper than building the object through napi a property at
//! a time.

use std::io;

use callfix::Spellings;
use callfix::output::{Format, Position, Printer, Sink};
use callfix::provider::Call;
use callfix::verdict::{Fault, Status, Verdict};

use crate::boundary::error;

/// One result as the filter handed it over.
pub(crate) struct Line {
    at: Position,
    call: Option<Call>,
    verdict: Verdict,
    spellings: Spellings,
}

impl Line {
    /// The result of one call.
    pub(crate) fn new(at: Position, call: Call, verdict: Verdict, spellings: Spellings) -> Self {
        Line {
            at,
            call: Some(call),
            verdict,
            spellings,
        }
    }

    /// The result of a record that held no call it could use.
    pub(crate) fn record(at: Position, verdict: Verdict, spellings: Spellings) -> Self {
        Line {
            at,
            call: None,
            verdict,
            spellings,
        }
    }

    /// For a call that is valid as sent, with no id, no loop, and the tool
    /// name `tool` in ASCII (so JavaScript holds the very same name): `v`
    /// alone when the arguments' JSON text is `sent`, byte for byte (the
    /// JavaScript side has that string already: no copy crosses back), else
    /// `V` and the arguments' JSON text. From either JavaScript builds the
    /// result without the `--format json` line (node/index.js, `result`, gives
    /// the same object: a test pins the two together). Otherwise
    /// [`Line::write`].
    pub(crate) fn write_fast(&self, tool: &str, sent: &[u8], out: &mut String) -> napi::Result<()> {
        if let Some(call) = &self.call
            && self.verdict.status() == Status::Valid
            && self.verdict.fault() != Fault::Schema
            && self.verdict.looped().is_none()
            && self.verdict.repairs().is_empty()
            && self.verdict.errors().is_empty()
            && self.verdict.message().is_none()
            && call.id().is_null()
            && call.name() == tool
            && tool.is_ascii()
            && let Some(args) = self.verdict.args()
        {
            let text = self.spellings.to_text(args);
            if text.as_bytes() == sent {
                out.push('v');
            } else {
                out.push('V');
                out.push_str(&text);
            }
            return Ok(());
        }
        self.write(out)
    }

    /// The object JavaScript is given, as JSON text: `{"argsJson": …,` then
    /// the members of the line `callfix --format json` writes. A call whose
    /// tool's schema is broken is the operator's error, not the model's: an
    /// error naming the tool and the problem.
    pub(crate) fn write(&self, out: &mut String) -> napi::Result<()> {
        if self.verdict.fault() == Fault::Schema {
            let said = self
                .verdict
                .message()
                .unwrap_or("a tool's schema is broken");
            return Err(error(said));
        }
        let mut printer = Printer::new(Vec::with_capacity(256), Format::Json);
        Sink::begin_record(&mut printer, self.spellings.clone());
        // Writing to a Vec cannot fail.
        let _ = match &self.call {
            Some(call) => printer.call(self.at, call, &self.verdict),
            None => printer.record(self.at, &self.verdict),
        };
        let line = String::from_utf8(printer.into_inner())
            .map_err(|_| error("internal error, please report it (a result is not UTF-8)"))?;
        let members = line
            .trim_end()
            .strip_prefix('{')
            .ok_or_else(|| error("internal error, please report it (a result is not an object)"))?;
        let args = match self.verdict.status() {
            Status::Rejected => None,
            _ => self.verdict.args(),
        };
        out.push_str("{\"argsJson\":");
        match args {
            Some(args) => {
                let text = self.spellings.to_text(args);
                let quoted = serde_json::to_string(&text)
                    .map_err(|e| error(format!("internal error, please report it ({e})")))?;
                out.push_str(&quoted);
            }
            None => out.push_str("null"),
        }
        if members != "}" {
            out.push(',');
        }
        out.push_str(members);
        Ok(())
    }
}

/// Results as the JSON text of an array of objects ([`Line::write`]).
pub(crate) fn write_all(lines: &[Line]) -> napi::Result<String> {
    let mut out = String::with_capacity(256 * lines.len() + 2);
    out.push('[');
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        line.write(&mut out)?;
    }
    out.push(']');
    Ok(out)
}

/// A sink keeping each result (the verdict and what it needs to be written).
#[derive(Default)]
pub(crate) struct Collect {
    spellings: Spellings,
    pub(crate) lines: Vec<Line>,
}

impl Sink for Collect {
    fn begin_record(&mut self, spellings: Spellings) {
        self.spellings = spellings;
    }

    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        let spellings = self.spellings.clone();
        self.lines.push(Line::new(at, call, verdict, spellings));
        Ok(())
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        let spellings = self.spellings.clone();
        self.lines.push(Line::record(at, verdict, spellings));
        Ok(())
    }
}
