//! Small JSON helpers shared by the stages.

/// Unescaped segments of a JSON pointer (`/a~1b/0` → `["a/b", "0"]`).
pub fn pointer_segments(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}
