//! Looking up an envelope's fields by name ([`Fields`]), as every reader does
//! for every record.
//!
//! With serde_json's `preserve_order`, `Map::get` hashes the key with SipHash
//! before it compares anything: on the bench stream the readers' lookups were
//! 13% of all instructions (docs/speed.md). Envelopes have a handful of keys,
//! and comparing a few short strings costs less than hashing one; a map past
//! [`SCAN`] keys is looked up by hash as before. Keys are unique, so both
//! ways find the same value.

use serde_json::{Map, Value};

/// The most keys a map is scanned for a name; past it, hashed.
const SCAN: usize = 16;

/// A value's fields by name.
pub(crate) trait Fields {
    /// The value of field `key` (none where this is not an object).
    fn field(&self, key: &str) -> Option<&Value>;
    /// The value of field `key`, to change or take.
    fn field_mut(&mut self, key: &str) -> Option<&mut Value>;
    /// Whether field `key` is there.
    fn has(&self, key: &str) -> bool {
        self.field(key).is_some()
    }
}

impl Fields for Map<String, Value> {
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() > SCAN {
            return self.get(key);
        }
        self.iter().find_map(|(k, v)| (k == key).then_some(v))
    }

    fn field_mut(&mut self, key: &str) -> Option<&mut Value> {
        if self.len() > SCAN {
            return self.get_mut(key);
        }
        self.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
    }
}

impl Fields for Value {
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object()?.field(key)
    }

    fn field_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.as_object_mut()?.field_mut(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Small and large maps, present and absent keys, non-objects: the same
    /// answer as serde_json's own lookup.
    #[test]
    fn finds_what_get_finds() {
        let mut big = Map::new();
        for i in 0..40 {
            big.insert(format!("k{i}"), json!(i));
        }
        let values = [
            json!({}),
            json!({"a": 1, "b": {"c": 2}, "": 3}),
            Value::Object(big),
            json!([1, 2]),
            json!("a"),
            Value::Null,
        ];
        for mut value in values {
            for key in ["a", "b", "", "k0", "k39", "k40", "c", "A"] {
                assert_eq!(value.field(key), value.get(key), "{key} in {value}");
                assert_eq!(value.has(key), value.get(key).is_some());
                let expected = value.get(key).cloned();
                assert_eq!(value.field_mut(key).map(|v| v.clone()), expected);
            }
        }
    }
}
