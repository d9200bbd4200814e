//! The event-stream parser of `callfix mcp --url` (`callfix::app::sse`), in
//! process: streams of MCP messages framed as events among SSE garbage (the
//! grammar's SSE lines, comments, CR/LF/CRLF line ends, unknown fields, events
//! past the size cap, binary junk), fed in chunks cut anywhere.
//!
//! Invariants:
//! - no panic;
//! - the chunking does not matter: any cut gives the events of the whole;
//! - every message framed as a whole event comes out once, byte for byte, in
//!   order (a blank line before it ends whatever the garbage left open);
//! - no event's data is over the cap: past it, a prefix within the prefix size
//!   and a length over the cap.

use callfix::app::sse::{Data, Parser};
use proptest::prelude::*;
use serde_json::json;

use super::grammar::{self, NONCE};

/// The cap the target runs with: small, so that events go past it.
const MAX: usize = 2048;
const PREFIX: usize = 64;

#[derive(Debug, Clone)]
pub(crate) enum Piece {
    /// A message that must come out whole.
    Message(usize),
    /// Garbage.
    Raw(Vec<u8>),
}

fn garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => grammar::sse_lines(),
        1 => grammar::plain_garbage(),
        1 => grammar::mcp_message().prop_map(|m| format!("data: {m}\r\n").into_bytes()),
        1 => prop::sample::select(vec![
            &b"\r"[..], b"\n", b"\r\n", b"\n\n", b":", b"data", b"data:", b"id:\0",
            b"\xEF\xBB\xBF", b"retry: 99999999999999999999999", b"event:", b"dat\ra: x",
        ])
        .prop_map(<[u8]>::to_vec),
        1 => (MAX - 10..MAX * 3).prop_map(|n| {
            let mut big = b"data: ".to_vec();
            big.resize(n, b'x');
            big
        }),
    ]
}

pub(crate) fn stream() -> impl Strategy<Value = (Vec<Piece>, Vec<usize>)> {
    (
        prop::collection::vec(
            prop_oneof![
                1 => (0..1000usize).prop_map(Piece::Message),
                2 => garbage().prop_map(Piece::Raw),
            ],
            1..16,
        ),
        prop::collection::vec(1..300usize, 0..12),
    )
}

fn message(n: usize) -> String {
    json!({"jsonrpc": "2.0", "id": format!("{NONCE}{n}"), "result": {"t": "a\nb \u{2028}"}})
        .to_string()
}

/// The stream's bytes, and the messages it must give, in order.
fn build(pieces: &[Piece]) -> (Vec<u8>, Vec<String>) {
    let mut input = Vec::new();
    let mut want = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Message(n) => {
                let m = message(n + i * 1000);
                // A third of them over two data lines, joined with "\n" again.
                let framed = match n % 3 {
                    0 => format!("\n\ndata: {m}\n\n"),
                    1 => format!("\r\n\r\nevent: message\r\ndata:{m}\r\r"),
                    _ => {
                        let (a, b) = m.split_at(m.len() / 2);
                        let end = if n % 2 == 0 { "\r\n" } else { "\n" };
                        format!("\n\nid: {n}{end}data: {a}{end}data: {b}{end}{end}")
                    }
                };
                if n % 3 == 2 {
                    let (a, b) = m.split_at(m.len() / 2);
                    want.push(format!("{a}\n{b}"));
                } else {
                    want.push(m);
                }
                input.extend_from_slice(framed.as_bytes());
            }
            Piece::Raw(raw) => input.extend_from_slice(raw),
        }
    }
    (input, want)
}

#[derive(Debug, PartialEq, Eq)]
enum Got {
    Whole(Vec<u8>),
    Over(Vec<u8>, usize),
}

fn parse(input: &[u8], cuts: &[usize]) -> Vec<Got> {
    let mut out: Vec<Got> = Vec::new();
    let mut push = |data: Data<'_>| {
        out.push(match data {
            Data::Whole(d) => Got::Whole(d.to_vec()),
            Data::Oversized { prefix, len } => Got::Over(prefix.to_vec(), len),
        });
    };
    let mut parser = Parser::new(MAX, PREFIX);
    let mut rest = input;
    for &cut in cuts {
        let (chunk, after) = rest.split_at(cut.min(rest.len()));
        parser.feed(chunk, |e| push(e.data));
        rest = after;
    }
    parser.feed(rest, |e| push(e.data));
    parser.finish();
    out
}

pub(crate) fn check(pieces: &[Piece], cuts: &[usize]) -> Result<(), String> {
    let (input, want) = build(pieces);
    let whole = parse(&input, &[]);
    let cut = parse(&input, cuts);
    if whole != cut {
        return Err(format!(
            "cut at {cuts:?}, the events differ: {whole:?} / {cut:?}"
        ));
    }
    let mut found = Vec::new();
    for got in &whole {
        match got {
            Got::Whole(d) => {
                if d.len() > MAX {
                    return Err(format!("an event of {} bytes, over the cap", d.len()));
                }
                let text = String::from_utf8_lossy(d);
                if text.contains(NONCE) && want.iter().any(|w| *w == text) {
                    found.push(text.into_owned());
                }
            }
            Got::Over(prefix, len) => {
                if prefix.len() > PREFIX || *len <= MAX {
                    return Err(format!(
                        "an oversized event of {len} with {} kept",
                        prefix.len()
                    ));
                }
            }
        }
    }
    if found != want {
        return Err(format!("the messages came out as {found:?}, not {want:?}"));
    }
    Ok(())
}
