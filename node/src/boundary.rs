//! The panic and stack boundary between Node and the library: [`catch`] and
//! [`shield`] run library code so that nothing but a `napi::Result` comes back
//! (a thrown `Error` in JavaScript): a panic becomes an error, and deeply
//! nested input is checked on a thread with stack enough for it (Node's main
//! thread's stack is not ours to exhaust). The same rules as the Python
//! binding's `python/src/boundary.rs`.

use napi::Error;

pub(crate) fn error(message: impl Into<String>) -> Error {
    Error::from_reason(message.into())
}

/// Input that nests (`[`, `{`, `(`, counted anywhere, strings too: a leaked
/// call sits in a JSON string) at most this deep is checked on the caller's
/// thread.
const INLINE_NESTING: usize = 64;

/// Input that nests deeper is checked on a thread of its own, with this much
/// stack per level and at least [`MIN_DEEP_STACK`] ...
const STACK_PER_LEVEL: usize = 8 * 1024;
const MIN_DEEP_STACK: usize = 16 * 1024 * 1024;

/// ... up to this depth; deeper input is refused with an error.
const MAX_NESTING: usize = 50_000;

/// How deep `text` can nest: `[`, `{` and `(` less the closing ones, counted
/// anywhere (an upper bound on what any reader recurses into). Text with at
/// most [`INLINE_NESTING`] of them (most calls) is answered with their count,
/// found by a branch-free pass the compiler vectorises (the exact depth's
/// byte-at-a-time pass was a twentieth of a valid call's time).
pub(crate) fn nesting(text: &[u8]) -> usize {
    let opening = text
        .iter()
        .map(|&b| usize::from(matches!(b, b'[' | b'{' | b'(')))
        .sum::<usize>();
    if opening <= INLINE_NESTING {
        return opening;
    }
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

/// Runs library code so that a panic (a bug) becomes an error, not an abort
/// of the Node process.
pub(crate) fn catch<T>(work: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
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

/// [`catch`] for work on `text`: input that nests deeply is checked on a
/// thread with stack enough for its depth, and input deeper than
/// [`MAX_NESTING`] is refused. `work` must hand back no deep values (only
/// text): they are dropped on the thread with the stack for them.
pub(crate) fn shield<T: Send>(
    text: &[u8],
    work: impl FnOnce() -> napi::Result<T> + Send,
) -> napi::Result<T> {
    shield_at(nesting(text), work)
}

/// [`shield`] for input found to nest `depth` deep ([`nesting`]), so that
/// `work` may own it.
pub(crate) fn shield_at<T: Send>(
    depth: usize,
    work: impl FnOnce() -> napi::Result<T> + Send,
) -> napi::Result<T> {
    if depth <= INLINE_NESTING {
        return catch(work);
    }
    if depth > MAX_NESTING {
        return Err(error(format!(
            "input nests deeper than {MAX_NESTING} levels"
        )));
    }
    let stack = depth.saturating_mul(STACK_PER_LEVEL).max(MIN_DEEP_STACK);
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("callfix-deep".into())
            .stack_size(stack)
            .spawn_scoped(scope, || catch(work))
            .map_err(|e| error(format!("cannot start a thread to check deep input: {e}")))?;
        worker
            .join()
            .unwrap_or_else(|_| Err(error("internal error, please report it (callfix panicked)")))
    })
}

/// A JavaScript string, taken as its UTF-16 code units (napi's
/// `Utf16String`), as UTF-8: a lone surrogate becomes U+FFFD, as napi's own
/// UTF-8 conversion makes it. Taken that way because napi hands UTF-16 over
/// in one copy, where its UTF-8 conversion walks the string twice, a code
/// unit at a time (a fifth of a valid call's native time, by callgrind:
/// docs/speed.md); ASCII, what JSON text mostly is, is narrowed in passes
/// the compiler vectorises.
pub(crate) fn utf8(units: &[u16]) -> String {
    let ascii = units
        .chunks(32)
        .all(|chunk| chunk.iter().fold(0, |any, &u| any | u) < 0x80);
    if ascii {
        let bytes: Vec<u8> = units.iter().map(|&u| u as u8).collect();
        if let Ok(text) = String::from_utf8(bytes) {
            return text;
        }
    }
    String::from_utf16_lossy(units)
}
