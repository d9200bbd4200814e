//! `callfix report`: recorded traffic in, a summary of how well each model
//! called its tools out (a table, or `--format json`; `--html FILE` a page
//! besides). The counting is the library's ([`crate::report::Report`]), fed
//! by the filter as its sink; this module reads the inputs and presents it.

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};

use crate::error::{Chain, Error};
use crate::filter::{Counts, Filter, Input, Options, StreamError, Summary};
use crate::registry::Registry;
use crate::report::Report;
use crate::report::own::{OwnTools, Tally};

use super::cli::{ReportArgs, ReportFormat, SchemaArgs};
use super::{Ctx, Ended, judge_options, load_registry};

mod html;
mod progress;
mod table;

/// What the inputs are read into: the report, or the progress line passing
/// everything on to it.
trait Fed: Tally {
    /// The input read next, and the model of its calls whose record names
    /// none.
    fn next_input(&mut self, name: &str, label: &str);
    /// Something is about to be said on stderr.
    fn interrupt(&mut self) {}
}

impl Fed for Report {
    fn next_input(&mut self, _name: &str, label: &str) {
        self.set_label(label);
    }
}

/// `n ÷ of` as a percentage with one decimal, `-` for none.
/// `n` of `what`, plural but for one (`1 broken record`, `2 calls`).
fn count(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// An example's error path as shown: `(root)` for an error at the root.
fn shown_path(example: &crate::report::Example) -> &str {
    if example.path.is_empty() {
        "(root)"
    } else {
        &example.path
    }
}

fn percent(n: u64, of: u64) -> String {
    if of == 0 {
        "-".to_owned()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / of as f64)
    }
}

/// The rows of `map`, lowest accuracy after callfix first (then by name).
fn worst_first(map: &BTreeMap<String, Counts>) -> Vec<(&String, &Counts)> {
    let mut rows: Vec<(&String, &Counts)> = map.iter().collect();
    rows.sort_by(|(a, x), (b, y)| {
        let after = |c: &Counts| (c.valid + c.repaired) as f64 / c.calls.max(1) as f64;
        after(x).total_cmp(&after(y)).then_with(|| a.cmp(b))
    });
    rows
}

/// What every call is judged against.
enum Tools {
    /// `--schemas`: the same tools for every record.
    Given(Box<Registry>),
    /// Each record's own `tools`.
    Own(OwnTools),
}

impl Tools {
    fn stream<R: io::Read, S: Tally>(
        &mut self,
        options: &Options,
        input: Input<'_, R>,
        report: &mut S,
        summary: &mut Summary,
    ) -> Result<u64, StreamError> {
        match self {
            Tools::Given(registry) => Filter { registry, options }.stream(input, report, summary),
            Tools::Own(own) => own.stream(options, input, report, summary),
        }
    }
}

/// One run over the inputs.
struct Run<'a> {
    tools: &'a mut Tools,
    options: &'a Options,
    summary: &'a mut Summary,
    ctx: &'a Ctx,
}

impl Run<'_> {
    /// Reads every input into `sink`; true when one could not be read.
    fn read<S: Fed>(&mut self, inputs: &[String], labels: &[String], sink: &mut S) -> bool {
        let mut failed = false;
        let mut next_index = 0;
        for (i, input) in inputs.iter().enumerate() {
            let (name, reader) = super::open_input(input);
            sink.next_input(name, labels.get(i).map_or(name, String::as_str));
            let reader = match reader {
                Ok(reader) => reader,
                Err(e) => {
                    failed = true;
                    sink.interrupt();
                    self.ctx.report("error:", &Chain(&e).to_string());
                    continue;
                }
            };
            let input = Input {
                first_index: next_index,
                ..Input::new(reader, name)
            };
            match self.tools.stream(self.options, input, sink, self.summary) {
                Ok(next) => next_index = next,
                Err(e) => {
                    failed = true;
                    sink.interrupt();
                    self.ctx.report("error:", &format!("{name}: {}", Chain(&e)));
                }
            }
        }
        failed
    }
}

pub(crate) fn command(args: &ReportArgs, ctx: &Ctx) -> anyhow::Result<Ended> {
    let mut told = 0;
    let mut tools = if args.schemas.is_empty() {
        Tools::Own(OwnTools::default())
    } else {
        let registry = load_registry(&SchemaArgs {
            schemas: args.schemas.clone(),
            ref_map: args.ref_map.clone(),
        })?;
        told = ctx.warnings(&registry, 0);
        Tools::Given(Box::new(registry))
    };
    let options = judge_options(&args.judge);
    let inputs: Vec<String> = if args.files.is_empty() {
        vec!["-".to_owned()]
    } else {
        args.files.iter().map(|p| p.display().to_string()).collect()
    };
    if args.label.len() > inputs.len() {
        anyhow::bail!(
            "--label: {} labels for {} inputs (one per FILE, in order)",
            args.label.len(),
            inputs.len()
        );
    }
    let mut report = Report::default();
    // The filter's own counts: its loop memory and broken schemas.
    let mut summary = Summary::default().without_per_tool();
    let mut run = Run {
        tools: &mut tools,
        options: &options,
        summary: &mut summary,
        ctx,
    };
    let input_failed = if io::stderr().is_terminal() {
        let mut progress = progress::Progress::new(&mut report, io::stderr(), progress::EVERY);
        let failed = run.read(&inputs, &args.label, &mut progress);
        progress.finish();
        failed
    } else {
        run.read(&inputs, &args.label, &mut report)
    };
    if let Tools::Given(registry) = &tools {
        ctx.warnings(registry, told);
    }
    for said in report.diagnostics() {
        ctx.report("error:", said);
    }
    let text = match args.format {
        ReportFormat::Json => format!("{}\n", report.to_json()),
        ReportFormat::Human => table::table(&report, ctx.colours),
    };
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(Error::write)?;
    if let Some(path) = &args.html {
        let page = html::page(&report, &inputs);
        if let Err(error) = std::fs::write(path, page) {
            let why = crate::error::io_reason(&error);
            ctx.report(
                "error:",
                &format!("--html: cannot write {}: {why}", path.display()),
            );
            return Ok(Ended::Trouble);
        }
    }
    Ok(if input_failed || summary.schema_faults() > 0 {
        Ended::Trouble
    } else {
        Ended::Clean
    })
}
