//! The module's functions: `render` (a description template) and `tools` (a
//! provider's tool definitions for a toolset), as `callfix render` and
//! `callfix tools` give them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::prelude::*;

use callfix::error::Chain;

use crate::boundary::{catch, error};
use crate::to_python::to_py;
use crate::toolset::Toolset;

/// Renders a description template: `<NAME>` placeholders from `vars` (over the
/// built-ins `PLATFORM`, `OS_VERSION`, `DATE`, …). Every unknown placeholder is
/// reported at once in the `CallfixError`.
#[pyfunction]
#[pyo3(signature = (template, vars = None))]
pub(crate) fn render(template: &str, vars: Option<BTreeMap<String, String>>) -> PyResult<String> {
    let mut all = callfix::render::builtins();
    all.extend(vars.unwrap_or_default());
    catch(|| {
        callfix::render::render(template, "<template>", &all, callfix::render::Syntax::Angle)
            .map(|r| r.text)
            .map_err(|errors| {
                let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
                error(all.join("; "))
            })
    })
}

/// The tool definitions a provider's API expects for every tool of `toolset`:
/// the same payload as `callfix tools --provider PROVIDER [--openai-strict]`.
#[pyfunction]
#[pyo3(signature = (toolset, provider = "openai", descriptions = None, vars = None, openai_strict = false))]
pub(crate) fn tools<'py>(
    py: Python<'py>,
    toolset: &Toolset,
    provider: &str,
    descriptions: Option<PathBuf>,
    vars: Option<BTreeMap<String, String>>,
    openai_strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let provider = callfix::provider::by_name(provider).ok_or_else(|| {
        let names: Vec<&str> = callfix::provider::PROVIDERS
            .iter()
            .map(|p| p.name())
            .collect();
        error(format!(
            "unknown provider \"{provider}\" (known: {})",
            names.join(", ")
        ))
    })?;
    let files = match descriptions {
        Some(dir) => {
            callfix::tools::description_files(&dir).map_err(|e| error(Chain(&e).to_string()))?
        }
        None => BTreeMap::new(),
    };
    let mut all = callfix::render::builtins();
    all.extend(vars.unwrap_or_default());
    if openai_strict && !provider.has_strict_mode() {
        return Err(error(format!(
            "openai_strict applies to provider \"openai\" or \"openai-responses\", not \"{}\"",
            provider.name()
        )));
    }
    let payload = catch(|| {
        callfix::tools::payload(&toolset.registry, provider, &files, &all, openai_strict).map_err(
            |problems| {
                let all: Vec<String> = problems.iter().map(|p| Chain(p).to_string()).collect();
                error(all.join("; "))
            },
        )
    })?;
    to_py(py, &payload.value)
}
