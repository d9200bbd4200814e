//! The `id` and `method` of a message, from as much of it as there is.

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

/// What a message says about itself: its id, and whether it has a method.
#[derive(Default)]
pub(super) struct Head {
    pub(super) id: Option<Value>,
    pub(super) method: Option<String>,
    pub(super) has_method: bool,
}

/// The `id` and `method` of a message, read from as much of it as there is (a
/// cut message gives what comes before the cut), without keeping the rest.
pub(super) fn head(text: &[u8]) -> Head {
    let mut head = Head::default();
    let mut de = serde_json::Deserializer::from_slice(text);
    let _ = HeadSeed(&mut head).deserialize(&mut de);
    head
}

struct HeadSeed<'a>(&'a mut Head);

impl<'de> DeserializeSeed<'de> for HeadSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for HeadSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "id" => self.0.id = Some(map.next_value()?),
                "method" => {
                    self.0.has_method = true;
                    self.0.method = map.next_value::<Value>()?.as_str().map(str::to_owned);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_of_a_cut_message_is_what_comes_before_the_cut() {
        let h = head(br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"aaa"#);
        assert_eq!(h.id, Some(serde_json::json!(7)));
        assert!(!h.has_method);
        let h = head(br#"{"method":"sampling/createMessage","id":"s1","params":"#);
        assert_eq!(h.method.as_deref(), Some("sampling/createMessage"));
        assert_eq!(h.id, Some(serde_json::json!("s1")));
        let h = head(br#"[1,2]"#);
        assert!(h.id.is_none() && !h.has_method);
        let deep = "[".repeat(100_000);
        let h = head(format!(r#"{{"x":{deep}"#).as_bytes());
        assert!(h.id.is_none());
    }
}
