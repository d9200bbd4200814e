//! The lazy iterator `Toolset.check_many` returns: records read a batch at a
//! time with the GIL held, checked with it released.

use std::collections::VecDeque;

use pyo3::prelude::*;
use pyo3::types::PyIterator;

use callfix::filter::Summary;

use crate::result::{CheckResult, Collect, Line};
use crate::to_json::text_of;
use crate::toolset::{Place, Toolset};

/// The lazy iterator `Toolset.check_many` returns (like any Python iterator,
/// for one thread at a time).
#[pyclass(module = "callfix")]
pub(crate) struct Checks {
    pub(crate) source: String,
    pub(crate) toolset: Py<Toolset>,
    /// The records not yet read; `None` once they are exhausted.
    pub(crate) records: Option<Py<PyIterator>>,
    /// Results checked and not yet handed out.
    pub(crate) pending: VecDeque<Line>,
    /// The number of the next record read.
    pub(crate) next_index: u64,
    pub(crate) batch_size: usize,
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
