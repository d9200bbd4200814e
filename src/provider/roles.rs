//! What a provider does, one trait per role: reading its records
//! ([`Reader`]), writing its calls, results and turns ([`Writer`]), and its
//! API's tool payload and schema dialect ([`Api`]). Each provider's file
//! implements the roles it has, and names them in its `ROLES`; the
//! [`Provider`](super::Provider) enum hands them out.

use serde_json::{Map, Value, json};

use super::call::Call;
use super::convert::Ids;
use super::keywords::Dialect;
use super::problem::ProviderProblem;

/// A provider's roles, as its file names them.
pub(crate) struct Roles {
    /// How its records are read; `None` where its records are another
    /// provider's (Mistral's are OpenAI's) and read as theirs.
    pub(crate) reader: Option<&'static dyn Reader>,
    /// How its calls, results and turns are written.
    pub(crate) writer: &'static dyn Writer,
    /// Its API's tool definitions and schema rules.
    pub(crate) api: &'static dyn Api,
}

/// Reading a record: the provider's call objects, the containers that hold
/// them, and what is part of its conversations without being a call.
pub(crate) trait Reader: Sync {
    /// If `map` is one of this provider's call objects (or a message of its own
    /// kind that holds no call), takes the calls out of it.
    fn read(&self, map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>>;

    /// Arrays in this provider's containers that may hold calls, each with the
    /// field of an element to look into (`choices[].message`).
    fn containers(&self) -> &'static [(&'static str, Option<&'static str>)] {
        &[]
    }

    /// Blocks and items of this provider that are part of a conversation but
    /// are not calls (text, reasoning, results).
    fn is_not_a_call(&self, _map: &Map<String, Value>) -> bool {
        false
    }
}

/// Writing: a call, the error result that answers one, and a whole assistant
/// turn with its results, in this provider's shapes and with its id rules.
pub(crate) trait Writer: Sync {
    /// Whether this provider carries arguments as JSON text.
    fn args_as_text(&self) -> bool {
        false
    }

    /// Whether a call of this provider, written back in its own envelope,
    /// keeps the form its arguments arrived in, text or object (the generic
    /// shape); such a call may carry either.
    fn keeps_args_form(&self) -> bool {
        false
    }

    /// A call in this provider's envelope, from its parts (for `--to`). `args`
    /// is already in the provider's form: JSON text where
    /// [`Writer::args_as_text`] says so.
    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value;

    /// The error tool result that answers a call, ready to send to the model.
    fn error_result(&self, id: &Value, name: &str, message: &str) -> Value;

    /// Whether this provider has assistant messages: where it has none (MCP),
    /// `--to` writes a message's calls one per line.
    fn has_messages(&self) -> bool {
        true
    }

    /// Tool results (from [`Writer::error_result`]) as the messages that carry
    /// them back, one per output line: by default each result is a message of
    /// its own (OpenAI `role: tool`).
    fn results_messages(&self, results: Vec<Value>) -> Vec<Value> {
        results
    }

    /// An assistant message in this provider's shape, holding `text` (if any)
    /// and `calls` (already in this provider's call shape), in order.
    fn new_message(&self, text: &str, calls: Vec<Value>) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), json!("assistant"));
        let content = if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        };
        m.insert("content".into(), content);
        if !calls.is_empty() {
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        Value::Object(m)
    }

    /// What this provider requires of call ids.
    fn ids(&self) -> Ids {
        Ids::Strings
    }

    /// Quirk: the call id as this provider accepts it.
    fn call_id(&self, id: &Value) -> Value {
        id.clone()
    }
}

/// The provider's API: its tool definitions and payload, its schema rules,
/// and the tool names it accepts.
pub(crate) trait Api: Sync {
    /// One tool definition for this provider's API request (`callfix tools`).
    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters}})
    }

    /// The `tools` payload around the definitions.
    fn tools_payload(&self, definitions: Vec<Value>) -> Value {
        Value::Array(definitions)
    }

    /// The schema rules of this provider's API, where it has its own
    /// ([`super::keywords::RULES`]); `strict` asks for OpenAI strict mode.
    fn dialect(&self, _strict: bool) -> Option<Dialect> {
        None
    }

    /// Marks a tool definition strict or not, where the API has the flag.
    fn set_strict(&self, _definition: &mut Value, _strict: bool) {}

    /// Quirk: the tool name as this provider accepts it, in its definitions
    /// and in the calls written for it.
    fn tool_name(&self, name: &str) -> String {
        name.to_owned()
    }
}

/// A tool name as OpenAI, Anthropic and Gemini accept it: only
/// `[a-zA-Z0-9_-]`, at most 64 characters. Other characters become `_`. An
/// empty name stays empty: a call written without a name (cut off before it)
/// is not given one.
pub(crate) fn provider_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}
