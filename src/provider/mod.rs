//! Providers: every envelope callfix reads and writes, and every provider quirk.
//!
//! Each provider is one file implementing [`Provider`] and one line in
//! [`PROVIDERS`]: how its calls look on the way in, how they are written back (or
//! answered with an error result), and its quirks (tool names it accepts, call
//! ids it accepts, arguments as text or as an object). Nothing else in the crate
//! knows how a provider spells "arguments".

mod anthropic;
mod bedrock;
pub mod claude_code;
mod convert;
mod gemini;
mod generic;
pub mod keywords;
pub mod leak;
mod mcp;
mod mistral;
mod ollama;
mod openai;
mod problem;
mod responses;
pub mod stream;
pub mod tool_list;

use crate::spelling::Spellings;
pub use convert::IdScope;
pub use convert::{Converted, Ids, Place, convert, convert_error, convert_rejected, target_id};
pub use leak::{Declared, Written};
pub use problem::{Envelope, Part, ProviderProblem, Refusal, Rewrite};
use serde_json::{Map, Value, json};

/// One provider's envelopes and quirks.
pub trait Provider: Sync {
    /// The name used by `--to` and in messages.
    fn name(&self) -> &'static str;

    /// If `map` is one of this provider's call objects (or a message of its own
    /// kind that holds no call), takes the calls out of it.
    fn read(&self, _map: &mut Map<String, Value>) -> Option<Result<Vec<Call>, ProviderProblem>> {
        None
    }

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

    /// Whether this provider carries arguments as JSON text.
    fn args_as_text(&self) -> bool {
        false
    }

    /// A call in this provider's envelope, from its parts (for `--to`). `args`
    /// is already in the provider's form: JSON text where
    /// [`Provider::args_as_text`] says so.
    fn new_call(&self, id: &Value, name: &str, args: &Value) -> Value;

    /// The error tool result that answers a call, ready to send to the model.
    fn error_result(&self, id: &Value, name: &str, message: &str) -> Value;

    /// Whether this provider has assistant messages: where it has none (MCP),
    /// `--to` writes a message's calls one per line.
    fn has_messages(&self) -> bool {
        true
    }

    /// What this provider requires of call ids.
    fn ids(&self) -> Ids {
        Ids::Strings
    }

    /// Tool results (from [`Provider::error_result`]) as the messages that carry
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

    /// One tool definition for this provider's API request (`callfix tools`).
    fn tool_definition(&self, name: &str, description: &str, parameters: Value) -> Value {
        json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters}})
    }

    /// The `tools` payload around the definitions.
    fn tools_payload(&self, definitions: Vec<Value>) -> Value {
        Value::Array(definitions)
    }

    /// The schema rules of this provider's API, where it has its own
    /// ([`keywords::RULES`]); `strict` asks for OpenAI strict mode.
    fn dialect(&self, _strict: bool) -> Option<keywords::Dialect> {
        None
    }

    /// Whether this provider has a strict mode for tool schemas
    /// (`tools --openai-strict`): its dialect when asked for one.
    fn has_strict_mode(&self) -> bool {
        self.dialect(true) == Some(keywords::Dialect::OpenAiStrict)
    }

    /// Marks a tool definition strict or not, where the API has the flag.
    fn set_strict(&self, _definition: &mut Value, _strict: bool) {}

    /// Quirk: the tool name as this provider accepts it.
    fn tool_name(&self, name: &str) -> String {
        name.to_owned()
    }

    /// Quirk: the call id as this provider accepts it.
    fn call_id(&self, id: &Value) -> Value {
        id.clone()
    }
}

impl std::fmt::Debug for dyn Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every provider, in the order envelopes are recognised (generic last).
pub static PROVIDERS: [&dyn Provider; 10] = [
    &mcp::Mcp,
    &claude_code::ClaudeCode,
    &ollama::Ollama,
    &openai::OpenAi,
    &responses::Responses,
    &anthropic::Anthropic,
    &gemini::Gemini,
    &mistral::Mistral,
    &bedrock::Bedrock,
    &generic::Generic,
];

/// The provider registered under `name`.
pub fn by_name(name: &str) -> Option<&'static dyn Provider> {
    PROVIDERS.iter().copied().find(|p| p.name() == name)
}

/// The arguments of a call as they arrived.
#[derive(Debug, Clone, PartialEq)]
pub enum Args {
    /// Already a JSON value (Anthropic `input`, Gemini `args`, MCP `arguments`).
    Value(Value),
    /// JSON text that still has to be parsed (OpenAI `arguments`, `--tool` stdin).
    Text(String),
    /// The envelope has no arguments at all.
    Missing,
    /// The call was written into text, and its markup cannot be read; why.
    Malformed(String),
}

/// One tool call taken out of a record.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The call id (`null` when the envelope has none).
    pub id: Value,
    /// The tool name, as sent (or as mapped back).
    pub name: String,
    /// The arguments as they arrived.
    pub args: Args,
    /// The arguments arrived as JSON text.
    pub args_as_text: bool,
    /// The provider whose envelope the call came in.
    pub provider: &'static str,
    /// The call object as it arrived, with its arguments taken out; used to write
    /// the call back in its own envelope.
    pub envelope: Value,
    /// Where the arguments and the name sit in the envelope.
    pub args_at: &'static [&'static str],
    /// Where the name sits in the envelope.
    pub name_at: &'static [&'static str],
    /// For a call found written in assistant text: that markup.
    pub leaked: Option<Leak>,
}

/// Where a call written into assistant text came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Leak {
    /// The markup as it stood in the text.
    pub markup: String,
    /// Its call syntax (`hermes`, `glm`, `kimi-k2`, …).
    pub family: &'static str,
    /// How its argument values were written, when not as JSON.
    pub written: Written,
}

impl Call {
    fn provider(&self) -> &'static dyn Provider {
        by_name(self.provider).unwrap_or(&generic::Generic)
    }

    /// Whether the call's envelope may carry its arguments as JSON text. Where
    /// it may not (Anthropic `input`, Gemini `args`, MCP `arguments`), text is a
    /// double encoding: the object the provider wanted, written as a string.
    pub fn text_args_allowed(&self) -> bool {
        self.provider().args_as_text() || self.provider == "generic"
    }

    /// Gives the call another tool name, in the envelope too (`rename-tool`).
    pub fn rename(&mut self, name: &str) {
        self.name = name.to_owned();
        set(
            &mut self.envelope,
            self.name_at,
            Value::String(name.to_owned()),
        );
    }
}

/// What a record holds.
#[derive(Debug, PartialEq)]
pub enum Extracted {
    /// A recognised envelope: zero or more calls, in document order. A message or
    /// response without tool calls (plain text, a user turn) has zero.
    Calls(Vec<Call>),
    /// Nothing callfix recognises; the reason names what was seen.
    Unrecognised(String),
}

/// Containers are followed this deep; anything deeper is not an envelope.
const MAX_DEPTH: usize = 8;

/// Takes every tool call out of a record. With `from_text`, an assistant message
/// that has text but no calls is searched for calls written into the text (a
/// call list with no sentinel counts only if every name in it is `declared`).
pub fn extract(record: Value, from_text: Option<Declared>) -> Extracted {
    let mut calls = Vec::new();
    match collect(record, &mut calls, 0, from_text) {
        Ok(()) => Extracted::Calls(calls),
        Err(problem) => Extracted::Unrecognised(problem.to_string()),
    }
}

/// A call built from bare arguments (`--tool NAME` on stdin).
pub fn bare_call(name: &str, text: String) -> Call {
    let mut envelope = Map::new();
    envelope.insert("name".into(), Value::String(name.to_owned()));
    Call {
        id: Value::Null,
        name: name.to_owned(),
        args: Args::Text(text),
        args_as_text: true,
        provider: generic::Generic.name(),
        envelope: Value::Object(envelope),
        args_at: &["arguments"],
        name_at: &["name"],
        leaked: None,
    }
}

fn collect(
    value: Value,
    out: &mut Vec<Call>,
    depth: usize,
    from_text: Option<Declared>,
) -> Result<(), ProviderProblem> {
    if depth > MAX_DEPTH {
        return Err(ProviderProblem::TooDeep);
    }
    let text = match &value {
        Value::Object(m) if from_text.is_some() && is_assistant(m) => message_text(m),
        _ => None,
    };
    let before = out.len();
    collect_value(value, out, depth, from_text)?;
    if let Some(text) = text
        && let Some(declared) = from_text
        && out.len() == before
    {
        out.extend(leak::find(&text, declared).0.into_iter().map(leaked_call));
    }
    Ok(())
}

/// An assistant (or model) message.
fn is_assistant(m: &Map<String, Value>) -> bool {
    matches!(
        m.get("role").and_then(Value::as_str),
        Some("assistant" | "model")
    )
}

/// The text of a message: its string content, or its text blocks and parts.
fn message_text(m: &Map<String, Value>) -> Option<String> {
    if let Some(Value::String(s)) = m.get("content") {
        return Some(s.clone());
    }
    let blocks = m
        .get("content")
        .or_else(|| m.get("parts"))
        .and_then(Value::as_array)?;
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// When a record is an assistant message, or a response that holds exactly one
/// (an OpenAI completion with one choice, Gemini with one candidate, Ollama's
/// `/api/chat`, Bedrock's `output`), its text with any leaked call markup
/// removed (empty when it has none).
pub fn assistant_text(record: &Value, declared: Declared) -> Option<String> {
    let m = turn(record)?;
    let text = message_text(m).unwrap_or_default();
    Some(leak::find(&text, declared).1)
}

/// Every call written into the text of the assistant message a record is or
/// holds ([`assistant_text`]'s message), whatever else the message holds.
/// [`extract`] reads them only from a message with no tool calls of its own (the
/// model's own list is what runs; a call beside it in the text never does), so
/// `check --calls` asks here to report the ones it leaves.
pub fn calls_in_text(record: &Value, declared: Declared) -> Vec<Call> {
    let Some(text) = turn(record).and_then(message_text) else {
        return Vec::new();
    };
    leak::find(&text, declared)
        .0
        .into_iter()
        .map(leaked_call)
        .collect()
}

/// The text of the one assistant message a record is or holds, as written
/// (leaked markup and all).
pub fn assistant_raw_text(record: &Value) -> Option<String> {
    turn(record).and_then(message_text)
}

/// Whether a call read from the text of a message was read because the
/// message ended there: found with no sentinel (the syntaxes that must be the
/// whole message, or end it), or its markup runs to the end of `text` (a call
/// whose closing never came). Where a message did not come to its end (a
/// stream cut off), such a call may have had more to come.
pub fn read_by_its_end(leak: &Leak, text: &str) -> bool {
    const SENTINEL_FREE: [&str; 4] = ["json", "tool_use", "call", "pythonic"];
    SENTINEL_FREE.contains(&leak.family) || text.trim_end().ends_with(leak.markup.trim_end())
}

/// The one assistant message a record is or holds.
fn turn(record: &Value) -> Option<&Map<String, Value>> {
    let m = record.as_object()?;
    if is_assistant(m) {
        return Some(m);
    }
    let only = |list: &str, field: &str| match m.get(list)?.as_array()?.as_slice() {
        [one] => one.get(field)?.as_object(),
        _ => None,
    };
    let inner = (m.get("message").and_then(Value::as_object))
        .or_else(|| only("choices", "message"))
        .or_else(|| only("candidates", "content"))
        .or_else(|| m.get("output")?.get("message")?.as_object())?;
    is_assistant(inner).then_some(inner)
}

/// A call found written into text, as a generic call.
fn leaked_call(l: leak::Leaked) -> Call {
    let args = match l.args {
        Ok(m) => Args::Value(Value::Object(m)),
        Err(why) => Args::Malformed(why.to_string()),
    };
    let mut call = bare_call(&l.name, String::new());
    call.args = args;
    call.args_as_text = false;
    call.leaked = Some(Leak {
        markup: l.markup,
        family: l.family,
        written: l.written,
    });
    call
}

fn collect_value(
    value: Value,
    out: &mut Vec<Call>,
    depth: usize,
    from_text: Option<Declared>,
) -> Result<(), ProviderProblem> {
    let mut map = match value {
        Value::Object(map) => map,
        Value::Array(items) => {
            for (i, item) in items.into_iter().enumerate() {
                collect(item, out, depth + 1, from_text).map_err(|e| e.within(Part::Element(i)))?;
            }
            return Ok(());
        }
        other => {
            return Err(ProviderProblem::NotAnObject(json_type(&other)));
        }
    };
    for p in PROVIDERS {
        if let Some(found) = p.read(&mut map) {
            out.extend(found?);
            return Ok(());
        }
    }
    for p in PROVIDERS {
        for (key, inner) in p.containers() {
            // A container holding one object (Ollama's `message`, Bedrock's
            // `output`) is read as a list of one.
            if let Some(one @ Value::Object(_)) = map.get_mut(*key) {
                let one = one.take();
                return collect(one, out, depth + 1, from_text)
                    .map_err(|e| e.within(Part::Key(key)));
            }
            if let Some(Value::Array(items)) = map.get_mut(*key) {
                for (i, mut item) in std::mem::take(items).into_iter().enumerate() {
                    let item = match inner {
                        Some(field) => match item.get_mut(*field) {
                            Some(v) => v.take(),
                            None => continue,
                        },
                        None => item,
                    };
                    collect(item, out, depth + 1, from_text)
                        .map_err(|e| e.within(Part::Item(key, i)))?;
                }
                return Ok(());
            }
        }
    }
    // A message whose content is text (or absent) holds no call.
    if map.contains_key("role") || PROVIDERS.iter().any(|p| p.is_not_a_call(&map)) {
        return Ok(());
    }
    Err(describe_unrecognised(&map))
}

/// A call read from `map` (the envelope), with its name and arguments found at
/// the given places.
fn read_call(
    mut envelope: Map<String, Value>,
    provider: &'static str,
    what: Envelope,
    name_at: &'static [&'static str],
    args_at: &'static [&'static str],
    id_keys: &[&[&str]],
) -> Result<Call, ProviderProblem> {
    let name = match get(&envelope, name_at) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(ProviderProblem::NameNotAString(what, json_type(other)));
        }
        None => return Err(ProviderProblem::NoName(what)),
    };
    let id = id_keys
        .iter()
        .find_map(|path| get(&envelope, path))
        .cloned()
        .unwrap_or(Value::Null);
    // The arguments are taken out, leaving the key in place (as null) so the
    // envelope keeps its field order when written back.
    let args = match get_mut(&mut envelope, args_at) {
        None => Args::Missing,
        Some(v) => match v.take() {
            Value::String(s) => Args::Text(s),
            other => Args::Value(other),
        },
    };
    Ok(Call {
        id,
        name,
        args_as_text: matches!(args, Args::Text(_)),
        args,
        provider,
        envelope: Value::Object(envelope),
        args_at,
        name_at,
        leaked: None,
    })
}

fn get<'a>(map: &'a Map<String, Value>, path: &[&str]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    rest.iter().try_fold(map.get(*first)?, |v, k| v.get(*k))
}

fn get_mut<'a>(map: &'a mut Map<String, Value>, path: &[&str]) -> Option<&'a mut Value> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(map.get_mut(*first)?, |v, k| v.get_mut(*k))
}

/// An object in which no call was found, named by its first keys.
fn describe_unrecognised(map: &Map<String, Value>) -> ProviderProblem {
    const SHOWN: usize = 6;
    if map.is_empty() {
        return ProviderProblem::EmptyObject;
    }
    ProviderProblem::NoCall {
        keys: map.keys().take(SHOWN).cloned().collect(),
        more: map.len() > SHOWN,
    }
}

/// A tool name as OpenAI, Anthropic and Gemini accept it: only
/// `[a-zA-Z0-9_-]`, at most 64 characters. Other characters become `_`. An
/// empty name stays empty: a call written without a name (cut off before it)
/// is not given one.
pub fn provider_name(name: &str) -> String {
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

/// The JSON type of a value, as messages name it.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Writes a (valid or repaired) call back in its own envelope, with the arguments
/// in the provider's form: a JSON string for OpenAI, an object elsewhere. A generic
/// call keeps the form it arrived in.
pub fn write_call(call: &Call, args: &Value, spellings: &Spellings) -> Value {
    let mut env = call.envelope.clone();
    let as_text =
        call.provider().args_as_text() || (call.provider == "generic" && call.args_as_text);
    let value = if as_text {
        Value::String(spellings.to_text(args))
    } else {
        args.clone()
    };
    set(&mut env, call.args_at, value);
    env
}

/// The provider's error tool result for a rejected call.
pub fn error_result(call: &Call, message: &str) -> Value {
    call.provider().error_result(&call.id, &call.name, message)
}

/// The error result for a record that holds no recognisable call.
pub fn record_error(index: u64, message: &str) -> Value {
    json!({ "index": index, "is_error": true, "content": message })
}

/// Writes `value` at `path` in `env`, making objects where the path has
/// nothing (`null` or no key). A path through anything else is left as it is:
/// it cannot happen for a call's own places (the name was read at the same
/// parent), and an envelope is never indexed by hand.
fn set(env: &mut Value, path: &[&str], value: Value) {
    fn child<'a>(cur: &'a mut Value, key: &str) -> Option<&'a mut Value> {
        if cur.is_null() {
            *cur = Value::Object(Map::new());
        }
        Some(cur.as_object_mut()?.entry(key).or_insert(Value::Null))
    }
    if path.is_empty() {
        return;
    }
    let mut cur = Some(env);
    for key in path {
        cur = cur.and_then(|c| child(c, key));
    }
    if let Some(slot) = cur {
        *slot = value;
    }
}

#[cfg(test)]
mod tests;
