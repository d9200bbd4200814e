//! Results: what the filter hands over for each call ([`Line`], collected by
//! [`Collect`]), and the Python `Result` class around one, whose `to_dict()`
//! and `to_json()` are the line `callfix --format json` writes, made only
//! when asked for.

use std::io;
use std::sync::OnceLock;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use serde_json::Value;

use callfix::Spellings;
use callfix::output::{Format, Position, Printer, Sink};
use callfix::provider::Call;
use callfix::verdict::{Fault, Status, Verdict};

use crate::MAX_DEPTH;
use crate::boundary::error;
use crate::to_python::{deeper_than, to_py};

/// One result as the filter handed it over; its `--format json` line is
/// written only when asked for. Boxed: a result is moved several times on its
/// way into a Python object, and is some 700 bytes.
pub(crate) struct Line(Box<Parts>);

/// What a [`Line`] holds.
pub(crate) struct Parts {
    at: Position,
    call: Option<Call>,
    verdict: Verdict,
    spellings: Spellings,
}

impl std::ops::Deref for Line {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.0
    }
}

impl Line {
    /// The result of one call. Of the call, only its id and name are kept
    /// (all a result shows): the envelope and the arguments as received are
    /// dropped here, as the result is made (for `check_many`, on the worker
    /// thread that read them), rather than by Python when it frees the result.
    pub(crate) fn new(at: Position, call: Call, verdict: Verdict, spellings: Spellings) -> Self {
        Line(Box::new(Parts {
            at,
            call: Some(call.into_id_and_name()),
            verdict,
            spellings,
        }))
    }

    /// The line `callfix --format json` writes for this result.
    fn json(&self) -> String {
        let mut printer = Printer::new(Vec::with_capacity(256), Format::Json);
        Sink::begin_record(&mut printer, self.spellings.clone());
        // Writing to a Vec cannot fail.
        let _ = match &self.call {
            Some(call) => printer.call(self.at, call, &self.verdict),
            None => printer.record(self.at, &self.verdict),
        };
        let mut text = String::from_utf8(printer.into_inner()).unwrap_or_default();
        text.truncate(text.trim_end().len());
        text
    }

    /// Whether a value this result holds nests deeper than [`MAX_DEPTH`].
    pub(crate) fn too_deep(&self) -> bool {
        let mut values: Vec<&Value> = vec![];
        if let Some(call) = &self.call {
            values.push(call.id());
        }
        values.extend(self.verdict.args());
        for r in self.verdict.repairs() {
            values.extend([&r.from, &r.to]);
        }
        values.into_iter().any(|v| deeper_than(v, MAX_DEPTH))
    }

    fn accepted(&self) -> Option<&Value> {
        match self.verdict.status() {
            Status::Rejected => None,
            _ => self.verdict.args(),
        }
    }
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
        self.lines.push(Line(Box::new(Parts {
            at,
            call: None,
            verdict,
            spellings: self.spellings.clone(),
        })));
        Ok(())
    }
}

/// The result of one call (or of a record that held no usable call).
///
/// `to_dict()` is the object `callfix --format json` writes for the same call.
#[pyclass(frozen, module = "callfix", name = "Result")]
pub(crate) struct CheckResult {
    line: Line,
    json: OnceLock<String>,
    parsed: OnceLock<Value>,
}

impl CheckResult {
    /// The result of `line`; a call whose tool's schema is broken is the
    /// operator's error, not the model's: a `CallfixError` naming the tool and
    /// the problem (the words the model would have read).
    pub(crate) fn new(line: Line) -> PyResult<Self> {
        if line.verdict.fault() == Fault::Schema {
            let said = line
                .verdict
                .message()
                .unwrap_or("a tool's schema is broken");
            return Err(error(said));
        }
        Ok(CheckResult {
            line,
            json: OnceLock::new(),
            parsed: OnceLock::new(),
        })
    }

    fn json(&self) -> &str {
        self.json.get_or_init(|| self.line.json())
    }

    fn parsed(&self) -> &Value {
        self.parsed
            .get_or_init(|| serde_json::from_str(self.json()).unwrap_or(Value::Null))
    }

    fn field<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.parsed().get(key).unwrap_or(&Value::Null))
    }
}

#[pymethods]
impl CheckResult {
    /// `"valid"`, `"repaired"` or `"rejected"` (one `str` each, made once).
    #[getter]
    fn status<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        match self.line.verdict.status() {
            Status::Valid => intern!(py, "valid"),
            Status::Repaired => intern!(py, "repaired"),
            Status::Rejected => intern!(py, "rejected"),
        }
        .clone()
    }

    /// Whether the arguments can be used: valid or repaired.
    #[getter]
    fn ok(&self) -> bool {
        self.line.verdict.status() != Status::Rejected
    }

    /// The tool called (after `rename-tool`); `None` for a broken record.
    #[getter]
    fn tool(&self) -> Option<&str> {
        self.line.call.as_ref().map(|c| c.name())
    }

    /// The call's id as sent (`None` when it had none).
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.line.call {
            Some(call) => to_py(py, call.id()),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The record's number (from 0, counted across `check_many`).
    #[getter]
    fn index(&self) -> u64 {
        self.line.at.index
    }

    /// The call's number within its record (from 0).
    #[getter]
    fn call(&self) -> usize {
        self.line.at.call
    }

    /// The arguments to use (valid or repaired), else `None`. Integers are exact;
    /// other numbers are the nearest `float`: `args_json` has them exactly.
    #[getter]
    fn args<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.line.accepted() {
            Some(args) => to_py(py, args),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The arguments as JSON text, every number spelled as the model sent it.
    #[getter]
    fn args_json(&self) -> Option<String> {
        self.line.accepted().map(|a| self.line.spellings.to_text(a))
    }

    /// Every change made: dicts with `path`, `kind`, `from`, `to`.
    #[getter]
    fn repairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.line.verdict.repairs().is_empty() {
            return Ok(PyList::empty(py).into_any());
        }
        self.field(py, "repairs")
    }

    /// What is wrong: dicts with `path` and `message`.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.line.verdict.errors().is_empty() {
            return Ok(PyList::empty(py).into_any());
        }
        self.field(py, "errors")
    }

    /// The one line for the model when rejected, else `None`.
    #[getter]
    fn message(&self) -> Option<&str> {
        self.line.verdict.message()
    }

    /// Whether the model was told to stop retrying (a `Session` only).
    #[getter]
    fn looped(&self) -> bool {
        self.line.verdict.looped().is_some()
    }

    /// The object `callfix --format json` writes for this call (a new dict).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.parsed())
    }

    /// That object as one line of JSON, exactly as the CLI writes it.
    fn to_json(&self) -> &str {
        self.json()
    }

    fn __repr__(&self) -> String {
        format!(
            "Result(status={:?}, tool={:?}, index={}, call={})",
            self.line.verdict.status().as_str(),
            self.tool().unwrap_or("None"),
            self.line.at.index,
            self.line.at.call
        )
    }
}

pub(crate) fn results(py: Python<'_>, lines: Vec<Line>) -> PyResult<Vec<Py<CheckResult>>> {
    lines
        .into_iter()
        .map(|line| Py::new(py, CheckResult::new(line)?))
        .collect()
}
