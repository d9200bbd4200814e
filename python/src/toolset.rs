//! The `Toolset` class: tools by name (from schemas in memory, a directory or a
//! provider's tool list) and how calls to them are checked: the library's
//! `callfix::Toolset`, wrapped. Checking runs its filter (one call: its
//! one-call check, `check_bare`, which gives what the filter gives) with the
//! GIL released, inside the boundary of [`shielded`]; a toolset pickles as its
//! source and options.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use callfix::error::Chain;
use callfix::registry::Registry;
use callfix::toolset::BareCheck;
use callfix::{Input, Options, Position, Summary};

use crate::MAX_DEPTH;
use crate::boundary::{catch, error, nesting, shield, shielded};
use crate::checks::Checks;
use crate::options::Opts;
use crate::result::{CheckResult, Collect, Line, results};
use crate::session::Session;
use crate::to_json::{text_of, value_of};

/// Where checked bytes sit, for record numbers and messages.
#[derive(Clone, Copy)]
pub(crate) struct Place<'a> {
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
    pub(crate) fn record(source: &'a str, index: u64) -> Self {
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
pub(crate) struct Toolset {
    /// The library's toolset, with the constructor's options.
    pub(crate) inner: callfix::Toolset,
    opts: Opts,
    origin: Origin,
}

impl Toolset {
    fn build(registry: Registry, opts: Opts, origin: Origin) -> Toolset {
        let inner = callfix::Toolset::new(registry).with_options(opts.options(0));
        Toolset {
            inner,
            opts,
            origin,
        }
    }

    /// Runs records (or, with `tool`, bare arguments) through the filter.
    pub(crate) fn run(
        &self,
        options: &Options,
        summary: &mut Summary,
        text: &[u8],
        tool: Option<&str>,
        at: Place<'_>,
        sink: &mut Collect,
    ) -> PyResult<()> {
        let filter = self.inner.filter_with(options);
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
            .map_err(|e| error(e.to_string()));
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

    /// One call to `tool` whose arguments are `text`: what [`Toolset::run`]
    /// gives for it, straight from the library's one-call check
    /// (`callfix::Toolset::check_bare`), without the filter's reading and a
    /// list of results.
    pub(crate) fn one(
        &self,
        options: &Options,
        summary: Option<&mut Summary>,
        text: Vec<u8>,
        tool: &str,
        at: Place<'_>,
    ) -> PyResult<Line> {
        shield(nesting(&text), |depth| {
            let BareCheck {
                spellings,
                call,
                verdict,
            } = (self.inner).check_bare(options, tool, text, at.source, summary);
            let at = Position {
                index: at.index,
                call: 0,
                line: 1,
                offset: 0,
            };
            let line = Line::new(at, call, verdict, spellings);
            // A value deeper than Python is given is dropped here, on the
            // thread with the stack for it, and refused.
            if depth > MAX_DEPTH && line.too_deep() {
                drop(line);
                return Err(error(format!(
                    "a value nests deeper than {MAX_DEPTH} levels"
                )));
            }
            Ok(line)
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
            self.run(self.inner.options(), summary, text, tool, at, &mut sink)
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
        self.inner.names().map(str::to_owned).collect()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, name: &str) -> bool {
        self.inner.contains(name)
    }

    /// Checks one call: `arguments` as a dict (or any JSON value) or as the JSON
    /// text the model wrote. Never does loop detection.
    fn check(
        &self,
        py: Python<'_>,
        name: &str,
        arguments: &Bound<'_, PyAny>,
    ) -> PyResult<Py<CheckResult>> {
        let text = text_of(arguments)?;
        let line = py.detach(|| {
            let options = self.inner.options();
            let at = Place::record("<arguments>", 0);
            // No loop detection: nothing to keep (a fresh summary, dropped).
            let mut fresh = (options.loop_limit > 0).then(|| Summary::default().without_per_tool());
            self.one(options, fresh.as_mut(), text, name, at)
        })?;
        Py::new(py, CheckResult::new(line)?)
    }

    /// `check` the way it was before `Toolset::check_bare`: through the filter
    /// (`Filter::bare`) and its sink. For the tests that pin the two together.
    fn _check_filter(
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

    /// Checks a stream of records in one piece (`str` or `bytes`), exactly as
    /// the CLI reads a file:
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

    /// Checks the lines of an iterable (a file object, or a list of records),
    /// lazily and in order: an iterator of results, exactly as the CLI reads a
    /// file of those lines. Each item is a line (`str` or `bytes` as it is, a
    /// dict or list as its JSON text; one without a final newline gets one), and
    /// the lines go through the CLI's framer as one text: a pretty-printed
    /// record over many lines is one record, as are concatenated records, SSE
    /// `data:` lines and an array of records. Records are numbered (`index`) and
    /// messages name lines of `source` as `callfix --format json` does for the
    /// same file.
    ///
    /// Items are taken `batch_size` at a time, once the results before them are
    /// handed out: each batch is turned into text while holding the GIL, then
    /// checked with the GIL released (other Python threads run meanwhile).
    #[pyo3(signature = (records, batch_size = 1024, source = "<records>".to_owned()))]
    fn check_many(
        slf: &Bound<'_, Self>,
        records: &Bound<'_, PyAny>,
        batch_size: usize,
        source: String,
    ) -> PyResult<Checks> {
        Ok(Checks::new(
            source,
            slf.clone().unbind(),
            records.try_iter()?.unbind(),
            batch_size,
        ))
    }

    /// A summary of every call in `records`, as `callfix report --format json
    /// --label LABEL` gives it for a file of them (version 1): a log whole
    /// (`str`, `bytes`: any form the CLI reads) or one record (a dict), or an
    /// iterable of records (a file object, a list, a generator: each item a
    /// line, as `check_many` reads them), read lazily. Calls whose record names
    /// no `model` count under `label` (default `<records>`). A record callfix
    /// cannot read is counted in `broken_records`, never raised.
    #[pyo3(signature = (records, *, label = None))]
    fn report<'py>(
        &self,
        records: &Bound<'py, PyAny>,
        label: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::report::report(self, records, label)
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
        format!("Toolset({} tools)", self.inner.len())
    }
}
