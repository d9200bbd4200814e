//! The options every constructor takes (`repair`, `maxErrors`, `maxChars`,
//! `prefix`, `maxRounds`), as the JSON text of the JavaScript object, turned
//! into the library's `filter::Options` (Python's keyword options, camelCased).

use serde_json::Value;

use callfix::filter::Options;
use callfix::{Enabled, Kind};

use crate::boundary::error;

/// The constructor's options, as given.
#[derive(Clone, Debug)]
pub(crate) struct Opts {
    repair: Enabled,
    max_errors: usize,
    max_chars: usize,
    prefix: String,
    max_rounds: usize,
}

impl Opts {
    /// Parses the options object (JSON text; `null` or empty: the defaults).
    pub(crate) fn parse(text: Option<&str>) -> napi::Result<Opts> {
        let defaults = Options::default();
        let mut opts = Opts {
            repair: Enabled::ALL,
            max_errors: defaults.style.max_errors,
            max_chars: defaults.style.max_chars,
            prefix: defaults.style.prefix.clone(),
            max_rounds: defaults.policy.max_rounds,
        };
        let value: Value = match text {
            None => return Ok(opts),
            Some(t) => serde_json::from_str(t).map_err(|e| error(format!("options: {e}")))?,
        };
        let map = match value {
            Value::Null => return Ok(opts),
            Value::Object(map) => map,
            _ => return Err(error("options: expected an object")),
        };
        for (key, value) in map {
            match key.as_str() {
                "repair" => opts.repair = repair_kinds(&value)?,
                "maxErrors" => opts.max_errors = bounded(&value, &key, 1, 65535)?,
                "maxChars" => opts.max_chars = bounded(&value, &key, 10, 65535)?,
                "maxRounds" => opts.max_rounds = bounded(&value, &key, 1, 100)?,
                "prefix" => {
                    opts.prefix = value
                        .as_str()
                        .ok_or_else(|| error("prefix: expected a string"))?
                        .to_owned();
                }
                other => {
                    return Err(error(format!(
                        "unknown option '{other}' (options: repair, maxErrors, maxChars, \
                         prefix, maxRounds)"
                    )));
                }
            }
        }
        Ok(opts)
    }

    /// The library's options, with loop detection after `loop_limit` repeats
    /// (0: none).
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
}

fn bounded(value: &Value, key: &str, min: usize, max: usize) -> napi::Result<usize> {
    value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| error(format!("{key}: expected {min} to {max}, got {value}")))
}

/// `"all"`, `"none"`, a comma-separated string, or an array of kind names.
fn repair_kinds(value: &Value) -> napi::Result<Enabled> {
    if let Some(spec) = value.as_str() {
        return Enabled::parse(spec).map_err(|e| error(e.to_string()));
    }
    let Some(names) = value.as_array() else {
        return Err(error(
            "repair: expected \"all\", \"none\" or an array of repair kinds",
        ));
    };
    let mut kinds = Vec::new();
    for name in names {
        let Some(name) = name.as_str() else {
            return Err(error("repair: expected an array of repair kind names"));
        };
        match name {
            "all" => return Ok(Enabled::ALL),
            "none" => {}
            _ => kinds.push(
                Kind::from_name(name)
                    .ok_or_else(|| error(callfix::UnknownKind(name.to_owned()).to_string()))?,
            ),
        }
    }
    Ok(Enabled::only(kinds))
}
