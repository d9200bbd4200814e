//! `_leaks`: the tool calls a model wrote into its text, for the LiteLLM
//! guardrail (`callfix/litellm.py`), which turns them into real `tool_calls`.
//! The same search `check_record` runs on an assistant message with no calls
//! of its own (`callfix::provider::extract`), so the calls come in the order
//! `check_record` gives their results.

use std::collections::HashSet;

use pyo3::prelude::*;
use serde_json::{Map, Value};

use callfix::provider::{Extracted, extract};

use crate::boundary::catch;

/// A call found in text: its tool name, its syntax's family and its markup.
type Found = (String, String, String);

/// The calls found written into `text`, each as `(name, family, markup)` in
/// order, and `text` with each call's markup taken out (the rest exactly as
/// written). Only calls to a tool in `names` count where the syntax has no
/// sentinel of its own, as `check_record` reads them.
#[pyfunction]
pub(crate) fn _leaks(
    py: Python<'_>,
    text: String,
    names: Vec<String>,
) -> PyResult<(Vec<Found>, String)> {
    py.detach(move || catch(|| Ok(leaks(text, &names))))
}

fn leaks(text: String, names: &[String]) -> (Vec<Found>, String) {
    let declared: HashSet<&str> = names.iter().map(String::as_str).collect();
    let is_declared = |name: &str| declared.contains(name);
    let mut message = Map::new();
    message.insert("role".into(), Value::String("assistant".into()));
    message.insert("content".into(), Value::String(text.clone()));
    let Extracted::Calls(calls) = extract(Value::Object(message), Some(&is_declared)) else {
        return (Vec::new(), text);
    };
    let mut found = Vec::with_capacity(calls.len());
    let mut clean = String::with_capacity(text.len());
    let mut at = 0;
    for call in &calls {
        let Some(leak) = call.leaked() else { continue };
        let markup = leak.markup();
        // Each markup stands in the text after the one before it; one that
        // cannot be found there (never expected) leaves the text as it is.
        let rest = text.get(at..).unwrap_or_default();
        if let Some(start) = rest.find(markup).filter(|_| !markup.is_empty()) {
            clean.push_str(rest.get(..start).unwrap_or_default());
            at += start + markup.len();
        }
        found.push((
            call.name().to_owned(),
            leak.family().to_owned(),
            markup.to_owned(),
        ));
    }
    clean.push_str(text.get(at..).unwrap_or_default());
    (found, clean)
}

/// The result text of a rejected call re-asked with `{}` for its arguments:
/// the instruction, then what was sent (the library's words, as `callfix
/// --to` and `callfix heal` write them).
#[pyfunction]
pub(crate) fn _with_arguments_sent(instruction: &str, sent: &str) -> String {
    callfix::heal::with_arguments_sent(instruction, sent)
}
