//! Arguments given by position in call notation (`read('/a')`): the schema
//! names one only where it says which parameter the value means.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::schemas::Schemas;
use crate::registry::Tool;

/// A tool's top-level parameters, from every schema that applies at the root
/// (behind `$ref`, in `allOf`/`anyOf`/`oneOf`), each once, in schema order.
pub(crate) struct Parameters<'a> {
    required: Vec<&'a str>,
    properties: Vec<&'a str>,
}

impl<'a> Parameters<'a> {
    /// The parameters of `tool`.
    pub(crate) fn of(tool: &'a Tool) -> Self {
        let w = Schemas::new(tool).wanted(&Value::Null, &[]);
        Parameters {
            required: unique(w.required),
            properties: unique(w.properties),
        }
    }

    /// The parameter that the `count` values given by position mean, beside
    /// the arguments `named`: only one value, and either exactly one required
    /// parameter is not named, or none is and the tool has exactly one
    /// parameter, not named. Otherwise there is more than one reading, or
    /// none.
    ///
    /// A required parameter of one `anyOf` branch counts as required: a value
    /// that could mean either branch's is not named.
    pub(crate) fn for_positional(
        &self,
        named: &Map<String, Value>,
        count: usize,
    ) -> Option<&'a str> {
        if count != 1 {
            return None;
        }
        let mut missing = self
            .required
            .iter()
            .copied()
            .filter(|p| !named.contains_key(*p));
        match (missing.next(), missing.next()) {
            (Some(only), None) => Some(only),
            (Some(_), Some(_)) => None,
            (None, _) => match self.properties.as_slice() {
                [only] if !named.contains_key(*only) => Some(only),
                _ => None,
            },
        }
    }

    /// The names an example call shows: the required parameters, or else the
    /// declared ones, at most `max`; and whether more were left out.
    pub(crate) fn example(&self, max: usize) -> (&[&'a str], bool) {
        let all = if self.required.is_empty() {
            &self.properties
        } else {
            &self.required
        };
        let shown = all.get(..max.min(all.len())).unwrap_or_default();
        (shown, all.len() > shown.len())
    }
}

/// Each name once, in first-seen order (linear: a set beside the list).
fn unique(names: Vec<&str>) -> Vec<&str> {
    let mut seen = HashSet::new();
    names.into_iter().filter(|n| seen.insert(*n)).collect()
}
