//! `check --calls`: recorded calls that must each be valid as they are, and an
//! input that holds none is a finding too (it would check nothing).

use std::io::{self, Read};

use super::{Calls, Finding, Rule};
use crate::error::Error;
use crate::filter::{self, Options, StreamError, Summary};
use crate::kinds::Kind;
use crate::message::{self, one_line};
use crate::output::{Position, Sink};
use crate::provider::{self, Args, Call, Extracted};
use crate::registry::Registry;
use crate::repair::{Enabled, Policy};
use crate::span::Loc;
use crate::verdict::{self, Status, Verdict};
use serde_json::Value;

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
            // Calls written into the text are read (and are not valid as they
            // are: they run only through this repair); nothing else is repaired.
            enabled: Enabled::only([Kind::ExtractFromText]),
            ..Policy::default()
        },
        loop_limit: 0,
        ..Options::default()
    };
    let mut sink = CallFindings {
        registry,
        file: &input.name,
        text: &bytes,
        calls: 0,
        out,
        in_text: None,
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
    registry: &'a Registry,
    file: &'a str,
    text: &'a [u8],
    calls: u64,
    out: &'a mut Vec<Finding>,
    /// The calls in the current record's text.
    in_text: Option<InText>,
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

    /// The record at `at`, read again from the input: `None` when it is not a
    /// JSON text of its own there (a reassembled stream).
    fn record_at(&self, at: Position) -> Option<Value> {
        let offset = usize::try_from(at.offset).ok()?;
        let rest = self.text.get(offset..)?;
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
        values.next()?.ok()
    }

    /// The calls written into the text of the record at `at`, as written (not
    /// yet judged), and the record's own calls; read once per record.
    fn in_text(&mut self, at: Position) -> &InText {
        if self.in_text.as_ref().is_none_or(|t| t.index != at.index) {
            let registry = self.registry;
            let declared = |name: &str| registry.contains(name);
            let (calls, own) = match self.record_at(at) {
                Some(record) => {
                    let calls = provider::calls_in_text(&record, &declared);
                    let own = match calls.is_empty() {
                        true => Vec::new(),
                        false => match provider::extract(record, None) {
                            Extracted::Calls(own) => {
                                own.into_iter().map(|c| (c.name, args(c.args))).collect()
                            }
                            Extracted::Unrecognised(_) => Vec::new(),
                        },
                    };
                    (calls, own)
                }
                None => (Vec::new(), Vec::new()),
            };
            self.in_text = Some(InText {
                index: at.index,
                calls,
                own,
            });
        }
        self.in_text.get_or_insert_with(InText::default)
    }

    /// The calls written into the text of the record at `at` beside the tool
    /// calls it holds (which [`provider::extract`] leaves there: they never
    /// run), less those the text only echoes (the same tool and arguments as
    /// one of the record's own).
    fn beside(&mut self, at: Position) -> Vec<Call> {
        let found = self.in_text(at);
        let echoed = |l: &Call| {
            let args = args(l.args.clone());
            args.is_some() && found.own.iter().any(|(n, a)| *n == l.name && *a == args)
        };
        found.calls.iter().filter(|l| !echoed(l)).cloned().collect()
    }
}

/// The calls in one record's text, and its own calls (tool and arguments).
#[derive(Default)]
struct InText {
    index: u64,
    calls: Vec<Call>,
    own: Vec<(String, Option<Value>)>,
}

/// A call's arguments as a JSON value, when they are one.
fn args(args: Args) -> Option<Value> {
    match args {
        Args::Value(v) => Some(v),
        Args::Text(t) => serde_json::from_str(&t).ok(),
        Args::Missing | Args::Malformed(_) => None,
    }
}

/// Why a verdict is not valid, on one line (empty when it only needed repairs).
fn errors(verdict: &Verdict) -> String {
    let errors: Vec<String> = verdict.errors.iter().map(|e| e.line()).collect();
    one_line(&errors.join("; ")).into_owned()
}

/// `; and it is not valid: …` when there are errors (the filter's, every repair
/// on: what is wrong with the call beyond where it is written).
fn and_invalid(errors: &str) -> String {
    if errors.is_empty() {
        String::new()
    } else {
        format!("; and it is not valid: {errors}")
    }
}

impl Sink for CallFindings<'_> {
    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        self.calls += 1;
        if at.call == 0 && call.leaked.is_none() {
            for mut leaked in self.beside(at) {
                self.calls += 1;
                let verdict = verdict::judge(self.registry, &mut leaked, Policy::default());
                let family = leaked.leaked.as_ref().map_or("", |l| l.family);
                let finding = Finding::new(
                    self.file,
                    self.loc(at),
                    Rule::CallInText,
                    format!(
                        "record {}: a call to {} is written into the message text ({family} \
                         markup) beside the message's own tool calls: it never runs{}",
                        at.index,
                        message::quote(&leaked.name),
                        and_invalid(&errors(&verdict))
                    ),
                );
                self.out.push(finding);
            }
        }
        if let Some(leak) = &call.leaked {
            // Written in text, the call is not valid as it is; whether it is
            // valid at all is what the filter, every repair on, would say (an
            // XML family's `3` is typed by the schema, not a wrong string).
            let written = self.in_text(at).calls.get(at.call).cloned();
            let errors = match written.filter(|w| w.name == call.name) {
                Some(mut written) => errors(&verdict::judge(
                    self.registry,
                    &mut written,
                    Policy::default(),
                )),
                None => String::new(),
            };
            let finding = Finding::new(
                self.file,
                self.loc(at),
                Rule::CallInText,
                format!(
                    "recorded call {}.{} to {} is written into the message text ({} markup), \
                     not as a tool call: it runs only if callfix extracts it{}",
                    at.index,
                    at.call,
                    message::quote(&call.name),
                    leak.family,
                    and_invalid(&errors)
                ),
            );
            self.out.push(finding);
        } else if verdict.status != Status::Valid {
            let finding = Finding::new(
                self.file,
                self.loc(at),
                Rule::CallInvalid,
                format!(
                    "recorded call {}.{} to {} is not valid: {}",
                    at.index,
                    at.call,
                    message::quote(&call.name),
                    errors(&verdict)
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
