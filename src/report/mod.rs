//! How well a model called its tools: a summary of judged calls
//! (`callfix report`), fed one result at a time, as a [`Sink`] of the filter or
//! by [`Report::add`].
//!
//! Memory is bounded whatever the input: at most [`Report::MAX_KEYS`] models and
//! tools each (names of at most [`Report::MAX_NAME_BYTES`] bytes; the rest are
//! counted under [`Report::OTHER`]), at most [`Report::MAX_EXAMPLES`] error
//! paths with one example each, at most [`Report::MAX_KEYS`] stop reasons.

use std::collections::BTreeMap;
use std::io;

use serde_json::{Map, Value, json};

use crate::filter::Counts;
use crate::output::{Position, Sink};
use crate::provider::{Args, Call, Origin};
use crate::surrogates;
use crate::verdict::{Class, Status, Verdict};

mod example;
// Each record judged against its own `tools`: the command line's for now.
#[cfg(feature = "cli")]
pub(crate) mod own;

pub use example::{EXAMPLE_CHARS, Example};

/// The summary of a run's judged calls.
#[derive(Debug, Default, Clone)]
pub struct Report {
    /// The model of calls whose record names none (the input's `--label`).
    label: String,
    /// The record whose results come next.
    origin: Origin,
    total: Counts,
    by_model: BTreeMap<String, Counts>,
    by_tool: BTreeMap<String, Counts>,
    repairs: BTreeMap<&'static str, u64>,
    leaks: BTreeMap<&'static str, u64>,
    rejections: BTreeMap<Class, u64>,
    /// Stop reasons of the records of calls cut off.
    cut_off_stops: BTreeMap<String, u64>,
    examples: example::Examples,
    broken_records: u64,
    /// Calls of records that carried no tools to judge them against.
    unjudged: u64,
    /// What the operator must fix (a broken schema), each said once.
    diagnostics: Vec<String>,
}

/// Counts `status` in `counts`.
fn add(counts: &mut Counts, status: Status) {
    counts.calls += 1;
    match status {
        Status::Valid => counts.valid += 1,
        Status::Repaired => counts.repaired += 1,
        Status::Rejected => counts.rejected += 1,
    }
}

/// The entry for `key` in `map`, or [`Report::OTHER`]'s once the map is full
/// or the key too long (always `Some`). A key seen before (nearly every call)
/// is found without allocating.
fn bounded<'m, T: Default>(map: &'m mut BTreeMap<String, T>, key: &str) -> Option<&'m mut T> {
    let key = if map.contains_key(key)
        || (map.len() < Report::MAX_KEYS && key.len() <= Report::MAX_NAME_BYTES)
    {
        key
    } else {
        Report::OTHER
    };
    if !map.contains_key(key) {
        map.insert(key.to_owned(), T::default());
    }
    map.get_mut(key)
}

impl Report {
    /// Distinct models, tools and stop reasons each kept on a row of their own.
    pub const MAX_KEYS: usize = 1000;
    /// The longest model or tool name kept on a row of its own, in bytes.
    pub const MAX_NAME_BYTES: usize = 256;
    /// Distinct error paths (tool, class, path) kept, each with one example.
    pub const MAX_EXAMPLES: usize = 200;
    /// Diagnostics kept ([`Report::diagnostics`]).
    pub const MAX_DIAGNOSTICS: usize = 100;
    /// The row of every name past the caps.
    pub const OTHER: &'static str = "(other)";

    /// An empty report; calls whose record names no model are counted under
    /// `label`.
    pub fn new(label: &str) -> Self {
        Report {
            label: label.to_owned(),
            ..Report::default()
        }
    }

    /// The model of the calls that follow when their record names none (one
    /// label per input file).
    pub fn set_label(&mut self, label: &str) {
        label.clone_into(&mut self.label);
    }

    /// Counts one judged call, whose record said `origin`.
    pub fn add(&mut self, origin: &Origin, call: &Call, verdict: &Verdict) {
        let status = verdict.status();
        // A name read with a lone surrogate escape masked is counted as the
        // escape sent (`gpt-\ud83d`), never as the mask.
        let model = surrogates::shown(origin.model.as_deref().unwrap_or(&self.label));
        let tool = surrogates::shown(call.name());
        add(&mut self.total, status);
        if let Some(c) = bounded(&mut self.by_model, &model) {
            add(c, status);
        }
        if let Some(c) = bounded(&mut self.by_tool, &tool) {
            add(c, status);
        }
        for repair in verdict.repairs() {
            *self.repairs.entry(repair.kind.name()).or_default() += 1;
        }
        if let Some(leak) = call.leaked() {
            *self.leaks.entry(leak.family()).or_default() += 1;
        }
        let Some(class) = verdict.class() else {
            return;
        };
        *self.rejections.entry(class).or_default() += 1;
        if class == Class::CutOff {
            let stop = surrogates::shown(origin.stop.as_deref().unwrap_or("(none)"));
            if let Some(n) = bounded(&mut self.cut_off_stops, &stop) {
                *n += 1;
            }
        }
        let path = surrogates::shown(verdict.errors().first().map_or("", |e| e.path.as_str()));
        self.examples
            .add(&tool, class, &path, || sent(call, verdict));
    }

    /// All calls.
    pub fn total(&self) -> Counts {
        self.total
    }

    /// Calls per model (the record's `model`, else the label).
    pub fn by_model(&self) -> &BTreeMap<String, Counts> {
        &self.by_model
    }

    /// Calls per tool.
    pub fn by_tool(&self) -> &BTreeMap<String, Counts> {
        &self.by_tool
    }

    /// Repairs made, by kind.
    pub fn repairs(&self) -> &BTreeMap<&'static str, u64> {
        &self.repairs
    }

    /// Calls found written in text, by leak family.
    pub fn leaks(&self) -> &BTreeMap<&'static str, u64> {
        &self.leaks
    }

    /// Rejected calls, by class.
    pub fn rejections(&self) -> &BTreeMap<Class, u64> {
        &self.rejections
    }

    /// Stop reasons of the records whose calls were cut off.
    pub fn cut_off_stops(&self) -> &BTreeMap<String, u64> {
        &self.cut_off_stops
    }

    /// Records that were broken (no call read), not counted as calls.
    pub fn broken_records(&self) -> u64 {
        self.broken_records
    }

    /// Calls not judged, not counted as calls: their record carried no
    /// `tools` and no schemas were given (`callfix report` without
    /// `--schemas`).
    pub fn unjudged(&self) -> u64 {
        self.unjudged
    }

    /// What the operator must fix, as the filter said it (a tool's schema is
    /// broken), at most [`Report::MAX_DIAGNOSTICS`].
    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// The most frequent error paths, most frequent first, at most `n`.
    pub fn examples(&self, n: usize) -> Vec<&Example> {
        self.examples.top(n)
    }

    /// Calls valid as sent ÷ calls (K2 Vendor Verifier's schema accuracy); 0
    /// for no calls.
    pub fn schema_accuracy(&self) -> f64 {
        ratio(self.total.valid, self.total.calls)
    }

    /// Calls valid or repaired ÷ calls; 0 for no calls.
    pub fn accuracy_after(&self) -> f64 {
        ratio(self.total.valid + self.total.repaired, self.total.calls)
    }

    /// The report as `--format json` writes it (`"version": 1`).
    pub fn to_json(&self) -> Value {
        let mut out = counts_json(&self.total);
        let keyed = |map: &BTreeMap<String, Counts>| -> Value {
            Value::Object(
                map.iter()
                    .map(|(k, c)| (k.clone(), Value::Object(counts_json(c))))
                    .collect(),
            )
        };
        let named = |map: &BTreeMap<&'static str, u64>| -> Value {
            Value::Object(
                map.iter()
                    .map(|(k, n)| ((*k).to_owned(), json!(n)))
                    .collect(),
            )
        };
        out.insert("by_model".into(), keyed(&self.by_model));
        out.insert("by_tool".into(), keyed(&self.by_tool));
        out.insert("repairs".into(), named(&self.repairs));
        out.insert("leaks".into(), named(&self.leaks));
        let classes = self
            .rejections
            .iter()
            .map(|(c, n)| (c.name(), *n))
            .collect();
        out.insert("rejections".into(), named(&classes));
        out.insert(
            "cut_off_stops".into(),
            Value::Object(
                self.cut_off_stops
                    .iter()
                    .map(|(k, n)| (k.clone(), json!(n)))
                    .collect(),
            ),
        );
        out.insert("broken_records".into(), json!(self.broken_records));
        out.insert("unjudged".into(), json!(self.unjudged));
        let examples = self
            .examples(Self::MAX_EXAMPLES)
            .into_iter()
            .map(Example::to_json);
        out.insert("examples".into(), Value::Array(examples.collect()));
        let mut versioned = Map::new();
        versioned.insert("version".into(), json!(1));
        versioned.extend(out);
        Value::Object(versioned)
    }
}

fn ratio(n: u64, of: u64) -> f64 {
    if of == 0 { 0.0 } else { n as f64 / of as f64 }
}

/// A count's fields, with both accuracies.
fn counts_json(c: &Counts) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("calls".into(), json!(c.calls));
    m.insert("valid".into(), json!(c.valid));
    m.insert("repaired".into(), json!(c.repaired));
    m.insert("rejected".into(), json!(c.rejected));
    m.insert("schema_accuracy".into(), json!(ratio(c.valid, c.calls)));
    m.insert(
        "accuracy_after".into(),
        json!(ratio(c.valid + c.repaired, c.calls)),
    );
    m
}

/// The call's arguments as sent, as far as the verdict kept them, one line.
fn sent(call: &Call, verdict: &Verdict) -> String {
    if let Some(leak) = call.leaked() {
        return example::short(leak.markup());
    }
    match (&verdict.raw, verdict.args(), call.args()) {
        (Some(raw), _, _) => example::short(raw),
        (None, Some(args), _) => example::short(&args.to_string()),
        (None, None, Args::Text(t)) => example::short(t),
        _ => String::new(),
    }
}

impl Sink for Report {
    fn origin(&mut self, origin: &Origin) {
        self.origin.clone_from(origin);
    }

    fn call(&mut self, _at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        let origin = std::mem::take(&mut self.origin);
        self.add(&origin, &call, &verdict);
        self.origin = origin;
        Ok(())
    }

    fn diagnostic(&mut self, message: &str) {
        if self.diagnostics.len() < Self::MAX_DIAGNOSTICS {
            self.diagnostics.push(message.to_owned());
        }
    }

    fn record(&mut self, _at: Position, _verdict: Verdict) -> io::Result<()> {
        self.broken_records += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
