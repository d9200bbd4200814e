//! `callfix report --html FILE`: the report as one self-contained page.
//!
//! Inline CSS and SVG only: no script, no external reference of any kind (no
//! `src`, `href`, `url(` or `@import`), so the page shows the same from a
//! file, a mail attachment or an offline machine. Every string from the log
//! (model, tool, path, stop reason, example call) is escaped by [`esc`],
//! which also writes `/`, `:` and `=` as character references: no text from
//! a log can spell a URL or an attribute in the page's source.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::filter::Counts;
use crate::report::Report;

use super::{percent, worst_first};

/// How many error paths the page lists.
const EXAMPLES_SHOWN: usize = 50;
/// The longest model or tool name shown in the chart, in characters.
const LABEL_CHARS: usize = 32;

/// `text` escaped for HTML text and attribute values (double-quoted):
/// `& < > " '` and also `/ : =` as character references, C0 controls (but tab
/// and line feed) as U+FFFD, bidirectional controls as their `\u202e` escape.
pub(super) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '/' => out.push_str("&#47;"),
            ':' => out.push_str("&#58;"),
            '=' => out.push_str("&#61;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            // Shown as its escape: raw (or as a reference) it would reorder
            // the text around it.
            c if crate::message::reorders_text(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to `n` characters (then `…`), escaped.
fn short(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => esc(&format!("{}…", text.get(..at).unwrap_or_default())),
        None => esc(text),
    }
}

const STYLE: &str = "
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#1d1d1f;background:#fff}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.8em 0 .5em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.totals{display:flex;flex-wrap:wrap;gap:.6em 1.6em;margin:.8em 0}.totals div{min-width:7em}
.totals b{display:block;font-size:1.6em;font-variant-numeric:tabular-nums}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:.25em .6em;border-bottom:1px solid #eee;vertical-align:top}
td.n,th.n{text-align:right}code{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.valid{fill:#2e7d32;background:#2e7d32}.repaired{fill:#f9a825;background:#f9a825}.rejected{fill:#c62828;background:#c62828}
.key span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;vertical-align:-.1em}
.bar{display:inline-block;height:.8em;min-width:1px;background:#5c6bc0}
svg text{font:12px system-ui,sans-serif;fill:#1d1d1f}svg .pct{fill:#555}
.note{color:#555}
@media (prefers-color-scheme:dark){body{background:#121212;color:#e8e8e8}svg text{fill:#e8e8e8}svg .pct,.note{fill:#aaa;color:#aaa}th,td{border-color:#333}h2{border-color:#444}}
";

/// The page.
pub(super) fn page(report: &Report, inputs: &[String]) -> String {
    let mut out = String::new();
    let t = report.total();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>callfix report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>callfix report</h1>\n<p class=\"note\">{}</p>\n",
        esc(&inputs.join(", "))
    );
    let _ = writeln!(
        out,
        "<div class=\"totals\" id=\"totals\">\
         <div>calls<b>{}</b></div><div>valid<b>{}</b></div>\
         <div>repaired<b>{}</b></div><div>rejected<b>{}</b></div>\
         <div>schema accuracy<b>{}</b></div><div>after callfix<b>{}</b></div></div>",
        t.calls,
        t.valid,
        t.repaired,
        t.rejected,
        percent(t.valid, t.calls),
        percent(t.valid + t.repaired, t.calls)
    );
    let mut notes = Vec::new();
    if report.broken_records() > 0 {
        notes.push(format!(
            "{} (no call read)",
            super::count(report.broken_records(), "broken record")
        ));
    }
    if report.unjudged() > 0 {
        notes.push(format!(
            "{} not judged (no tools in the record: pass --schemas)",
            super::count(report.unjudged(), "call")
        ));
    }
    for note in notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(&note));
    }
    out.push_str("<h2>Outcomes per model</h2>\n");
    out.push_str(
        "<p class=\"key\"><span class=\"valid\"></span>valid as sent\
         <span class=\"repaired\"></span>repaired<span class=\"rejected\"></span>rejected</p>\n",
    );
    chart(&mut out, report.by_model());
    out.push_str("<h2>Tools</h2>\n");
    counts_table(&mut out, "tool", report.by_tool());
    let named = |m: &BTreeMap<&'static str, u64>| -> Vec<(String, u64)> {
        m.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect()
    };
    breakdown(
        &mut out,
        "Repairs by kind",
        "repairs",
        "kind",
        named(report.repairs()),
    );
    let classes = report.rejections().iter();
    breakdown(
        &mut out,
        "Rejections by class",
        "rejections",
        "class",
        classes.map(|(c, n)| (c.name().to_owned(), *n)).collect(),
    );
    breakdown(
        &mut out,
        "Calls written in text, by family",
        "leaks",
        "family",
        named(report.leaks()),
    );
    let stops = report.cut_off_stops().iter();
    breakdown(
        &mut out,
        "Cut-off calls, by stop reason",
        "stops",
        "stop reason",
        stops.map(|(k, n)| (k.clone(), *n)).collect(),
    );
    examples(&mut out, report);
    out.push_str("</body>\n</html>\n");
    out
}

/// The bar chart: one group per model, its calls split valid / repaired /
/// rejected across the bar's full width (each model's shares, worst first),
/// its counts in the group's title and beside the bar.
fn chart(out: &mut String, by_model: &BTreeMap<String, Counts>) {
    const LABEL: u64 = 220;
    const BAR: u64 = 400;
    const ROW: u64 = 26;
    let rows = worst_first(by_model);
    if rows.is_empty() {
        out.push_str("<p class=\"note\">No calls.</p>\n");
        return;
    }
    let height = ROW * rows.len() as u64 + 4;
    let width = LABEL + BAR + 200;
    let _ = writeln!(
        out,
        "<svg id=\"chart\" role=\"img\" aria-label=\"outcomes per model\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\">"
    );
    for (i, (model, c)) in rows.iter().enumerate() {
        let y = ROW * i as u64 + 2;
        let name = esc(model);
        let _ = write!(
            out,
            "<g class=\"model\" data-model=\"{name}\" data-calls=\"{}\" data-valid=\"{}\" \
             data-repaired=\"{}\" data-rejected=\"{}\">\
             <title>{name}: {} calls, {} valid, {} repaired, {} rejected</title>\
             <text x=\"0\" y=\"{}\">{}</text>",
            c.calls,
            c.valid,
            c.repaired,
            c.rejected,
            c.calls,
            c.valid,
            c.repaired,
            c.rejected,
            y + 16,
            short(model, LABEL_CHARS)
        );
        let mut x = LABEL;
        let parts = [
            ("valid", c.valid),
            ("repaired", c.repaired),
            ("rejected", c.rejected),
        ];
        let mut left = BAR;
        for (k, (class, n)) in parts.iter().enumerate() {
            // Widths in whole pixels that add up to the bar: the last part
            // takes what is left.
            let w = if k == parts.len() - 1 {
                left
            } else {
                (BAR * n).checked_div(c.calls).unwrap_or(0)
            };
            left -= w.min(left);
            if *n == 0 {
                continue;
            }
            let _ = write!(
                out,
                "<rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"20\">\
                 <title>{class}: {n}</title></rect>"
            );
            x += w;
        }
        let _ = writeln!(
            out,
            "<text class=\"pct\" x=\"{}\" y=\"{}\">{} calls · {} → {}</text></g>",
            LABEL + BAR + 8,
            y + 16,
            c.calls,
            percent(c.valid, c.calls),
            percent(c.valid + c.repaired, c.calls)
        );
    }
    out.push_str("</svg>\n");
}

/// A table of counts, a row per name, worst first.
fn counts_table(out: &mut String, head: &str, map: &BTreeMap<String, Counts>) {
    let _ = writeln!(
        out,
        "<table id=\"{head}s\"><tr><th>{head}</th><th class=\"n\">calls</th>\
         <th class=\"n\">valid</th><th class=\"n\">repaired</th><th class=\"n\">rejected</th>\
         <th class=\"n\">schema accuracy</th><th class=\"n\">after callfix</th></tr>"
    );
    for (name, c) in worst_first(map) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td></tr>",
            esc(name),
            c.calls,
            c.valid,
            c.repaired,
            c.rejected,
            percent(c.valid, c.calls),
            percent(c.valid + c.repaired, c.calls)
        );
    }
    out.push_str("</table>\n");
}

/// A titled breakdown (name → count), most first, each with a bar of its
/// share of the largest; nothing when empty.
fn breakdown(out: &mut String, title: &str, id: &str, head: &str, mut items: Vec<(String, u64)>) {
    if items.is_empty() {
        return;
    }
    items.sort_by(|(a, x), (b, y)| y.cmp(x).then_with(|| a.cmp(b)));
    let most = items.first().map_or(1, |(_, n)| (*n).max(1));
    let _ = write!(
        out,
        "<h2>{}</h2>\n<table id=\"{id}\"><tr><th>{}</th><th class=\"n\">count</th><th></th></tr>\n",
        esc(title),
        esc(head)
    );
    for (name, n) in items {
        let share = 100 * n / most;
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{n}</td>\
             <td style=\"width:50%\"><span class=\"bar\" style=\"width:{share}%\"></span></td></tr>",
            esc(&name)
        );
    }
    out.push_str("</table>\n");
}

/// The most frequent error paths, each with the first call that showed it.
fn examples(out: &mut String, report: &Report) {
    let list = report.examples(EXAMPLES_SHOWN);
    if list.is_empty() {
        return;
    }
    out.push_str(
        "<h2>Most frequent errors</h2>\n<table id=\"examples\"><tr><th class=\"n\">calls</th>\
         <th>tool</th><th>path</th><th>class</th><th>first call, as sent</th></tr>\n",
    );
    for e in list {
        let path = super::shown_path(e);
        let _ = writeln!(
            out,
            "<tr><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            e.count,
            esc(&e.tool),
            esc(path),
            e.class.name(),
            esc(&e.call)
        );
    }
    out.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup_and_no_url() {
        let hostile = "<script>alert('x')</script> \"a\" & b http://e.com/x.png \u{7} \u{202e}é";
        let e = esc(hostile);
        for bad in ["<", ">", "\"", "'", "//", "http:", "=", "\u{7}", "\u{202e}"] {
            assert!(!e.contains(bad), "{bad} in {e}");
        }
        assert!(e.contains("&lt;script&gt;") && e.contains("&amp; b") && e.ends_with("\\u202eé"));
        assert_eq!(short("ééé", 2), "éé…");
    }
}
