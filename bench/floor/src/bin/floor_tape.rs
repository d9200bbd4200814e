//! What validating a call's arguments costs without building a
//! `serde_json::Value`: the arguments' JSON text read into a borrowed tape
//! (strings without escapes and every number's text left in place) and
//! validated through jsonschema's custom instance representation
//! (`jsonschema::options_for`), against the same text parsed into a `Value`
//! and validated as callfix does today. Schemas are compiled first (both
//! ways) and not counted; each mode runs the calls three times and prints
//! the best pass. A measurement for docs/speed.md, not a part of callfix.
//!
//!     cargo run --release -p callfix-floor --features exact --bin floor_tape -- DIR CALLS.jsonl
//!
//! CALLS.jsonl is what `scripts/gen_calls.py` writes; every call must be
//! valid (both ways must say so, or the run stops).

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Instant;

use jsonschema::JsonType;
use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object};
use serde_json::Value;

/// A JSON value over its text.
#[derive(Debug, Default)]
enum Tape<'t> {
    #[default]
    Null,
    Bool(bool),
    /// The number's text.
    Number(&'t str),
    String(Cow<'t, str>),
    Array(Vec<Tape<'t>>),
    Object(Vec<(Cow<'t, str>, Tape<'t>)>),
}

/// A reader of JSON text into a [`Tape`]: enough JSON for the bench's
/// arguments (no validation of number grammar beyond its characters).
struct Reader<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Reader<'t> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.space();
        (self.peek() == Some(byte)).then(|| self.at += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Tape<'t>> {
        if depth > 128 {
            return None;
        }
        self.space();
        match self.peek()? {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                if self.eat(b'}').is_some() {
                    return Some(Tape::Object(members));
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.eat(b':')?;
                    members.push((key, self.value(depth + 1)?));
                    if self.eat(b',').is_none() {
                        self.eat(b'}')?;
                        return Some(Tape::Object(members));
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_some() {
                    return Some(Tape::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b',').is_none() {
                        self.eat(b']')?;
                        return Some(Tape::Array(items));
                    }
                }
            }
            b'"' => self.string().map(Tape::String),
            b't' => self.word("true", Tape::Bool(true)),
            b'f' => self.word("false", Tape::Bool(false)),
            b'n' => self.word("null", Tape::Null),
            _ => {
                let start = self.at;
                while matches!(
                    self.peek(),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.at += 1;
                }
                (self.at > start).then(|| Tape::Number(self.text.get(start..self.at).unwrap_or("")))
            }
        }
    }

    fn word(&mut self, word: &str, value: Tape<'t>) -> Option<Tape<'t>> {
        let rest = self.text.get(self.at..)?;
        rest.starts_with(word).then(|| {
            self.at += word.len();
            value
        })
    }

    /// A string at `"`: borrowed when it holds no escape, else unescaped.
    fn string(&mut self) -> Option<Cow<'t, str>> {
        let start = self.at;
        let bytes = self.text.as_bytes();
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            match bytes.get(i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    i += 2;
                }
                _ => i += 1,
            }
        }
        self.at = i + 1;
        if escaped {
            serde_json::from_str::<String>(self.text.get(start..self.at)?)
                .ok()
                .map(Cow::Owned)
        } else {
            self.text.get(start + 1..i).map(Cow::Borrowed)
        }
    }
}

fn read(text: &str) -> Option<Tape<'_>> {
    let mut reader = Reader { text, at: 0 };
    let value = reader.value(0)?;
    reader.space();
    (reader.at == text.len()).then_some(value)
}

struct TapeJson;

impl Json for TapeJson {
    type Node<'a> = &'a Tape<'a>;
    type PreparedKey = String;
    type StringBuffer = Tape<'static>;
    const KEYS_PER_LOOKUP: usize = 8;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>(
        buffer: &mut Tape<'static>,
        string: &str,
        f: impl FnOnce(Self::Node<'_>) -> T,
    ) -> T {
        *buffer = Tape::String(Cow::Owned(string.to_owned()));
        f(buffer)
    }
}

/// A number's text, read as the validator asks.
struct Text<'a>(&'a str);

impl JsonNumber for Text<'_> {
    fn as_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }
    fn as_i64(&self) -> Option<i64> {
        self.0.parse().ok()
    }
    fn as_f64(&self) -> Option<f64> {
        self.0.parse().ok()
    }
    fn as_str(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.0)
    }
    fn to_number(&self) -> Cow<'_, serde_json::Number> {
        Cow::Owned(serde_json::from_str(self.0).unwrap_or_else(|_| serde_json::Number::from(0)))
    }
}

impl<'a> Node<'a, TapeJson> for &'a Tape<'a> {
    type Object = &'a [(Cow<'a, str>, Tape<'a>)];
    type Array = &'a [Tape<'a>];
    type Number = Text<'a>;

    fn as_object(&self) -> Option<Self::Object> {
        match self {
            Tape::Object(members) => Some(members),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<Self::Array> {
        match self {
            Tape::Array(items) => Some(items),
            _ => None,
        }
    }
    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self {
            Tape::String(Cow::Borrowed(s)) => Some(Cow::Borrowed(s)),
            Tape::String(Cow::Owned(s)) => Some(Cow::Borrowed(s.as_str())),
            _ => None,
        }
    }
    fn as_number(&self) -> Option<Text<'a>> {
        match self {
            Tape::Number(text) => Some(Text(text)),
            _ => None,
        }
    }
    fn as_boolean(&self) -> Option<bool> {
        match self {
            Tape::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        matches!(self, Tape::Null)
    }
    fn json_type(&self) -> JsonType {
        match self {
            Tape::Null => JsonType::Null,
            Tape::Bool(_) => JsonType::Boolean,
            Tape::Number(text) if !text.contains(['.', 'e', 'E']) => JsonType::Integer,
            Tape::Number(_) => JsonType::Number,
            Tape::String(_) => JsonType::String,
            Tape::Array(_) => JsonType::Array,
            Tape::Object(_) => JsonType::Object,
        }
    }
    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(match self {
            Tape::Null => Value::Null,
            Tape::Bool(b) => Value::Bool(*b),
            Tape::Number(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            Tape::String(s) => Value::String(s.to_string()),
            Tape::Array(items) => {
                Value::Array(items.iter().map(|i| i.to_value().into_owned()).collect())
            }
            Tape::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value().into_owned()))
                    .collect(),
            ),
        })
    }
    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(
            std::ptr::from_ref::<Tape<'_>>(*self) as usize
        ))
    }
}

impl<'a> Object<'a, TapeJson> for &'a [(Cow<'a, str>, Tape<'a>)] {
    type Node = &'a Tape<'a>;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        <[_]>::len(self)
    }
    fn get(&self, key: &String) -> Option<&'a Tape<'a>> {
        self.iter().find(|(name, _)| name == key).map(|(_, v)| v)
    }
    fn members(&self) -> Members<'a> {
        Members(self.iter())
    }
}

struct Members<'a>(std::slice::Iter<'a, (Cow<'a, str>, Tape<'a>)>);

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, &'a Tape<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k.as_ref(), v))
    }
}

impl<'a> Array<'a, TapeJson> for &'a [Tape<'a>] {
    type Node = &'a Tape<'a>;
    type ElementsIter = std::slice::Iter<'a, Tape<'a>>;

    fn len(&self) -> usize {
        <[_]>::len(self)
    }
    fn elements(&self) -> std::slice::Iter<'a, Tape<'a>> {
        self.iter()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(calls)) = (args.get(1), args.get(2)) else {
        panic!("usage: floor_tape DIR CALLS.jsonl");
    };
    let text = std::fs::read_to_string(calls).expect("calls");
    let mut list: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).expect("a JSON line");
        let (name, arguments) = match record.get("function") {
            Some(f) => (
                f["name"].clone(),
                f["arguments"].as_str().unwrap_or("null").to_owned(),
            ),
            None => {
                let a = record.get("arguments").or_else(|| record.get("input"));
                (
                    record["name"].clone(),
                    serde_json::to_string(&a).expect("text"),
                )
            }
        };
        list.push((name.as_str().unwrap_or_default().to_owned(), arguments));
    }
    let mut values = HashMap::new();
    let mut tapes = HashMap::new();
    for (name, _) in &list {
        if values.contains_key(name) {
            continue;
        }
        let schema: Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{dir}/{name}.json")).expect("schema"),
        )
        .expect("schema JSON");
        let options = || jsonschema::options().should_validate_formats(true);
        values.insert(name.clone(), options().build(&schema).expect("compiles"));
        let tape = jsonschema::options_for::<TapeJson>().should_validate_formats(true);
        tapes.insert(name.clone(), tape.build(&schema).expect("compiles"));
    }
    let best = |run: &dyn Fn() -> usize| {
        (0..3)
            .map(|_| {
                let start = Instant::now();
                assert_eq!(run(), list.len(), "every call must be valid");
                start.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    let value = best(&|| {
        list.iter()
            .filter(|(name, text)| {
                let args: Value = serde_json::from_str(text).expect("JSON");
                values[name].is_valid(&args)
            })
            .count()
    });
    let tape = best(&|| {
        list.iter()
            .filter(|(name, text)| read(text).is_some_and(|t| tapes[name].is_valid(&t)))
            .count()
    });
    let value_read = best(&|| {
        list.iter()
            .filter(|(_, text)| serde_json::from_str::<Value>(text).is_ok())
            .count()
    });
    let tape_read = best(&|| list.iter().filter(|(_, text)| read(text).is_some()).count());
    let n = list.len() as f64;
    let us = |secs: f64| secs * 1e6 / n;
    println!(
        "{} calls, µs a call: a Value {:.2} (read {:.2}), a tape {:.2} (read {:.2}); {:.2}x",
        list.len(),
        us(value),
        us(value_read),
        us(tape),
        us(tape_read),
        value / tape
    );
}
