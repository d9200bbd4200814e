//! A checked cursor over markup: the one way the family readers move through
//! model text. Every read is checked (a position past the end or inside a
//! character is never taken), and none panics: what is not there is `None`.
//!
//! The cursor stands on a character boundary of its text at all times: it
//! moves only past text it has matched or found.

/// Bytes the cursors of this thread have looked at (tests count them to check
/// that reading is linear in the text).
#[cfg(test)]
pub(super) fn scanned() -> usize {
    SCANNED.with(std::cell::Cell::get)
}

#[cfg(test)]
thread_local! {
    static SCANNED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `n` bytes looked at (nothing outside tests).
#[inline]
pub(super) fn looked(n: usize) {
    #[cfg(test)]
    SCANNED.with(|s| s.set(s.get() + n));
    #[cfg(not(test))]
    let _ = n;
}

/// A position in `text`, and the reads that move it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cursor<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Cursor<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Cursor { text, at: 0 }
    }

    /// The byte offset of the cursor in its text.
    pub(super) fn at(&self) -> usize {
        self.at
    }

    /// The text from the cursor on.
    pub(super) fn rest(&self) -> &'t str {
        self.text.get(self.at..).unwrap_or_default()
    }

    /// The text from byte `start` (an earlier position of this cursor) up to
    /// the cursor.
    pub(super) fn since(&self, start: usize) -> &'t str {
        self.text.get(start..self.at).unwrap_or_default()
    }

    /// The whole text, up to the cursor.
    pub(super) fn done(&self) -> &'t str {
        self.since(0)
    }

    pub(super) fn is_at_end(&self) -> bool {
        self.at >= self.text.len()
    }

    /// The next character.
    pub(super) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(super) fn starts_with(&self, pat: &str) -> bool {
        self.rest().starts_with(pat)
    }

    /// Moves past `pat` if the text goes on with it.
    pub(super) fn eat(&mut self, pat: &str) -> bool {
        let hit = self.starts_with(pat);
        if hit {
            self.at += pat.len();
        }
        hit
    }

    /// Moves past the next character if it is one of `any`; which it was.
    pub(super) fn eat_any(&mut self, any: &[char]) -> Option<char> {
        let c = self.peek().filter(|c| any.contains(c))?;
        self.at += c.len_utf8();
        Some(c)
    }

    /// The text up to the next `pat`, moving past `pat`; `None` (and the
    /// cursor left where it was) when `pat` does not occur again.
    pub(super) fn take_until(&mut self, pat: &str) -> Option<&'t str> {
        let found = self.rest().split_once(pat);
        looked(found.map_or(self.rest().len(), |(b, _)| b.len() + pat.len()));
        let (before, _) = found?;
        self.at += before.len() + pat.len();
        Some(before)
    }

    /// The text up to the next `pat`, stopping before it.
    pub(super) fn take_before(&mut self, pat: &str) -> Option<&'t str> {
        let found = self.rest().split_once(pat);
        looked(found.map_or(self.rest().len(), |(b, _)| b.len() + pat.len()));
        let (before, _) = found?;
        self.at += before.len();
        Some(before)
    }

    /// The characters while `keep` holds (perhaps none).
    pub(super) fn take_while(&mut self, keep: impl Fn(char) -> bool) -> &'t str {
        let rest = self.rest();
        let len = rest.find(|c: char| !keep(c)).unwrap_or(rest.len());
        looked(len + 1);
        self.take(len).unwrap_or_default()
    }

    /// The next `len` bytes, if the text holds them and they end on a
    /// character boundary.
    pub(super) fn take(&mut self, len: usize) -> Option<&'t str> {
        let taken = self.rest().get(..len)?;
        looked(len);
        self.at += len;
        Some(taken)
    }

    /// Skips whitespace.
    pub(super) fn skip_space(&mut self) {
        self.take_while(char::is_whitespace);
    }

    /// Skips ASCII whitespace (Python's and JSON's).
    pub(super) fn skip_ascii_space(&mut self) {
        self.take_while(|c| c.is_ascii_whitespace());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_is_there_and_nothing_else() {
        let mut c = Cursor::new("<a=é>x</a>");
        assert!(c.eat("<a="));
        assert_eq!(c.peek(), Some('é'));
        // Inside a character: not taken, cursor unmoved.
        assert_eq!(c.take(1), None);
        assert_eq!(c.take_until(">"), Some("é"));
        assert_eq!(c.take_until("<b>"), None);
        assert_eq!(c.rest(), "x</a>");
        assert_eq!(c.take_before("</a>"), Some("x"));
        assert_eq!(c.since(0), "<a=é>x");
        assert_eq!(c.take_until("</a>"), Some(""));
        assert!(c.is_at_end());
        assert_eq!((c.peek(), c.take(1), c.eat_any(&['x'])), (None, None, None));
        assert_eq!(c.take_while(|_| true), "");
    }
}
