//! The front door for programs: a set of tools, and one call checked against it.
//!
//! ```
//! use callfix::toolset::{Outcome, Toolset};
//! use serde_json::json;
//!
//! let tools = Toolset::from_schemas([(
//!     "read".to_owned(),
//!     json!({"type": "object", "properties": {"path": {"type": "string"},
//!            "offset": {"type": "integer"}}, "required": ["path"]}),
//! )]);
//! assert!(matches!(tools.check("read", json!({"path": "/a"})), Outcome::Valid { .. }));
//! match tools.check("read", json!({"path": "/a", "offset": "2"})) {
//!     Outcome::Repaired { args, .. } => assert_eq!(args, json!({"path": "/a", "offset": 2})),
//!     other => panic!("{other:?}"),
//! }
//! match tools.check("read", json!({})) {
//!     Outcome::Rejected { message, .. } => assert!(message.ends_with("path: Required")),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! A `Toolset` is immutable; [`Toolset::check`] never does loop detection (that
//! needs one state per conversation, which the stream filter keeps).

use std::path::Path;

use serde_json::Value;

use crate::message::{ArgError, Style};
use crate::provider::{self, Args};
use crate::registry::{Registry, SourceError};
use crate::repair::{Policy, Repair};
use crate::verdict::{self, Status};

/// Tools by name, with how calls to them are checked.
#[derive(Debug)]
pub struct Toolset {
    registry: Registry,
    style: Style,
    policy: Policy,
}

/// What became of one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The arguments validate as they are.
    Valid {
        /// The arguments, unchanged.
        args: Value,
    },
    /// The arguments validate after the repairs listed.
    Repaired {
        /// The repaired arguments.
        args: Value,
        /// Every change, in order.
        repairs: Vec<Repair>,
    },
    /// The call cannot be used.
    Rejected {
        /// What is wrong, path by path.
        errors: Vec<ArgError>,
        /// The one line for the model.
        message: String,
    },
}

impl Toolset {
    /// Tools from schemas in memory, by name. Nothing is read from the
    /// filesystem; a schema's `$ref` may point only inside itself.
    pub fn from_schemas(schemas: impl IntoIterator<Item = (String, Value)>) -> Self {
        Self::new(Registry::from_schemas(schemas))
    }

    /// Tools from a directory of `<tool>.json` schemas, or a provider's tool-list
    /// file; schemas are compiled when first needed.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, SourceError> {
        Registry::load(&[path.as_ref().to_owned()]).map(Self::new)
    }

    fn new(registry: Registry) -> Self {
        Toolset {
            registry,
            style: Style::default(),
            policy: Policy::default(),
        }
    }

    /// The same tools, with another message style (prefix, how many errors, how
    /// long each).
    pub fn with_style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }

    /// The same tools, with other repair settings (which kinds, how many rounds).
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Checks one call to `tool` with `arguments` (a JSON object, as sent).
    pub fn check(&self, tool: &str, arguments: Value) -> Outcome {
        let mut call = provider::bare_call(tool, String::new());
        call.args = Args::Value(arguments);
        call.args_as_text = false;
        self.judge(&mut call)
    }

    /// Checks one call to `tool` whose arguments are JSON text (as OpenAI sends
    /// them): the text may be salvaged (fences, trailing commas, …) as a repair.
    pub fn check_text(&self, tool: &str, arguments: &str) -> Outcome {
        let mut call = provider::bare_call(tool, arguments.to_owned());
        self.judge(&mut call)
    }

    fn judge(&self, call: &mut provider::Call) -> Outcome {
        let v = verdict::judge(&self.registry, call, &self.style, self.policy);
        match (v.status, v.args) {
            (Status::Valid, Some(args)) => Outcome::Valid { args },
            (Status::Repaired, Some(args)) => Outcome::Repaired {
                args,
                repairs: v.repairs,
            },
            _ => Outcome::Rejected {
                errors: v.errors,
                message: v.message.unwrap_or_default(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_in_memory_may_not_reach_files() {
        let tools = Toolset::from_schemas([(
            "t".to_owned(),
            json!({"properties": {"p": {"$ref": "/etc/passwd"}}}),
        )]);
        match tools.check("t", json!({"p": 1})) {
            Outcome::Rejected { message, .. } => assert!(message.contains("broken"), "{message}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_arguments_are_salvaged_and_unknown_tools_rejected() {
        let tools = Toolset::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas")).unwrap();
        match tools.check_text("glob", "```json\n{\"pattern\": \"*\"}\n```") {
            Outcome::Repaired { args, repairs } => {
                assert_eq!(args, json!({"pattern": "*"}));
                assert_eq!(repairs[0].kind.name(), "strip-fence");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            tools.check("nope", json!({})),
            Outcome::Rejected { .. }
        ));
    }
}
