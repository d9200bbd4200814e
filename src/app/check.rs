//! `callfix check`: findings written in the format asked for, and the exit code
//! they decide.

use std::io::{self, Write};

use owo_colors::OwoColorize;

use crate::check::{Calls, Descriptions, Finding, Inputs, Report, Rule, Severity, check, report};
use crate::error::Error;
use crate::message::plural;

use super::Ctx;
use super::cli::{CheckArgs, CheckFormat};
use super::colour::{Colours, Stream};

/// `callfix check`.
pub(crate) fn command(args: &CheckArgs, ctx: &Ctx) -> anyhow::Result<super::Ended> {
    if args.openai_strict && !args.provider.is_some_and(|p| p.0.has_strict_mode()) {
        super::terminal::usage_error(
            "--openai-strict needs --provider openai or --provider openai-responses",
        );
    }
    // A config that cannot be used is the one finding: what it would have set
    // is unknown, so nothing else is checked.
    if let Some(e) = ctx.config.failed() {
        let found = Report {
            findings: vec![Finding::new(
                &e.file,
                e.at,
                Rule::ConfigInvalid,
                e.message.clone(),
            )],
            ..Report::default()
        };
        write(&found, format(args.format), ctx.colours).map_err(Error::write)?;
        let _ = writeln!(io::stderr().lock(), "callfix: check: 1 error in the config");
        return Ok(super::Ended::Findings);
    }
    let registry = super::load_registry(&args.schemas)?;
    let vars = super::load_vars(&args.vars, ctx)?;
    let dir = crate::tools::descriptions_dir(args.descriptions.as_deref(), &args.schemas.schemas);
    let mut calls = Vec::new();
    for path in &args.calls {
        calls.push(if path.as_os_str() == "-" {
            Calls {
                name: "<stdin>".into(),
                reader: Box::new(io::stdin().lock()),
            }
        } else {
            let name = path.display().to_string();
            let file = std::fs::File::open(path).map_err(|e| Error::read(name.clone(), e))?;
            Calls {
                name,
                reader: Box::new(file),
            }
        });
    }
    let found = check(Inputs {
        registry: &registry,
        sources: &args.schemas.schemas,
        vars: &vars,
        descriptions: Descriptions {
            dir: &dir,
            given: args.descriptions.is_some(),
        },
        calls,
        provider: args.provider.map(|p| p.0),
        strict: args.openai_strict,
    })?;
    write(&found, format(args.format), ctx.colours).map_err(Error::write)?;
    let (errors, warnings) = (found.errors(), found.warnings());
    let _ = writeln!(
        io::stderr().lock(),
        "callfix: check: {} {}{}: {errors} {}, {warnings} {}",
        found.tools,
        plural(found.tools as u64, "tool"),
        if args.calls.is_empty() {
            String::new()
        } else {
            format!(", {} {}", found.calls, plural(found.calls, "call"))
        },
        plural(errors as u64, "error"),
        plural(warnings as u64, "warning")
    );
    Ok(if errors > 0 || (args.deny_warnings && warnings > 0) {
        super::Ended::Findings
    } else {
        super::Ended::Clean
    })
}

/// `auto` decided: `github` under GitHub Actions, else `human`.
fn format(asked: CheckFormat) -> CheckFormat {
    match asked {
        CheckFormat::Auto if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") => {
            CheckFormat::Github
        }
        CheckFormat::Auto => CheckFormat::Human,
        other => other,
    }
}

fn write(found: &Report, format: CheckFormat, colours: Colours) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    if format == CheckFormat::Sarif {
        let log = report::sarif(
            &found.findings,
            super::cli::VERSION,
            env!("CARGO_PKG_REPOSITORY"),
        );
        serde_json::to_writer_pretty(&mut stdout, &log)?;
        writeln!(stdout)?;
        return stdout.flush();
    }
    for f in &found.findings {
        let line = match format {
            CheckFormat::Json => report::json(f),
            CheckFormat::Github => report::github(f),
            _ => {
                let severity = f.severity.to_string();
                let severity = match f.severity {
                    Severity::Error => {
                        colours.paint(Stream::Stdout, &severity, |s| s.red().to_string())
                    }
                    Severity::Warning => {
                        colours.paint(Stream::Stdout, &severity, |s| s.yellow().to_string())
                    }
                };
                report::human(f, &severity)
            }
        };
        writeln!(stdout, "{line}")?;
    }
    stdout.flush()
}
