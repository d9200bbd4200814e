//! Every kind of finding `check` makes, with its stable id (what `--format json`
//! writes as `rule`, SARIF as `ruleId`, and people put in their notes), its
//! severity and one line on what it predicts.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
/// How bad a finding is.
pub enum Severity {
    /// Fails the check.
    Error,
    /// Fails it with `--deny-warnings`.
    Warning,
}

impl Severity {
    /// `error` or `warning`: the word in every format (human lines, GitHub
    /// workflow commands, SARIF levels, JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! rules {
    ($($(#[$doc:meta])* $variant:ident = $id:literal, $severity:ident, $help:literal;)*) => {
        /// What a finding is about. Ids are stable: a rule is added, never renamed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $($(#[$doc])* $variant,)*
        }

        impl Rule {
            /// Every rule, in the order of the table.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The stable id (`kebab-case`).
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// How bad a finding of this rule is.
            pub fn severity(self) -> Severity {
                match self {
                    $(Rule::$variant => Severity::$severity,)*
                }
            }

            /// One line on what the rule checks (SARIF's `shortDescription`).
            pub fn help(self) -> &'static str {
                match self {
                    $(Rule::$variant => $help,)*
                }
            }
        }
    };
}

rules! {
    /// A schema that does not parse or compile: every call to the tool is rejected.
    SchemaInvalid = "schema-invalid", Error,
        "The schema does not parse or compile; every call to the tool is rejected.";
    /// A schema whose top level is not `{"type": "object"}`: providers refuse it.
    TopLevelNotObject = "top-level-not-object", Error,
        "The provider needs the top-level schema to be {\"type\": \"object\"}.";
    /// `required` names a property that `properties` does not declare.
    RequiredUndeclared = "required-undeclared", Error,
        "\"required\" names a property the schema does not declare; no call can be valid.";
    /// A keyword the provider's schema dialect does not take: its API refuses the
    /// schema as written (`tools` strips it, and the model is told less).
    ProviderKeyword = "provider-keyword", Error,
        "The provider's API refuses this keyword; `callfix tools` strips it, and the model is told less.";
    /// Something OpenAI strict mode cannot express.
    StrictInexpressible = "strict-inexpressible", Error,
        "OpenAI strict mode cannot express this; the API refuses the tool.";
    /// Two tools that become one name once sanitised for the providers.
    NameCollision = "name-collision", Error,
        "Two tools become one name once sanitised for the providers; `callfix tools` refuses them.";
    /// A tool name the providers do not accept as it is (it is sanitised).
    NameSanitised = "name-sanitised", Warning,
        "The providers do not accept the tool name as it is; `callfix tools` sends it sanitised.";
    /// A property without a description.
    PropertyUndescribed = "property-undescribed", Warning,
        "The property has no description; the model learns the tool from them.";
    /// A tool with no description at all.
    DescriptionMissing = "description-missing", Error,
        "The tool has no description: neither a description file nor its own.";
    /// A descriptions directory that has no file for this tool (its own description is used).
    DescriptionFileMissing = "description-file-missing", Warning,
        "The descriptions directory has no file for the tool; its own description is used.";
    /// A description file for a tool that has no schema.
    DescriptionOrphan = "description-orphan", Error,
        "A description file names a tool that has no schema.";
    /// A description template that does not render.
    DescriptionRender = "description-render", Error,
        "The description template does not render (unknown variable or bad syntax).";
    /// `--descriptions` names a directory that does not exist.
    DescriptionsNotFound = "descriptions-not-found", Error,
        "The descriptions directory given does not exist.";
    /// A tool defined twice, or a file skipped, while loading the schemas.
    SourceIgnored = "source-ignored", Warning,
        "Part of a schema source was ignored (a tool defined twice, a file name that is not UTF-8).";
    /// A recorded call that is not valid as it is.
    CallInvalid = "call-invalid", Error,
        "A recorded call is not valid against its tool's schema without repair.";
    /// A recorded call written into the message text, not as a tool call.
    CallInText = "call-in-text", Error,
        "A recorded call is written into the message text, not as a tool call: it runs only if callfix extracts it, and never beside the message's own tool calls.";
    /// A record with no call callfix can read.
    RecordUnusable = "record-unusable", Error,
        "A record holds no call callfix can read (not JSON, cut off, unknown shape).";
    /// A `--calls` input that holds no call at all.
    CallsEmpty = "calls-empty", Error,
        "A --calls input holds no call, so it checks nothing.";
    /// A `callfix.toml` that cannot be used.
    ConfigInvalid = "config-invalid", Error,
        "The callfix.toml config does not parse, holds a setting callfix does not take, or a value its flag refuses.";
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for rule in Rule::ALL {
            let id = rule.id();
            assert!(seen.insert(id), "{id} twice");
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{id}"
            );
            assert!(rule.help().ends_with('.'), "{id}");
        }
    }
}
