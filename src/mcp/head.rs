//! Reading a line's `id` and `method` cheaply: without building the rest of
//! the message, and, for a line cut short or nested too deeply to parse, by a
//! scan that counts brackets.

use serde::Deserialize;
use serde_json::Value;

/// The fields of a message the proxy reads without building the rest.
#[derive(Deserialize)]
pub(super) struct Head {
    #[serde(default)]
    pub(super) method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(super) id: Option<Value>,
}

/// An `id` that is there, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Head {
    /// The method and id of a JSON-RPC object line, `None` if it is not one.
    /// Only these two fields are built: the rest is checked and skipped.
    pub(super) fn read(line: &[u8]) -> Option<Head> {
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            return None;
        }
        match serde_json::from_slice::<Head>(line) {
            Ok(head) => Some(head),
            // Duplicate keys, say: read it as the full parse would.
            Err(_) => match serde_json::from_slice::<Value>(line) {
                Ok(Value::Object(mut map)) => Some(Head {
                    method: map.remove("method"),
                    id: map.remove("id"),
                }),
                // Nested too deeply to parse, say: what a scan can see.
                _ => {
                    let (id, method) = scan_head(line);
                    (id.is_some() || method.is_some()).then_some(Head { method, id })
                }
            },
        }
    }
}

/// The top-level `id` and `method` of a JSON object whose text starts with
/// `prefix`, each if it comes whole within it (a `method` that cannot be read
/// is `null`). One pass, without recursion: other values are skipped by
/// counting brackets, so neither a cut nor deep nesting stops the scan before
/// it reaches them.
pub(super) fn scan_head(prefix: &[u8]) -> (Option<Value>, Option<Value>) {
    let mut at = skip_space(prefix, 0);
    if prefix.get(at) != Some(&b'{') {
        return (None, None);
    }
    at += 1;
    let (mut id, mut method) = (None, None);
    loop {
        at = skip_space(prefix, at);
        let Some(rest) = prefix.get(at..) else { break };
        let mut keys = serde_json::Deserializer::from_slice(rest).into_iter::<String>();
        let Some(Ok(name)) = keys.next() else { break };
        at += keys.byte_offset();
        at = skip_space(prefix, at);
        if prefix.get(at) != Some(&b':') {
            break;
        }
        at = skip_space(prefix, at + 1);
        let Some(end) = skip_value(prefix, at) else {
            break;
        };
        // A value is whole only when what follows it is seen (`1` may be `12`).
        let after = skip_space(prefix, end);
        let next = prefix.get(after);
        if !matches!(next, Some(b',' | b'}')) {
            break;
        }
        if name == "id" || name == "method" {
            let text = prefix.get(at..end).unwrap_or_default();
            let value = serde_json::from_slice::<Value>(text).ok();
            if name == "id" {
                id = value;
            } else {
                method = Some(value.unwrap_or(Value::Null));
            }
        }
        if next == Some(&b'}') {
            break;
        }
        at = after + 1;
    }
    (id, method)
}

/// Where the JSON value that starts at `from` ends, found by counting brackets
/// outside strings (no recursion, not a validation); `None` if `text` ends
/// first.
fn skip_value(text: &[u8], from: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let rest = text.get(from..)?;
    for (i, &b) in rest.iter().enumerate() {
        let at = from + i;
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth == 0 => return Some(at),
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            b',' if depth == 0 => return Some(at),
            b if depth == 0 && b.is_ascii_whitespace() => return Some(at),
            _ => {}
        }
    }
    None
}

fn skip_space(text: &[u8], from: usize) -> usize {
    let rest = text.get(from..).unwrap_or_default();
    from + rest.iter().take_while(|b| b.is_ascii_whitespace()).count()
}
