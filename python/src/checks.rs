//! The lazy iterator `Toolset.check_many` returns. The iterable's lines are
//! streamed, as one text, through the library's framer (`filter::Filter::stream`,
//! the CLI's own reading of a file): a pretty-printed record spread over many
//! lines is one record, and indexes and lines are the CLI's.
//!
//! The filter runs on a worker thread of its own, in lockstep with the
//! iterator: each time the framer needs more text, the worker hands over the
//! results so far and waits until Python asks for more; only then does it take
//! the next `batch_size` items (holding the GIL), and it checks them with the
//! GIL released. So records are read lazily, a batch ahead at most, and memory
//! stays bounded.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::rc::Rc;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};

use pyo3::prelude::*;
use pyo3::types::PyIterator;

use callfix::Spellings;
use callfix::output::{Position, Sink};
use callfix::provider::Call;
use callfix::verdict::Verdict;
use callfix::{Input, Summary};

use crate::MAX_DEPTH;
use crate::boundary::{MAX_NESTING, Nesting, catch, deep_stack, error};
use crate::result::{CheckResult, Collect, Line};
use crate::to_json::text_of;
use crate::toolset::Toolset;

/// What the worker hands over.
enum Msg {
    /// Results so far; the worker waits to be asked for more.
    Lines(Vec<Line>),
    /// The last results, and how the run ended.
    Done(Vec<Line>, PyResult<()>),
}

/// Where the iterator is.
enum State {
    /// Not started: nothing is read before the first `next()`.
    Start {
        source: String,
        toolset: Py<Toolset>,
        records: Py<PyIterator>,
        batch_size: usize,
    },
    /// The worker runs; `owed`: it waits to be asked for more.
    Running {
        demand: Sender<()>,
        /// (In a mutex only for `Sync`: one thread at a time reads it.)
        results: Mutex<Receiver<Msg>>,
        owed: bool,
    },
    /// The run failed: raised once its results are handed out.
    Failed(PyErr),
    Done,
}

/// The lazy iterator `Toolset.check_many` returns (like any Python iterator,
/// for one thread at a time).
#[pyclass(module = "callfix")]
pub(crate) struct Checks {
    state: State,
    /// Results checked and not yet handed out.
    pending: VecDeque<Line>,
}

impl Checks {
    pub(crate) fn new(
        source: String,
        toolset: Py<Toolset>,
        records: Py<PyIterator>,
        batch_size: usize,
    ) -> Self {
        Checks {
            state: State::Start {
                source,
                toolset,
                records,
                batch_size: batch_size.max(1),
            },
            pending: VecDeque::new(),
        }
    }

    /// Starts the worker.
    fn start(state: State) -> State {
        let State::Start {
            source,
            toolset,
            records,
            batch_size,
        } = state
        else {
            return state;
        };
        let (demand, asked) = channel();
        let (results, receiver) = channel();
        let spawned = std::thread::Builder::new()
            .name("callfix-check-many".into())
            .stack_size(deep_stack(MAX_NESTING))
            .spawn(move || work(&source, &toolset, records, batch_size, &asked, &results));
        match spawned {
            Ok(_) => State::Running {
                demand,
                results: Mutex::new(receiver),
                owed: false,
            },
            Err(e) => State::Failed(error(format!(
                "cannot start a thread to check records: {e}"
            ))),
        }
    }
}

#[pymethods]
impl Checks {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<CheckResult>>> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                return Ok(Some(Py::new(py, CheckResult::new(line)?)?));
            }
            match &mut self.state {
                State::Done => return Ok(None),
                State::Failed(_) => {
                    if let State::Failed(e) = std::mem::replace(&mut self.state, State::Done) {
                        return Err(e);
                    }
                }
                State::Start { .. } => {
                    let state = std::mem::replace(&mut self.state, State::Done);
                    self.state = Checks::start(state);
                }
                State::Running {
                    demand,
                    results,
                    owed,
                } => {
                    if *owed {
                        // A worker gone has sent its `Done` already.
                        let _ = demand.send(());
                        *owed = false;
                    }
                    let results = results
                        .get_mut()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    match py.detach(move || results.recv()) {
                        Ok(Msg::Lines(lines)) => {
                            self.pending.extend(lines);
                            *owed = true;
                        }
                        Ok(Msg::Done(lines, outcome)) => {
                            self.pending.extend(lines);
                            self.state = match outcome {
                                Ok(()) => State::Done,
                                Err(e) => State::Failed(e),
                            };
                        }
                        Err(_) => {
                            self.state = State::Failed(error(
                                "internal error, please report it (the checking thread stopped)",
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// The worker: streams the records through the filter, handing results over
/// whenever the framer needs more text.
fn work(
    source: &str,
    toolset: &Py<Toolset>,
    records: Py<PyIterator>,
    batch_size: usize,
    asked: &Receiver<()>,
    results: &Sender<Msg>,
) {
    let toolset = toolset.get();
    let collect = Rc::new(RefCell::new(Collect::default()));
    let mut lines = Lines {
        records: Some(records),
        batch_size,
        asked,
        results,
        collect: Rc::clone(&collect),
        text: Vec::new(),
        at: 0,
        nesting: Nesting::default(),
        raised: None,
    };
    let outcome = catch(|| {
        let filter = toolset.inner.filter();
        let summary = &mut Summary::default().without_per_tool();
        let mut sink = Outbox(Rc::clone(&collect));
        filter
            .stream(Input::new(&mut lines, source), &mut sink, summary)
            .map(|_| ())
            .map_err(|e| error(e.to_string()))
    });
    let outcome = match lines.raised.take() {
        Some(e) => Err(e),
        None => outcome,
    };
    let (rest, outcome) = match lines.hand_over() {
        Ok(rest) => (rest, outcome),
        Err(e) => (Vec::new(), Err(e)),
    };
    // An iterator not exhausted (an error, or results no longer wanted) is
    // dropped here without the GIL: pyo3 releases it when it next can.
    let _ = results.send(Msg::Done(rest, outcome));
}

/// The iterable's items as one text, for the framer: each item is a line
/// (`str` or `bytes` as they are, anything else as its JSON text), and a line
/// that does not end in a newline gets one.
struct Lines<'a> {
    /// `None` once exhausted.
    records: Option<Py<PyIterator>>,
    batch_size: usize,
    asked: &'a Receiver<()>,
    results: &'a Sender<Msg>,
    collect: Rc<RefCell<Collect>>,
    /// The current batch's text, and how much of it the framer has.
    text: Vec<u8>,
    at: usize,
    nesting: Nesting,
    /// What the iterator raised (the read fails then, ending the run).
    raised: Option<PyErr>,
}

impl Lines<'_> {
    /// The results so far, refused if one holds a value too deep for Python
    /// (dropped here, on the thread with the stack for it).
    fn hand_over(&self) -> PyResult<Vec<Line>> {
        let lines = std::mem::take(&mut self.collect.borrow_mut().lines);
        if self.nesting.deepest() > MAX_DEPTH && lines.iter().any(Line::too_deep) {
            drop(lines);
            return Err(error(format!(
                "a value nests deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(lines)
    }

    /// Takes the next batch of items, once Python asks for more results.
    fn refill(&mut self) -> io::Result<()> {
        let handed = self.hand_over().map_err(|e| self.failed(e))?;
        let gone = || io::Error::other("the results are no longer wanted");
        self.results.send(Msg::Lines(handed)).map_err(|_| gone())?;
        self.asked.recv().map_err(|_| gone())?;
        self.text.clear();
        self.at = 0;
        let (batch_size, text, records) = (self.batch_size, &mut self.text, &mut self.records);
        let pulled = Python::attach(|py| -> PyResult<()> {
            let Some(iter) = records.as_ref() else {
                return Ok(());
            };
            let mut iter = iter.bind(py).clone();
            for _ in 0..batch_size {
                let Some(item) = iter.next() else {
                    drop(iter);
                    *records = None;
                    return Ok(());
                };
                let line = text_of(&item?)?;
                text.extend_from_slice(&line);
                if !line.ends_with(b"\n") {
                    text.push(b'\n');
                }
            }
            Ok(())
        });
        pulled.map_err(|e| self.failed(e))?;
        if self.nesting.feed(&self.text) > MAX_NESTING {
            return Err(self.failed(error(format!(
                "input nests deeper than {MAX_NESTING} levels"
            ))));
        }
        Ok(())
    }

    fn failed(&mut self, e: PyErr) -> io::Error {
        self.raised = Some(e);
        io::Error::other("the records could not be read")
    }
}

impl Read for Lines<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.text.len() {
            if self.records.is_none() {
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

/// The filter's sink on the worker: results kept where [`Lines`] hands them over.
struct Outbox(Rc<RefCell<Collect>>);

impl Sink for Outbox {
    fn begin_record(&mut self, spellings: Spellings) {
        self.0.borrow_mut().begin_record(spellings);
    }

    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        self.0.borrow_mut().call(at, call, verdict)
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        self.0.borrow_mut().record(at, verdict)
    }
}
