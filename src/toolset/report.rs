//! [`Toolset::report`]: recorded traffic in memory (or any reader) summarised
//! as `callfix report` summarises files: the filter, with a [`Report`] as its
//! sink.

use std::io::Read;

use crate::filter::{Input, StreamError, Summary};
use crate::report::Report;

use super::Toolset;

impl Toolset {
    /// Every call in `records` judged against these tools with their options,
    /// and summarised: what `callfix report --label LABEL --format json` counts
    /// for a file of those bytes ([`Report::to_json`] is that object).
    ///
    /// `records` is anything the filter reads, one record or many: responses,
    /// request bodies, streams (SSE), calls leaked into text, JSON Lines,
    /// concatenated or pretty JSON, an array of records; a `&[u8]` for bytes in
    /// memory, or any reader (a file: it is read as it is counted, so memory is
    /// bounded by [`Report`]'s caps, not by the number of calls). Calls whose
    /// record names no `model` count under `label`. A record with no readable
    /// call is counted in [`Report::broken_records`]; the only error is a read
    /// of `records` that fails.
    ///
    /// ```
    /// use callfix::Toolset;
    /// use serde_json::json;
    ///
    /// let tools = Toolset::from_schemas([(
    ///     "read".to_owned(),
    ///     json!({"type": "object", "required": ["path"],
    ///            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}}),
    /// )]);
    /// let log = br#"{"model": "m1", "choices": [{"message": {"role": "assistant", "tool_calls": [
    ///   {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"/a\"}"}},
    ///   {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{\"limit\": \"3\"}"}}]}}]}
    /// {"name": "read", "arguments": {"path": "/b", "limit": "2"}}
    /// not a record
    /// "#;
    /// let report = tools.report(&log[..], "agent").unwrap();
    /// let total = report.total();
    /// assert_eq!((total.calls, total.valid, total.repaired, total.rejected), (3, 1, 1, 1));
    /// assert_eq!(report.by_model()["m1"].calls, 2);
    /// assert_eq!(report.by_model()["agent"].repaired, 1);
    /// assert_eq!(report.broken_records(), 1);
    /// let json = report.to_json();
    /// assert_eq!((json["version"].as_u64(), json["repairs"]["coerce-number"].as_u64()), (Some(1), Some(1)));
    /// ```
    ///
    /// Several inputs, each with its label (`callfix report a.jsonl b.jsonl
    /// --label a --label b`), go into one [`Report`] through
    /// [`Toolset::filter`]: [`Report::set_label`], then
    /// [`Filter::stream`](crate::Filter::stream) with the report as the sink.
    pub fn report(&self, records: impl Read, label: &str) -> Result<Report, StreamError> {
        let mut report = Report::new(label);
        // The filter's own counts (loop memory, broken schemas): not reported.
        let mut summary = Summary::default().without_per_tool();
        self.filter()
            .stream(Input::new(records, label), &mut report, &mut summary)?;
        Ok(report)
    }
}

#[cfg(test)]
mod tests;
