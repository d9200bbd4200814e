//! `-f human`: a result for people, coloured when asked.

use std::io::{self, Write};

use owo_colors::OwoColorize;
use serde_json::Value;

use super::{Position, Printer};
use crate::kinds::Kind;
use crate::message::one_line;
use crate::provider::Call;
use crate::verdict::{Status, Verdict};

impl<W: Write> Printer<W> {
    /// `-f human`: every piece of text that came from the call (its name, id,
    /// arguments, repairs, errors) is written through [`one_line`], before any
    /// colour: each line printed is one line, and holds no control character a
    /// terminal would act on.
    pub(super) fn human(
        &mut self,
        at: Position,
        call: Option<&Call>,
        verdict: &Verdict,
    ) -> io::Result<()> {
        let colour = self.colour;
        let out = &mut self.out;
        let status = verdict.status.as_str();
        let status = match verdict.status {
            Status::Valid => paint(colour, &status, |s| s.green().to_string()),
            Status::Repaired => paint(colour, &status, |s| s.yellow().to_string()),
            Status::Rejected => paint(colour, &status, |s| s.red().to_string()),
        };
        let where_ = format!("#{}.{}", at.index, at.call);
        write!(
            out,
            "{} ",
            paint(colour, &where_, |s| s.dimmed().to_string())
        )?;
        match call {
            Some(c) => {
                // No name (a call cut off before it): said, not a blank.
                let name = match c.name.as_str() {
                    "" => "(no name)".into(),
                    name => one_line(name),
                };
                write!(
                    out,
                    "{} {status}",
                    paint(colour, &name, |s| s.bold().to_string())
                )?;
                if !c.id.is_null() {
                    let id = match &c.id {
                        Value::String(s) => format!("id={s}"),
                        other => format!("id={other}"),
                    };
                    let id = one_line(&id);
                    write!(out, " {}", paint(colour, &id, |s| s.dimmed().to_string()))?;
                }
                writeln!(out)?;
            }
            None => writeln!(out, "(record) {status}")?,
        }
        if let Some(args) = verdict.args() {
            let mut pretty = Vec::new();
            self.spellings.write_pretty(&mut pretty, args)?;
            for line in String::from_utf8_lossy(&pretty).lines() {
                writeln!(out, "    {}", one_line(line))?;
            }
        }
        for r in &verdict.repairs {
            let at = if r.path.is_empty() {
                String::new()
            } else {
                format!("{}: ", r.path)
            };
            let line = match (&r.from, &r.to) {
                // A removal: nothing to show after it.
                (from, _) if matches!(r.kind, Kind::DropPlaceholder | Kind::DropUnknown) => {
                    format!("~ {at}{} {from} (removed)", r.kind)
                }
                // A repair of the text (salvage, extraction): what was fixed, as text.
                (Value::String(text), Value::Null) => format!("~ {at}{}: {text}", r.kind),
                (from, to) => format!("~ {at}{} {from} → {to}", r.kind),
            };
            let line = one_line(&line);
            writeln!(
                out,
                "  {}",
                paint(colour, &line, |s| s.yellow().to_string())
            )?;
        }
        for e in &verdict.errors {
            let line = format!("✗ {}", e.line());
            let line = one_line(&line);
            writeln!(out, "  {}", paint(colour, &line, |s| s.red().to_string()))?;
        }
        let said = |m: &String| match verdict.errors.as_slice() {
            [only] => only.line() == *m,
            _ => false,
        };
        if let Some(m) = verdict.message.as_ref().filter(|m| !said(m)) {
            let line = format!("→ {m}");
            let line = one_line(&line);
            writeln!(
                out,
                "  {}",
                paint(colour, &line, |s| s.dimmed().to_string())
            )?;
        }
        Ok(())
    }
}

/// `text`, styled by `style` (an owo-colors style) when `on`.
fn paint<T: std::fmt::Display + ?Sized>(
    on: bool,
    text: &T,
    style: impl FnOnce(&T) -> String,
) -> String {
    if on { style(text) } else { text.to_string() }
}
