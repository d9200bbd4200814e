//! Running the callfix binary on one input, with a deadline.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long one run may take (a debug build, two shared cores): the inputs are
/// at most a few hundred KB, so a run that takes this long is not linear.
pub(crate) const DEADLINE: Duration = Duration::from_secs(30);

/// What one run gave.
#[derive(Debug)]
pub(crate) struct Ran {
    /// The exit code; `None` when a signal ended it (an abort, a stack
    /// overflow) or the deadline did.
    pub(crate) code: Option<i32>,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
    pub(crate) timed_out: bool,
}

impl Ran {
    /// Exit 0, 1 or 2, in time: anything else is a panic (101), an abort
    /// (SIGABRT, a stack overflow) or an unbounded run.
    pub(crate) fn ended_well(&self, codes: &[i32]) -> Result<(), String> {
        if self.timed_out {
            return Err(format!("still running after {DEADLINE:?}"));
        }
        match self.code {
            Some(c) if codes.contains(&c) => Ok(()),
            code => Err(format!(
                "exit {code:?} (want one of {codes:?}); stderr: {}",
                tail(&self.stderr)
            )),
        }
    }

    pub(crate) fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.stdout)
            .split_terminator('\n')
            .map(str::to_owned)
            .collect()
    }
}

fn tail(s: &str) -> &str {
    let start = s.len().saturating_sub(600);
    let start = (start..s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[start..]
}

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn schemas() -> String {
    root().join("schemas").display().to_string()
}

/// Runs `callfix ARGS` with `input` on stdin.
fn state_dir() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

pub(crate) fn run(args: &[&str], input: &[u8]) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_callfix"))
        .args(args)
        .current_dir(root())
        .env("RUST_BACKTRACE", "0")
        .env_remove("CALLFIX_SCHEMAS")
        .env_remove("CALLFIX_CONFIG")
        // A fuzzed hook payload with a session id is remembered here, not in
        // the user's state dir.
        .env("CALLFIX_STATE_DIR", state_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn callfix");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A child that dies early closes its end: the write error is expected.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_reader = thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > DEADLINE {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        thread::sleep(Duration::from_millis(2));
    };
    let _ = writer.join();
    Ran {
        code: status.code(),
        stdout: reader.join().unwrap(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
        timed_out,
    }
}
