//! The `callfix` command: the binary's own app (`callfix::app`, the library's
//! hidden `cli` module), run by the `callfix` script on a venv's PATH.
//!
//! Each call is a run of its own: the app keeps no process-wide state (its
//! config and colour are decided per command line and passed down), so one
//! interpreter can run many command lines.

use std::ffi::OsString;

use pyo3::prelude::*;

/// Runs the `callfix` command line with `argv` (the first item is the program's
/// name); returns its exit code. The `callfix` script on PATH calls this. A
/// panic (a bug) is exit code 2, an error, as the binary's would be reported;
/// it never unwinds into the interpreter.
#[pyfunction]
pub(crate) fn _main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callfix::app::main(argv)))
            .unwrap_or(2)
    })
}
