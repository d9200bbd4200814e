//! Small JSON helpers shared by the stages.

use serde_json::Value;

/// Unescaped segments of a JSON pointer (`/a~1b/0` → `["a/b", "0"]`).
pub(crate) fn pointer_segments(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|s| {
            if s.contains('~') {
                s.replace("~1", "/").replace("~0", "~")
            } else {
                s.to_owned()
            }
        })
        .collect()
}

/// `s` as one JSON Pointer token (`~` → `~0`, `/` → `~1`).
pub(crate) fn pointer_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Arguments with more values than this get only their first error reported.
pub(crate) const ALL_ERRORS_UP_TO: usize = 100_000;

/// Whether `v` holds more than `limit` values (counted without recursion, stopping
/// at the limit).
pub(crate) fn more_values_than(v: &Value, limit: usize) -> bool {
    let mut stack = vec![v];
    let mut seen = 0usize;
    while let Some(v) = stack.pop() {
        seen += 1;
        if seen > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    false
}

/// JSON text parsed into a [`Value`], as `serde_json::from_slice` parses it
/// (the same value, the same errors), with each object's map made at its final
/// size: an object's members wait on a stack reused from parse to parse, so
/// the map is allocated once instead of growing (and rehashing) as each member
/// arrives. Calls' arguments and records are parsed so.
///
/// Also says whether an object in the text names a key twice (its value
/// then is the last one's, as serde_json keeps it). Found while the maps are
/// made, at no cost: a key is repeated when inserting it returns the value
/// before.
///
/// Text that is UTF-8 throughout (nearly all) is checked so once, by std's
/// vectorised check, and then read without serde_json checking each string
/// again (4% of the all-valid stream's instructions); other bytes are read
/// as serde_json reads them, for its errors.
pub(crate) fn parse_once(bytes: &[u8]) -> serde_json::Result<(Value, bool)> {
    parse_bytes(bytes, false)
}

/// [`parse_once`], but a key named twice keeps its first value (as some JSON
/// readers do): what such a reader makes of the text.
pub(crate) fn parse_first_wins(bytes: &[u8]) -> serde_json::Result<Value> {
    parse_bytes(bytes, true).map(|(value, _)| value)
}

/// [`parse_once`]'s value, for text known to be UTF-8 (as
/// `serde_json::from_str`).
pub(crate) fn parse_str(text: &str) -> serde_json::Result<Value> {
    parse_str_once(text).map(|(value, _)| value)
}

/// [`parse_once`] for text known to be UTF-8.
pub(crate) fn parse_str_once(text: &str) -> serde_json::Result<(Value, bool)> {
    parse_text(text, false)
}

/// `text` read strictly ([`parse_str_once`]), when it reads one way only:
/// `Ok(Err(path))` when an object in it names a key twice (the dotted path of
/// the first such key, in the text's order), since which of its values a
/// reader keeps (the first, the last, an error) depends on the reader.
pub(crate) fn parse_str_unrepeated(text: &str) -> serde_json::Result<Result<Value, String>> {
    let (value, repeated) = parse_str_once(text)?;
    if !repeated {
        return Ok(Ok(value));
    }
    Ok(Err(match crate::tolerant::parse(text) {
        Err(crate::tolerant::Failure::Repeated { path, .. }) => path,
        // Strict JSON reads leniently the same (tests pin it).
        _ => String::new(),
    }))
}

/// A record whole on one line, parsed where it was framed
/// ([`parse_line`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// The record's value.
    pub value: Value,
    /// An object in it names a key twice (as [`parse_once`] says).
    pub repeated: bool,
    /// How many values it holds, as the framer counts them: containers,
    /// strings, numbers and literals, not keys.
    pub values: u64,
    /// A number in it has an exponent.
    pub exponent: bool,
}

/// [`parse_once`] of a record that is whole on one line, counting its values
/// and noticing exponents as the framer does, so that it need not check the
/// line first; `None` when the bytes are not one JSON value, or are longer
/// than `max_values`: a value takes a byte at least, so no shorter text holds
/// too many, and a longer one is left to be counted before anything is built.
pub(crate) fn parse_line(bytes: &[u8], max_values: u64) -> Option<Line> {
    if u64::try_from(bytes.len()).map_or(true, |len| len > max_values) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let (value, tally) = read_text(text, false).ok()?;
    Some(Line {
        value,
        repeated: tally.repeated,
        values: tally.values,
        exponent: tally.exponent,
    })
}

fn parse_bytes(bytes: &[u8], first_wins: bool) -> serde_json::Result<(Value, bool)> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_text(text, first_wins),
        Err(_) => with_scratch(first_wins, |scratch| {
            read(scratch, &mut serde_json::Deserializer::from_slice(bytes))
        })
        .map(|(value, tally)| (value, tally.repeated)),
    }
}

fn parse_text(text: &str, first_wins: bool) -> serde_json::Result<(Value, bool)> {
    read_text(text, first_wins).map(|(value, tally)| (value, tally.repeated))
}

fn read_text(text: &str, first_wins: bool) -> serde_json::Result<(Value, Tally)> {
    with_scratch(first_wins, |scratch| {
        read(scratch, &mut serde_json::Deserializer::from_str(text))
    })
}

/// What a parse noticed besides its value.
struct Tally {
    repeated: bool,
    values: u64,
    exponent: bool,
}

fn read<'de, R: serde_json::de::Read<'de>>(
    scratch: &mut Scratch,
    de: &mut serde_json::Deserializer<R>,
) -> serde_json::Result<(Value, Tally)> {
    let value = serde::de::DeserializeSeed::deserialize(Seed(scratch), &mut *de)?;
    de.end()?;
    let tally = Tally {
        repeated: scratch.repeated,
        values: scratch.values,
        exponent: scratch.exponent,
    };
    Ok((value, tally))
}

/// The path (keys and indexes, empty for the root) of the first place where
/// `a` and `b` differ, or `None` when they are equal. Values from
/// [`parse_once`] nest at most 128 levels, so the recursion is bounded.
pub(crate) fn first_difference(a: &Value, b: &Value) -> Option<Vec<String>> {
    fn walk(a: &Value, b: &Value, path: &mut Vec<String>) -> bool {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, va) in x {
                    path.push(k.clone());
                    match y.get(k) {
                        Some(vb) if !walk(va, vb, path) => {}
                        _ => return true,
                    }
                    path.pop();
                }
                match y.keys().find(|k| !x.contains_key(*k)) {
                    Some(k) => {
                        path.push(k.clone());
                        true
                    }
                    None => false,
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                    path.push(i.to_string());
                    if walk(va, vb, path) {
                        return true;
                    }
                    path.pop();
                }
                false
            }
            _ => a != b,
        }
    }
    let mut path = Vec::new();
    walk(a, b, &mut path).then_some(path)
}

/// Members and items waiting for their object or array to close.
#[derive(Default)]
struct Scratch {
    members: Vec<(String, Value)>,
    items: Vec<Value>,
    /// An object of this parse named a key twice.
    repeated: bool,
    /// A key named twice keeps its first value, not its last.
    first_wins: bool,
    /// Values read so far (see [`Line::values`]).
    values: u64,
    /// A number with an exponent was read.
    exponent: bool,
}

/// A scratch kept larger than this many members or items is dropped after its
/// parse, so one huge record does not keep its memory for the thread's life.
const SCRATCH_KEPT: usize = 1024;

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::default();
}

fn with_scratch<T>(first_wins: bool, f: impl FnOnce(&mut Scratch) -> T) -> T {
    let mut scratch = SCRATCH.take();
    scratch.first_wins = first_wins;
    let out = f(&mut scratch);
    // A parse that failed midway leaves what it had read.
    scratch.members.clear();
    scratch.items.clear();
    scratch.repeated = false;
    scratch.values = 0;
    scratch.exponent = false;
    if scratch.members.capacity() <= SCRATCH_KEPT && scratch.items.capacity() <= SCRATCH_KEPT {
        SCRATCH.set(scratch);
    }
    out
}

/// serde_json's own `Value` visitor, but for where members and items wait.
struct Seed<'a>(&'a mut Scratch);

impl<'de> serde::de::DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.0.values += 1;
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let scratch = self.0;
        let base = scratch.items.len();
        while let Some(item) = seq.next_element_seed(Seed(scratch))? {
            scratch.items.push(item);
        }
        Ok(Value::Array(scratch.items.drain(base..).collect()))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let scratch = self.0;
        // With `arbitrary_precision` a number arrives as a one-member map
        // under serde_json's private key, its text the value.
        let first = match map.next_key_seed(KeySeed)? {
            None => return Ok(Value::Object(serde_json::Map::new())),
            Some(Key::Number) => {
                let (number, spelled) = map.next_value_seed(NumberSeed)?;
                match spelled {
                    Spelled::Token => {
                        scratch.exponent |= number.as_str().contains(['e', 'E']);
                    }
                    // An object spelled with the number key in the text (read
                    // as a number, as serde_json reads it): the framer counts
                    // its string too, and an exponent there is in a string.
                    Spelled::Object => scratch.values += 1,
                }
                return Ok(Value::Number(number));
            }
            Some(Key::Member(key)) => key,
        };
        let base = scratch.members.len();
        let value = map.next_value_seed(Seed(scratch))?;
        scratch.members.push((first, value));
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Seed(scratch))?;
            scratch.members.push((key, value));
        }
        let mut object = serde_json::Map::with_capacity(scratch.members.len().saturating_sub(base));
        for (key, value) in scratch.members.drain(base..) {
            if scratch.first_wins {
                object.entry(key).or_insert(value);
            } else {
                scratch.repeated |= object.insert(key, value).is_some();
            }
        }
        Ok(Value::Object(object))
    }
}

/// The key under which serde_json's `arbitrary_precision` hands a number over
/// (serde_json reads a member so named in the text as a number too, and so
/// does [`parse_once`]).
const NUMBER_KEY: &str = "$serde_json::private::Number";

/// An object's first key: a member's, or the number key (told apart without
/// making a string of it, as serde_json's own visitor does).
enum Key {
    Number,
    Member(String),
}

struct KeySeed;

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E>(self, s: &str) -> Result<Key, E> {
        Ok(match s {
            NUMBER_KEY => Key::Number,
            _ => Key::Member(s.to_owned()),
        })
    }

    fn visit_string<E>(self, s: String) -> Result<Key, E> {
        Ok(match s.as_str() {
            NUMBER_KEY => Key::Number,
            _ => Key::Member(s),
        })
    }
}

/// A number's text, read as serde_json reads it (`Number`'s `FromStr`), and
/// how it was spelled.
struct NumberSeed;

/// Where a number handed over under [`NUMBER_KEY`] came from.
enum Spelled {
    /// A number token: serde_json hands its text over as an owned `String`.
    Token,
    /// An object whose one member is the number key and a string, in the
    /// text: read from the text (borrowed, or unescaped), never owned.
    Object,
}

impl<'de> serde::de::DeserializeSeed<'de> for NumberSeed {
    type Value = (serde_json::Number, Spelled);

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for NumberSeed {
    type Value = (serde_json::Number, Spelled);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("string containing a number")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok((s.parse().map_err(E::custom)?, Spelled::Object))
    }

    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok((s.parse().map_err(E::custom)?, Spelled::Token))
    }
}

#[cfg(test)]
mod tests;
