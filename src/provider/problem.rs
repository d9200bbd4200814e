//! What reading a record or adapting a schema found wrong, as data: the kind
//! of problem and what its sentence needs. The sentences are written in
//! `message::provider` (each type's `Display`), so every word stays in
//! `message/` while this stage, below it, only names the problem.

/// A call envelope, as a problem names it (`Anthropic tool_use`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Envelope {
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

/// Where in a record a [`ProviderProblem`] was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
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
pub(crate) enum ProviderProblem {
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
    pub(crate) fn within(self, part: Part) -> Self {
        ProviderProblem::Within(part, Box::new(self))
    }
}

/// Why a schema cannot be written in a provider's dialect (`tools --strict`).
/// `Display` writes the reason a note gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)]
pub(crate) enum Refusal {
    /// OpenAI strict mode: the top level is not an object.
    StrictTopNotObject,
    /// OpenAI strict mode: an object allows keys beyond its properties.
    StrictOpenObject,
    /// OpenAI strict mode: an object lists no properties.
    StrictFreeForm,
}

/// How a keyword was written the dialect's way, meaning the same
/// (`Rewrite::words` names it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rewrite {
    /// A `type` list of one name: that name.
    OneType,
    /// A `type` list of one name and `"null"`: the name and `nullable: true`.
    OneTypeNullable,
}
