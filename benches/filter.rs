//! Library-level benchmarks: the whole filter over an in-memory stream, valid and
//! broken, with the shipped tool set. Run with `cargo bench`.

use std::path::PathBuf;
use std::sync::OnceLock;

use callfix::{Format, Input, Printer, Summary, Toolset};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

fn tools() -> &'static Toolset {
    static TOOLS: OnceLock<Toolset> = OnceLock::new();
    TOOLS.get_or_init(|| {
        Toolset::from_path(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")).unwrap()
    })
}

const VALID: [&str; 4] = [
    r#"{"id":"c","name":"read","arguments":{"file_path":"/work/src/main.rs","offset":10,"limit":200}}"#,
    r#"{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"cargo test\",\"description\":\"Run tests\"}"}}"#,
    r#"{"type":"tool_use","id":"toolu_1","name":"grep","input":{"pattern":"fn main","include":"*.rs"}}"#,
    r#"{"name":"todowrite","arguments":{"todos":[{"id":"1","content":"Write tests","status":"in_progress","priority":"high"}]}}"#,
];

const BROKEN: [&str; 4] = [
    r#"{"id":"c","name":"read","arguments":{"limit":"5"}}"#,
    r#"{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}"#,
    r#"{"type":"tool_use","id":"toolu_1","name":"grep","input":{"pattern":1,"output_mode":"lines"}}"#,
    r#"{"name":"todowrite","arguments":{"todos":[{"id":1,"status":"failed"}]}}"#,
];

fn stream(lines: &[&str], n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        out.extend_from_slice(lines[i % lines.len()].as_bytes());
        out.push(b'\n');
    }
    out
}

fn run(bencher: Bencher, input: Vec<u8>, format: Format) {
    let tools = tools();
    bencher
        .counter(divan::counter::ItemsCount::new(1000usize))
        .bench(|| {
            let mut printer = Printer::new(Vec::with_capacity(input.len()), format);
            let mut summary = Summary::default();
            tools
                .filter()
                .stream(
                    Input::new(black_box(&input[..]), "bench"),
                    &mut printer,
                    &mut summary,
                )
                .unwrap();
            black_box(printer.into_inner());
        });
}

#[divan::bench]
fn valid_calls_args(bencher: Bencher) {
    run(bencher, stream(&VALID, 1000), Format::Args);
}

#[divan::bench]
fn valid_calls_json(bencher: Bencher) {
    run(bencher, stream(&VALID, 1000), Format::Json);
}

#[divan::bench]
fn broken_calls_args(bencher: Bencher) {
    run(bencher, stream(&BROKEN, 1000), Format::Args);
}

#[divan::bench]
fn parse_only_floor(bencher: Bencher) {
    let input = stream(&VALID, 1000);
    bencher
        .counter(divan::counter::ItemsCount::new(1000usize))
        .bench(|| {
            let mut out = Vec::with_capacity(input.len());
            for v in serde_json::Deserializer::from_slice(black_box(&input))
                .into_iter::<serde_json::Value>()
            {
                serde_json::to_writer(&mut out, &v.unwrap()).unwrap();
                out.push(b'\n');
            }
            black_box(out);
        });
}

/// One call through the library, as Python's `Toolset.check` and Node's
/// `ts.check` make it: `read` with `offset` as a number (valid) or as a
/// string (repaired by coerce-number).
#[divan::bench(args = ["valid", "repaired"])]
fn one_call(bencher: Bencher, kind: &str) {
    let offset = match kind {
        "valid" => serde_json::json!(2),
        _ => serde_json::json!("2"),
    };
    let args = serde_json::json!({"file_path": "/a", "offset": offset});
    let tools = tools();
    // The first call compiles the validator it needs: not what is measured.
    black_box(tools.check("read", args.clone()));
    bencher.bench(|| tools.check("read", black_box(args.clone())));
}
