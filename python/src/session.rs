//! The `Session` class: one conversation's checks, a toolset's plus
//! repeated-failure escalation (loop detection), calls taken one at a time.

use std::sync::Mutex;

use pyo3::prelude::*;

use callfix::filter::{Options, Summary};

use crate::result::{CheckResult, Collect, Line, results};
use crate::to_json::text_of;
use crate::toolset::{Place, Toolset};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One conversation's checks: a toolset's, plus repeated-failure escalation.
/// Calls on one session are taken one at a time.
#[pyclass(frozen, module = "callfix", name = "Session")]
pub(crate) struct Session {
    pub(crate) toolset: Py<Toolset>,
    pub(crate) options: Options,
    /// The loop counts, and the next record number.
    pub(crate) state: Mutex<(Summary, u64)>,
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
        let text = text_of(arguments)?;
        let toolset = self.toolset.get();
        let line = py.detach(|| {
            let mut state = lock(&self.state);
            let (summary, next) = &mut *state;
            let at = Place::record("<session>", *next);
            let line = toolset.one(&self.options, Some(summary), text, name, at)?;
            *next += 1;
            Ok::<_, PyErr>(line)
        })?;
        Py::new(py, CheckResult::new(line)?)
    }

    /// `check` through the filter, as before `Toolset::check_bare` (for the tests
    /// that pin the two together).
    fn _check_filter(
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
