//! The words about provider envelopes and tool payloads: why a record holds no
//! call callfix can read ([`ProviderProblem`]), and what adapting a schema to a
//! provider's dialect did or could not do ([`Refusal`], [`Rewrite`]).
//!
//! `provider/` finds the problem and hands over its data; the sentence is
//! written here.

use std::fmt;

/// A call envelope, as the messages name it (`Anthropic tool_use`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    /// Anthropic's `tool_use` block.
    AnthropicToolUse,
    /// Bedrock Converse's `toolUse` block.
    BedrockToolUse,
    /// A Claude Code `PreToolUse` hook payload.
    ClaudeCode,
    /// Gemini's `functionCall` part.
    GeminiFunctionCall,
    /// A bare `{"name", "arguments"}` call.
    Generic,
    /// The `params` of an MCP `tools/call` request.
    McpParams,
    /// An Ollama tool call.
    Ollama,
    /// OpenAI's legacy `function_call`.
    OpenAiFunctionCall,
    /// An OpenAI Chat Completions tool call (`function`).
    OpenAiFunction,
    /// An OpenAI Responses `function_call` item.
    ResponsesFunctionCall,
}

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

/// Where in a record a [`ProviderProblem`] was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Element `i` of a top-level array (`element 2`).
    Element(usize),
    /// The one object a container key holds (`message`).
    Key(&'static str),
    /// Element `i` of a container key's array (`choices[1]`).
    Item(&'static str, usize),
}

/// Why a record (or a part of one) is not a tool call callfix can read.
/// `Display` writes the sentence the record's rejection gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderProblem {
    /// Containers nest deeper than any envelope does.
    TooDeep,
    /// A value that is not an object where a call should be; its JSON type.
    NotAnObject(&'static str),
    /// A call whose name is not a string; the JSON type it is.
    NameNotAString(Envelope, &'static str),
    /// A call with no name.
    NoName(Envelope),
    /// An MCP `tools/call` request without a `params` object.
    McpWithoutParams,
    /// An object with no keys.
    EmptyObject,
    /// An object in which no call was found: its first keys, and whether it has
    /// more than those.
    NoCall {
        /// The first keys, in order.
        keys: Vec<String>,
        /// Whether the object has keys beyond `keys`.
        more: bool,
    },
    /// The problem found inside one part of the record (as deep as containers
    /// are followed, a handful of levels).
    Within(Part, Box<ProviderProblem>),
}

impl ProviderProblem {
    /// This problem, found inside `part`.
    pub fn within(self, part: Part) -> Self {
        ProviderProblem::Within(part, Box::new(self))
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

/// Why a schema cannot be written in a provider's dialect (`tools --strict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// OpenAI strict mode: the top level is not an object.
    StrictTopNotObject,
    /// OpenAI strict mode: an object allows keys beyond its properties.
    StrictOpenObject,
    /// OpenAI strict mode: an object lists no properties.
    StrictFreeForm,
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

/// How a keyword was written the dialect's way, meaning the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rewrite {
    /// A `type` list of one name: that name.
    OneType,
    /// A `type` list of one name and `"null"`: the name and `nullable: true`.
    OneTypeNullable,
}

impl Rewrite {
    /// The words, as a note names the rewrite.
    pub fn words(self) -> &'static str {
        match self {
            Rewrite::OneType => "one type",
            Rewrite::OneTypeNullable => "one type and `nullable: true`",
        }
    }
}

/// Where a note about a schema is, for people: its JSON Pointer, or "the top
/// level".
pub fn note_place(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the top level"
    } else {
        pointer
    }
}

/// What `tools` does about a keyword, for people: "strips it", or how it
/// writes it (`rewritten`, from [`Rewrite::words`]).
pub fn note_action(rewritten: Option<&str>) -> String {
    match rewritten {
        Some(how) => format!("writes it as {how}"),
        None => "strips it".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{Envelope, Part, ProviderProblem, Refusal, Rewrite, note_action, note_place};

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
        assert_eq!(
            note_action(Some(Rewrite::OneTypeNullable.words())),
            "writes it as one type and `nullable: true`"
        );
        assert_eq!(note_action(None), "strips it");
        assert_eq!(note_place(""), "the top level");
        assert_eq!(note_place("/properties/a"), "/properties/a");
    }
}
