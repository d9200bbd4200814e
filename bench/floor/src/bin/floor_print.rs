//! The honest benchmark floor: read a stream of JSON values and write each back
//! as compact JSON, with the same buffering callfix uses, and serde_json as it
//! comes (no
//! `preserve_order`, no `arbitrary_precision`; with the `exact` feature, both,
//! as callfix has them). Nothing is validated.
//!
//!     cargo run --release -p callfix-floor --bin floor_print < calls.jsonl > /dev/null

use std::io::{self, BufReader, BufWriter, Write};

fn main() -> io::Result<()> {
    let stdin = BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    for value in serde_json::Deserializer::from_reader(stdin).into_iter::<serde_json::Value>() {
        serde_json::to_writer(&mut out, &value?)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
