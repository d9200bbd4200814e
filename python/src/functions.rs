//! The module's functions: `render` (a description template) and `tools` (a
//! provider's tool definitions for a toolset), as `callfix render` and
//! `callfix tools` give them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::prelude::*;

use callfix::error::Chain;

use crate::boundary::{catch, error};
use crate::to_json::json_of;
use crate::to_python::to_py;
use crate::toolset::Toolset;

/// Renders a description template: `<NAME>` placeholders from `vars` (over the
/// built-ins `PLATFORM`, `OS_VERSION`, `DATE`, …). Every unknown placeholder is
/// reported at once in the `CallfixError`.
#[pyfunction]
#[pyo3(signature = (template, vars = None))]
pub(crate) fn render(
    template: &str,
    vars: Option<BTreeMap<String, Bound<'_, PyAny>>>,
) -> PyResult<String> {
    let mut all = callfix::render::builtins();
    all.extend(var_texts(vars)?);
    catch(|| {
        callfix::render::render(template, "<template>", &all, callfix::render::Syntax::Angle)
            .map(|r| r.text)
            .map_err(|errors| {
                let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
                error(all.join("; "))
            })
    })
}

/// Variable values as `--vars FILE` takes them: strings, and numbers as
/// written; anything else raises `CallfixError` naming the variable.
fn var_texts(vars: Option<BTreeMap<String, Bound<'_, PyAny>>>) -> PyResult<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (name, value) in vars.unwrap_or_default() {
        let text = callfix::render::var_text(json_of(&value)?).map_err(|kind| {
            error(format!(
                "vars: \"{name}\" is {kind}, not a string or number"
            ))
        })?;
        out.push((name, text));
    }
    Ok(out)
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
    vars: Option<BTreeMap<String, Bound<'py, PyAny>>>,
    openai_strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let provider = callfix::provider::Provider::from_name(provider).ok_or_else(|| {
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
    all.extend(var_texts(vars)?);
    if openai_strict && !provider.has_strict_mode() {
        return Err(error(format!(
            "openai_strict applies to provider \"openai\" or \"openai-responses\", not \"{}\"",
            provider.name()
        )));
    }
    let payload = catch(|| {
        callfix::tools::payload(
            toolset.inner.registry(),
            provider,
            &files,
            &all,
            openai_strict,
        )
        .map_err(|problems| {
            let all: Vec<String> = problems.iter().map(|p| Chain(p).to_string()).collect();
            error(all.join("; "))
        })
    })?;
    to_py(py, &payload.value)
}
