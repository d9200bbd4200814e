//! Small JSON helpers shared by the stages.

use serde_json::Value;

/// Unescaped segments of a JSON pointer (`/a~1b/0` → `["a/b", "0"]`).
pub(crate) fn pointer_segments(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// `s` as one JSON Pointer token (`~` → `~0`, `/` → `~1`).
pub(crate) fn pointer_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Arguments with more values than this get only their first error reported.
pub(crate) const ALL_ERRORS_UP_TO: usize = 100_000;

/// Whether `v` holds more than `limit` values (counted without recursion, stopping
/// at the limit).
pub(crate) fn more_values_than(v: &Value, limit: usize) -> bool {
    let mut stack = vec![v];
    let mut seen = 0usize;
    while let Some(v) = stack.pop() {
        seen += 1;
        if seen > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    false
}
