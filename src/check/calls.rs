//! `check --calls`: recorded calls that must each be valid as they are, and an
//! input that holds none is a finding too (it would check nothing).

use std::io::{self, Read};

use super::{Calls, Finding, Rule};
use crate::error::Error;
use crate::filter::{self, Options, StreamError, Summary};
use crate::message::{self, one_line};
use crate::output::{Position, Sink};
use crate::provider::Call;
use crate::registry::Registry;
use crate::repair::{Enabled, Policy};
use crate::span::Loc;
use crate::verdict::{Status, Verdict};

/// Checks one input; returns how many calls it held. The input is read whole:
/// a finding's column is counted from its record's line in the text.
pub(super) fn check(
    registry: &Registry,
    mut input: Calls<'_>,
    out: &mut Vec<Finding>,
) -> Result<u64, Error> {
    let mut bytes = Vec::new();
    input
        .reader
        .read_to_end(&mut bytes)
        .map_err(|error| Error::read(input.name.clone(), error))?;
    let options = Options {
        policy: Policy {
            enabled: Enabled::NONE,
            ..Policy::default()
        },
        loop_limit: 0,
        ..Options::default()
    };
    let mut sink = CallFindings {
        file: &input.name,
        text: &bytes,
        calls: 0,
        out,
    };
    let run = filter::Filter {
        registry,
        options: &options,
    };
    let stream = filter::Input::new(&bytes[..], &input.name);
    let mut summary = Summary::default().without_per_tool();
    run.stream(stream, &mut sink, &mut summary)
        .map_err(|e| match e {
            StreamError::Read(error) | StreamError::Write(error) => {
                Error::read(input.name.clone(), error)
            }
        })?;
    let calls = sink.calls;
    if calls == 0 {
        out.push(Finding::new(
            &input.name,
            Loc::START,
            Rule::CallsEmpty,
            "no tool call found: a --calls input must hold recorded calls".into(),
        ));
    }
    Ok(calls)
}

struct CallFindings<'a> {
    file: &'a str,
    text: &'a [u8],
    calls: u64,
    out: &'a mut Vec<Finding>,
}

impl CallFindings<'_> {
    /// Where the record at `at` starts.
    fn loc(&self, at: Position) -> Loc {
        let offset = usize::try_from(at.offset)
            .unwrap_or(usize::MAX)
            .min(self.text.len());
        let line = self.text.get(..offset).unwrap_or_default();
        let start = memchr::memrchr(b'\n', line).map_or(0, |i| i + 1);
        Loc {
            line: at.line as usize,
            col: String::from_utf8_lossy(line.get(start..).unwrap_or_default())
                .chars()
                .count()
                + 1,
        }
    }
}

impl Sink for CallFindings<'_> {
    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        self.calls += 1;
        if verdict.status != Status::Valid {
            let errors: Vec<String> = verdict.errors.iter().map(|e| e.line()).collect();
            let finding = Finding::new(
                self.file,
                self.loc(at),
                Rule::CallInvalid,
                format!(
                    "recorded call {}.{} to {} is not valid: {}",
                    at.index,
                    at.call,
                    message::quote(&call.name),
                    one_line(&errors.join("; "))
                ),
            );
            self.out.push(finding);
        }
        Ok(())
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        let finding = Finding::new(
            self.file,
            self.loc(at),
            Rule::RecordUnusable,
            verdict.message.unwrap_or_default(),
        );
        self.out.push(finding);
        Ok(())
    }
}
