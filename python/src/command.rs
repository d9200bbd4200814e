//! The `callfix` command: the binary's own app (`src/app/`), compiled into the
//! extension, run by the `callfix` script on a venv's PATH.

use std::ffi::OsString;

use pyo3::prelude::*;

/// The command line, compiled into the extension: `callfix` on a venv's PATH
/// runs the very app `src/main.rs` runs.
#[path = "../../src/app/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod app;

/// Runs the `callfix` command line with `argv` (the first item is the program's
/// name); returns its exit code. The `callfix` script on PATH calls this. A
/// panic (a bug) is exit code 2, an error, as the binary's would be reported;
/// it never unwinds into the interpreter.
#[pyfunction]
pub(crate) fn _main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| app::main(argv))).unwrap_or(2)
    })
}
