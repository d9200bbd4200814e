//! The fuzz target: the whole filter over mutated streams of real records.
//!
//! Each case takes the shipped example records, mutates some of them (bytes cut,
//! flipped, inserted, duplicated; records truncated; garbage lines; hostile keys
//! and names) and interleaves them with known-valid calls. Invariants:
//! - nothing panics, and the run ends (`Ok`);
//! - `-f args` writes exactly one line per result (calls plus broken records);
//! - every known-valid call comes out unchanged, in order, whatever surrounds it;
//! - the same input gives the same output.
//!
//! CI runs it briefly (`PROPTEST_CASES` cases); `scripts/soak.sh` runs it long.
//! Time and memory per record are measured by `scripts/hostile.py`, not here.

use std::path::PathBuf;
use std::sync::OnceLock;

use callfix::filter::{Filter, Input, Options, Summary};
use callfix::output::{Format, Printer};
use callfix::registry::Registry;
use proptest::prelude::*;

fn registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| {
        Registry::load(&[PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")]).unwrap()
    })
}

fn examples() -> &'static Vec<Vec<u8>> {
    static EX: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    EX.get_or_init(|| {
        let text =
            std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/calls.jsonl"))
                .unwrap();
        text.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    })
}

/// Valid calls whose `-f args` output is known exactly.
const VALID: [(&str, &str); 3] = [
    (
        r#"{"name":"glob","arguments":{"pattern":"src/**/*.rs"}}"#,
        r#"{"pattern":"src/**/*.rs"}"#,
    ),
    (
        r#"{"id":"c","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\",\"offset\":1.50e1}"}}"#,
        r#"{"file_path":"/a","offset":1.50e1}"#,
    ),
    (
        r#"{"type":"tool_use","id":"t","name":"bash","input":{"command":"ls -la","description":"List \u2028 files"}}"#,
        r#"{"command":"ls -la","description":"List \u2028 files"}"#,
    ),
];

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let token = prop_oneof![
        prop::collection::vec(any::<u8>(), 1..6),
        prop::sample::select(vec![
            b"\n".to_vec(),
            b"{".to_vec(),
            b"}".to_vec(),
            b"[".to_vec(),
            b"\"".to_vec(),
            b"\\".to_vec(),
            b"\\ud83d".to_vec(),
            b"1e400".to_vec(),
            b"\xEF\xBB\xBF".to_vec(),
            b"\n{".to_vec(),
            b"data: ".to_vec(),
            b"<tool_call>".to_vec(),
            "\u{2028}\u{1b}[2J".as_bytes().to_vec(),
        ]),
    ];
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), token).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<usize>(), 1usize..20).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn apply(record: &[u8], m: &Mutation) -> Vec<u8> {
    let mut r = record.to_vec();
    let at = |i: usize| if r.is_empty() { 0 } else { i % r.len() };
    match m {
        Mutation::Truncate(i) => r.truncate(at(*i)),
        Mutation::Flip(i, b) => {
            if !r.is_empty() {
                let i = at(*i);
                r[i] ^= b | 1;
            }
        }
        Mutation::Insert(i, t) => {
            let i = at(*i);
            r.splice(i..i, t.iter().copied());
        }
        Mutation::Delete(i, n) => {
            let i = at(*i);
            let end = (i + n).min(r.len());
            r.drain(i..end);
        }
        Mutation::Duplicate(i, n) => {
            let i = at(*i);
            let end = (i + n).min(r.len());
            let piece = r[i..end].to_vec();
            r.splice(end..end, piece);
        }
    }
    r
}

/// One piece of a stream: a mutated example record, or a known-valid call.
#[derive(Debug, Clone)]
enum Piece {
    Mutated(usize, Vec<Mutation>),
    Valid(usize),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        3 => (any::<usize>(), prop::collection::vec(mutation(), 0..4)).prop_map(|(i, m)| Piece::Mutated(i, m)),
        2 => (0..VALID.len()).prop_map(Piece::Valid),
    ]
}

fn run(input: &[u8]) -> (Vec<String>, Summary) {
    let mut printer = Printer::new(Vec::new(), Format::Args);
    let mut summary = Summary::default();
    Filter {
        registry: registry(),
        options: &Options::default(),
    }
    .stream(Input::new(input, "fuzz"), &mut printer, &mut summary)
    .unwrap();
    let out = String::from_utf8(printer.into_inner()).unwrap();
    (
        out.split_terminator('\n').map(str::to_owned).collect(),
        summary,
    )
}

proptest! {
    #[test]
    fn the_filter_holds_its_invariants_on_mutated_streams(pieces in prop::collection::vec(piece(), 1..12)) {
        let mut input = Vec::new();
        let mut wanted = Vec::new();
        for p in &pieces {
            match p {
                Piece::Mutated(i, ms) => {
                    let ex = examples();
                    let mut r = ex[i % ex.len()].clone();
                    for m in ms {
                        r = apply(&r, m);
                    }
                    input.extend_from_slice(&r);
                }
                Piece::Valid(v) => {
                    input.extend_from_slice(VALID[*v].0.as_bytes());
                    wanted.push(VALID[*v].1);
                }
            }
            input.push(b'\n');
        }
        let (lines, summary) = run(&input);
        prop_assert_eq!(lines.len() as u64, summary.total.calls + summary.broken_records);
        // Every valid call comes out unchanged, in order, whatever surrounds it.
        let mut want = wanted.iter().peekable();
        for line in &lines {
            if want.peek().is_some_and(|w| *w == line) {
                want.next();
            }
        }
        prop_assert!(want.peek().is_none(), "lost {:?} in {:?} from {:?}", want.peek(), lines, String::from_utf8_lossy(&input));
        prop_assert_eq!(run(&input).0, lines);
    }
}
