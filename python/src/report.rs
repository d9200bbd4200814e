//! `Toolset.report`: recorded traffic summarised as `callfix report --format
//! json` summarises a file (the library's `callfix::Toolset::report`, the
//! filter with a `Report` as its sink), handed back as a dict.
//!
//! A log given whole (`str`, `bytes`) is read as the CLI reads a file; an
//! iterable's items are lines of one text, as `check_many` reads them, pulled
//! `BATCH` at a time (holding the GIL only to turn them into text), so memory
//! is bounded by the report's caps and a batch, not by the number of records.
//! The filter runs with the GIL released, on a thread of its own whose stack
//! does not depend on the caller's (the filter's depth is bounded, so a fixed
//! stack does for any input: a deep record is a broken record, never a crash).

use std::io::{self, Read};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyIterator, PyMapping, PyString};
use serde_json::Value;

use crate::boundary::{catch, deep_stack, error};
use crate::to_json::text_of;
use crate::to_python::to_py;
use crate::toolset::Toolset;

/// Items of an iterable turned into text at a time (with the GIL held).
const BATCH: usize = 1024;

/// The label of calls whose record names no model, when none is given.
pub(crate) const DEFAULT_LABEL: &str = "<records>";

/// `Toolset.report(records, *, label=None)`.
pub(crate) fn report<'py>(
    toolset: &Toolset,
    records: &Bound<'py, PyAny>,
    label: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = records.py();
    let label = label.unwrap_or(DEFAULT_LABEL);
    let whole = records.is_instance_of::<PyString>()
        || records.is_instance_of::<PyBytes>()
        || records.is_instance_of::<PyByteArray>()
        || records.cast::<PyMapping>().is_ok();
    let (mut json, unreadable) = if whole {
        let text = if let Ok(b) = records.cast::<PyByteArray>() {
            b.to_vec()
        } else {
            text_of(records)?
        };
        let json = py.detach(|| {
            on_thread(|| {
                (toolset.inner)
                    .report(&text[..], label)
                    .map(|r| r.to_json())
                    .map_err(|e| error(e.to_string()))
            })
        })?;
        (json, 0)
    } else {
        let items = records.try_iter()?.unbind();
        py.detach(|| {
            on_thread(|| {
                let mut lines = Lines {
                    items: Some(items),
                    text: Vec::new(),
                    at: 0,
                    unreadable: 0,
                    raised: None,
                };
                let report = (toolset.inner).report(&mut lines, label);
                if let Some(e) = lines.raised.take() {
                    return Err(e);
                }
                let json = report.map_err(|e| error(e.to_string()))?.to_json();
                Ok((json, lines.unreadable))
            })
        })?
    };
    if unreadable > 0
        && let Some(n) = json.get_mut("broken_records")
    {
        *n = Value::from(n.as_u64().unwrap_or(0) + unreadable);
    }
    to_py(py, &json)
}

/// Runs `work` on a thread of its own with a stack of a known size (the
/// caller's may be small), a panic turned into `CallfixError`.
fn on_thread<T: Send>(work: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("callfix-report".into())
            .stack_size(deep_stack(0))
            .spawn_scoped(scope, || catch(work))
            .map_err(|e| error(format!("cannot start a thread to report: {e}")))?
            .join()
            .unwrap_or_else(|_| Err(error("internal error, please report it (callfix panicked)")))
    })
}

/// An iterable's items as one text for the framer, as `check_many` makes it:
/// a `str` or `bytes` item as it is, anything else as its JSON text, each
/// ended by a newline.
struct Lines {
    /// `None` once exhausted (or failed).
    items: Option<Py<PyIterator>>,
    /// The current batch's text, and how much of it the framer has.
    text: Vec<u8>,
    at: usize,
    /// Items that are no JSON (nested too deep, too large, NaN, a lone
    /// surrogate: a `ValueError`): counted as broken records.
    unreadable: u64,
    /// What the iterator raised, or a `TypeError` for an item of a type that is
    /// no JSON (raised again once the run has stopped).
    raised: Option<PyErr>,
}

impl Lines {
    fn refill(&mut self) -> io::Result<()> {
        self.text.clear();
        self.at = 0;
        let (text, items, unreadable) = (&mut self.text, &mut self.items, &mut self.unreadable);
        let pulled = Python::attach(|py| -> PyResult<()> {
            let Some(iter) = items.as_ref() else {
                return Ok(());
            };
            let mut iter = iter.bind(py).clone();
            let mut batch = || -> PyResult<bool> {
                for _ in 0..BATCH {
                    let Some(item) = iter.next() else {
                        return Ok(false);
                    };
                    match text_of(&item?) {
                        Ok(line) => {
                            text.extend_from_slice(&line);
                            if !line.ends_with(b"\n") {
                                text.push(b'\n');
                            }
                        }
                        Err(e) if e.is_instance_of::<PyValueError>(py) => *unreadable += 1,
                        Err(e) => return Err(e),
                    }
                }
                Ok(true)
            };
            let more = batch();
            drop(iter);
            if !matches!(more, Ok(true)) {
                // Exhausted, or failed: the iterator is let go with the GIL held.
                *items = None;
            }
            more.map(|_| ())
        });
        pulled.map_err(|e| {
            self.raised = Some(e);
            io::Error::other("the records could not be read")
        })
    }
}

impl Read for Lines {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.text.len() {
            if self.items.is_none() {
                return Ok(0);
            }
            self.refill()?;
        }
        // What is left of the batch, read as a slice reads (std's copy).
        let n = self.text.get(self.at..).unwrap_or_default().read(out)?;
        self.at += n;
        Ok(n)
    }
}
