//! `callfix tools`: the definitions a provider API expects.

use std::io::Write;

use crate::error::{Chain, Error};
use crate::tools::{DescriptionError, PayloadError, description_files, payload};

use super::cli::ToolsArgs;

/// `callfix tools`: the payload on stdout, or every problem on stderr.
pub(crate) fn command(args: &ToolsArgs, ctx: &super::Ctx) -> anyhow::Result<super::Ended> {
    let provider = args.provider.0;
    if args.openai_strict && !provider.has_strict_mode() {
        super::terminal::usage_error(&format!(
            "--openai-strict applies to --provider openai or openai-responses, not {}",
            provider.name()
        ));
    }
    let registry = super::load_registry(&args.schemas)?;
    let vars = super::load_vars(&args.vars, ctx)?;
    let dir = crate::tools::descriptions_dir(args.descriptions.as_deref(), &args.schemas.schemas);
    let descriptions = description_files(&dir)?;
    let payload = match payload(
        &registry,
        provider,
        &descriptions,
        &vars,
        args.openai_strict,
    ) {
        Ok(p) => p,
        Err(problems) => {
            for problem in &problems {
                match problem {
                    // Each placeholder error on its own line, as `render` says them.
                    PayloadError::Description(DescriptionError::Template(errors)) => {
                        for e in errors {
                            ctx.report("error:", &e.to_string());
                        }
                    }
                    other => ctx.report("error:", &Chain(other).to_string()),
                }
            }
            return Ok(super::Ended::Findings);
        }
    };
    for tool in &payload.undescribed {
        ctx.report(
            "warning:",
            &format!(
                "tool \"{tool}\" has no description: it is written as \"\", and the model sees only its name and parameters (add one to its schema, or {})",
                dir.join(format!("{tool}.txt")).display()
            ),
        );
    }
    // A keyword rewritten the dialect's way means the same: nothing to say.
    for (tool, note) in payload
        .stripped
        .iter()
        .filter(|(_, n)| n.rewritten.is_none())
    {
        ctx.report(
            "warning:",
            &format!(
                "tool \"{tool}\": {} at {} stripped: {} does not take it (callfix still validates it)",
                note.keyword,
                note.place(),
                provider
                    .dialect(args.openai_strict)
                    .map_or("", |d| d.name()),
            ),
        );
    }
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &payload.value)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(Error::write)?;
    Ok(super::Ended::Clean)
}
