//! The keyword options every constructor takes (`repair`, `max_errors`,
//! `max_chars`, `prefix`, `max_rounds`): parsed from Python, turned into the
//! library's `filter::Options`, and back into a dict for pickling.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use callfix::filter::Options;
use callfix::{Enabled, Kind};

use crate::boundary::error;

/// The keyword options every constructor takes, as given (kept for pickling).
#[derive(Clone, Debug)]
pub(crate) struct Opts {
    repair: Enabled,
    max_errors: usize,
    max_chars: usize,
    prefix: String,
    max_rounds: usize,
}

impl Opts {
    pub(crate) fn parse(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Opts> {
        let defaults = Options::default();
        let mut opts = Opts {
            repair: Enabled::ALL,
            max_errors: defaults.style.max_errors,
            max_chars: defaults.style.max_chars,
            prefix: defaults.style.prefix.clone(),
            max_rounds: defaults.policy.max_rounds,
        };
        let Some(kwargs) = kwargs else {
            return Ok(opts);
        };
        for (key, value) in kwargs.iter() {
            let key: String = key.extract()?;
            match key.as_str() {
                "repair" => opts.repair = repair_kinds(&value)?,
                "max_errors" => opts.max_errors = bounded(&value, &key, 1, 65535)?,
                "max_chars" => opts.max_chars = bounded(&value, &key, 10, 65535)?,
                "max_rounds" => opts.max_rounds = bounded(&value, &key, 1, 100)?,
                "prefix" => opts.prefix = value.extract()?,
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected keyword argument '{other}' (options: repair, max_errors, \
                         max_chars, prefix, max_rounds)"
                    )));
                }
            }
        }
        Ok(opts)
    }

    pub(crate) fn options(&self, loop_limit: u32) -> Options {
        let mut options = Options::default();
        options.style.prefix.clone_from(&self.prefix);
        options.style.max_errors = self.max_errors;
        options.style.max_chars = self.max_chars;
        options.policy.enabled = self.repair;
        options.policy.max_rounds = self.max_rounds;
        options.loop_limit = loop_limit;
        options
    }

    pub(crate) fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let kinds: Vec<&str> = Kind::ALL
            .iter()
            .copied()
            .filter(|k| self.repair.has(*k))
            .map(Kind::name)
            .collect();
        d.set_item("repair", kinds)?;
        d.set_item("max_errors", self.max_errors)?;
        d.set_item("max_chars", self.max_chars)?;
        d.set_item("prefix", &self.prefix)?;
        d.set_item("max_rounds", self.max_rounds)?;
        Ok(d)
    }
}

fn bounded(value: &Bound<'_, PyAny>, key: &str, min: usize, max: usize) -> PyResult<usize> {
    let n: i64 = value.extract()?;
    usize::try_from(n)
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| error(format!("{key}: expected {min} to {max}, got {n}")))
}

/// `"all"`, `"none"`, a comma-separated string, or a list of kind names.
fn repair_kinds(value: &Bound<'_, PyAny>) -> PyResult<Enabled> {
    if let Ok(spec) = value.extract::<String>() {
        return Enabled::parse(&spec).map_err(|e| error(e.to_string()));
    }
    let names: Vec<String> = value.extract().map_err(|_| {
        PyTypeError::new_err("repair: expected \"all\", \"none\" or a list of repair kinds")
    })?;
    let mut kinds = Vec::new();
    for name in names {
        match name.as_str() {
            "all" => return Ok(Enabled::ALL),
            "none" => {}
            _ => kinds.push(
                Kind::from_name(&name)
                    .ok_or_else(|| error(callfix::UnknownKind(name.clone()).to_string()))?,
            ),
        }
    }
    Ok(Enabled::only(kinds))
}
