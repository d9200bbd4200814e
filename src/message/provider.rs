//! The words about provider envelopes and tool payloads: why a record holds no
//! call callfix can read ([`ProviderProblem`]), and what adapting a schema to a
//! provider's dialect did or could not do ([`Refusal`], [`Rewrite`], [`Note`]).
//!
//! `provider/` names the problem as data (it sits below this stage and does not
//! import it); each sentence is written here, as that type's `Display`.

use std::fmt;

use crate::provider::keywords::Note;
use crate::provider::{Envelope, Part, ProviderProblem, Refusal, Rewrite};

impl fmt::Display for Envelope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Envelope::AnthropicToolUse => "Anthropic tool_use",
            Envelope::BedrockToolUse => "Bedrock toolUse",
            Envelope::ClaudeCode => "Claude Code PreToolUse payload",
            Envelope::GeminiFunctionCall => "Gemini functionCall",
            Envelope::Generic => "call",
            Envelope::McpParams => "MCP tools/call params",
            Envelope::Ollama => "Ollama tool call",
            Envelope::OpenAiFunctionCall => "OpenAI function_call",
            Envelope::OpenAiFunction => "OpenAI function",
            Envelope::ResponsesFunctionCall => "OpenAI Responses function_call",
        })
    }
}

impl fmt::Display for ProviderProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut problem = self;
        // The parts are written outermost first, each as a `part: ` prefix.
        while let ProviderProblem::Within(part, inner) = problem {
            match part {
                Part::Element(i) => write!(f, "element {i}: ")?,
                Part::Key(key) => write!(f, "{key}: ")?,
                Part::Item(key, i) => write!(f, "{key}[{i}]: ")?,
            }
            problem = inner;
        }
        match problem {
            ProviderProblem::TooDeep => f.write_str("nested too deeply to be a tool call envelope"),
            ProviderProblem::NotAnObject(got) => {
                write!(f, "expected a tool call object, got {got}")
            }
            ProviderProblem::NameNotAString(what, got) => {
                write!(f, "{what} has a name that is {got}, not a string")
            }
            ProviderProblem::NoName(what) => write!(f, "{what} has no \"name\""),
            ProviderProblem::McpWithoutParams => {
                f.write_str("MCP tools/call without a params object")
            }
            ProviderProblem::EmptyObject => f.write_str("an empty object is not a tool call"),
            ProviderProblem::NoCall { keys, more } => {
                f.write_str("no tool call found in an object with keys ")?;
                f.write_str(&keys.join(", "))?;
                if *more {
                    f.write_str(", …")?;
                }
                Ok(())
            }
            ProviderProblem::Within(..) => Ok(()),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::StrictTopNotObject => "the top level of a strict schema must be an object",
            Refusal::StrictOpenObject => {
                "strict mode takes only closed objects, and this one allows other keys"
            }
            Refusal::StrictFreeForm => {
                "strict mode cannot express a free-form object (one with no properties)"
            }
        })
    }
}

impl Rewrite {
    /// The words, as a note names the rewrite.
    pub(crate) fn words(self) -> &'static str {
        match self {
            Rewrite::OneType => "one type",
            Rewrite::OneTypeNullable => "one type and `nullable: true`",
        }
    }
}

impl Note {
    /// Where it is, for people: the pointer, or "the top level".
    pub fn place(&self) -> &str {
        if self.pointer.is_empty() {
            "the top level"
        } else {
            &self.pointer
        }
    }

    /// What `tools` does about it, for people: "strips it", or how it writes it.
    pub fn action(&self) -> String {
        match self.rewritten {
            Some(how) => format!("writes it as {how}"),
            None => "strips it".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::provider::keywords::Note;
    use crate::provider::{Envelope, Part, ProviderProblem, Refusal, Rewrite};

    #[test]
    fn each_problem_is_worded_with_its_data_and_where_it_was_found() {
        let cases = [
            (
                ProviderProblem::TooDeep.within(Part::Element(3)),
                "element 3: nested too deeply to be a tool call envelope",
            ),
            (
                ProviderProblem::NotAnObject("number")
                    .within(Part::Item("choices", 1))
                    .within(Part::Key("message")),
                "message: choices[1]: expected a tool call object, got number",
            ),
            (
                ProviderProblem::NameNotAString(Envelope::GeminiFunctionCall, "array"),
                "Gemini functionCall has a name that is array, not a string",
            ),
            (
                ProviderProblem::NoName(Envelope::McpParams),
                "MCP tools/call params has no \"name\"",
            ),
            (
                ProviderProblem::McpWithoutParams,
                "MCP tools/call without a params object",
            ),
            (
                ProviderProblem::EmptyObject,
                "an empty object is not a tool call",
            ),
            (
                ProviderProblem::NoCall {
                    keys: vec!["a".into(), "b".into()],
                    more: true,
                },
                "no tool call found in an object with keys a, b, …",
            ),
        ];
        for (problem, words) in cases {
            assert_eq!(problem.to_string(), words);
        }
    }

    #[test]
    fn schema_notes_are_worded_here() {
        assert_eq!(
            Refusal::StrictFreeForm.to_string(),
            "strict mode cannot express a free-form object (one with no properties)"
        );
        let note = |pointer: &str, rewritten| Note {
            pointer: pointer.to_owned(),
            keyword: "type".to_owned(),
            refused: None,
            rewritten,
        };
        let rewritten = note("", Some(Rewrite::OneTypeNullable.words()));
        assert_eq!(
            rewritten.action(),
            "writes it as one type and `nullable: true`"
        );
        assert_eq!(rewritten.place(), "the top level");
        let stripped = note("/properties/a", None);
        assert_eq!(stripped.action(), "strips it");
        assert_eq!(stripped.place(), "/properties/a");
    }
}
