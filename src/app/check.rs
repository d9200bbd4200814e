//! `callfix check`: findings printed for people or as JSON.

use std::io::{self, Write};

use owo_colors::OwoColorize;

use callfix::check::{Inputs, Severity, findings};
use callfix::error::Error;

use super::cli::{CheckArgs, CheckFormat};
use super::colour::{Stream, paint};

/// `callfix check`.
pub(crate) fn command(args: &CheckArgs) -> anyhow::Result<super::Ended> {
    super::set_color(args.color);
    if args.openai_strict && !args.provider.is_some_and(|p| p.0.has_strict_mode()) {
        super::terminal::usage_error(
            "--openai-strict needs --provider openai or --provider openai-responses",
        );
    }
    let registry = super::load_registry(&args.schemas)?;
    let vars = super::load_vars(&args.vars)?;
    let found = findings(&Inputs {
        registry: &registry,
        sources: &args.schemas.schemas,
        vars: &vars,
        descriptions: &args.descriptions,
        calls: &args.calls,
        provider: args.provider.map(|p| p.0),
        strict: args.openai_strict,
    })?;
    let mut stdout = io::stdout().lock();
    for f in &found {
        let line = match args.format {
            CheckFormat::Json => serde_json::to_string(f).map_err(|e| Error::write(e.into()))?,
            CheckFormat::Human => {
                let severity = f.severity.to_string();
                let severity = match f.severity {
                    Severity::Error => paint(Stream::Stdout, &severity, |s| s.red().to_string()),
                    Severity::Warning => {
                        paint(Stream::Stdout, &severity, |s| s.yellow().to_string())
                    }
                };
                format!("{}:{}: {severity}: {}", f.file, f.line, f.message)
            }
        };
        writeln!(stdout, "{line}").map_err(Error::write)?;
    }
    stdout.flush().map_err(Error::write)?;
    let errors = found
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = found.len() - errors;
    let _ = writeln!(
        io::stderr().lock(),
        "callfix: check: {errors} {}, {warnings} {}",
        callfix::message::plural(errors as u64, "error"),
        callfix::message::plural(warnings as u64, "warning")
    );
    Ok(if errors > 0 || (args.deny_warnings && warnings > 0) {
        super::Ended::Findings
    } else {
        super::Ended::Clean
    })
}
