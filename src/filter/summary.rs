//! What a run saw: counts of calls per tool, of repairs and of leaks, for
//! `--stats` and the exit code.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::Loops;
use crate::message::{self, plural};
use crate::verdict::{Fault, Status, Verdict};

/// Counts of one tool's calls.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Calls seen.
    pub calls: u64,
    /// Calls valid as sent.
    pub valid: u64,
    /// Calls repaired.
    pub repaired: u64,
    /// Calls rejected.
    pub rejected: u64,
}

impl Counts {
    fn add(&mut self, status: Status) {
        self.calls += 1;
        match status {
            Status::Valid => self.valid += 1,
            Status::Repaired => self.repaired += 1,
            Status::Rejected => self.rejected += 1,
        }
    }
}

/// What a run saw, for `--stats` and the exit code.
#[derive(Debug, Default)]
pub struct Summary {
    /// Rejected calls seen so far, to recognise repeats.
    pub(crate) loops: Loops,
    /// Records read.
    pub(crate) records: u64,
    /// Records that are valid envelopes holding no call (a text-only message).
    pub(crate) records_without_calls: u64,
    /// Records that yielded no call because they are broken; each got one
    /// rejected result, counted here and not in `total`.
    pub(crate) broken_records: u64,
    /// All calls.
    pub(crate) total: Counts,
    /// Calls per tool, for at most [`Summary::MAX_TOOLS`] names of at most
    /// [`Summary::MAX_TOOL_NAME_BYTES`] bytes each (first come); left empty by a
    /// summary made [`Summary::without_per_tool`].
    pub(crate) per_tool: BTreeMap<String, Counts>,
    /// Calls to every other name: past the first [`Summary::MAX_TOOLS`], or
    /// longer than [`Summary::MAX_TOOL_NAME_BYTES`]. A model can invent a name
    /// per call; the summary's memory stays bounded whatever it sends.
    pub(crate) other_tools: Counts,
    /// Repairs made, by kind.
    pub(crate) repairs: BTreeMap<&'static str, u64>,
    /// Calls found written into assistant text, by call syntax.
    pub(crate) leaks: BTreeMap<&'static str, u64>,
    /// Calls rejected because their tool's schema is broken.
    pub(crate) schema_faults: u64,
    /// Tools whose broken schema the operator has been told about.
    pub(crate) broken_tools: BTreeSet<String>,
    /// Whether `per_tool` is left empty.
    no_per_tool: bool,
}

impl Summary {
    /// Tool names counted on a row of their own; calls to further names are
    /// counted together in [`Summary::other_tools`].
    pub const MAX_TOOLS: usize = 1000;
    /// The longest tool name counted on a row of its own, in bytes.
    pub const MAX_TOOL_NAME_BYTES: usize = 256;

    /// Records read.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Records that are valid envelopes holding no call (a text-only message).
    pub fn records_without_calls(&self) -> u64 {
        self.records_without_calls
    }

    /// Records that yielded no call because they are broken (each got one
    /// rejected result, not counted in [`Summary::total`]).
    pub fn broken_records(&self) -> u64 {
        self.broken_records
    }

    /// All calls.
    pub fn total(&self) -> Counts {
        self.total
    }

    /// Calls per tool (empty for a summary made [`Summary::without_per_tool`]).
    pub fn per_tool(&self) -> &BTreeMap<String, Counts> {
        &self.per_tool
    }

    /// Calls to tools past the first [`Summary::MAX_TOOLS`] names, or with
    /// longer names than [`Summary::MAX_TOOL_NAME_BYTES`].
    pub fn other_tools(&self) -> Counts {
        self.other_tools
    }

    /// Repairs made, by kind (`coerce-integer`, …).
    pub fn repairs(&self) -> &BTreeMap<&'static str, u64> {
        &self.repairs
    }

    /// Calls found written into assistant text, by call syntax.
    pub fn leaks(&self) -> &BTreeMap<&'static str, u64> {
        &self.leaks
    }

    /// Calls rejected because their tool's schema is broken.
    pub fn schema_faults(&self) -> u64 {
        self.schema_faults
    }

    /// A summary that keeps no per-tool counts: each call then costs no lookup
    /// by tool name (the binary keeps them only for `--stats`).
    pub fn without_per_tool(self) -> Self {
        Summary {
            no_per_tool: true,
            ..self
        }
    }

    pub(crate) fn count(&mut self, tool: &str, verdict: &Verdict) {
        let repairs = verdict.repairs.iter().map(|r| r.kind.name());
        self.count_parts(tool, verdict.status, verdict.fault, repairs);
    }

    /// Counts a call's result from its parts (the result itself may already be
    /// written).
    pub(crate) fn count_parts(
        &mut self,
        tool: &str,
        status: Status,
        fault: Fault,
        repairs: impl Iterator<Item = &'static str>,
    ) {
        self.total.add(status);
        if !self.no_per_tool {
            let room =
                self.per_tool.len() < Self::MAX_TOOLS && tool.len() <= Self::MAX_TOOL_NAME_BYTES;
            match self.per_tool.get_mut(tool) {
                Some(c) => c.add(status),
                None if room => {
                    let mut c = Counts::default();
                    c.add(status);
                    self.per_tool.insert(tool.to_owned(), c);
                }
                None => self.other_tools.add(status),
            }
        }
        if fault == Fault::Schema {
            self.schema_faults += 1;
        }
        for kind in repairs {
            *self.repairs.entry(kind).or_insert(0) += 1;
        }
    }
}

impl Summary {
    /// Results that are rejections: rejected calls and broken records.
    pub fn failures(&self) -> u64 {
        self.total.rejected + self.broken_records
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.total;
        write!(
            f,
            "{} {}: {} {} ({} valid, {} repaired, {} rejected)",
            self.records,
            plural(self.records, "record"),
            t.calls,
            plural(t.calls, "call"),
            t.valid,
            t.repaired,
            t.rejected
        )?;
        if self.broken_records > 0 {
            let n = self.broken_records;
            write!(f, ", {n} broken {}", plural(n, "record"))?;
        }
        if self.records_without_calls > 0 {
            let n = self.records_without_calls;
            write!(f, ", {n} {} without calls", plural(n, "record"))?;
        }
        if !self.per_tool.is_empty() {
            // A name is the model's: written visibly, it is one line and no
            // escape sequence reaches the terminal.
            let rows: Vec<(std::borrow::Cow<'_, str>, &Counts)> = self
                .per_tool
                .iter()
                .map(|(tool, c)| (message::one_line(tool), c))
                .collect();
            let width = rows
                .iter()
                .map(|(k, _)| k.chars().count())
                .max()
                .unwrap_or(0)
                .max(4);
            write!(
                f,
                "\n  {:<width$}  {:>7}  {:>7}  {:>8}  {:>8}  {:>11}",
                "tool", "calls", "valid", "repaired", "rejected", "repair rate"
            )?;
            for (tool, c) in rows {
                let rate = 100.0 * c.repaired as f64 / c.calls.max(1) as f64;
                write!(
                    f,
                    "\n  {tool:<width$}  {:>7}  {:>7}  {:>8}  {:>8}  {:>10.1}%",
                    c.calls, c.valid, c.repaired, c.rejected, rate
                )?;
            }
        }
        let other = &self.other_tools;
        if other.calls > 0 {
            write!(
                f,
                "\n  + {} {} to other tools ({} valid, {} repaired, {} rejected): names past \
                 the first {}, or longer than {} bytes",
                other.calls,
                plural(other.calls, "call"),
                other.valid,
                other.repaired,
                other.rejected,
                Self::MAX_TOOLS,
                Self::MAX_TOOL_NAME_BYTES
            )?;
        }
        if !self.repairs.is_empty() {
            let list: Vec<String> = self
                .repairs
                .iter()
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            write!(f, "\n  repairs: {}", list.join(", "))?;
        }
        if !self.leaks.is_empty() {
            let list: Vec<String> = self
                .leaks
                .iter()
                .map(|(family, n)| format!("{family} {n}"))
                .collect();
            write!(
                f,
                "\n  calls written in text, by syntax: {}",
                list.join(", ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(summary: &mut Summary, tool: &str) {
        summary.count_parts(tool, Status::Rejected, Fault::Call, std::iter::empty());
    }

    #[test]
    fn per_tool_rows_are_bounded_and_the_rest_counted_as_other() {
        let mut summary = Summary::default();
        for i in 0..Summary::MAX_TOOLS + 500 {
            rejected(&mut summary, &format!("made_up_{i}"));
        }
        rejected(&mut summary, "made_up_0");
        rejected(&mut summary, &"n".repeat(Summary::MAX_TOOL_NAME_BYTES + 1));
        assert_eq!(summary.per_tool.len(), Summary::MAX_TOOLS);
        assert_eq!(summary.per_tool["made_up_0"].calls, 2);
        assert_eq!(summary.other_tools.calls, 501);
        assert_eq!(summary.total.calls, Summary::MAX_TOOLS as u64 + 502);
        let said = summary.to_string();
        assert!(said.contains("+ 501 calls to other tools (0 valid, 0 repaired, 501 rejected)"));
        // A name within both limits still gets its row after others went to "other".
        let mut summary = Summary::default();
        rejected(&mut summary, &"n".repeat(Summary::MAX_TOOL_NAME_BYTES + 1));
        rejected(&mut summary, &"n".repeat(Summary::MAX_TOOL_NAME_BYTES));
        assert_eq!(summary.per_tool.len(), 1);
        assert_eq!(summary.other_tools.calls, 1);
    }

    #[test]
    fn tool_names_are_written_visibly_one_row_each() {
        let mut summary = Summary::default();
        rejected(&mut summary, "x\u{1b}]0;pwned\u{7}\ncallfix: 0 records");
        rejected(&mut summary, "y\u{85}\u{2028}\u{9b}\u{7f}");
        let said = summary.to_string();
        assert!(
            !said.chars().any(|c| c != '\n' && message::breaks_lines(c)),
            "{said:?}"
        );
        assert_eq!(said.lines().count(), 4, "{said}");
        assert!(
            said.contains("x\\u001b]0;pwned\\u0007\\ncallfix: 0 records"),
            "{said}"
        );
        assert!(said.contains("y\\u0085\\u2028\\u009b\\u007f"), "{said}");
    }
}
