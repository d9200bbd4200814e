//! The terminal table of `callfix report`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use owo_colors::OwoColorize;

use crate::filter::Counts;
use crate::message;
use crate::report::Report;

use super::super::colour::{Colours, Stream};
use super::{percent, worst_first};

/// How many error paths the table lists.
const EXAMPLES_SHOWN: usize = 10;

/// One table of counts, a row per name, worst accuracy after callfix first.
fn rows(out: &mut String, colours: Colours, head: &str, map: &BTreeMap<String, Counts>) {
    let rows: Vec<(std::borrow::Cow<'_, str>, &Counts)> = worst_first(map)
        .into_iter()
        .map(|(k, c)| (message::one_line(k), c))
        .collect();
    let width = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        .max(head.len());
    let title = format!(
        "{head:<width$}  {:>7}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}",
        "calls", "valid", "repaired", "rejected", "schema", "after"
    );
    let _ = writeln!(
        out,
        "{}",
        colours.paint(Stream::Stdout, &title, |s| s.bold().to_string())
    );
    for (name, c) in rows {
        let after = percent(c.valid + c.repaired, c.calls);
        let after = if c.rejected > 0 {
            colours.paint(Stream::Stdout, &after, |s| s.red().to_string())
        } else {
            colours.paint(Stream::Stdout, &after, |s| s.green().to_string())
        };
        let _ = writeln!(
            out,
            "{name:<width$}  {:>7}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}",
            c.calls,
            c.valid,
            c.repaired,
            c.rejected,
            percent(c.valid, c.calls),
            // Padded before painting: escape codes have no width.
            format!(
                "{}{after}",
                " ".repeat(8usize.saturating_sub(percent(c.valid + c.repaired, c.calls).len()))
            )
        );
    }
}

/// The terminal table.
pub(super) fn table(report: &Report, colours: Colours) -> String {
    let mut out = String::new();
    let t = report.total();
    let _ = writeln!(
        out,
        "{} calls: {} valid, {} repaired, {} rejected; schema accuracy {}, after callfix {}",
        t.calls,
        t.valid,
        t.repaired,
        t.rejected,
        percent(t.valid, t.calls),
        percent(t.valid + t.repaired, t.calls)
    );
    if report.broken_records() > 0 {
        let _ = writeln!(
            out,
            "{} (no call read)",
            super::count(report.broken_records(), "broken record")
        );
    }
    if report.unjudged() > 0 {
        let _ = writeln!(
            out,
            "{} not judged (no tools in the record: pass --schemas)",
            super::count(report.unjudged(), "call")
        );
    }
    if t.calls == 0 {
        return out;
    }
    out.push('\n');
    rows(&mut out, colours, "model", report.by_model());
    out.push('\n');
    rows(&mut out, colours, "tool", report.by_tool());
    let list = |items: Vec<(String, u64)>| -> String {
        items
            .into_iter()
            .map(|(k, n)| format!("{} {n}", message::one_line(&k)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut say = |label: &str, items: Vec<(String, u64)>| {
        if !items.is_empty() {
            let _ = write!(out, "\n{label}: {}", list(items));
        }
    };
    let named = |m: &BTreeMap<&'static str, u64>| {
        m.iter()
            .map(|(k, n)| ((*k).to_owned(), *n))
            .collect::<Vec<_>>()
    };
    say(
        "rejected",
        report
            .rejections()
            .iter()
            .map(|(c, n)| (c.name().to_owned(), *n))
            .collect(),
    );
    say(
        "cut off, by stop reason",
        report
            .cut_off_stops()
            .iter()
            .map(|(k, n)| (k.clone(), *n))
            .collect(),
    );
    say("repairs", named(report.repairs()));
    say("calls written in text", named(report.leaks()));
    let examples = report.examples(EXAMPLES_SHOWN);
    if !examples.is_empty() {
        let _ = write!(out, "\n\nmost frequent errors:");
        for e in examples {
            let path = super::shown_path(e);
            let _ = write!(
                out,
                "\n  {:>5}  {} {} {}: {}",
                e.count,
                e.tool,
                path,
                colours.paint(Stream::Stdout, e.class.name(), |s| s.yellow().to_string()),
                e.call
            );
        }
    }
    out.push('\n');
    out
}
