//! Providers: every envelope callfix reads and writes, and every provider quirk.
//!
//! A provider is named by a [`Provider`] (its place in [`PROVIDERS`] is the
//! order envelopes are recognised in) and is one file that implements its
//! roles (`roles.rs`): reading its records (how its calls and their
//! containers look on the way in), writing (how calls are written back, or
//! answered with an error result, and a whole turn), and its API (tool
//! definitions, schema dialect, the tool names it accepts). Nothing else in
//! the crate knows how a provider spells "arguments".
//!
//! [`extract`] (`extract.rs`) takes the calls out of a record, as [`Call`]s
//! (`call.rs`); `convert.rs` writes them for another provider (`--to`).

mod anthropic;
mod bedrock;
mod call;
pub(crate) mod claude_code;
pub(crate) mod conversation;
mod convert;
mod extract;
pub(crate) mod fields;
mod gemini;
mod generic;
pub(crate) mod keywords;
pub(crate) mod leak;
mod mcp;
mod mistral;
mod ollama;
mod openai;
mod origin;
mod problem;
mod responses;
mod roles;
pub(crate) mod stream;
pub(crate) mod tool_list;

pub use call::{Args, Call, Leak};
pub(crate) use call::{bare_call, error_result, json_type, record_error, write_call};
pub(crate) use convert::convert;
pub use convert::{Converted, convert_call};
pub(crate) use convert::{IdScope, Place, convert_error, convert_rejected};
pub use extract::{Extracted, extract};
pub(crate) use extract::{assistant_raw_text, assistant_text, calls_in_text, read_by_its_end};
pub use leak::Declared;
pub use origin::Origin;
pub(crate) use origin::origin;
pub(crate) use problem::ProviderProblem;
pub(crate) use problem::{Envelope, Part, Refusal, Rewrite};
pub(crate) use roles::provider_name;

pub use keywords::{Dialect, Note};
use roles::{Api, Reader, Roles, Writer};
use serde_json::Value;

/// A provider, by name: every envelope callfix reads and writes is one of
/// these. [`Provider::name`] is the name `--to` and `--provider` take and
/// messages say; [`PROVIDERS`] lists them all, in the order envelopes are
/// recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// MCP JSON-RPC `tools/call` requests (`mcp`).
    Mcp,
    /// Claude Code hook payloads (`claude-code`).
    ClaudeCode,
    /// Ollama `/api/chat` (`ollama`).
    Ollama,
    /// OpenAI Chat Completions (`openai`).
    OpenAi,
    /// OpenAI Responses (`openai-responses`).
    OpenAiResponses,
    /// Anthropic Messages (`anthropic`).
    Anthropic,
    /// Gemini (`gemini`).
    Gemini,
    /// Mistral (`mistral`): OpenAI's shape, its own ids.
    Mistral,
    /// AWS Bedrock Converse (`bedrock`).
    Bedrock,
    /// Generic `{"name", "arguments"}` calls (`generic`).
    Generic,
}

/// Every provider, in the order envelopes are recognised (generic last).
pub static PROVIDERS: &[Provider] = &[
    Provider::Mcp,
    Provider::ClaudeCode,
    Provider::Ollama,
    Provider::OpenAi,
    Provider::OpenAiResponses,
    Provider::Anthropic,
    Provider::Gemini,
    Provider::Mistral,
    Provider::Bedrock,
    Provider::Generic,
];

impl Provider {
    /// The name used by `--to` and `--provider`, and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Mcp => "mcp",
            Self::ClaudeCode => "claude-code",
            Self::Ollama => "ollama",
            Self::OpenAi => "openai",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::Mistral => "mistral",
            Self::Bedrock => "bedrock",
            Self::Generic => "generic",
        }
    }

    /// The provider named `name` ([`Provider::name`]), as a user typed it.
    pub fn from_name(name: &str) -> Option<Self> {
        PROVIDERS.iter().copied().find(|p| p.name() == name)
    }

    /// Whether this provider's API has a strict mode for tool schemas
    /// (`tools --openai-strict`): its dialect when asked for one.
    pub fn has_strict_mode(self) -> bool {
        self.dialect(true) == Some(Dialect::OpenAiStrict)
    }

    /// The error tool result that answers the call `id` to `name` with
    /// `message`, in this provider's shape, ready to send back to the model.
    ///
    /// ```
    /// use callfix::provider::Provider;
    /// use serde_json::json;
    ///
    /// let result = Provider::Anthropic.error_result(&json!("toolu_1"), "read", "path: Required");
    /// assert_eq!(result["type"], "tool_result");
    /// assert_eq!(result["is_error"], true);
    /// ```
    pub fn error_result(self, id: &Value, name: &str, message: &str) -> Value {
        self.writer().error_result(id, name, message)
    }

    /// The schema rules of this provider's API, where it has its own
    /// (`keywords::RULES`); `strict` asks for OpenAI strict mode.
    pub fn dialect(self, strict: bool) -> Option<Dialect> {
        self.api().dialect(strict)
    }

    /// How its records are read; `None` for Mistral, whose records are
    /// OpenAI's.
    pub(crate) fn reader(self) -> Option<&'static dyn Reader> {
        self.roles().reader
    }

    /// How its calls, results and turns are written.
    pub(crate) fn writer(self) -> &'static dyn Writer {
        self.roles().writer
    }

    /// Its API's tool definitions, schema rules and tool names.
    pub(crate) fn api(self) -> &'static dyn Api {
        self.roles().api
    }

    fn roles(self) -> &'static Roles {
        match self {
            Self::Mcp => &mcp::ROLES,
            Self::ClaudeCode => &claude_code::ROLES,
            Self::Ollama => &ollama::ROLES,
            Self::OpenAi => &openai::ROLES,
            Self::OpenAiResponses => &responses::ROLES,
            Self::Anthropic => &anthropic::ROLES,
            Self::Gemini => &gemini::ROLES,
            Self::Mistral => &mistral::ROLES,
            Self::Bedrock => &bedrock::ROLES,
            Self::Generic => &generic::ROLES,
        }
    }
}

#[cfg(test)]
mod tests;
