//! Lone surrogate escapes (`"Done \ud83d"`): RFC 8259's grammar allows them,
//! but they encode no character, and serde_json refuses a record that holds one.
//!
//! So that one bad escape in a text block never costs the record's calls, such a
//! record is read again with each lone escape masked: `\ud83d` becomes
//! [`MARK`] followed by its four hex digits. A call whose arguments hold a mask
//! is rejected, naming the path; everything else passes, and the output writes
//! each mask back as the escape it was (the output formatter in `spelling`).

use serde_json::Value;

/// A private-use character (plane 15) that stands before the hex digits of a
/// masked escape.
pub(crate) const MARK: char = '\u{F0000}';

/// `text` (JSON) with every lone surrogate escape inside a string masked, or
/// `None` if it has none.
pub(crate) fn mask(text: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut in_string = false;
    let mut i = 0;
    let mut copied = 0;
    while let Some(&b) = text.get(i) {
        if !in_string {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' if text.get(i + 1) == Some(&b'u') => {
                let Some(unit) = hex4(text, i + 2) else {
                    i += 2;
                    continue;
                };
                let paired = (0xD800..0xDC00).contains(&unit)
                    && text.get(i + 6) == Some(&b'\\')
                    && text.get(i + 7) == Some(&b'u')
                    && hex4(text, i + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
                if paired {
                    i += 12;
                } else if (0xD800..0xE000).contains(&unit) {
                    // `copied <= i`, and `hex4` has just read the four digits:
                    // neither fails. If one did, nothing is masked.
                    let (Some(before), Some(digits)) =
                        (text.get(copied..i), text.get(i + 2..i + 6))
                    else {
                        return None;
                    };
                    let buf = out.get_or_insert_with(|| Vec::with_capacity(text.len() + 16));
                    buf.extend_from_slice(before);
                    let mut mark = [0u8; 4];
                    buf.extend_from_slice(MARK.encode_utf8(&mut mark).as_bytes());
                    buf.extend_from_slice(digits);
                    i += 6;
                    copied = i;
                } else {
                    i += 6;
                }
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    let mut buf = out?;
    buf.extend_from_slice(text.get(copied..)?);
    Some(buf)
}

fn hex4(text: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(text.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// The dotted path of the first string (or key) in `v` that holds a masked
/// escape; `""` for the root.
pub(crate) fn find(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => s.contains(MARK).then(String::new),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, x)| find(x).map(|rest| join(&i.to_string(), &rest))),
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            if k.contains(MARK) {
                return Some(k.replace(MARK, "\\u"));
            }
            find(x).map(|rest| join(k, &rest))
        }),
        _ => None,
    }
}

/// Where JSON text `text` holds a lone surrogate escape in a string, when
/// the text is valid JSON once they are masked (`None`: it holds none, or is
/// no JSON for another reason).
pub(crate) fn in_text(text: &str) -> Option<String> {
    // Every call's arguments pass here, and few hold a `\u` escape: a search
    // for a backslash (memchr), then for `\u`, skips them faster than `mask`'s
    // byte loop.
    if !text.as_bytes().contains(&b'\\') || !text.contains("\\u") {
        return None;
    }
    let masked = mask(text.as_bytes())?;
    let value: Value = serde_json::from_slice(&masked).ok()?;
    find(&value)
}

fn join(head: &str, rest: &str) -> String {
    if rest.is_empty() {
        head.to_owned()
    } else {
        format!("{head}.{rest}")
    }
}

/// Writes `fragment` with each mask as the escape it stood for (`\ud83d`).
pub(crate) fn unmask(fragment: &str, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut rest = fragment;
    while let Some((before, after)) = rest.split_once(MARK) {
        out.write_all(before.as_bytes())?;
        let (hex, tail) = after.split_at_checked(4).unwrap_or((after, ""));
        write!(out, "\\u{hex}")?;
        rest = tail;
    }
    out.write_all(rest.as_bytes())
}

/// `text` with each mask shown as the escape it stood for, as the six
/// characters `\ud83d`: how a masked string leaves callfix as plain text (a
/// message line, a report's names), where no JSON escape can stand.
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(MARK) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some((before, after)) = rest.split_once(MARK) {
        out.push_str(before);
        out.push_str("\\u");
        rest = after;
    }
    out.push_str(rest);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_escapes_are_masked_and_pairs_are_not() {
        let text = br#"{"t":"Done \ud83d","ok":"\ud83d\ude00","low":"\udc00","k":"\\ud83d"}"#;
        let masked = mask(text).unwrap();
        let v: Value = serde_json::from_slice(&masked).unwrap();
        assert_eq!(v["t"], format!("Done {MARK}d83d"));
        assert_eq!(v["ok"], "😀");
        assert_eq!(v["low"], format!("{MARK}dc00"));
        // An escaped backslash is no escape.
        assert_eq!(v["k"], "\\ud83d");
        assert_eq!(find(&v).as_deref(), Some("t"));
        let mut out = Vec::new();
        unmask(v["t"].as_str().unwrap(), &mut out).unwrap();
        assert_eq!(out, br"Done \ud83d");
        assert_eq!(mask(br#"{"a":"\ud83d\ude00 fine"}"#), None);
        assert_eq!(shown(v["t"].as_str().unwrap()), r"Done \ud83d");
        assert_eq!(shown("plain"), "plain");
    }

    #[test]
    fn a_lone_escape_in_arguments_text_is_found_where_it_is() {
        assert_eq!(
            in_text(r#"{"a":{"b":["\ud800"]}}"#).as_deref(),
            Some("a.b.0")
        );
        assert_eq!(in_text(r#"{"\udc00k":1}"#).as_deref(), Some(r"\udc00k"));
        // None held, or no JSON for another reason: the usual reading.
        assert_eq!(in_text(r#"{"a":"\ud83d\ude00"}"#), None);
        assert_eq!(in_text(r#"{"a":"\ud800",}"#), None);
    }
}
