//! `callfix mcp` fed what an attacker (or a broken client) sends: junk,
//! half messages, deep nesting, a line past the limit. `cat` is the server, so
//! what the proxy forwards comes straight back: the output must be every line
//! but the oversized one, byte for byte, plus the error that answers it.

use std::io::Write;

use serde_json::Value;

use super::spawn;

/// `callfix::mcp::MAX_LINE_BYTES`.
const LIMIT: usize = 64 * 1024 * 1024;

#[test]
fn junk_and_an_oversized_line_never_end_the_session() {
    let deep = "[".repeat(200_000);
    let junk: Vec<Vec<u8>> = vec![
        b"not json".to_vec(),
        b"[".to_vec(),
        b"{\"id\":".to_vec(),
        b"\xff\xfe\x00\x1b]0;x\x07".to_vec(),
        deep.into_bytes(),
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":5}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":7}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[]}}"#
            .to_vec(),
        br#"{"jsonrpc":"2.0","id":{"a":[1]},"method":"ping","method":"tools/call"}"#.to_vec(),
    ];
    let mut child = spawn(&["mcp", "--grace", "0.5", "--", "cat"]);
    let mut stdin = child.stdin.take().unwrap();
    let mut big = br#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"x","arguments":{"t":""#.to_vec();
    big.resize(LIMIT + 100, b'x');
    let writer = {
        let junk = junk.clone();
        std::thread::spawn(move || {
            for line in &junk {
                stdin.write_all(line).unwrap();
                stdin.write_all(b"\n").unwrap();
            }
            stdin.write_all(&big).unwrap();
            stdin.write_all(b"\n").unwrap();
            stdin
                .write_all(br#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#)
                .unwrap();
            stdin.write_all(b"\n").unwrap();
        })
    };
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let mut lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
    assert_eq!(lines.pop(), Some(&b""[..]));
    let answer = lines
        .iter()
        .position(|l| l.starts_with(br#"{"jsonrpc":"2.0","id":"big""#))
        .expect("the oversized line is answered");
    let answer: Value = serde_json::from_slice(lines.remove(answer)).unwrap();
    assert_eq!(answer["error"]["code"], -32600);
    // `cat` never answers: when it ends, what is still pending may get the
    // proxy's "the server exited" error (whichever side's end is seen first).
    lines.retain(|l| {
        let v: Value = serde_json::from_slice(l).unwrap_or(Value::Null);
        v["error"]["code"] != -32000
    });
    let mut expected: Vec<&[u8]> = junk.iter().map(Vec::as_slice).collect();
    expected.push(br#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    let show = |ls: &[&[u8]]| -> Vec<String> {
        let short = |l: &&[u8]| String::from_utf8_lossy(l.get(..60).unwrap_or(l)).into_owned();
        ls.iter()
            .map(|l| format!("{} bytes: {}", l.len(), short(l)))
            .collect()
    };
    assert!(
        lines == expected,
        "every other line, as sent, in order:\n{:#?}\n{:#?}",
        show(&lines),
        show(&expected)
    );
    assert!(stderr.contains("was not forwarded"), "{stderr}");
}
