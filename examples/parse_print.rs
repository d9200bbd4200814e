//! The parse-and-print floor with callfix's own serde_json features: read a
//! stream of JSON values and write each back as compact JSON, with the same
//! buffering callfix uses. Nothing is validated. The honest floor, serde_json as
//! it comes, is `bench/floor` (`floor_print`).
//!
//!     cargo run --release --example parse_print < calls.jsonl > /dev/null

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
