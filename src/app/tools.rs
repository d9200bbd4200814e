//! `callfix tools`: the definitions a provider API expects.

use std::collections::BTreeMap;
use std::io::Write;

use callfix::error::{Chain, Error};
use callfix::registry::Lookup;
use callfix::tools::DescriptionError;
use callfix::tools::{description, description_files, parameters};

use super::cli::ToolsArgs;

/// `callfix tools`.
pub(crate) fn command(args: &ToolsArgs) -> anyhow::Result<super::Ended> {
    let registry = super::load_registry(&args.schemas)?;
    let vars = super::load_vars(&args.vars)?;
    let descriptions = description_files(&args.descriptions)?;
    let mut failed = false;
    let mut defs = Vec::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for name in registry.names() {
        let tool = match registry.lookup(name) {
            Lookup::Found(t) => t,
            Lookup::Broken(e) => {
                super::report("error:", &Chain(e).to_string());
                failed = true;
                continue;
            }
            Lookup::Unknown => continue,
        };
        let description = match description(tool, &descriptions, &vars) {
            Ok(d) => d,
            Err(DescriptionError::Template(errors)) => {
                for e in errors {
                    super::report("error:", &e.to_string());
                }
                failed = true;
                continue;
            }
            Err(e) => {
                super::report("error:", &Chain(&e).to_string());
                failed = true;
                continue;
            }
        };
        let exposed = args.provider.0.tool_name(name);
        if let Some(other) = names.insert(exposed.clone(), name.to_owned()) {
            super::report(
                "error:",
                &format!(
                    "tools \"{other}\" and \"{name}\" both become \"{exposed}\" for this provider"
                ),
            );
            failed = true;
        }
        defs.push(args.provider.0.tool_definition(
            &exposed,
            &description,
            parameters(tool, args.provider.0),
        ));
    }
    if failed {
        return Ok(super::Ended::Findings);
    }
    let payload = args.provider.0.tools_payload(defs);
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &payload)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(Error::write)?;
    Ok(super::Ended::Clean)
}
