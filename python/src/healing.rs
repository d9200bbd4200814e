//! `callfix.heal`: a conversation (an OpenAI chat or Anthropic messages
//! request body) made acceptable again, as `callfix heal` makes it
//! (`callfix::heal::Healer`), with one `Result` per assistant tool call.

use pyo3::prelude::*;
use pyo3::types::PyList;

use callfix::heal::Healer;
use callfix::output::{Position, Sink};
use callfix::provider::Provider;

use crate::boundary::{error, shielded};
use crate::result::{CheckResult, Collect, Line};
use crate::to_json::text_of;
use crate::to_python::to_py;
use crate::toolset::Toolset;

/// A healed conversation: the new request body, one `Result` per assistant
/// tool call of the history (in order), and how many calls were neutralised.
#[pyclass(frozen, module = "callfix", name = "Healed")]
pub(crate) struct Healed {
    /// The healed request body (a new dict; the input is not changed).
    #[pyo3(get)]
    request: Py<PyAny>,
    /// One `Result` per assistant tool call of the history, in order.
    #[pyo3(get)]
    results: Py<PyList>,
    /// How many calls were neutralised.
    #[pyo3(get)]
    neutralised: usize,
    /// With `to`: each piece of content the other provider has no place for,
    /// and what became of it (what `callfix heal --to` says on stderr).
    #[pyo3(get)]
    not_carried: Vec<String>,
}

#[pymethods]
impl Healed {
    /// Whether no call was neutralised.
    #[getter]
    fn ok(&self) -> bool {
        self.neutralised == 0
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Healed(results={}, neutralised={})",
            self.results.bind(py).len(),
            self.neutralised
        )
    }
}

/// Heals `request` (a mapping, or its JSON text) against `toolset`, or its own
/// `tools` when none is given; `to` ("openai" or "anthropic") writes it as
/// that provider's request body.
#[pyfunction]
#[pyo3(signature = (request, toolset = None, *, to = None))]
pub(crate) fn heal(
    py: Python<'_>,
    request: &Bound<'_, PyAny>,
    toolset: Option<PyRef<'_, Toolset>>,
    to: Option<&str>,
) -> PyResult<Healed> {
    let text = text_of(request)?;
    let to = match to {
        None => None,
        Some(name) => Some(Provider::from_name(name).ok_or_else(|| {
            error(format!(
                "to={name:?}: heal writes \"openai\" or \"anthropic\""
            ))
        })?),
    };
    let tools = toolset.as_ref().map(|t| &t.inner);
    let healed = py.detach(|| {
        shielded(&text, |_| {
            let mut healer = Healer::new(tools);
            if let Some(to) = to {
                healer = healer.to(to).map_err(|e| error(e.to_string()))?;
            }
            healer.heal(&text).map_err(|e| error(e.to_string()))
        })
    })?;
    let request = to_py(py, healed.request())?.unbind();
    let spellings = healed.spellings().clone();
    let neutralised = healed.neutralised();
    let not_carried = healed.not_carried().to_vec();
    let results = PyList::empty(py);
    for (i, one) in healed.into_calls().into_iter().enumerate() {
        let at = Position {
            index: 0,
            call: i,
            line: 1,
            offset: 0,
        };
        let line = match one.into_parts() {
            (Some(call), verdict) => Line::new(at, call, verdict, spellings.clone()),
            (None, verdict) => {
                let mut collect = Collect::default();
                collect.begin_record(spellings.clone());
                let _ = collect.record(at, verdict);
                match collect.lines.pop() {
                    Some(line) => line,
                    None => continue,
                }
            }
        };
        results.append(Py::new(py, CheckResult::new(line)?)?)?;
    }
    Ok(Healed {
        request,
        results: results.unbind(),
        neutralised,
        not_carried,
    })
}
