//! `callfix tools`: the definitions a provider API expects.

use std::io::Write;

use callfix::error::{Chain, Error};
use callfix::tools::{DescriptionError, PayloadError, description_files, payload};

use super::cli::ToolsArgs;

/// `callfix tools`: the payload on stdout, or every problem on stderr.
pub(crate) fn command(args: &ToolsArgs) -> anyhow::Result<super::Ended> {
    let registry = super::load_registry(&args.schemas)?;
    let vars = super::load_vars(&args.vars)?;
    let descriptions = description_files(&args.descriptions)?;
    let payload = match payload(&registry, args.provider.0, &descriptions, &vars) {
        Ok(p) => p,
        Err(problems) => {
            for problem in &problems {
                match problem {
                    // Each placeholder error on its own line, as `render` says them.
                    PayloadError::Description(DescriptionError::Template(errors)) => {
                        for e in errors {
                            super::report("error:", &e.to_string());
                        }
                    }
                    other => super::report("error:", &Chain(other).to_string()),
                }
            }
            return Ok(super::Ended::Findings);
        }
    };
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &payload)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(Error::write)?;
    Ok(super::Ended::Clean)
}
