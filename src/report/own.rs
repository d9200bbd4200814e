//! Each record judged against its own `tools` (`callfix report` without
//! `--schemas`): request bodies (OpenAI chat, Anthropic messages, JSON Lines
//! of them) carry the tools the model was given. A tool list is compiled once
//! and kept by its text, so a log of a million records with the same list
//! compiles it once; the calls of a record with no `tools` are not judged and
//! are counted as [`Report::unjudged`].

use std::collections::HashMap;
use std::io::{self, Read};

use serde_json::Value;

use super::Report;
use crate::filter::{Filter, Input, Options, StreamError, Summary, parse_record};
use crate::output::{Position, Sink};
use crate::provider::stream::Streams;
use crate::provider::{Call, Origin};
use crate::registry::Registry;
use crate::verdict::Verdict;

/// The tool lists seen so far, compiled, by their text. Bounded: past
/// [`OwnTools::MAX_LISTS`] lists or [`OwnTools::MAX_BYTES`] bytes of their
/// text, the cache starts again empty (a log whose every record has other
/// tools compiles each, and keeps few); the last list's value is kept beside
/// (once more its size).
#[derive(Debug, Default)]
pub(crate) struct OwnTools {
    lists: HashMap<String, Option<Registry>>,
    bytes: usize,
    /// The list used last and its key: a log's records mostly repeat the
    /// same tools, found again by comparing values, without writing the
    /// list's text.
    last: Option<(Value, String)>,
}

impl OwnTools {
    /// Distinct tool lists kept compiled.
    pub(crate) const MAX_LISTS: usize = 64;
    /// Their text, in bytes, at most.
    pub(crate) const MAX_BYTES: usize = 16 << 20;

    /// The tools of `list` (a record's `tools`), compiled once; `None` when
    /// it is no tool list.
    fn registry(&mut self, list: &Value) -> Option<&Registry> {
        let key = match self.last.take() {
            Some((value, key)) if value == *list && self.lists.contains_key(&key) => {
                self.last = Some((value, key));
                return self.last_registry();
            }
            _ => list.to_string(),
        };
        if !self.lists.contains_key(&key) {
            if self.lists.len() >= Self::MAX_LISTS || self.bytes + key.len() > Self::MAX_BYTES {
                self.lists.clear();
                self.bytes = 0;
            }
            self.bytes += key.len();
            let registry = Registry::from_tool_list(list.clone());
            self.lists.insert(key.clone(), registry);
        }
        self.last = Some((list.clone(), key));
        self.last_registry()
    }

    /// The registry of the list used last.
    fn last_registry(&self) -> Option<&Registry> {
        let (_, key) = self.last.as_ref()?;
        self.lists.get(key).and_then(Option::as_ref)
    }

    /// Every record of `input` into `report`, judged against the record's own
    /// `tools`; returns the number the next input's first record gets (as
    /// [`Filter::stream`]).
    pub(crate) fn stream<R: Read, S: Tally>(
        &mut self,
        options: &Options,
        input: Input<'_, R>,
        report: &mut S,
        summary: &mut Summary,
    ) -> Result<u64, StreamError> {
        let none = Registry::default();
        let (framer, source, _) = input.framer(options.max_record_bytes);
        let mut framer = framer.parsing_lines(options.max_record_values);
        let mut buf = Vec::new();
        let mut streams = Streams::default();
        loop {
            let next = framer.next_record(&mut buf, &mut || {});
            let Some(mut meta) = next.map_err(StreamError::Read)? else {
                break;
            };
            summary.records += 1;
            let line = meta.parsed.take();
            let parsed = parse_record(&meta, line, &buf, source, options);
            let list = (parsed.value.as_ref().ok()).and_then(|v| v.get("tools"));
            let own = list.and_then(|list| self.registry(list));
            let filter = Filter {
                registry: own.unwrap_or(&none),
                options,
            };
            let prepared = filter.prepare_parsed(&meta, parsed, &buf, source, None);
            if own.is_some() {
                filter.deliver(prepared, &mut streams, source, summary, report)?;
            } else {
                let sink = &mut Unjudged(report);
                filter.deliver(prepared, &mut streams, source, summary, sink)?;
            }
        }
        // A stream's events carry no tools: its calls are not judged.
        if let Some(done) = streams.finish() {
            let filter = Filter {
                registry: &none,
                options,
            };
            filter.assembled(done, source, summary, &mut Unjudged(report))?;
        }
        Ok(framer.next_index())
    }
}

/// A sink that also counts the calls it is not given to judge: the
/// [`Report`], or a sink that passes everything on to one (the command
/// line's progress line).
pub(crate) trait Tally: Sink {
    /// One call of a record with no tools.
    fn count_unjudged(&mut self);
}

impl Tally for Report {
    fn count_unjudged(&mut self) {
        self.unjudged += 1;
    }
}

/// The sink of a record with no tools: its calls are counted, not judged.
struct Unjudged<'r, S>(&'r mut S);

impl<S: Tally> Sink for Unjudged<'_, S> {
    fn origin(&mut self, _origin: &Origin) {}

    fn diagnostic(&mut self, message: &str) {
        self.0.diagnostic(message);
    }

    fn call(&mut self, _at: Position, _call: Call, _verdict: Verdict) -> io::Result<()> {
        self.0.count_unjudged();
        Ok(())
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        self.0.record(at, verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list(name: &str) -> Value {
        json!([{"name": name, "input_schema": {"type": "object"}}])
    }

    #[test]
    fn a_tool_list_is_compiled_once_and_the_cache_is_bounded() {
        let mut own = OwnTools::default();
        let first: *const Registry = own.registry(&list("a")).unwrap();
        let again: *const Registry = own.registry(&list("a")).unwrap();
        assert_eq!(first, again, "the same list is the same registry");
        assert_eq!(own.lists.len(), 1);
        assert!(own.registry(&json!("no list")).is_none());
        for i in 0..3 * OwnTools::MAX_LISTS {
            assert!(own.registry(&list(&format!("t{i}"))).is_some());
            assert!(own.lists.len() <= OwnTools::MAX_LISTS);
        }
        let huge = list(&"x".repeat(OwnTools::MAX_BYTES / 2 + 1));
        own.registry(&huge);
        own.registry(&list("y"));
        own.registry(&huge);
        assert!(own.bytes <= OwnTools::MAX_BYTES);
    }
}
