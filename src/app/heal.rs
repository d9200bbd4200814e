//! `callfix heal`: conversations in, healed conversations out (one line per
//! record), one diagnostic per repaired or neutralised call, and per record
//! passed through unhealed. The work is the library's ([`crate::heal`]).

use std::io::{self, Write};

use crate::error::{Chain, Error};
use crate::heal::{Action, Counts, Healer, Report};
use crate::toolset::Toolset;

use super::cli::HealArgs;
use super::{Ctx, Ended, judge_options};

pub(crate) fn command(args: &HealArgs, ctx: &Ctx) -> anyhow::Result<Ended> {
    let options = judge_options(&args.judge);
    let given = if args.schemas.is_empty() {
        None
    } else {
        let registry = crate::registry::Registry::load(&args.schemas)?;
        Some(Toolset::new(registry).with_options(options.clone()))
    };
    let mut healer = Healer::new(given.as_ref()).with_options(options);
    if let Some(to) = args.to {
        healer = healer.to(to.0).map_err(|e| anyhow::anyhow!("--to: {e}"))?;
    }
    let inputs: Vec<String> = if args.files.is_empty() {
        vec!["-".to_owned()]
    } else {
        args.files.iter().map(|p| p.display().to_string()).collect()
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut total = Counts::default();
    let mut input_failed = false;
    for input in &inputs {
        let (name, reader) = super::open_input(input);
        let reader = match reader {
            Ok(reader) => reader,
            Err(e) => {
                input_failed = true;
                ctx.report("error:", &Chain(&e).to_string());
                continue;
            }
        };
        let mut say = |report: Report<'_>| say(ctx, name, &report);
        let counts = match healer.stream(reader, &mut out, &mut say) {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(Error::write(e).into()),
            Err(e) => {
                input_failed = true;
                ctx.report(
                    "error:",
                    &Chain(&Error::read(name.to_owned(), e)).to_string(),
                );
                continue;
            }
        };
        total.records += counts.records;
        total.neutralised += counts.neutralised;
        total.passed += counts.passed;
        total.schema_faults += counts.schema_faults;
    }
    out.flush().map_err(Error::write)?;
    Ok(
        if input_failed || total.passed > 0 || total.schema_faults > 0 {
            Ended::Trouble
        } else if total.neutralised > 0 {
            Ended::Findings
        } else {
            Ended::Clean
        },
    )
}

/// One diagnostic line: `FILE:LINE: messages[N] TOOL: repaired (…)`.
fn say(ctx: &Ctx, name: &str, report: &Report<'_>) {
    match report {
        Report::Passed { line, why } => {
            ctx.report(
                "error:",
                &format!("{name}:{line}: written as it came, not healed: {why}"),
            );
        }
        Report::NotCarried { line, what } => {
            ctx.report("converted:", &format!("{name}:{line}: {}", what.join("; ")));
        }
        Report::Call { line, call } => {
            let at = format!(
                "{name}:{line}: messages[{}] {:?}",
                call.message(),
                call.tool()
            );
            match call.action() {
                Action::Repaired => {
                    let what: Vec<String> = (call.verdict().repairs().iter())
                        .map(|r| match r.path.as_str() {
                            "" => r.kind.name().to_owned(),
                            path => format!("{path} {}", r.kind.name()),
                        })
                        .collect();
                    let what = if what.is_empty() {
                        "written as its provider requires".to_owned()
                    } else {
                        what.join(", ")
                    };
                    ctx.report("repaired:", &format!("{at}: {what}"));
                }
                Action::Neutralised => {
                    let said = call.verdict().message().unwrap_or_default();
                    ctx.report("neutralised:", &format!("{at}: {said}"));
                }
                _ => {}
            }
        }
    }
}
