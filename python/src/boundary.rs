//! The panic and stack boundary between Python and the library: `CallfixError`
//! (the one exception the binding raises for what callfix cannot use), and
//! [`catch`] and [`shielded`], which run library code so that nothing but a
//! `PyResult` comes back: a panic becomes a `CallfixError`, and deeply nested
//! input is checked on a thread with stack enough for it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pyo3::create_exception!(
    callfix,
    CallfixError,
    PyValueError,
    "A schema source, option or argument callfix cannot use; the message says which and why."
);

pub(crate) fn error(message: impl Into<String>) -> PyErr {
    CallfixError::new_err(message.into())
}

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
pub(crate) const MAX_NESTING: usize = 50_000;

/// How deep text can nest: `[`, `{` and `(` less the closing ones, counted
/// anywhere (an upper bound on what any reader recurses into), over text fed
/// a piece at a time. One pass.
#[derive(Default)]
pub(crate) struct Nesting {
    depth: usize,
    deepest: usize,
}

impl Nesting {
    /// Counts `text`, which follows what was fed before; the deepest so far.
    pub(crate) fn feed(&mut self, text: &[u8]) -> usize {
        for &b in text {
            match b {
                b'[' | b'{' | b'(' => {
                    self.depth += 1;
                    self.deepest = self.deepest.max(self.depth);
                }
                b']' | b'}' | b')' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
        self.deepest
    }

    pub(crate) fn deepest(&self) -> usize {
        self.deepest
    }
}

/// How deep `text` can nest (see [`Nesting`]).
pub(crate) fn nesting(text: &[u8]) -> usize {
    Nesting::default().feed(text)
}

/// The stack a thread checking input `depth` deep gets.
pub(crate) fn deep_stack(depth: usize) -> usize {
    depth.saturating_mul(STACK_PER_LEVEL).max(MIN_DEEP_STACK)
}

/// Runs library code so that nothing but a `PyResult` comes back: a panic (a
/// bug) becomes a `CallfixError` rather than a `PanicException` that `except
/// Exception` does not catch.
pub(crate) fn catch<T>(work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
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
/// the caller's stack can drop (see [`Toolset::run`](crate::toolset::Toolset::run)).
pub(crate) fn shielded<T: Send>(
    text: &[u8],
    work: impl FnOnce(usize) -> PyResult<T> + Send,
) -> PyResult<T> {
    shield(nesting(text), work)
}

/// [`shielded`] for input found to nest `depth` deep ([`nesting`]), so that
/// `work` may own it.
pub(crate) fn shield<T: Send>(
    depth: usize,
    work: impl FnOnce(usize) -> PyResult<T> + Send,
) -> PyResult<T> {
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
            .stack_size(deep_stack(depth))
            .spawn_scoped(scope, || catch(|| work(depth)))
            .map_err(|e| error(format!("cannot start a thread to check deep input: {e}")))?;
        worker
            .join()
            .unwrap_or_else(|_| Err(error("internal error, please report it (callfix panicked)")))
    })
}
