//! `--jobs N` (issue 16): the same bytes out as one job, for every shipped input
//! and fixture, in every format, with the summary and the exit code.

use crate::{callfix, fixture, root};

/// (schemas, input files) pairs: every recorded input the repository ships.
fn inputs() -> Vec<(std::path::PathBuf, Vec<std::path::PathBuf>)> {
    let streams: Vec<_> = std::fs::read_dir(fixture("streams"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sse"))
        .collect();
    let mut all = vec![
        root().join("examples/calls.jsonl"),
        root().join("examples/stream.sse"),
    ];
    all.extend(streams.iter().cloned());
    vec![
        (root().join("schemas"), all.clone()),
        (root().join("schemas"), all.into_iter().rev().collect()),
        (
            fixture("schemas"),
            vec![root().join("tests/golden/messages.jsonl")],
        ),
    ]
}

#[test]
fn jobs_write_the_same_bytes_as_one_job() {
    for (schemas, files) in inputs() {
        for format in ["json", "args", "call", "human"] {
            let run = |jobs: &str| {
                callfix()
                    .args(["--stats", "--loop-limit", "2", "-f", format, "-s"])
                    .arg(&schemas)
                    .args(["--jobs", jobs])
                    .args(&files)
                    .output()
                    .unwrap()
            };
            let one = run("1");
            assert!(!one.stdout.is_empty());
            for jobs in ["2", "3", "0"] {
                let many = run(jobs);
                assert_eq!(
                    (&one.stdout, &one.stderr, one.status.code()),
                    (&many.stdout, &many.stderr, many.status.code()),
                    "--jobs {jobs} -f {format} over {files:?}"
                );
            }
        }
    }
}

#[test]
fn a_stream_on_stdin_is_the_same_with_jobs() {
    // Several thousand records, so many batches are in flight at once.
    let calls = std::fs::read_to_string(root().join("examples/calls.jsonl")).unwrap();
    let input = calls.repeat(400);
    let run = |jobs: &str| {
        callfix()
            .args(["--stats", "-f", "json", "--jobs", jobs])
            .write_stdin(input.clone())
            .output()
            .unwrap()
    };
    let one = run("1");
    let two = run("2");
    assert!(one.stdout.len() > 100_000);
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stderr, two.stderr);
    assert_eq!(one.status.code(), two.status.code());
}
