//! Which model wrote a record and why its turn stopped, as each provider's
//! response says it: for summaries (`callfix report`), read before the calls
//! are taken out.

use serde_json::Value;

use super::fields::Fields;

/// The model and stop reason of one record, each at most
/// [`Origin::MAX_BYTES`] bytes (longer ones are cut at a character boundary).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// The response's `model` (Gemini: `modelVersion`).
    pub model: Option<String>,
    /// `finish_reason` (OpenAI), `stop_reason` (Anthropic), `finishReason`
    /// (Gemini), `done_reason` (Ollama) or the Responses API's
    /// `incomplete_details.reason`.
    pub stop: Option<String>,
}

impl Origin {
    /// The longest model name or stop reason kept, in bytes.
    pub const MAX_BYTES: usize = 128;
}

fn text(v: Option<&Value>) -> Option<String> {
    let s = v?.as_str()?;
    let mut end = s.len().min(Origin::MAX_BYTES);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).map(str::to_owned)
}

/// The origin of a parsed record (empty for one that says neither). Every
/// record is asked, so fields are looked up by [`Fields`] (no hashing).
pub(crate) fn origin(record: &Value) -> Origin {
    let first = |key: &str| record.field(key).and_then(|a| a.as_array()?.first());
    let model = text(record.field("model")).or_else(|| text(record.field("modelVersion")));
    let stop = text(record.field("stop_reason"))
        .or_else(|| text(first("choices").and_then(|c| c.field("finish_reason"))))
        .or_else(|| text(first("candidates").and_then(|c| c.field("finishReason"))))
        .or_else(|| text(record.field("done_reason")))
        .or_else(|| {
            text(
                record
                    .field("incomplete_details")
                    .and_then(|d| d.field("reason")),
            )
        });
    Origin { model, stop }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_providers_model_and_stop_reason() {
        let o = origin(&json!({"model": "gpt", "choices": [{"finish_reason": "length"}]}));
        assert_eq!(
            (o.model.as_deref(), o.stop.as_deref()),
            (Some("gpt"), Some("length"))
        );
        let o = origin(&json!({"model": "claude", "stop_reason": "max_tokens"}));
        assert_eq!(o.stop.as_deref(), Some("max_tokens"));
        let o = origin(&json!({"modelVersion": "gem", "candidates": [{"finishReason": "STOP"}]}));
        assert_eq!(
            (o.model.as_deref(), o.stop.as_deref()),
            (Some("gem"), Some("STOP"))
        );
        assert_eq!(origin(&json!([1])), Origin::default());
        let long = "é".repeat(100);
        let o = origin(&json!({"model": long}));
        assert!(
            o.model
                .is_some_and(|m| m.len() <= Origin::MAX_BYTES && m.starts_with('é'))
        );
    }
}
