//! Stage 4: salvage of argument text.
//!
//! Arguments that arrive as text (OpenAI `arguments`, `--tool` on stdin) are parsed
//! here. Today the parse is strict JSON and a failure says where the text broke;
//! the tolerant rules (fences, leaked tags, JSON5-isms, double encoding) belong in
//! this module too, and never complete truncated text.

use serde_json::Value;

use crate::message::{self, ArgError};

/// Parses argument text into a JSON value.
pub fn parse_arguments(text: &str) -> Result<Value, ArgError> {
    if text.trim().is_empty() {
        return Err(message::empty_arguments());
    }
    serde_json::from_str(text).map_err(|e| message::invalid_json(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_json_parses() {
        assert_eq!(parse_arguments(" {\"a\": [1]} \n"), Ok(json!({"a": [1]})));
    }

    #[test]
    fn blank_text_is_empty_arguments() {
        assert_eq!(parse_arguments("  \n"), Err(message::empty_arguments()));
    }

    #[test]
    fn truncated_text_is_never_completed() {
        let err = parse_arguments("{\"command\":\"rm -rf /tmp/scra").unwrap_err();
        assert!(err.message.contains("incomplete"), "{}", err.message);
        let err = parse_arguments("{\"command\":}").unwrap_err();
        assert!(err.message.contains("not valid JSON"), "{}", err.message);
    }
}
