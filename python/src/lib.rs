//! `callfix._callfix`: the native part of the `callfix` Python package. It only
//! translates between Python objects and the library's API (`Registry`,
//! `filter::Filter`, `output::Printer`, `tools::payload`, `render`): every result
//! is the very line `callfix --format json` writes for the same call, parsed on
//! demand, so Python and the CLI cannot disagree.
//!
//! The GIL is held only to turn Python objects into JSON text and results back
//! into Python objects; checking runs with it released.
//!
//! One module per concern: `to_json` (Python → JSON text, numbers by value)
//! and `to_python` (JSON → Python, huge integers as `Decimal`); `boundary`
//! (`CallfixError`, panics caught, deep input checked on a thread of its own);
//! `options` (the constructors' keyword options); `result` (the `Result`
//! class); `toolset`, `checks` and `session` (the classes that check);
//! `functions` (`render`, `tools`); `healing` (`heal`, `Healed`); `report` (`Toolset.report`, a summary as `callfix report` counts it); `leaks` (`_leaks`, the calls written into a text, for `callfix.litellm`); `command` (the `callfix` command).

mod boundary;
mod checks;
mod command;
mod functions;
mod healing;
mod leaks;
mod options;
mod report;
mod result;
mod session;
mod to_json;
mod to_python;
mod toolset;

use pyo3::prelude::*;

use crate::boundary::CallfixError;
use crate::checks::Checks;
use crate::command::_main;
use crate::functions::{render, tools};
use crate::healing::{Healed, heal};
use crate::leaks::{_leaks, _with_arguments_sent};
use crate::result::CheckResult;
use crate::session::Session;
use crate::toolset::Toolset;

/// The deepest Python structure turned into JSON (the parser's own limit is
/// lower, so anything deeper is rejected as the CLI rejects it), and the
/// deepest JSON value turned into Python objects.
pub(crate) const MAX_DEPTH: usize = 1000;

/// Rust's allocations in the module (not Python's) go through mimalloc, as the
/// binary's and the Node addon's do: `check_many` makes results on its worker
/// thread that Python frees on its own, where glibc's `free` takes the other
/// arena's lock and the worker's `malloc` its slow path (docs/dependencies.md).
/// Built `no_thp`: it never asks for transparent huge pages, whose zeroing made
/// one large record 3× slower (docs/speed.md). musl builds keep musl's.
#[cfg(not(target_env = "musl"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _callfix(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CallfixError", m.py().get_type::<CallfixError>())?;
    m.add_class::<Toolset>()?;
    m.add_class::<Session>()?;
    m.add_class::<CheckResult>()?;
    m.add_class::<Checks>()?;
    m.add_class::<Healed>()?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(tools, m)?)?;
    m.add_function(wrap_pyfunction!(heal, m)?)?;
    m.add_function(wrap_pyfunction!(_main, m)?)?;
    m.add_function(wrap_pyfunction!(_leaks, m)?)?;
    m.add_function(wrap_pyfunction!(_with_arguments_sent, m)?)?;
    Ok(())
}
