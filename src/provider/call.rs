//! One tool call taken out of a record ([`Call`]): read from its envelope
//! ([`read_call`], for the readers), and written back into it ([`write_call`])
//! or answered with its provider's error result ([`error_result`]).

use crate::provider::fields::Fields;
use serde_json::{Map, Value, json};

use super::Provider;
use super::leak::Written;
use super::problem::{Envelope, ProviderProblem};
use crate::spelling::Spellings;

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
    pub(crate) id: Value,
    /// The tool name, as sent (or as mapped back).
    pub(crate) name: String,
    /// The arguments as they arrived.
    pub(crate) args: Args,
    /// The arguments arrived as JSON text.
    pub(crate) args_as_text: bool,
    /// The provider whose envelope the call came in.
    pub(crate) provider: Provider,
    /// The call object as it arrived, with its arguments taken out; used to write
    /// the call back in its own envelope.
    pub(crate) envelope: Value,
    /// Where the arguments and the name sit in the envelope.
    pub(crate) args_at: &'static [&'static str],
    /// Where the name sits in the envelope.
    pub(crate) name_at: &'static [&'static str],
    /// For a call found written in assistant text: that markup.
    pub(crate) leaked: Option<Leak>,
    /// A key of the record was named twice and readers keeping the first or
    /// the last value make this call differently: the key's dotted path in
    /// the arguments (`""` when the name or the rest differ). Set by the
    /// filter, which then rejects the call.
    pub(crate) read_two_ways: Option<String>,
}

/// Where a call written into assistant text came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Leak {
    /// The markup as it stood in the text.
    pub(crate) markup: String,
    /// Its call syntax (`hermes`, `glm`, `kimi-k2`, …).
    pub(crate) family: &'static str,
    /// How its argument values were written, when not as JSON.
    pub(crate) written: Written,
}

impl Leak {
    /// The markup as it stood in the text.
    pub fn markup(&self) -> &str {
        &self.markup
    }

    /// Its call syntax (`hermes`, `glm`, `kimi-k2`, …).
    pub fn family(&self) -> &'static str {
        self.family
    }
}

impl Call {
    /// The call id (`null` when the envelope has none).
    pub fn id(&self) -> &Value {
        &self.id
    }

    /// The tool name, as sent (or as mapped back).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments as they arrived.
    pub fn args(&self) -> &Args {
        &self.args
    }

    /// The provider whose envelope the call came in.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The call object as it arrived, with its arguments taken out.
    pub fn envelope(&self) -> &Value {
        &self.envelope
    }

    /// For a call found written in assistant text: where it came from.
    pub fn leaked(&self) -> Option<&Leak> {
        self.leaked.as_ref()
    }

    /// The call with its id and name only: the envelope and the arguments as
    /// they arrived (a copy of the record, most of a result's memory) and any
    /// markup are dropped. For a sink that keeps results, or hands them to
    /// another thread: `--format json` and `-f args` write the same lines for
    /// it; `-f call`, `-f human` and `--to` need what it drops.
    pub fn into_id_and_name(self) -> Call {
        Call {
            envelope: Value::Null,
            args: Args::Missing,
            leaked: None,
            ..self
        }
    }

    /// Whether the call's envelope may carry its arguments as JSON text. Where
    /// it may not (Anthropic `input`, Gemini `args`, MCP `arguments`), text is a
    /// double encoding: the object the provider wanted, written as a string.
    pub(crate) fn text_args_allowed(&self) -> bool {
        let writer = self.provider.writer();
        writer.args_as_text() || writer.keeps_args_form()
    }

    /// Gives the call another tool name, in the envelope too (`rename-tool`).
    pub(crate) fn rename(&mut self, name: &str) {
        self.name = name.to_owned();
        set(
            &mut self.envelope,
            self.name_at,
            Value::String(name.to_owned()),
        );
    }
}

/// A call built from bare arguments (`--tool NAME` on stdin).
pub(crate) fn bare_call(name: &str, text: String) -> Call {
    let mut envelope = Map::new();
    envelope.insert("name".into(), Value::String(name.to_owned()));
    Call {
        id: Value::Null,
        name: name.to_owned(),
        args: Args::Text(text),
        args_as_text: true,
        provider: Provider::Generic,
        envelope: Value::Object(envelope),
        args_at: &["arguments"],
        name_at: &["name"],
        leaked: None,
        read_two_ways: None,
    }
}

/// A call of `provider` read from `envelope` (what `what` names), with its
/// name and arguments found at the given places and its id at the first of
/// `id_keys` present.
pub(super) fn read_call(
    mut envelope: Map<String, Value>,
    provider: Provider,
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
        read_two_ways: None,
    })
}

fn get<'a>(map: &'a Map<String, Value>, path: &[&str]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    rest.iter().try_fold(map.field(first)?, |v, k| v.field(k))
}

fn get_mut<'a>(map: &'a mut Map<String, Value>, path: &[&str]) -> Option<&'a mut Value> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(map.field_mut(first)?, |v, k| v.field_mut(k))
}

/// The JSON type of a value, as messages name it.
pub(crate) fn json_type(v: &Value) -> &'static str {
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
pub(crate) fn write_call(call: &Call, args: &Value, spellings: &Spellings) -> Value {
    let mut env = call.envelope.clone();
    let writer = call.provider.writer();
    let as_text = writer.args_as_text() || (writer.keeps_args_form() && call.args_as_text);
    let value = if as_text {
        Value::String(spellings.to_text(args))
    } else {
        args.clone()
    };
    set(&mut env, call.args_at, value);
    env
}

/// The provider's error tool result for a rejected call.
pub(crate) fn error_result(call: &Call, message: &str) -> Value {
    call.provider
        .writer()
        .error_result(&call.id, &call.name, message)
}

/// The error result for a record that holds no recognisable call.
pub(crate) fn record_error(index: u64, message: &str) -> Value {
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
