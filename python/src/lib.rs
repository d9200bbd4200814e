//! `callfix._callfix`: the native part of the `callfix` Python package. It only
//! translates between Python objects and the library's API (`Registry`,
//! `filter::Filter`, `output::Printer`, `tools::payload`, `render`): every result
//! is the very line `callfix --format json` writes for the same call, parsed on
//! demand, so Python and the CLI cannot disagree.
//!
//! The GIL is held only to turn Python objects into JSON text and results back
//! into Python objects; checking runs with it released.

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyIterator, PyList, PyString, PyTuple};
use serde_json::Value;

use callfix::error::Chain;
use callfix::filter::{Filter, Input, Options, Summary};
use callfix::output::{Format, Position, Printer, Sink};
use callfix::provider::Call;
use callfix::registry::Registry;
use callfix::repair::{Enabled, Kind};
use callfix::spelling::Spellings;
use callfix::verdict::{Status, Verdict};

/// The command line, compiled into the extension: `callfix` on a venv's PATH
/// runs the very app `src/main.rs` runs.
#[path = "../../src/app/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod app;

pyo3::create_exception!(
    callfix,
    CallfixError,
    PyValueError,
    "A schema source, option or argument callfix cannot use; the message says which and why."
);

fn error(message: impl Into<String>) -> PyErr {
    CallfixError::new_err(message.into())
}

/// The deepest Python structure turned into JSON (the parser's own limit is
/// lower, so anything deeper is rejected as the CLI rejects it), and the
/// deepest JSON value turned into Python objects.
const MAX_DEPTH: usize = 1000;

/// The most bytes of JSON text written from one Python object: the CLI's
/// record limit (`--max-record-bytes`'s default), so that a structure too large
/// to be a record is refused before it is all written.
const MAX_TEXT_BYTES: usize = 64 * 1024 * 1024;

// ---------------------------------------------------------------- the boundary

/// Input that nests (`[`, `{`, `(`, counted anywhere, strings too: a leaked
/// call sits in a JSON string) at most this deep is checked on the caller's
/// thread, whatever its stack (a Python thread's may be small).
const INLINE_NESTING: usize = 64;

/// Input that nests deeper is checked on a thread of its own, with this much
/// stack per level (several times what the deepest reader takes) and at least
/// [`MIN_DEEP_STACK`], so that no reader runs out of stack ...
const STACK_PER_LEVEL: usize = 8 * 1024;
const MIN_DEEP_STACK: usize = 16 * 1024 * 1024;

/// ... up to this depth (400 MB of stack, reserved, not used); deeper input is refused with a
/// `CallfixError`.
const MAX_NESTING: usize = 50_000;

/// How deep `text` can nest: `[`, `{` and `(` less the closing ones, counted
/// anywhere (an upper bound on what any reader recurses into). One pass.
fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for &b in text {
        match b {
            b'[' | b'{' | b'(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Runs library code so that nothing but a `PyResult` comes back: a panic (a
/// bug) becomes a `CallfixError` rather than a `PanicException` that `except
/// Exception` does not catch.
fn catch<T>(work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(error(format!(
            "internal error, please report it (callfix panicked: {why})"
        )))
    })
}

/// [`catch`] for checking `text`: input that nests deeply is checked on a
/// thread with stack enough for its depth (a stack overflow would take the
/// interpreter down), and input deeper than [`MAX_NESTING`] is refused.
///
/// `work` is told the depth found, and must not hand back values deeper than
/// the caller's stack can drop (see [`Toolset::run`]).
fn shielded<T: Send>(text: &[u8], work: impl FnOnce(usize) -> PyResult<T> + Send) -> PyResult<T> {
    let depth = nesting(text);
    if depth <= INLINE_NESTING {
        return catch(|| work(depth));
    }
    if depth > MAX_NESTING {
        return Err(error(format!(
            "input nests deeper than {MAX_NESTING} levels"
        )));
    }
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("callfix-deep".into())
            .stack_size(depth.saturating_mul(STACK_PER_LEVEL).max(MIN_DEEP_STACK))
            .spawn_scoped(scope, || catch(|| work(depth)))
            .map_err(|e| error(format!("cannot start a thread to check deep input: {e}")))?;
        worker
            .join()
            .unwrap_or_else(|_| Err(error("internal error, please report it (callfix panicked)")))
    })
}

// ---------------------------------------------------------------- Python → JSON

/// Writes `obj` as JSON text: `None`, `bool`, `int` (any size, exact), `float`
/// (its shortest round-trip spelling; NaN and infinities refused), `str`, `dict`
/// with `str` keys, `list` and `tuple`.
fn write_json(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>, depth: usize) -> PyResult<()> {
    if depth > MAX_DEPTH {
        return Err(error(format!(
            "arguments nest deeper than {MAX_DEPTH} levels"
        )));
    }
    if obj.is_none() {
        out.extend_from_slice(b"null");
    } else if let Ok(b) = obj.cast::<PyBool>() {
        out.extend_from_slice(if b.is_true() { b"true" } else { b"false" });
    } else if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_cow()?;
        serde_json::to_writer(&mut *out, &*text).map_err(|e| error(e.to_string()))?;
    } else if obj.is_instance_of::<PyInt>() {
        write_int(obj, out)?;
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        write_float(obj.py(), f.value(), out)?;
    } else if let Ok(d) = obj.cast::<PyDict>() {
        out.push(b'{');
        for (i, (k, v)) in d.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let Ok(k) = k.cast::<PyString>() else {
                return Err(error(format!(
                    "a JSON object's keys are strings, not {}",
                    k.get_type().name()?
                )));
            };
            serde_json::to_writer(&mut *out, &*k.to_cow()?).map_err(|e| error(e.to_string()))?;
            out.push(b':');
            write_json(&v, out, depth + 1)?;
        }
        out.push(b'}');
    } else if let Ok(l) = obj.cast::<PyList>() {
        write_seq(l.iter(), out, depth)?;
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        write_seq(t.iter(), out, depth)?;
    } else if !write_other_number(obj, out)? {
        return Err(PyTypeError::new_err(format!(
            "cannot send a {} as JSON (use dict, list, str, int, float, bool or None)",
            obj.get_type().name()?
        )));
    }
    if out.len() > MAX_TEXT_BYTES {
        return Err(error(format!(
            "arguments larger than {MAX_TEXT_BYTES} bytes as JSON"
        )));
    }
    Ok(())
}

/// An `int` (or a subclass) as JSON: its value in `int`'s own spelling; a
/// subclass's `__str__` or `__repr__` is never called (it could write anything).
/// An int with more digits than Python converts (`sys.set_int_max_str_digits`)
/// is refused, as `json.dumps` refuses it.
fn write_int(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> PyResult<()> {
    if let Ok(n) = obj.extract::<i64>() {
        out.extend_from_slice(n.to_string().as_bytes());
        return Ok(());
    }
    let text = obj
        .py()
        .get_type::<PyInt>()
        .getattr("__repr__")?
        .call1((obj,))
        .map_err(|e| error(format!("an int callfix cannot write as JSON: {e}")))?;
    out.extend_from_slice(text.cast::<PyString>()?.to_cow()?.as_bytes());
    Ok(())
}

/// A float as JSON: the shortest spelling that reads back as the same double
/// (`float`'s own `repr` of the value, never a subclass's: `np.float64(1.5)`
/// is written `1.5`). NaN and the infinities are no JSON numbers.
fn write_float(py: Python<'_>, v: f64, out: &mut Vec<u8>) -> PyResult<()> {
    if !v.is_finite() {
        return Err(error(format!("{v} is not a JSON number")));
    }
    out.extend_from_slice(PyFloat::new(py, v).repr()?.to_cow()?.as_bytes());
    Ok(())
}

/// Numbers of other types, where they are exactly a JSON number: an integer
/// type (`operator.index`: NumPy's `int64`, `uint8`, …), a `decimal.Decimal`
/// (its digits as they are), NumPy's `bool_` (a bool), and a type that
/// converts to a float it equals (`float(x) == x`: NumPy's `float32`, a
/// `Fraction(1, 2)`). False when `obj` is none of them; an error when it is a
/// number JSON cannot hold exactly (`Fraction(1, 3)`, `Decimal("NaN")`).
fn write_other_number(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> PyResult<bool> {
    let py = obj.py();
    let ty = obj.get_type();
    let module = ty.module().map(|m| m.to_string()).unwrap_or_default();
    let name = ty.name().map(|n| n.to_string()).unwrap_or_default();
    if module == "numpy" && matches!(name.as_str(), "bool_" | "bool") {
        out.extend_from_slice(if obj.is_truthy()? { b"true" } else { b"false" });
        return Ok(true);
    }
    if ty.hasattr("__index__")? {
        let int = py.import("operator")?.getattr("index")?.call1((obj,))?;
        write_int(&int, out)?;
        return Ok(true);
    }
    let decimal = py.import("decimal")?.getattr("Decimal")?;
    if obj.is_instance(&decimal)? {
        let text = decimal.getattr("__str__")?.call1((obj,))?;
        let text = text.cast::<PyString>()?.to_cow()?.into_owned();
        return match serde_json::from_str::<Value>(&text) {
            Ok(Value::Number(_)) => {
                out.extend_from_slice(text.as_bytes());
                Ok(true)
            }
            _ => Err(error(format!("Decimal {text} is not a JSON number"))),
        };
    }
    if ty.hasattr("__float__")? {
        let float = py.get_type::<PyFloat>().call1((obj,))?;
        if !obj.eq(&float)? {
            return Err(error(format!(
                "{} {} is not exactly a float: convert it first",
                name,
                obj.repr()?.to_cow()?
            )));
        }
        write_float(py, float.cast::<PyFloat>()?.value(), out)?;
        return Ok(true);
    }
    Ok(false)
}

fn write_seq<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    out: &mut Vec<u8>,
    depth: usize,
) -> PyResult<()> {
    out.push(b'[');
    for (i, v) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json(&v, out, depth + 1)?;
    }
    out.push(b']');
    Ok(())
}

/// A record or arguments: a `str` is the text itself (`bytes` too); anything
/// else is written as JSON.
fn text_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(128);
    write_json(obj, &mut out, 0)?;
    Ok(out)
}

fn value_of(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text = text_of(obj)?;
    serde_json::from_slice(&text).map_err(|e| error(format!("not valid JSON: {e}")))
}

// ---------------------------------------------------------------- JSON → Python

/// Whether `value` nests deeper than `limit`, found without recursion.
fn deeper_than(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    false
}

/// `value` as Python objects: integers as `int` (exact at any size; past the
/// digits Python converts, `sys.get_int_max_str_digits()`, as an integral
/// `decimal.Decimal` with the same digits), other numbers as `float` (the
/// nearest double), objects as `dict` in their order.
fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    to_py_at(py, value, 0)
}

fn to_py_at<'py>(py: Python<'py>, value: &Value, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    if depth > MAX_DEPTH {
        return Err(error(format!(
            "a value nests deeper than {MAX_DEPTH} levels"
        )));
    }
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            let text = n.as_str();
            if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                PyFloat::new(py, text.parse::<f64>().unwrap_or(f64::NAN)).into_any()
            } else if let Ok(i) = text.parse::<i64>() {
                i.into_pyobject(py)?.into_any()
            } else {
                match py.get_type::<PyInt>().call1((text,)) {
                    Ok(int) => int,
                    // More digits than Python turns into an int (its guard
                    // against quadratic conversion): exact as a Decimal.
                    Err(_) => py.import("decimal")?.getattr("Decimal")?.call1((text,))?,
                }
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for v in items {
                list.append(to_py_at(py, v, depth + 1)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py_at(py, v, depth + 1)?)?;
            }
            dict.into_any()
        }
    })
}

// ---------------------------------------------------------------- options

/// The keyword options every constructor takes, as given (kept for pickling).
#[derive(Clone, Debug)]
struct Opts {
    repair: Enabled,
    max_errors: usize,
    max_chars: usize,
    prefix: String,
    max_rounds: usize,
}

impl Opts {
    fn parse(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Opts> {
        let defaults = Options::default();
        let mut opts = Opts {
            repair: Enabled::ALL,
            max_errors: defaults.style.max_errors,
            max_chars: defaults.style.max_chars,
            prefix: defaults.style.prefix.clone(),
            max_rounds: defaults.policy.max_rounds,
        };
        let Some(kwargs) = kwargs else {
            return Ok(opts);
        };
        for (key, value) in kwargs.iter() {
            let key: String = key.extract()?;
            match key.as_str() {
                "repair" => opts.repair = repair_kinds(&value)?,
                "max_errors" => opts.max_errors = bounded(&value, &key, 1, 65535)?,
                "max_chars" => opts.max_chars = bounded(&value, &key, 10, 65535)?,
                "max_rounds" => opts.max_rounds = bounded(&value, &key, 1, 100)?,
                "prefix" => opts.prefix = value.extract()?,
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected keyword argument '{other}' (options: repair, max_errors, \
                         max_chars, prefix, max_rounds)"
                    )));
                }
            }
        }
        Ok(opts)
    }

    fn options(&self, loop_limit: u32) -> Options {
        let mut options = Options::default();
        options.style.prefix.clone_from(&self.prefix);
        options.style.max_errors = self.max_errors;
        options.style.max_chars = self.max_chars;
        options.policy.enabled = self.repair;
        options.policy.max_rounds = self.max_rounds;
        options.loop_limit = loop_limit;
        options
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let kinds: Vec<&str> = Kind::ALL
            .into_iter()
            .filter(|k| self.repair.has(*k))
            .map(Kind::name)
            .collect();
        d.set_item("repair", kinds)?;
        d.set_item("max_errors", self.max_errors)?;
        d.set_item("max_chars", self.max_chars)?;
        d.set_item("prefix", &self.prefix)?;
        d.set_item("max_rounds", self.max_rounds)?;
        Ok(d)
    }
}

fn bounded(value: &Bound<'_, PyAny>, key: &str, min: usize, max: usize) -> PyResult<usize> {
    let n: i64 = value.extract()?;
    usize::try_from(n)
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| error(format!("{key}: expected {min} to {max}, got {n}")))
}

/// `"all"`, `"none"`, a comma-separated string, or a list of kind names.
fn repair_kinds(value: &Bound<'_, PyAny>) -> PyResult<Enabled> {
    if let Ok(spec) = value.extract::<String>() {
        return Enabled::parse(&spec).map_err(|e| error(e.to_string()));
    }
    let names: Vec<String> = value.extract().map_err(|_| {
        PyTypeError::new_err("repair: expected \"all\", \"none\" or a list of repair kinds")
    })?;
    let mut kinds = Vec::new();
    for name in names {
        match name.as_str() {
            "all" => return Ok(Enabled::ALL),
            "none" => {}
            _ => kinds.push(
                Kind::from_name(&name)
                    .ok_or_else(|| error(callfix::kinds::UnknownKind(name.clone()).to_string()))?,
            ),
        }
    }
    Ok(Enabled::only(kinds))
}

// ---------------------------------------------------------------- results

/// One result as the filter handed it over; its `--format json` line is
/// written only when asked for.
struct Line {
    at: Position,
    call: Option<Call>,
    verdict: Verdict,
    spellings: Spellings,
}

impl Line {
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
    fn too_deep(&self) -> bool {
        let mut values: Vec<&Value> = vec![];
        if let Some(call) = &self.call {
            values.extend([&call.id, &call.envelope]);
            if let callfix::provider::Args::Value(v) = &call.args {
                values.push(v);
            }
        }
        values.extend(&self.verdict.args);
        for r in &self.verdict.repairs {
            values.extend([&r.from, &r.to]);
        }
        values.into_iter().any(|v| deeper_than(v, MAX_DEPTH))
    }

    fn accepted(&self) -> Option<&Value> {
        match self.verdict.status {
            Status::Rejected => None,
            _ => self.verdict.args.as_ref(),
        }
    }
}

/// A sink keeping each result (the verdict and what it needs to be written).
#[derive(Default)]
struct Collect {
    spellings: Spellings,
    lines: Vec<Line>,
}

impl Sink for Collect {
    fn begin_record(&mut self, spellings: Spellings) {
        self.spellings = spellings;
    }

    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        self.lines.push(Line {
            at,
            call: Some(call),
            verdict,
            spellings: self.spellings.clone(),
        });
        Ok(())
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        self.lines.push(Line {
            at,
            call: None,
            verdict,
            spellings: self.spellings.clone(),
        });
        Ok(())
    }
}

/// The result of one call (or of a record that held no usable call).
///
/// `to_dict()` is the object `callfix --format json` writes for the same call.
#[pyclass(frozen, module = "callfix", name = "Result")]
struct CheckResult {
    line: Line,
    json: OnceLock<String>,
    parsed: OnceLock<Value>,
}

impl CheckResult {
    fn new(line: Line) -> Self {
        CheckResult {
            line,
            json: OnceLock::new(),
            parsed: OnceLock::new(),
        }
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
    /// `"valid"`, `"repaired"` or `"rejected"`.
    #[getter]
    fn status(&self) -> &'static str {
        self.line.verdict.status.as_str()
    }

    /// Whether the arguments can be used: valid or repaired.
    #[getter]
    fn ok(&self) -> bool {
        self.line.verdict.status != Status::Rejected
    }

    /// The tool called (after `rename-tool`); `None` for a broken record.
    #[getter]
    fn tool(&self) -> Option<&str> {
        self.line.call.as_ref().map(|c| c.name.as_str())
    }

    /// The call's id as sent (`None` when it had none).
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.line.call {
            Some(call) => to_py(py, &call.id),
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
        if self.line.verdict.repairs.is_empty() {
            return Ok(PyList::empty(py).into_any());
        }
        self.field(py, "repairs")
    }

    /// What is wrong: dicts with `path` and `message`.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.line.verdict.errors.is_empty() {
            return Ok(PyList::empty(py).into_any());
        }
        self.field(py, "errors")
    }

    /// The one line for the model when rejected, else `None`.
    #[getter]
    fn message(&self) -> Option<&str> {
        self.line.verdict.message.as_deref()
    }

    /// Whether the model was told to stop retrying (a `Session` only).
    #[getter]
    fn looped(&self) -> bool {
        self.line.verdict.looped.is_some()
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
            self.status(),
            self.tool().unwrap_or("None"),
            self.line.at.index,
            self.line.at.call
        )
    }
}

fn results(py: Python<'_>, lines: Vec<Line>) -> PyResult<Vec<Py<CheckResult>>> {
    lines
        .into_iter()
        .map(|line| Py::new(py, CheckResult::new(line)))
        .collect()
}

// ---------------------------------------------------------------- toolset

/// Where checked bytes sit, for record numbers and messages.
#[derive(Clone, Copy)]
struct Place<'a> {
    /// The input's name.
    source: &'a str,
    /// The number of its first record.
    index: u64,
    /// The line its first byte is on.
    line: u64,
}

impl<'a> Place<'a> {
    /// Record `index` of `source`, on line `index + 1` (one record per line, as
    /// in a JSON Lines file).
    fn record(source: &'a str, index: u64) -> Self {
        Place {
            source,
            index,
            line: index + 1,
        }
    }
}

/// Where a toolset's schemas came from, to rebuild it in another process.
enum Origin {
    Dir(PathBuf),
    Tools(Py<PyAny>),
    Schemas(Py<PyAny>),
}

/// Tools by name, and how calls to them are checked.
#[pyclass(frozen, module = "callfix", name = "Toolset")]
struct Toolset {
    registry: Registry,
    opts: Opts,
    options: Options,
    origin: Origin,
}

impl Toolset {
    fn build(registry: Registry, opts: Opts, origin: Origin) -> Toolset {
        let options = opts.options(0);
        Toolset {
            registry,
            opts,
            options,
            origin,
        }
    }

    /// Runs records (or, with `tool`, bare arguments) through the filter.
    fn run(
        &self,
        options: &Options,
        summary: &mut Summary,
        text: &[u8],
        tool: Option<&str>,
        at: Place<'_>,
        sink: &mut Collect,
    ) -> PyResult<()> {
        let filter = Filter {
            registry: &self.registry,
            options,
        };
        let input = Input {
            first_index: at.index,
            first_line: at.line,
            ..Input::from_bytes(text, at.source)
        };
        shielded(text, |depth| {
            let before = sink.lines.len();
            let outcome = match tool {
                Some(tool) => filter.bare(input, tool, sink, summary),
                None => filter.stream(input, sink, summary).map(|_| ()),
            }
            .map_err(|e| error(format!("{e:?}")));
            // Results that hold values deeper than Python is given are dropped
            // here, on the thread with the stack for them, and refused.
            if depth > MAX_DEPTH && sink.lines.iter().skip(before).any(Line::too_deep) {
                drop(sink.lines.split_off(before));
                return Err(error(format!(
                    "a value nests deeper than {MAX_DEPTH} levels"
                )));
            }
            outcome
        })
    }

    /// Checks `text` with the GIL released, without loop detection: the
    /// results of `Toolset.check`, `check_record` and `check_stream`.
    fn checked(
        &self,
        py: Python<'_>,
        text: &[u8],
        tool: Option<&str>,
        at: Place<'_>,
    ) -> PyResult<Vec<Py<CheckResult>>> {
        let lines = py.detach(|| {
            let mut sink = Collect::default();
            let summary = &mut Summary::default().without_per_tool();
            self.run(&self.options, summary, text, tool, at, &mut sink)
                .map(|()| sink.lines)
        })?;
        results(py, lines)
    }
}

#[pymethods]
impl Toolset {
    /// Tools from schemas in memory: a mapping of tool name to JSON Schema
    /// (dict or JSON text). Nothing is read from disk; a `$ref` may point only
    /// inside its own schema.
    #[new]
    #[pyo3(signature = (schemas, **opts))]
    fn new(schemas: &Bound<'_, PyAny>, opts: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let opts = Opts::parse(opts)?;
        let mut map = Vec::new();
        for item in schemas.call_method0("items")?.try_iter()? {
            let (name, schema): (String, Bound<'_, PyAny>) = item?.extract()?;
            map.push((name, value_of(&schema)?));
        }
        let registry = catch(|| Ok(Registry::from_schemas(map)))?;
        Ok(Toolset::build(
            registry,
            opts,
            Origin::Schemas(schemas.clone().unbind()),
        ))
    }

    /// Tools from a directory of `<tool>.json` schemas (or one tool-list file);
    /// each schema is compiled when first needed, and `$ref`s stay inside the
    /// directory.
    #[staticmethod]
    #[pyo3(signature = (path, **opts))]
    fn from_dir(path: PathBuf, opts: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let opts = Opts::parse(opts)?;
        let registry = catch(|| {
            Registry::load(std::slice::from_ref(&path)).map_err(|e| error(Chain(&e).to_string()))
        })?;
        let absolute = std::path::absolute(&path).unwrap_or(path);
        Ok(Toolset::build(registry, opts, Origin::Dir(absolute)))
    }

    /// Tools from a provider's tool list as Python objects: an OpenAI `tools`
    /// array, Anthropic tools, Gemini `functionDeclarations`, or an MCP
    /// `tools/list` result.
    #[staticmethod]
    #[pyo3(signature = (tools, **opts))]
    fn from_tools(tools: &Bound<'_, PyAny>, opts: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let opts = Opts::parse(opts)?;
        let list = value_of(tools)?;
        let registry = catch(|| {
            Registry::from_tool_list(list).ok_or_else(|| {
                error(
                    "not a tool list (OpenAI tools, Anthropic tools, Gemini \
                     functionDeclarations, MCP tools/list)",
                )
            })
        })?;
        Ok(Toolset::build(
            registry,
            opts,
            Origin::Tools(tools.clone().unbind()),
        ))
    }

    /// The tool names, sorted.
    fn names(&self) -> Vec<String> {
        self.registry.names().map(str::to_owned).collect()
    }

    fn __len__(&self) -> usize {
        self.registry.len()
    }

    fn __contains__(&self, name: &str) -> bool {
        self.registry.names().any(|n| n == name)
    }

    /// Checks one call: `arguments` as a dict (or any JSON value) or as the JSON
    /// text the model wrote. Never does loop detection.
    fn check(
        &self,
        py: Python<'_>,
        name: &str,
        arguments: &Bound<'_, PyAny>,
    ) -> PyResult<Py<CheckResult>> {
        let at = Place::record("<arguments>", 0);
        Ok(self
            .checked(py, &text_of(arguments)?, Some(name), at)?
            .remove(0))
    }

    /// Checks every call in one record, in any envelope the CLI reads (a dict, or
    /// its JSON text): one result per call, or one for a record that holds none
    /// it can use. A text-only message has none. `source` names the record in
    /// messages about a broken one.
    #[pyo3(signature = (record, source = "<record>"))]
    fn check_record(
        &self,
        py: Python<'_>,
        record: &Bound<'_, PyAny>,
        source: &str,
    ) -> PyResult<Vec<Py<CheckResult>>> {
        self.checked(py, &text_of(record)?, None, Place::record(source, 0))
    }

    /// Checks a stream of records in one piece, exactly as the CLI reads a file:
    /// JSON Lines, concatenated or pretty JSON, an array of records, SSE `data:`
    /// lines. `first_index` and `first_line` number its records and lines when
    /// it is part of a larger file (a chunk of a log, say), so results and
    /// messages are the ones `callfix --format json` gives for the whole file.
    #[pyo3(signature = (data, source = "<stream>", first_index = 0, first_line = 1))]
    fn check_stream(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        source: &str,
        first_index: u64,
        first_line: u64,
    ) -> PyResult<Vec<Py<CheckResult>>> {
        let at = Place {
            source,
            index: first_index,
            line: first_line,
        };
        self.checked(py, &text_of(data)?, None, at)
    }

    /// Checks every record of an iterable, lazily and in order: an iterator of
    /// results, numbered by record (`index`) across the whole iterable.
    ///
    /// Records are taken `batch_size` at a time: each batch is turned into JSON
    /// text while holding the GIL, then checked with the GIL released (other
    /// Python threads run meanwhile), and its results are handed out before the
    /// next batch is read.
    ///
    /// A broken record is named in its message as line `index + 1` of `source`:
    /// the lines of a JSON Lines file give the CLI's very messages.
    #[pyo3(signature = (records, batch_size = 1024, source = "<records>".to_owned()))]
    fn check_many(
        slf: &Bound<'_, Self>,
        records: &Bound<'_, PyAny>,
        batch_size: usize,
        source: String,
    ) -> PyResult<Checks> {
        Ok(Checks {
            source,
            toolset: slf.clone().unbind(),
            records: Some(records.try_iter()?.unbind()),
            pending: VecDeque::new(),
            next_index: 0,
            batch_size: batch_size.max(1),
        })
    }

    /// A conversation: the same checks, plus repeated-failure escalation (the
    /// same rejected call `loop_limit` times tells the model to stop; 0: never).
    #[pyo3(signature = (loop_limit = 3))]
    fn session(slf: &Bound<'_, Self>, loop_limit: u32) -> Session {
        let options = slf.get().opts.options(loop_limit);
        Session {
            toolset: slf.clone().unbind(),
            options,
            state: Mutex::new((Summary::default().without_per_tool(), 0)),
        }
    }

    /// Pickled as its source (the directory, tool list or mapping) and options:
    /// a worker rebuilds it and compiles schemas as it needs them.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let restore = py.import("callfix")?.getattr("_restore")?;
        let (kind, source) = match &self.origin {
            Origin::Dir(p) => ("dir", p.clone().into_pyobject(py)?.into_any()),
            Origin::Tools(t) => ("tools", t.bind(py).clone()),
            Origin::Schemas(s) => ("schemas", s.bind(py).clone()),
        };
        let args = (kind, source, self.opts.to_dict(py)?).into_pyobject(py)?;
        (restore, args).into_pyobject(py)
    }

    fn __repr__(&self) -> String {
        format!("Toolset({} tools)", self.registry.len())
    }
}

/// The lazy iterator `Toolset.check_many` returns (like any Python iterator,
/// for one thread at a time).
#[pyclass(module = "callfix")]
struct Checks {
    source: String,
    toolset: Py<Toolset>,
    /// The records not yet read; `None` once they are exhausted.
    records: Option<Py<PyIterator>>,
    /// Results checked and not yet handed out.
    pending: VecDeque<Line>,
    /// The number of the next record read.
    next_index: u64,
    batch_size: usize,
}

#[pymethods]
impl Checks {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<CheckResult>>> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                return Ok(Some(Py::new(py, CheckResult::new(line))?));
            }
            let Some(records) = &self.records else {
                return Ok(None);
            };
            let mut records = records.bind(py).clone();
            let mut batch = Vec::with_capacity(self.batch_size);
            while batch.len() < self.batch_size {
                match records.next() {
                    Some(r) => batch.push(text_of(&r?)?),
                    None => {
                        self.records = None;
                        break;
                    }
                }
            }
            if batch.is_empty() {
                return Ok(None);
            }
            let first = self.next_index;
            self.next_index += batch.len() as u64;
            let (toolset, source) = (self.toolset.get(), self.source.as_str());
            let lines = py.detach(|| {
                let mut sink = Collect::default();
                for (i, text) in batch.iter().enumerate() {
                    // Each record is numbered by its place in the iterable, even
                    // one that is only whitespace (which has no result).
                    let at = Place::record(source, first + i as u64);
                    let summary = &mut Summary::default().without_per_tool();
                    toolset.run(&toolset.options, summary, text, None, at, &mut sink)?;
                }
                Ok::<_, PyErr>(sink.lines)
            })?;
            self.pending.extend(lines);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One conversation's checks: a toolset's, plus repeated-failure escalation.
/// Calls on one session are taken one at a time.
#[pyclass(frozen, module = "callfix", name = "Session")]
struct Session {
    toolset: Py<Toolset>,
    options: Options,
    /// The loop counts, and the next record number.
    state: Mutex<(Summary, u64)>,
}

impl Session {
    fn run(&self, py: Python<'_>, text: Vec<u8>, tool: Option<&str>) -> PyResult<Vec<Line>> {
        let toolset = self.toolset.get();
        py.detach(|| {
            let mut state = lock(&self.state);
            let (summary, next) = &mut *state;
            let mut sink = Collect::default();
            let at = Place::record("<session>", *next);
            toolset.run(&self.options, summary, &text, tool, at, &mut sink)?;
            *next += 1;
            Ok(sink.lines)
        })
    }
}

#[pymethods]
impl Session {
    /// As `Toolset.check`, counting repeated rejections.
    fn check(
        &self,
        py: Python<'_>,
        name: &str,
        arguments: &Bound<'_, PyAny>,
    ) -> PyResult<Py<CheckResult>> {
        let lines = self.run(py, text_of(arguments)?, Some(name))?;
        Ok(results(py, lines)?.remove(0))
    }

    /// As `Toolset.check_record`, counting repeated rejections.
    fn check_record(
        &self,
        py: Python<'_>,
        record: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Py<CheckResult>>> {
        let lines = self.run(py, text_of(record)?, None)?;
        results(py, lines)
    }
}

// ---------------------------------------------------------------- functions

/// Renders a description template: `<NAME>` placeholders from `vars` (over the
/// built-ins `PLATFORM`, `OS_VERSION`, `DATE`, …). Every unknown placeholder is
/// reported at once in the `CallfixError`.
#[pyfunction]
#[pyo3(signature = (template, vars = None))]
fn render(template: &str, vars: Option<BTreeMap<String, String>>) -> PyResult<String> {
    let mut all = callfix::render::builtins();
    all.extend(vars.unwrap_or_default());
    catch(|| {
        callfix::render::render(template, "<template>", &all, callfix::render::Syntax::Angle)
            .map(|r| r.text)
            .map_err(|errors| {
                let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
                error(all.join("; "))
            })
    })
}

/// The tool definitions a provider's API expects for every tool of `toolset`:
/// the same payload as `callfix tools --provider PROVIDER [--openai-strict]`.
#[pyfunction]
#[pyo3(signature = (toolset, provider = "openai", descriptions = None, vars = None, openai_strict = false))]
fn tools<'py>(
    py: Python<'py>,
    toolset: &Toolset,
    provider: &str,
    descriptions: Option<PathBuf>,
    vars: Option<BTreeMap<String, String>>,
    openai_strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let provider = callfix::provider::by_name(provider).ok_or_else(|| {
        let names: Vec<&str> = callfix::provider::PROVIDERS
            .iter()
            .map(|p| p.name())
            .collect();
        error(format!(
            "unknown provider \"{provider}\" (known: {})",
            names.join(", ")
        ))
    })?;
    let files = match descriptions {
        Some(dir) => {
            callfix::tools::description_files(&dir).map_err(|e| error(Chain(&e).to_string()))?
        }
        None => BTreeMap::new(),
    };
    let mut all = callfix::render::builtins();
    all.extend(vars.unwrap_or_default());
    if openai_strict && !provider.has_strict_mode() {
        return Err(error(format!(
            "openai_strict applies to provider \"openai\" or \"openai-responses\", not \"{}\"",
            provider.name()
        )));
    }
    let payload = catch(|| {
        callfix::tools::payload(&toolset.registry, provider, &files, &all, openai_strict).map_err(
            |problems| {
                let all: Vec<String> = problems.iter().map(|p| Chain(p).to_string()).collect();
                error(all.join("; "))
            },
        )
    })?;
    to_py(py, &payload.value)
}

/// Runs the `callfix` command line with `argv` (the first item is the program's
/// name); returns its exit code. The `callfix` script on PATH calls this. A
/// panic (a bug) is exit code 2, an error, as the binary's would be reported;
/// it never unwinds into the interpreter.
#[pyfunction]
fn _main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| app::main(argv))).unwrap_or(2)
    })
}

#[pymodule]
fn _callfix(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CallfixError", m.py().get_type::<CallfixError>())?;
    m.add_class::<Toolset>()?;
    m.add_class::<Session>()?;
    m.add_class::<CheckResult>()?;
    m.add_class::<Checks>()?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(tools, m)?)?;
    m.add_function(wrap_pyfunction!(_main, m)?)?;
    Ok(())
}
