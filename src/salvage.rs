//! Stage 4: salvage of argument text.
//!
//! Arguments that arrive as text (OpenAI `arguments`, `--tool` on stdin) and are
//! not strict JSON go through these steps, in this order, each recorded as a
//! repair: strip one code fence that encloses the whole text; strip leaked closing
//! tags after the value; parse tolerantly (trailing commas, single quotes, unquoted
//! keys, comments, Python literals); accept two concatenated values only when they
//! are identical. Truncated text is never completed: it is rejected with a message
//! that says so. Valid JSON never reaches this module's rules.

use std::ops::Range;

use serde_json::Value;

use crate::kinds::{Enabled, Kind, Repair};
use crate::tolerant::{self, Failure};

/// What salvage made of argument text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Salvaged {
    /// A value, and the repairs it took (none for strict JSON).
    Value(Value, Vec<Repair>),
    /// Nothing but whitespace (and perhaps a fence or tags): the caller decides,
    /// with the schema, whether that means `{}`.
    Empty(Vec<Repair>),
}

/// Closing tags that leak after the arguments from XML-style tool-call formats.
const LEAKED_TAGS: [&str; 4] = ["</tool_call>", "</parameter>", "</invoke>", "</function>"];

/// Argument text that cannot be salvaged; the message stage words it.
#[derive(Debug)]
pub(crate) enum Unusable {
    /// Not JSON, and no enabled rule makes it JSON (the strict parser's error).
    Invalid(serde_json::Error),
    /// Cut off where the text ends (never completed).
    CutOff {
        /// The 1-based line of the end.
        line: usize,
        /// The column of the end, in characters.
        column: usize,
    },
    /// Two different JSON values, one after the other.
    TwoValues,
    /// An object names a key twice (at this dotted path): which of its values
    /// a tool runs with depends on its JSON reader, so neither is judged.
    RepeatedKey(String),
}

/// `text` parsed strictly; unusable if an object in it names a key twice.
fn parse_unambiguous(text: &str) -> serde_json::Result<Result<Value, Unusable>> {
    Ok(crate::json::parse_str_unrepeated(text)?.map_err(Unusable::RepeatedKey))
}

/// Parses argument text, salvaging what the enabled rules allow.
pub(crate) fn salvage(text: &str, enabled: Enabled) -> Result<Salvaged, Unusable> {
    let strict = match parse_unambiguous(text) {
        Ok(parsed) => return parsed.map(|v| Salvaged::Value(v, Vec::new())),
        Err(e) => e,
    };
    let mut repairs = Vec::new();
    let range = unwrap_text(text, enabled, &mut repairs);
    let body = text.get(range.clone()).unwrap_or_default();
    if body.is_empty() {
        return Ok(Salvaged::Empty(repairs));
    }
    if !repairs.is_empty()
        && let Ok(parsed) = parse_unambiguous(body)
    {
        return parsed.map(|v| Salvaged::Value(v, repairs));
    }
    let failure = match tolerant::parse(body) {
        Ok((v, used)) => {
            if !enabled.has(Kind::TolerantParse) {
                return Err(Unusable::Invalid(strict));
            }
            repairs.push(Repair {
                path: String::new(),
                kind: Kind::TolerantParse,
                from: Value::String(used.names().join(", ")),
                to: Value::Null,
            });
            return Ok(Salvaged::Value(v, repairs));
        }
        Err(f) => f,
    };
    match failure {
        Failure::Truncated => {
            // Where the (unwrapped) text ends, counted in the original text.
            let before = text.get(..range.end).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count());
            Err(Unusable::CutOff { line, column })
        }
        Failure::Trailing { at } => {
            duplicate(body, at, enabled, repairs).ok_or(Unusable::TwoValues)
        }
        // Read leniently, but a key is named twice: which value counts
        // depends on the reader (rejected as strict JSON is).
        Failure::Repeated { path, .. } if enabled.has(Kind::TolerantParse) => {
            Err(Unusable::RepeatedKey(path))
        }
        Failure::Invalid { .. } | Failure::Repeated { .. } => Err(Unusable::Invalid(strict)),
    }
}

/// Strips a whole-text code fence and trailing leaked tags; returns where the
/// remaining body lies in `text`.
fn unwrap_text(text: &str, enabled: Enabled, repairs: &mut Vec<Repair>) -> Range<usize> {
    let mut range = trim_range(text, 0..text.len());
    if enabled.has(Kind::StripFence)
        && let Some((fence, inner)) = fenced(text.get(range.clone()).unwrap_or_default())
    {
        repairs.push(Repair {
            path: String::new(),
            kind: Kind::StripFence,
            from: Value::String(fence.to_owned()),
            to: Value::Null,
        });
        range = trim_range(text, range.start + inner.start..range.start + inner.end);
    }
    if enabled.has(Kind::StripLeakedTag) {
        while let Some(tag) = LEAKED_TAGS
            .iter()
            .find(|t| text.get(range.clone()).is_some_and(|r| r.ends_with(*t)))
        {
            repairs.push(Repair {
                path: String::new(),
                kind: Kind::StripLeakedTag,
                from: Value::String((*tag).to_owned()),
                to: Value::Null,
            });
            range = trim_range(text, range.start..range.end - tag.len());
        }
    }
    range
}

/// `range` without leading and trailing whitespace.
fn trim_range(text: &str, range: Range<usize>) -> Range<usize> {
    let part = text.get(range.clone()).unwrap_or_default();
    let start = range.start + (part.len() - part.trim_start().len());
    let end = (range.start + part.trim_end().len()).max(start);
    start..end
}

/// ```` ```json\n…\n``` ```` enclosing the whole text: the opening line, and where
/// the body lies in `text`.
fn fenced(text: &str) -> Option<(&str, Range<usize>)> {
    let rest = text.strip_prefix("```")?;
    let (info, _) = rest.split_once('\n')?;
    if !info.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let start = 3 + info.len() + 1;
    let body = text.get(start..)?.trim_end().strip_suffix("```")?;
    if body.contains("```") {
        return None;
    }
    Some((text.get(..3 + info.len())?, start..start + body.len()))
}

/// Two concatenated values: accepted only when they are identical.
fn duplicate(
    body: &str,
    at: usize,
    enabled: Enabled,
    mut repairs: Vec<Repair>,
) -> Option<Salvaged> {
    if !enabled.has(Kind::DuplicateObject) {
        return None;
    }
    let (first, used, _) = tolerant::parse_prefix(body).ok()?;
    let rest = body.get(at..)?;
    let (second, _) = tolerant::parse(rest).ok()?;
    if first != second || !first.is_object() {
        return None;
    }
    if used != tolerant::Leniency::default() && !enabled.has(Kind::TolerantParse) {
        return None;
    }
    repairs.push(Repair {
        path: String::new(),
        kind: Kind::DuplicateObject,
        from: Value::String(rest.trim().to_owned()),
        to: Value::Null,
    });
    Some(Salvaged::Value(first, repairs))
}

/// A JSON string whose content is itself a JSON object, peeled at most twice.
/// `Err` with the dotted path of a key named twice in the object it would
/// peel to: that text has two readings, so neither is taken.
pub(crate) fn peel(
    value: Value,
    enabled: Enabled,
    repairs: &mut Vec<Repair>,
) -> Result<Value, String> {
    let mut value = value;
    if !enabled.has(Kind::DoubleEncoded) {
        return Ok(value);
    }
    for _ in 0..2 {
        let Value::String(text) = &value else { break };
        let inner = match crate::json::parse_str_unrepeated(text) {
            Ok(Ok(inner @ (Value::Object(_) | Value::String(_)))) => inner,
            Ok(Err(path)) => return Err(path),
            _ => break,
        };
        // A string that holds a string is only peeled on if that one holds
        // an object in turn.
        if let Value::String(t) = &inner {
            match crate::json::parse_str_unrepeated(t) {
                Ok(Ok(Value::Object(_))) => {}
                Ok(Err(path)) => return Err(path),
                _ => break,
            }
        }
        repairs.push(Repair {
            path: String::new(),
            kind: Kind::DoubleEncoded,
            from: value.clone(),
            to: Value::Null,
        });
        value = inner;
    }
    Ok(value)
}

/// A value embedded in a string argument (for `parse-json-string`): strict JSON,
/// or the salvage steps above. Never a completion of truncated text.
pub(crate) fn parse_embedded(text: &str) -> Option<Value> {
    match salvage(text, Enabled::ALL) {
        Ok(Salvaged::Value(v, _)) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kinds(r: &[Repair]) -> Vec<&'static str> {
        r.iter().map(|r| r.kind.name()).collect()
    }

    fn ok(text: &str) -> (Value, Vec<&'static str>) {
        match salvage(text, Enabled::ALL) {
            Ok(Salvaged::Value(v, r)) => (v, kinds(&r)),
            other => panic!("{text:?}: {other:?}"),
        }
    }

    fn err(text: &str) -> String {
        match salvage(text, Enabled::ALL) {
            Err(e) => crate::message::unusable(&e).message,
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn strict_json_is_untouched() {
        assert_eq!(ok(" {\"a\": [1]} \n"), (json!({"a": [1]}), vec![]));
        // Even JSON that looks fenced inside a string.
        assert_eq!(ok(r#"{"a": "```json\n{}\n```"}"#).1, Vec::<&str>::new());
    }

    #[test]
    fn whole_text_fence_is_stripped() {
        // pi #8858 (DeepSeek through a re-serializing gateway).
        assert_eq!(
            ok("```json\n{\"city\":\"paris\"}\n```"),
            (json!({"city": "paris"}), vec!["strip-fence"])
        );
        assert_eq!(ok("```\n{\"a\":1}\n```\n").1, vec!["strip-fence"]);
        // A fence that does not enclose the whole text is not a fence.
        assert!(err("Here you go:\n```json\n{\"a\":1}\n```").contains("not valid JSON"));
        assert!(err("```json\n{\"a\":1}\n```\n```json\n{\"b\":2}\n```").contains("not valid JSON"));
    }

    #[test]
    fn leaked_closing_tags_are_stripped() {
        // QwenPaw #6363 (GLM-5-Turbo, DeepSeek-V3).
        assert_eq!(
            ok("{\"file_path\": \"/home/zlaw/test.py\"}</tool_call>"),
            (
                json!({"file_path": "/home/zlaw/test.py"}),
                vec!["strip-leaked-tag"]
            )
        );
        // opencode #1373: after an array, with a newline between the tags.
        assert_eq!(
            ok("[{\"content\": \"a\"}]</parameter>\n</invoke>"),
            (
                json!([{"content": "a"}]),
                vec!["strip-leaked-tag", "strip-leaked-tag"]
            )
        );
        // A tag after an unfinished value: still cut off, still rejected.
        assert!(err("{\"a\": \"x</tool_call>").contains("incomplete"));
    }

    #[test]
    fn tolerant_parse_records_what_it_tolerated() {
        let (v, k) = ok("{'paths': ['app.py', 'b.py'], 'all': True,}");
        assert_eq!(v, json!({"paths": ["app.py", "b.py"], "all": true}));
        assert_eq!(k, vec!["tolerant-parse"]);
        match salvage("{command:\"ls\"}", Enabled::ALL) {
            Ok(Salvaged::Value(_, r)) => assert_eq!(r[0].from, json!("unquoted key")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn identical_duplicates_only() {
        // opencode #33064 (GLM-5.1 emitting the arguments twice).
        assert_eq!(
            ok("{\"a\":1}{\"a\":1}"),
            (json!({"a": 1}), vec!["duplicate-object"])
        );
        assert_eq!(
            err("{\"a\":1}{\"a\":2}"),
            "arguments hold two different JSON values; send exactly one object"
        );
    }

    #[test]
    fn truncated_text_is_never_completed() {
        // qwen-code #9013.
        let e = err("{\"command\":\"rm -rf /tmp/scra");
        assert_eq!(
            e,
            "arguments are incomplete JSON (cut off at line 1 column 28); send the complete arguments"
        );
        assert!(err("{\"command\":}").contains("not valid JSON"));
        assert_eq!(
            err("```json\n{\"command\":\"rm -rf\n```"),
            "arguments are incomplete JSON (cut off at line 2 column 18); send the complete arguments"
        );
    }

    #[test]
    fn blank_text_is_empty() {
        assert!(matches!(salvage("  \n", Enabled::ALL), Ok(Salvaged::Empty(r)) if r.is_empty()));
        assert!(
            matches!(salvage("```json\n```", Enabled::ALL), Ok(Salvaged::Empty(r)) if r.len() == 1)
        );
    }

    #[test]
    fn disabled_rules_do_not_run() {
        let only = Enabled::parse("strip-fence").unwrap();
        assert!(salvage("{'a': 1}", only).is_err());
        assert!(salvage("```json\n{\"a\":1}\n```", only).is_ok());
        assert!(salvage("```json\n{\"a\":1}\n```", Enabled::NONE).is_err());
    }

    #[test]
    fn deep_nesting_is_rejected_on_a_small_stack() {
        // Issue 25: 100,000 levels through every step (strict parse, fence and
        // tags, tolerant parse, the duplicate check, peeling) on a thread with a
        // small stack: each reader's depth limit rejects it.
        let n = 100_000;
        let deep = format!("{}{}", "[".repeat(n), "]".repeat(n));
        let texts = [
            deep.clone(),
            format!("```json\n{{'a': {deep}}}\n```</tool_call>"),
            format!("{{a: 1}}{{a: {deep}}}"),
            format!("{{'a': {}1{}}}", "{b: ".repeat(n), "}".repeat(n)),
        ];
        let small = std::thread::Builder::new().stack_size(512 * 1024);
        let got = small
            .spawn(move || {
                let salvaged: Vec<bool> = texts
                    .iter()
                    .map(|t| salvage(t, Enabled::ALL).is_err())
                    .collect();
                let mut r = Vec::new();
                let peeled = peel(Value::String(deep), Enabled::ALL, &mut r);
                (
                    salvaged,
                    peeled.is_ok_and(|p| p.is_string()),
                    parse_embedded(&"[".repeat(n)),
                )
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(got, (vec![true; 4], true, None));
    }

    #[test]
    fn double_encoding_is_peeled_at_most_twice() {
        let mut r = Vec::new();
        let once = json!("{\"shop_name\": \"A店\"}");
        assert_eq!(
            peel(once, Enabled::ALL, &mut r),
            Ok(json!({"shop_name": "A店"}))
        );
        assert_eq!(kinds(&r), vec!["double-encoded"]);
        let twice = Value::String(json!("{\"a\":1}").to_string());
        let mut r = Vec::new();
        assert_eq!(peel(twice, Enabled::ALL, &mut r), Ok(json!({"a": 1})));
        assert_eq!(r.len(), 2);
        // A plain string, or a string holding an array, is left alone.
        let mut r = Vec::new();
        assert_eq!(
            peel(json!("hello"), Enabled::ALL, &mut r),
            Ok(json!("hello"))
        );
        assert_eq!(peel(json!("[1]"), Enabled::ALL, &mut r), Ok(json!("[1]")));
        assert!(r.is_empty());
        // Text with a key named twice has two readings: neither is taken,
        // however deep it is encoded.
        let dup = r#"{"a":1,"a":2}"#;
        assert_eq!(peel(json!(dup), Enabled::ALL, &mut r), Err("a".to_owned()));
        let deeper = Value::String(json!(dup).to_string());
        assert_eq!(peel(deeper, Enabled::ALL, &mut r), Err("a".to_owned()));
        assert!(r.is_empty());
    }
}
