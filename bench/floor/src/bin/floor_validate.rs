//! The honest parse+validate floor: the least a validating filter must do, with
//! serde_json and jsonschema as a user would take them (default number and map
//! types: no `preserve_order`, no `arbitrary_precision`; with the `exact`
//! feature, callfix's own features). Each line is parsed
//! into a `serde_json::Value`; the tool's name and arguments are taken from the
//! three shapes
//! `scripts/gen_calls.py` writes (bare, OpenAI with argument text, Anthropic);
//! the tool's schema is read from `DIR/<name>.json` and compiled on first use,
//! then cached; the arguments are validated and written back as compact JSON
//! when valid, or the first error when not. No messages, repairs, formats or
//! limits: what callfix adds over this is its overhead.
//!
//!     cargo run --release -p callfix-floor --bin floor_validate -- DIR < calls.jsonl > /dev/null

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

use serde_json::Value;

fn main() -> io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).expect("usage: floor_validate DIR"));
    let stdin = BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut validators: HashMap<String, Option<jsonschema::Validator>> = HashMap::new();
    for line in stdin.lines() {
        let line = line?;
        let Ok(record) = serde_json::from_str::<Value>(&line) else {
            writeln!(out, "not JSON")?;
            continue;
        };
        let (name, arguments) = match record.get("function") {
            Some(f) => (
                f["name"].as_str().unwrap_or_default().to_owned(),
                serde_json::from_str(f["arguments"].as_str().unwrap_or("null"))
                    .unwrap_or(Value::Null),
            ),
            None => (
                record["name"].as_str().unwrap_or_default().to_owned(),
                record
                    .get("arguments")
                    .or_else(|| record.get("input"))
                    .cloned()
                    .unwrap_or(Value::Null),
            ),
        };
        let validator = validators.entry(name).or_insert_with_key(|name| {
            let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).ok()?;
            let schema: Value = serde_json::from_str(&text).ok()?;
            jsonschema::validator_for(&schema).ok()
        });
        match validator {
            Some(v) => match v.validate(&arguments) {
                Ok(()) => serde_json::to_writer(&mut out, &arguments)?,
                Err(e) => write!(out, "{e}")?,
            },
            None => write!(out, "unknown tool")?,
        }
        out.write_all(b"\n")?;
    }
    out.flush()
}
