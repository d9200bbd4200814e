//! `callfix mcp -- COMMAND [ARGS]...`: an MCP server over stdio, behind callfix.
//!
//! Two threads copy lines, one each way; [`Proxy`] (the library) decides what
//! happens to each. Lines callfix does not intervene in are written exactly as
//! they were read. The main thread waits for either side to end:
//! - the server ends (its stdout closes): requests it never answered get a
//!   JSON-RPC error, and callfix exits with the server's exit code;
//! - the client ends (stdin closes): the server's stdin is closed, and it gets
//!   `--grace` seconds to exit, then SIGTERM, then SIGKILL (MCP's stdio
//!   shutdown). The child is always waited for: no zombies.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context;
use callfix::filter::Summary;
use callfix::mcp::{FromClient, Judged, Proxy};
use callfix::output::{Format, Position, Printer};
use callfix::registry::Registry;

use super::cli::{McpArgs, SchemaArgs};
use super::{Ended, judge_options, load_registry, report};

/// Which side ended first.
enum End {
    Client,
    Server,
}

/// What both threads share.
struct Shared {
    proxy: Mutex<Proxy>,
    /// The client's stdout: the server's lines and callfix's own answers.
    client: Mutex<io::Stdout>,
    log: Option<Mutex<Log>>,
}

struct Log {
    printer: Printer<BufWriter<File>>,
    next: u64,
}

pub(crate) fn command(args: &McpArgs) -> anyhow::Result<Ended> {
    let given = if args.schemas.is_empty() {
        Registry::default()
    } else {
        load_registry(&SchemaArgs {
            schemas: args.schemas.clone(),
            ref_map: Vec::new(),
        })?
    };
    let log = match &args.log {
        Some(path) => {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open the log {}", path.display()))?;
            let printer = Printer::new(BufWriter::new(file), Format::Json);
            Some(Mutex::new(Log { printer, next: 0 }))
        }
        None => None,
    };
    let program = &args.command[0];
    let mut child = Command::new(program)
        .args(&args.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot start the MCP server {}", program.to_string_lossy()))?;
    let (Some(server_in), Some(server_out)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("the MCP server's stdio could not be piped");
    };
    let shared = Arc::new(Shared {
        proxy: Mutex::new(Proxy::new(given, judge_options(&args.judge))),
        client: Mutex::new(io::stdout()),
        log,
    });
    let (tx, rx) = mpsc::channel();
    {
        let (shared, tx) = (Arc::clone(&shared), tx.clone());
        thread::spawn(move || {
            server_to_client(server_out, &shared);
            let _ = tx.send(End::Server);
        });
    }
    {
        let shared = Arc::clone(&shared);
        thread::spawn(move || {
            client_to_server(server_in, &shared);
            let _ = tx.send(End::Client);
        });
    }
    let grace = Duration::from_secs_f64(args.grace.max(0.0));
    let ended = match rx.recv() {
        Ok(End::Server) | Err(_) => {
            let status = stop(&mut child, grace)?;
            let why = format!("the MCP server exited ({})", describe(status));
            let errors = lock(&shared.proxy).server_gone(&why);
            for e in errors {
                let _ = to_client(&shared, &e);
            }
            report("note:", &why);
            Ended::Server(exit_code(status))
        }
        Ok(End::Client) => {
            // The server's stdin is closed: it should exit by itself.
            let status = stop(&mut child, grace)?;
            // Let the server's last lines reach the client.
            let _ = rx.recv_timeout(grace);
            match exit_code(status) {
                0 => Ended::Clean,
                _ if status.code().is_none() => Ended::Clean,
                code => Ended::Server(code),
            }
        }
    };
    if let Some(log) = &shared.log {
        let _ = lock(log).printer.flush();
    }
    if args.stats {
        let summary: &Summary = &lock(&shared.proxy).summary;
        let _ = writeln!(io::stderr().lock(), "callfix: {summary}");
    }
    Ok(ended)
}

fn server_to_client(server_out: impl io::Read, shared: &Shared) {
    each_line(BufReader::new(server_out), |line| {
        lock(&shared.proxy).from_server(trim_end(line));
        to_client(shared, line).is_ok()
    });
}

fn client_to_server(mut server_in: ChildStdin, shared: &Shared) {
    each_line(io::stdin().lock(), |line| {
        let (action, judged) = lock(&shared.proxy).from_client(trim_end(line));
        if let (Some(judged), Some(log)) = (judged, &shared.log) {
            write_log(&mut lock(log), judged);
        }
        // A server that stopped reading is noticed when its stdout closes.
        let _ = match action {
            FromClient::Forward => write_line(&mut server_in, line),
            FromClient::Rewrite(out) => write_line(&mut server_in, &out),
            FromClient::Answer(out) => to_client(shared, &out),
        };
        true
    });
}

/// Calls `each` with every line of `reader` (newline included) until the input
/// ends, fails, or `each` returns false.
fn each_line(mut reader: impl BufRead, mut each: impl FnMut(&[u8]) -> bool) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if !each(&line) => return,
            Ok(_) => {}
        }
    }
}

fn write_log(log: &mut Log, judged: Judged) {
    let at = Position {
        index: log.next,
        call: 0,
        line: log.next + 1,
        offset: 0,
    };
    log.next += 1;
    let printer = &mut log.printer;
    callfix::output::Sink::begin_record(printer, judged.spellings);
    let written = printer.call(at, &judged.call, &judged.verdict);
    if let Err(e) = written.and_then(|()| printer.flush()) {
        report("warning:", &format!("cannot write the log: {e}"));
    }
}

/// Writes one message line to the client, whole, and flushes it.
fn to_client(shared: &Shared, line: &[u8]) -> io::Result<()> {
    let mut out = lock(&shared.client);
    write_line(&mut *out, line)
}

/// Writes `line` as it is, with a newline if it has none, and flushes.
fn write_line(out: &mut impl Write, line: &[u8]) -> io::Result<()> {
    out.write_all(line)?;
    if !line.ends_with(b"\n") {
        out.write_all(b"\n")?;
    }
    out.flush()
}

fn trim_end(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n")
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .unwrap_or(line)
}

/// Waits `grace` for the child to exit, then asks it to stop (SIGTERM), waits
/// `grace` again, then kills it; always reaps it.
fn stop(child: &mut Child, grace: Duration) -> anyhow::Result<ExitStatus> {
    if let Some(status) = wait_until(child, grace)? {
        return Ok(status);
    }
    terminate(child);
    if let Some(status) = wait_until(child, grace)? {
        return Ok(status);
    }
    let _ = child.kill();
    Ok(child.wait()?)
}

fn wait_until(child: &mut Child, grace: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + grace;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
fn terminate(child: &Child) {
    use rustix::process::{Pid, Signal, kill_process};
    let pid = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    if let Some(pid) = pid {
        let _ = kill_process(pid, Signal::TERM);
    }
}

#[cfg(not(unix))]
fn terminate(_child: &Child) {}

/// The server's exit status as an exit code: its own, or 128 + the signal.
fn exit_code(status: ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return u8::try_from((128 + signal) & 0xff).unwrap_or(1);
        }
    }
    1
}

fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("code {code}"),
        None => format!("signal, exit code {}", exit_code(status)),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
