//! What a stream keeps, and what it costs: calls found by their index in a hash
//! map, argument fragments appended in place under the byte limit, and the
//! bytes a value takes as JSON text.

use std::hash::{Hash, Hasher};
use std::io;

use serde::Serialize;

/// The bytes `value` takes as JSON text. Linear in its size; values come from
/// the parser, whose depth limit bounds the recursion.
pub(super) fn text_len<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0 = self.0.saturating_add(bytes.len());
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Counting cannot fail, and a `Value` always serialises.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// A call's `index` (`output_index`) as a map key. In tests it counts its
/// comparisons: finding a call costs about one, never a scan of the calls so
/// far.
#[derive(Debug, Clone, Copy, Eq)]
pub(super) struct Key(pub(super) u64);

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        #[cfg(test)]
        super::tests::compared();
        self.0 == other.0
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// What a kept slot costs beyond its text (its place in the response).
pub(super) const SLOT: usize = 64;

/// Argument text that arrives in fragments, capped: a fragment that would take
/// the stream's kept bytes past the limit drops the text instead (and the rest
/// of its fragments with it), so that one call too large never takes the
/// stream's other calls with it.
#[derive(Debug, Default)]
pub(super) struct Fragments {
    pub(super) text: String,
    pub(super) too_large: bool,
}

impl Fragments {
    /// Appends `fragment` in place, or drops the text once the stream's kept
    /// bytes (`size`, which it follows) would grow past `limit`.
    pub(super) fn push(&mut self, fragment: &str, limit: usize, size: &mut usize) {
        push_capped(&mut self.text, &mut self.too_large, fragment, limit, size);
    }
}

/// [`Fragments::push`] on a text kept elsewhere.
pub(super) fn push_capped(
    text: &mut String,
    too_large: &mut bool,
    fragment: &str,
    limit: usize,
    size: &mut usize,
) {
    if *too_large {
        return;
    }
    if size.saturating_add(fragment.len()) > limit {
        *size = size.saturating_sub(text.len());
        *text = String::new();
        *too_large = true;
        return;
    }
    text.push_str(fragment);
    *size = size.saturating_add(fragment.len());
}
