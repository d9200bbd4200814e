//! Stage 2: envelopes, the shapes providers wrap tool calls in.
//!
//! Every provider shape callfix reads is recognised here without flags, and every
//! shape it writes back (a call with its arguments in the provider's form, or the
//! provider's error tool result) is built here. Nothing else in the crate knows how
//! a provider spells "arguments".

use serde_json::{Map, Value, json};

/// The provider shape a call arrived in, which is also the shape it is written
/// back in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `{"name", "arguments"|"args"|"input"|"parameters", "id"?}`.
    Generic { args_key: &'static str },
    /// OpenAI Chat Completions: `{"id","type":"function","function":{"name","arguments"}}`.
    OpenAiChat,
    /// OpenAI Responses: `{"type":"function_call","call_id","name","arguments"}`.
    OpenAiResponses,
    /// Anthropic Messages: `{"type":"tool_use","id","name","input"}`.
    Anthropic,
    /// Gemini: `{"functionCall":{"name","args","id"?}}`.
    Gemini,
    /// MCP: `{"jsonrpc":"2.0","id","method":"tools/call","params":{"name","arguments"}}`.
    Mcp,
}

impl Shape {
    /// A short name for messages and `--format json`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Generic { .. } => "generic",
            Shape::OpenAiChat => "openai",
            Shape::OpenAiResponses => "openai-responses",
            Shape::Anthropic => "anthropic",
            Shape::Gemini => "gemini",
            Shape::Mcp => "mcp",
        }
    }
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
}

/// One tool call taken out of a record.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The call id (`null` when the envelope has none).
    pub id: Value,
    pub name: String,
    pub args: Args,
    /// The arguments arrived as JSON text (written back the same way).
    pub args_as_text: bool,
    pub shape: Shape,
    /// The call object as it arrived, with its arguments taken out; used to write
    /// the call back in its own envelope.
    pub envelope: Value,
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

/// Containers are followed this deep (a completion holds choices hold messages hold
/// tool calls); anything deeper is not an envelope.
const MAX_DEPTH: usize = 8;

/// Takes every tool call out of a record.
pub fn extract(record: Value) -> Extracted {
    let mut calls = Vec::new();
    match collect(record, &mut calls, 0) {
        Ok(()) => Extracted::Calls(calls),
        Err(reason) => Extracted::Unrecognised(reason),
    }
}

/// A call built from bare arguments (`--tool NAME` on stdin).
pub fn bare_call(name: &str, text: String) -> Call {
    Call {
        id: Value::Null,
        name: name.to_owned(),
        args: Args::Text(text),
        args_as_text: true,
        shape: Shape::Generic {
            args_key: "arguments",
        },
        envelope: json!({ "name": name }),
    }
}

const GENERIC_ARGS_KEYS: [&str; 4] = ["arguments", "args", "input", "parameters"];

/// Block and item types that are part of a conversation but are not tool calls.
const NON_CALL_TYPES: [&str; 12] = [
    "text",
    "thinking",
    "redacted_thinking",
    "reasoning",
    "image",
    "document",
    "tool_result",
    "function_call_output",
    "message",
    "input_text",
    "output_text",
    "web_search_call",
];

/// The `type` tags of call objects.
const CALL_TYPES: [&str; 3] = ["function", "function_call", "tool_use"];

fn collect(value: Value, out: &mut Vec<Call>, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err("nested too deeply to be a tool call envelope".into());
    }
    let mut map = match value {
        Value::Object(map) => map,
        Value::Array(items) => {
            for (i, item) in items.into_iter().enumerate() {
                collect(item, out, depth + 1).map_err(|e| format!("element {i}: {e}"))?;
            }
            return Ok(());
        }
        other => {
            return Err(format!(
                "expected a tool call object, got {}",
                json_type(&other)
            ));
        }
    };
    // The `type` tag, borrowed from a static list so the map stays mutable.
    let ty: &'static str = match map.get("type").and_then(Value::as_str) {
        None => "",
        Some(t) => CALL_TYPES
            .iter()
            .chain(NON_CALL_TYPES.iter())
            .find(|k| **k == t)
            .copied()
            .unwrap_or("?"),
    };

    // MCP JSON-RPC: only `tools/call` carries a call; other messages have none.
    if map.contains_key("jsonrpc") {
        if map.get("method").and_then(Value::as_str) == Some("tools/call") {
            let Some(Value::Object(params)) = map.get_mut("params") else {
                return Err("MCP tools/call without a params object".into());
            };
            let name = take_name(params, "MCP tools/call params")?;
            let args = take_args(params, "arguments");
            let id = map.get("id").cloned().unwrap_or(Value::Null);
            out.push(call(id, name, args, Shape::Mcp, map));
        }
        return Ok(());
    }
    // OpenAI Chat tool call (also without `type`, as some gateways send it).
    if (ty == "function" || ty.is_empty())
        && let Some(Value::Object(function)) = map.get_mut("function")
    {
        let name = take_name(function, "OpenAI function")?;
        let args = take_args(function, "arguments");
        let id = map.get("id").cloned().unwrap_or(Value::Null);
        out.push(call(id, name, args, Shape::OpenAiChat, map));
        return Ok(());
    }
    match ty {
        "function_call" => {
            let name = take_name(&mut map, "OpenAI Responses function_call")?;
            let args = take_args(&mut map, "arguments");
            let id = map
                .get("call_id")
                .or_else(|| map.get("id"))
                .cloned()
                .unwrap_or(Value::Null);
            out.push(call(id, name, args, Shape::OpenAiResponses, map));
            return Ok(());
        }
        "tool_use" => {
            let name = take_name(&mut map, "Anthropic tool_use")?;
            let args = take_args(&mut map, "input");
            let id = map.get("id").cloned().unwrap_or(Value::Null);
            out.push(call(id, name, args, Shape::Anthropic, map));
            return Ok(());
        }
        _ => {}
    }
    // Gemini part.
    if let Some(Value::Object(fc)) = map.get_mut("functionCall") {
        let name = take_name(fc, "Gemini functionCall")?;
        let args = take_args(fc, "args");
        let id = fc.get("id").cloned().unwrap_or(Value::Null);
        out.push(call(id, name, args, Shape::Gemini, map));
        return Ok(());
    }
    // Containers: a completion, a Gemini response, a Responses response, a message,
    // a request body. Each holds an array of things that may be calls.
    for (key, inner) in [
        ("choices", Some("message")),
        ("candidates", Some("content")),
        ("output", None),
        ("tool_calls", None),
        ("parts", None),
        ("messages", None),
        ("contents", None),
    ] {
        if let Some(Value::Array(items)) = map.get_mut(key) {
            for (i, mut item) in std::mem::take(items).into_iter().enumerate() {
                let item = match inner {
                    Some(field) => match item.get_mut(field) {
                        Some(v) => v.take(),
                        None => continue,
                    },
                    None => item,
                };
                collect(item, out, depth + 1).map_err(|e| format!("{key}[{i}]: {e}"))?;
            }
            return Ok(());
        }
    }
    if map.contains_key("role") {
        // A message: Anthropic content blocks may hold tool_use; a string content
        // or a message without content holds no call.
        if let Some(Value::Array(blocks)) = map.get_mut("content") {
            for (i, block) in std::mem::take(blocks).into_iter().enumerate() {
                collect(block, out, depth + 1).map_err(|e| format!("content[{i}]: {e}"))?;
            }
        }
        return Ok(());
    }
    if NON_CALL_TYPES.contains(&ty)
        || map.contains_key("functionResponse")
        || (ty.is_empty() && map.len() == 1 && map.get("text").is_some_and(Value::is_string))
    {
        return Ok(());
    }
    // Generic `{"name", "arguments"}` and its spellings.
    if map.get("name").is_some_and(Value::is_string)
        && let Some(key) = GENERIC_ARGS_KEYS.into_iter().find(|k| map.contains_key(*k))
    {
        let name = take_name(&mut map, "call")?;
        let args = take_args(&mut map, key);
        let id = map.get("id").cloned().unwrap_or(Value::Null);
        out.push(call(id, name, args, Shape::Generic { args_key: key }, map));
        return Ok(());
    }
    Err(describe_unrecognised(&map))
}

fn call(id: Value, name: String, args: Args, shape: Shape, envelope: Map<String, Value>) -> Call {
    Call {
        id,
        name,
        args_as_text: matches!(args, Args::Text(_)),
        args,
        shape,
        envelope: Value::Object(envelope),
    }
}

fn take_name(map: &mut Map<String, Value>, what: &str) -> Result<String, String> {
    match map.get("name") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!(
            "{what} has a name that is {}, not a string",
            json_type(other)
        )),
        None => Err(format!("{what} has no \"name\"")),
    }
}

/// Takes the arguments out of `map[key]`, leaving the key in place (as `null`) so
/// the envelope keeps its field order when written back.
fn take_args(map: &mut Map<String, Value>, key: &str) -> Args {
    match map.get_mut(key) {
        None => Args::Missing,
        Some(v) => match v.take() {
            Value::String(s) => Args::Text(s),
            other => Args::Value(other),
        },
    }
}

fn describe_unrecognised(map: &Map<String, Value>) -> String {
    const SHOWN: usize = 6;
    let mut keys: Vec<&str> = map.keys().map(String::as_str).take(SHOWN).collect();
    if map.len() > SHOWN {
        keys.push("…");
    }
    if keys.is_empty() {
        "an empty object is not a tool call".into()
    } else {
        format!(
            "no tool call found in an object with keys {}",
            keys.join(", ")
        )
    }
}

/// A tool name as OpenAI, Anthropic and Gemini accept it: only
/// `[a-zA-Z0-9_-]`, at most 64 characters. Other characters become `_`.
pub fn provider_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out
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

impl Call {
    /// Gives the call another tool name, in the envelope too (`rename-tool`).
    pub fn rename(&mut self, name: &str) {
        self.name = name.to_owned();
        let path: &[&str] = match self.shape {
            Shape::OpenAiChat => &["function", "name"],
            Shape::Gemini => &["functionCall", "name"],
            Shape::Mcp => &["params", "name"],
            Shape::OpenAiResponses | Shape::Anthropic | Shape::Generic { .. } => &["name"],
        };
        set(&mut self.envelope, path, Value::String(name.to_owned()));
    }
}

/// Writes a (valid or repaired) call back in its own envelope, with the arguments
/// in the provider's form: a JSON string for OpenAI, an object elsewhere. A generic
/// call keeps the form it arrived in.
pub fn write_call(call: &Call, args: &Value) -> Value {
    let mut env = call.envelope.clone();
    let text = || Value::String(args.to_string());
    match call.shape {
        Shape::OpenAiChat => set(&mut env, &["function", "arguments"], text()),
        Shape::OpenAiResponses => set(&mut env, &["arguments"], text()),
        Shape::Anthropic => set(&mut env, &["input"], args.clone()),
        Shape::Gemini => set(&mut env, &["functionCall", "args"], args.clone()),
        Shape::Mcp => set(&mut env, &["params", "arguments"], args.clone()),
        Shape::Generic { args_key } => {
            let v = if call.args_as_text {
                text()
            } else {
                args.clone()
            };
            set(&mut env, &[args_key], v);
        }
    }
    env
}

/// The provider's error tool result for a rejected call, ready to send back to the
/// model.
pub fn error_result(call: &Call, message: &str) -> Value {
    match call.shape {
        Shape::OpenAiChat => json!({
            "role": "tool",
            "tool_call_id": call.id,
            "content": message,
        }),
        Shape::OpenAiResponses => json!({
            "type": "function_call_output",
            "call_id": call.id,
            "output": message,
        }),
        Shape::Anthropic => json!({
            "type": "tool_result",
            "tool_use_id": call.id,
            "is_error": true,
            "content": message,
        }),
        Shape::Gemini => {
            let mut response = json!({ "name": call.name, "response": { "error": message } });
            if !call.id.is_null() {
                response["id"] = call.id.clone();
            }
            json!({ "functionResponse": response })
        }
        Shape::Mcp => json!({
            "jsonrpc": "2.0",
            "id": call.id,
            "result": {
                "content": [{ "type": "text", "text": message }],
                "isError": true,
            },
        }),
        Shape::Generic { .. } => json!({
            "id": call.id,
            "name": call.name,
            "is_error": true,
            "content": message,
        }),
    }
}

/// The error result for a record that holds no recognisable call.
pub fn record_error(index: u64, message: &str) -> Value {
    json!({ "index": index, "is_error": true, "content": message })
}

fn set(env: &mut Value, path: &[&str], value: Value) {
    let mut cur = env;
    for key in &path[..path.len() - 1] {
        cur = &mut cur[*key];
    }
    cur[path[path.len() - 1]] = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(v: Value) -> Vec<Call> {
        match extract(v) {
            Extracted::Calls(c) => c,
            Extracted::Unrecognised(r) => panic!("unrecognised: {r}"),
        }
    }

    fn one(v: Value) -> Call {
        let mut c = calls(v);
        assert_eq!(c.len(), 1, "{c:?}");
        c.remove(0)
    }

    #[test]
    fn generic_with_each_args_key() {
        for key in GENERIC_ARGS_KEYS {
            let c = one(json!({"id": "c1", "name": "read", key: {"filePath": "/a"}}));
            assert_eq!(c.name, "read");
            assert_eq!(c.id, json!("c1"));
            assert_eq!(c.args, Args::Value(json!({"filePath": "/a"})));
            assert_eq!(c.shape, Shape::Generic { args_key: key });
        }
        let c = one(json!({"name": "read", "arguments": "{\"a\":1}"}));
        assert_eq!(c.args, Args::Text("{\"a\":1}".into()));
        assert_eq!(c.id, Value::Null);
    }

    #[test]
    fn openai_chat_call_message_and_completion() {
        let tc = json!({"id": "call_1", "type": "function",
            "function": {"name": "read", "arguments": "{\"filePath\":\"/a\"}"}});
        let c = one(tc.clone());
        assert_eq!(c.shape, Shape::OpenAiChat);
        assert_eq!(c.args, Args::Text("{\"filePath\":\"/a\"}".into()));
        let msg =
            json!({"role": "assistant", "content": null, "tool_calls": [tc.clone(), tc.clone()]});
        assert_eq!(calls(msg.clone()).len(), 2);
        let completion = json!({"id": "chatcmpl-1", "object": "chat.completion",
            "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]});
        assert_eq!(calls(completion).len(), 2);
    }

    #[test]
    fn openai_responses_item_and_response() {
        let item = json!({"type": "function_call", "id": "fc_1", "call_id": "call_9",
            "name": "glob", "arguments": "{\"pattern\":\"*.rs\"}"});
        let c = one(item.clone());
        assert_eq!(c.shape, Shape::OpenAiResponses);
        assert_eq!(c.id, json!("call_9"));
        let response = json!({"object": "response", "output": [
            {"type": "reasoning", "summary": []},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]},
            item]});
        assert_eq!(calls(response).len(), 1);
    }

    #[test]
    fn anthropic_block_and_message() {
        let block = json!({"type": "tool_use", "id": "toolu_1", "name": "bash",
            "input": {"command": "ls"}});
        let c = one(block.clone());
        assert_eq!(c.shape, Shape::Anthropic);
        assert_eq!(c.args, Args::Value(json!({"command": "ls"})));
        let msg = json!({"id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "Let me look."}, block]});
        assert_eq!(calls(msg).len(), 1);
    }

    #[test]
    fn gemini_part_content_and_response() {
        let part = json!({"functionCall": {"name": "grep", "args": {"pattern": "fn main"}}});
        let c = one(part.clone());
        assert_eq!(c.shape, Shape::Gemini);
        let content = json!({"role": "model", "parts": [{"text": "ok"}, part]});
        assert_eq!(calls(content.clone()).len(), 1);
        let response = json!({"candidates": [{"content": content, "finishReason": "STOP"}]});
        assert_eq!(calls(response).len(), 1);
    }

    #[test]
    fn mcp_tools_call_and_other_methods() {
        let req = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "webfetch", "arguments": {"url": "https://x"}}});
        let c = one(req);
        assert_eq!(c.shape, Shape::Mcp);
        assert_eq!(c.id, json!(7));
        let other = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert!(calls(other).is_empty());
    }

    #[test]
    fn messages_without_calls_hold_zero_calls() {
        assert!(calls(json!({"role": "user", "content": "hi"})).is_empty());
        assert!(
            calls(json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]}))
                .is_empty()
        );
        assert!(calls(json!({"type": "text", "text": "x"})).is_empty());
    }

    #[test]
    fn unrecognised_records_say_what_they_saw() {
        let Extracted::Unrecognised(r) = extract(json!({"foo": 1, "bar": 2})) else {
            panic!()
        };
        assert_eq!(r, "no tool call found in an object with keys foo, bar");
        let Extracted::Unrecognised(r) = extract(json!(42)) else {
            panic!()
        };
        assert_eq!(r, "expected a tool call object, got number");
        let Extracted::Unrecognised(r) = extract(json!({"type": "tool_use", "input": {}})) else {
            panic!()
        };
        assert_eq!(r, "Anthropic tool_use has no \"name\"");
    }

    #[test]
    fn write_back_puts_args_in_provider_form() {
        let args = json!({"filePath": "/a", "limit": 5});
        let c = one(json!({"id": "call_1", "type": "function",
            "function": {"name": "read", "arguments": "{}"}}));
        assert_eq!(
            write_call(&c, &args),
            json!({"id": "call_1", "type": "function",
                "function": {"name": "read", "arguments": "{\"filePath\":\"/a\",\"limit\":5}"}})
        );
        let c = one(json!({"type": "tool_use", "id": "t", "name": "read", "input": {}}));
        assert_eq!(
            write_call(&c, &args),
            json!({"type": "tool_use", "id": "t", "name": "read", "input": args})
        );
        let c = one(json!({"functionCall": {"name": "read", "args": {}}}));
        assert_eq!(
            write_call(&c, &args),
            json!({"functionCall": {"name": "read", "args": args}})
        );
    }

    #[test]
    fn provider_names() {
        assert_eq!(provider_name("read"), "read");
        assert_eq!(provider_name("uber.ride"), "uber_ride");
        assert_eq!(provider_name("mcp/server:tool"), "mcp_server_tool");
        assert_eq!(provider_name(&"x".repeat(70)).len(), 64);
        assert_eq!(provider_name(""), "_");
    }

    #[test]
    fn error_results_per_provider() {
        let c = one(json!({"type": "tool_use", "id": "t1", "name": "read", "input": {}}));
        assert_eq!(
            error_result(&c, "bad"),
            json!({"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": "bad"})
        );
        let c = one(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "read", "arguments": {}}}));
        assert_eq!(
            error_result(&c, "bad"),
            json!({"jsonrpc": "2.0", "id": 3,
                "result": {"content": [{"type": "text", "text": "bad"}], "isError": true}})
        );
    }
}
