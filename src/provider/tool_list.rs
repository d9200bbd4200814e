//! Tool lists in every provider's shape, as a schema source: an OpenAI `tools`
//! array (or a request body holding one), Anthropic's list, Gemini's
//! `functionDeclarations`, an MCP `tools/list` result (bare or in its JSON-RPC
//! response).

use serde_json::Value;

/// The keys a listed tool keeps its schema under: Anthropic `input_schema`, MCP
/// `inputSchema`, OpenAI/Gemini `parameters`, Gemini `parametersJsonSchema`.
pub(crate) const SCHEMA_KEYS: [&str; 4] = [
    "input_schema",
    "inputSchema",
    "parameters",
    "parametersJsonSchema",
];

/// The keys tool lists nest their tools under.
pub(crate) const NESTING_KEYS: [&str; 5] = [
    "tools",
    "function",
    "functionDeclarations",
    "function_declarations",
    "result",
];

/// A tool read from a list: name, schema, description.
pub(crate) type ListedTool = (String, Value, Option<String>);

/// Collects the tools from the tool-list shapes providers use. Returns false when
/// `value` is not a tool list.
pub(crate) fn read(value: Value, out: &mut Vec<ListedTool>) -> bool {
    match value {
        Value::Array(items) => {
            let before = out.len();
            for item in items {
                if !one_tool(item, out) {
                    return false;
                }
            }
            out.len() > before || before == 0
        }
        Value::Object(mut map) => {
            for key in ["tools", "functionDeclarations", "function_declarations"] {
                if let Some(Value::Array(_)) = map.get(key) {
                    return read(map.remove(key).unwrap_or_default(), out);
                }
            }
            // An MCP `tools/list` JSON-RPC response.
            if let Some(Value::Object(result)) = map.remove("result") {
                return read(Value::Object(result), out);
            }
            false
        }
        _ => false,
    }
}

fn one_tool(item: Value, out: &mut Vec<ListedTool>) -> bool {
    let Value::Object(mut map) = item else {
        return false;
    };
    // OpenAI Chat: {"type":"function","function":{name, parameters}}.
    if let Some(Value::Object(function)) = map.remove("function") {
        return one_tool(Value::Object(function), out);
    }
    // Gemini: {"functionDeclarations":[...]} inside a tools array.
    for key in ["functionDeclarations", "function_declarations"] {
        if let Some(Value::Array(decls)) = map.remove(key) {
            return decls.into_iter().all(|d| one_tool(d, out));
        }
    }
    let Some(Value::String(name)) = map.remove("name") else {
        return false;
    };
    let schema = SCHEMA_KEYS
        .into_iter()
        .find_map(|k| map.remove(k))
        .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    let description = match map.remove("description") {
        Some(Value::String(d)) => Some(d),
        _ => None,
    };
    out.push((name, schema, description));
    true
}

/// Whether `v` looks like one JSON Schema (a file holding one tool).
pub(crate) fn is_schema_like(v: &Value) -> bool {
    match v {
        Value::Bool(_) => true,
        Value::Object(m) => [
            "type",
            "properties",
            "$schema",
            "$ref",
            "anyOf",
            "oneOf",
            "allOf",
        ]
        .iter()
        .any(|k| m.contains_key(*k)),
        _ => false,
    }
}
