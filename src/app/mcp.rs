//! `callfix mcp [--] COMMAND [ARGS]...`: an MCP server over stdio, behind callfix
//! (`callfix mcp --url URL`, `mcp_http.rs`, runs the same session with a
//! [`Remote`] upstream instead of the child: the server over Streamable HTTP).
//!
//! Two threads copy lines, one each way; [`Proxy`] (the library) decides what
//! happens to each, and what else is sent (its own `tools/list`, held calls
//! released, warnings). Lines callfix does not intervene in are written exactly
//! as they were read; a line over [`MAX_LINE_BYTES`] is read no further than
//! its first [`OVERSIZED_PREFIX_BYTES`] and skipped. The main thread ticks
//! ([`Proxy::expire`]) and waits for either side to end:
//! - the server ends (its stdout closes): requests it never answered, and those
//!   the client sends until it falls quiet, get a JSON-RPC error, and callfix
//!   exits with the server's exit code;
//! - the client ends (stdin closes): once no call waits for the tool list, the
//!   server's stdin is closed, and it gets `--grace` seconds to exit, then
//!   SIGTERM, then SIGKILL (MCP's stdio shutdown), each sent to the server's
//!   whole process group (it is started in a group of its own, so a server
//!   behind `sh -c` is stopped too). The child is always waited for: no
//!   zombies.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use crate::filter::Summary;
use crate::mcp::{
    FromClient, FromServer, Judged, LIST_WAIT, MAX_LINE_BYTES, OVERSIZED_PREFIX_BYTES, Out, Proxy,
};
use crate::output::{Format, Position, Printer};
use crate::registry::Registry;
use anyhow::Context;

use super::cli::{McpArgs, SchemaArgs};
use super::colour::Colours;
use super::{Ctx, Ended, judge_options, load_registry, report};

/// Which side ended first.
pub(super) enum End {
    Client,
    Server,
}

/// What both threads share.
pub(super) struct Shared {
    proxy: Mutex<Proxy>,
    /// The client's stdout: the server's lines and callfix's own answers.
    client: Mutex<io::Stdout>,
    /// Where lines for the server go, until the client ends.
    server: Mutex<Option<Upstream>>,
    log: Option<Mutex<Log>>,
    /// When the client's last line was read.
    last_client: Mutex<Instant>,
    /// Colour for callfix's own diagnostics.
    pub(super) colours: Colours,
}

/// Where lines for the server go.
pub(super) enum Upstream {
    /// A child process's stdin.
    Child(ChildStdin),
    /// A server reached otherwise (`mcp_http.rs`: each message a POST).
    #[cfg_attr(not(feature = "mcp-http"), allow(dead_code))]
    Remote(Arc<dyn Remote>),
}

/// A server that is not a child process: it takes each line meant for it and
/// delivers what it sends back through [`from_server`].
pub(super) trait Remote: Send + Sync {
    /// Sends one message line (its newline, if any, is not part of the message).
    fn send(self: Arc<Self>, line: &[u8]);
}

impl Shared {
    /// What the threads of one session share: `upstream` for the server, the
    /// proxy judging with `args`' options and `given` schemas.
    pub(super) fn new(
        args: &McpArgs,
        ctx: &Ctx,
        given: Registry,
        log: Option<Mutex<Log>>,
        upstream: Upstream,
    ) -> Self {
        Shared {
            proxy: Mutex::new(Proxy::with(given, judge_options(&args.judge))),
            client: Mutex::new(io::stdout()),
            server: Mutex::new(Some(upstream)),
            log,
            last_client: Mutex::new(Instant::now()),
            colours: ctx.colours,
        }
    }
}

pub(super) struct Log {
    printer: Printer<BufWriter<File>>,
    next: u64,
}

pub(crate) fn command(args: &McpArgs, ctx: &Ctx) -> anyhow::Result<Ended> {
    if args.url.is_some() {
        anyhow::bail!("this callfix was built without MCP over HTTP (the feature mcp-http)");
    }
    if !args.header.is_empty() {
        anyhow::bail!("--header is for --url: a server run as a COMMAND gets no HTTP headers");
    }
    let given = given(args)?;
    let log = open_log(args)?;
    let mut child = spawn_server(&args.server.command)?;
    let (Some(server_in), Some(server_out)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("the MCP server's stdio could not be piped");
    };
    let upstream = Upstream::Child(server_in);
    let shared = Arc::new(Shared::new(args, ctx, given, log, upstream));
    let (tx, rx) = mpsc::channel();
    {
        let (shared, tx) = (Arc::clone(&shared), tx.clone());
        thread::spawn(move || {
            server_to_client(server_out, &shared);
            let _ = tx.send(End::Server);
        });
    }
    start_client(&shared, tx);
    let grace = Duration::from_secs_f64(args.grace.max(0.0));
    let ended = match wait_end(&shared, &rx) {
        End::Server => {
            let status = stop(&mut child, grace)?;
            let why = format!("the MCP server exited ({})", describe(status));
            server_gone(&shared, &rx, &why, grace);
            ctx.report("note:", &why);
            Ended::Server(exit_code(status))
        }
        End::Client => {
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
    finish(&shared, args);
    Ok(ended)
}

/// The schemas given with `--schemas`.
pub(super) fn given(args: &McpArgs) -> anyhow::Result<Registry> {
    Ok(if args.schemas.is_empty() {
        Registry::default()
    } else {
        load_registry(&SchemaArgs {
            schemas: args.schemas.clone(),
            ref_map: Vec::new(),
        })?
    })
}

/// The `--log` file, opened for appending.
pub(super) fn open_log(args: &McpArgs) -> anyhow::Result<Option<Mutex<Log>>> {
    Ok(match &args.log {
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
    })
}

/// Starts the thread that reads the client.
pub(super) fn start_client(shared: &Arc<Shared>, tx: mpsc::Sender<End>) {
    let shared = Arc::clone(shared);
    thread::spawn(move || {
        client_to_server(&shared);
        let _ = tx.send(End::Client);
    });
}

/// Ticks the proxy until either side ends; which did.
pub(super) fn wait_end(shared: &Shared, rx: &mpsc::Receiver<End>) -> End {
    let end = loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(end) => break end,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let out = {
                    let mut proxy = lock(&shared.proxy);
                    proxy.expire(Instant::now());
                    proxy.take_out()
                };
                send_out(shared, out);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break End::Server,
        }
    };
    // The client closed first (its thread has let go of the server's stdin) and
    // the server then exited, as asked: the client's end, whichever thread told
    // first. (A request of its own still pending is no one's to answer.)
    match end {
        End::Server if lock(&shared.server).is_none() => End::Client,
        end => end,
    }
}

/// The server is gone (`why`): every request it never answered gets an error,
/// and so do those the client sends until it falls quiet.
pub(super) fn server_gone(shared: &Shared, rx: &mpsc::Receiver<End>, why: &str, grace: Duration) {
    let errors = lock(&shared.proxy).server_gone(why);
    for e in errors {
        let _ = to_client(shared, &e);
    }
    // Requests already on their way get the same answer (the client
    // thread answers them) until the client falls quiet.
    let since = Instant::now();
    while since.elapsed() < grace.max(Duration::from_millis(100))
        && lock(&shared.last_client).elapsed() < Duration::from_millis(100)
    {
        if rx.recv_timeout(Duration::from_millis(10)).is_ok() {
            break;
        }
    }
}

/// The log flushed, and `--stats`.
pub(super) fn finish(shared: &Shared, args: &McpArgs) {
    if let Some(log) = &shared.log {
        let _ = lock(log).printer.flush();
    }
    if args.stats {
        let summary: &Summary = &lock(&shared.proxy).summary;
        let _ = writeln!(io::stderr().lock(), "callfix: {summary}");
    }
}

/// Starts the MCP server `argv` in a process group of its own (stopping the
/// group stops what it started: `sh -c`), its stdin and stdout piped, its
/// stderr callfix's.
pub(super) fn spawn_server(argv: &[std::ffi::OsString]) -> anyhow::Result<Child> {
    let Some((program, rest)) = argv.split_first() else {
        anyhow::bail!("no MCP server command given");
    };
    let mut command = Command::new(program);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    command
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot start the MCP server {}", program.to_string_lossy()))
}

fn server_to_client(server_out: impl io::Read, shared: &Shared) {
    each_line(BufReader::new(server_out), |line| from_server(shared, line));
}

/// One message from the server: judged by the proxy, forwarded to the client
/// as it came (or not), and what the proxy has to send besides. False when the
/// client cannot be written to.
pub(super) fn from_server(shared: &Shared, line: Line<'_>) -> bool {
    let (action, out) = {
        let mut proxy = lock(&shared.proxy);
        let action = match line {
            Line::Whole(line) => proxy.from_server(trim_end(line)),
            Line::Oversized { prefix, len } => {
                proxy.server_oversized(prefix, len);
                FromServer::Drop
            }
        };
        (action, proxy.take_out())
    };
    let written = match (action, line) {
        (FromServer::Forward, Line::Whole(line)) => to_client(shared, line).is_ok(),
        _ => true,
    };
    send_out(shared, out);
    written
}

fn client_to_server(shared: &Shared) {
    each_line(io::stdin().lock(), |line| {
        *lock(&shared.last_client) = Instant::now();
        let (action, judged, out) = {
            let mut proxy = lock(&shared.proxy);
            let (action, judged) = match line {
                Line::Whole(line) => proxy.from_client(trim_end(line), Instant::now()),
                Line::Oversized { prefix, len } => (
                    FromClient::Answer(proxy.client_oversized(prefix, len)),
                    None,
                ),
            };
            (action, judged, proxy.take_out())
        };
        if let (Some(judged), Some(log)) = (judged, &shared.log) {
            write_log(&mut lock(log), judged, shared.colours);
        }
        // A server that stopped reading is noticed when its stdout closes.
        let _ = match (action, line) {
            (FromClient::Forward, Line::Whole(line)) => to_server(shared, line),
            (FromClient::Rewrite(out), _) => to_server(shared, &out),
            (FromClient::Answer(out), _) => to_client(shared, &out),
            _ => Ok(()),
        };
        send_out(shared, out);
        true
    });
    // Calls waiting for the tool list are sent (or answered) before the server
    // learns that the client is gone; the main thread ends the wait.
    let since = Instant::now();
    while lock(&shared.proxy).holding() && since.elapsed() < LIST_WAIT * 2 {
        thread::sleep(Duration::from_millis(10));
    }
    // Closing the server's stdin tells it the session is over.
    lock(&shared.server).take();
}

/// Sends or says what the proxy has besides the line it was given.
fn send_out(shared: &Shared, out: Vec<Out>) {
    for item in out {
        let _ = match item {
            Out::Server(line) => to_server(shared, &line),
            Out::Client(line) => to_client(shared, &line),
            Out::Warn(message) => {
                report(shared.colours, "warning:", &message);
                Ok(())
            }
            Out::Log(judged) => {
                if let Some(log) = &shared.log {
                    write_log(&mut lock(log), *judged, shared.colours);
                }
                Ok(())
            }
        };
    }
}

/// A line as read: whole (newline included), or over [`MAX_LINE_BYTES`] and
/// known only by its start and length.
#[derive(Clone, Copy)]
pub(super) enum Line<'a> {
    Whole(&'a [u8]),
    Oversized { prefix: &'a [u8], len: usize },
}

/// Calls `each` with every line of `reader` until the input ends, fails, or
/// `each` returns false. A line over [`MAX_LINE_BYTES`] is not kept: only its
/// first [`OVERSIZED_PREFIX_BYTES`] and its length are given.
fn each_line(mut reader: impl BufRead, mut each: impl FnMut(Line<'_>) -> bool) {
    let mut line = Vec::new();
    loop {
        line.clear();
        let len = match read_capped(&mut reader, &mut line) {
            Ok(None) | Err(_) => return,
            Ok(Some(len)) => len,
        };
        let read = if len == line.len() {
            Line::Whole(&line)
        } else {
            Line::Oversized { prefix: &line, len }
        };
        if !each(read) {
            return;
        }
        if line.capacity() > OVERSIZED_PREFIX_BYTES {
            line = Vec::new(); // a long line's buffer is not kept for the next
        }
    }
}

/// Reads one line (newline included) into `line`, keeping all of it up to
/// [`MAX_LINE_BYTES`] and only its first [`OVERSIZED_PREFIX_BYTES`] past that;
/// its whole length, or `None` at the end of the input.
pub(super) fn read_capped(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
) -> io::Result<Option<usize>> {
    let mut len = 0usize;
    let mut over = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((len > 0).then_some(len));
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (buf.get(..=i).unwrap_or(buf), true),
            None => (buf, false),
        };
        let n = chunk.len();
        len = len.saturating_add(n);
        if !over && len > MAX_LINE_BYTES.saturating_add(2) {
            over = true;
            line.truncate(OVERSIZED_PREFIX_BYTES);
            line.shrink_to_fit();
        }
        if !over {
            line.extend_from_slice(chunk);
        } else if line.len() < OVERSIZED_PREFIX_BYTES {
            let room = OVERSIZED_PREFIX_BYTES - line.len();
            line.extend_from_slice(chunk.get(..room.min(n)).unwrap_or(chunk));
        }
        reader.consume(n);
        if done {
            return Ok(Some(len));
        }
    }
}

fn write_log(log: &mut Log, judged: Judged, colours: Colours) {
    let at = Position {
        index: log.next,
        call: 0,
        line: log.next + 1,
        offset: 0,
    };
    log.next += 1;
    let printer = &mut log.printer;
    crate::output::Sink::begin_record(printer, judged.spellings);
    let written = printer.call(at, &judged.call, &judged.verdict);
    if let Err(e) = written.and_then(|()| printer.flush()) {
        report(colours, "warning:", &format!("cannot write the log: {e}"));
    }
}

/// Writes one message line to the server, whole, and flushes it; nothing once
/// the client has ended.
fn to_server(shared: &Shared, line: &[u8]) -> io::Result<()> {
    let mut server = lock(&shared.server);
    match &mut *server {
        Some(Upstream::Child(server)) => write_line(server, line),
        Some(Upstream::Remote(remote)) => {
            // Not under the lock: sending may take its time.
            let remote = Arc::clone(remote);
            drop(server);
            remote.send(line);
            Ok(())
        }
        None => Ok(()),
    }
}

/// Writes one message line to the client, whole, and flushes it.
fn to_client(shared: &Shared, line: &[u8]) -> io::Result<()> {
    let mut out = lock(&shared.client);
    write_line(&mut *out, line)
}

/// Writes `line` as it is, with a newline if it has none, and flushes.
pub(super) fn write_line(out: &mut impl Write, line: &[u8]) -> io::Result<()> {
    out.write_all(line)?;
    if !line.ends_with(b"\n") {
        out.write_all(b"\n")?;
    }
    out.flush()
}

pub(super) fn trim_end(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n")
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .unwrap_or(line)
}

/// Waits `grace` for the child to exit, then asks its process group to stop
/// (SIGTERM), waits `grace` again, then kills the group; always reaps the
/// child. What the child left running in its group is stopped the same way.
pub(super) fn stop(child: &mut Child, grace: Duration) -> anyhow::Result<ExitStatus> {
    let mut status = wait_until(child, grace, false)?;
    if status.is_none() || group_alive(child) {
        signal_group(child, false);
        status = status.or(wait_until(child, grace, true)?);
    }
    if status.is_none() || group_alive(child) {
        signal_group(child, true);
    }
    match status {
        Some(status) => Ok(status),
        None => {
            let _ = child.kill();
            Ok(child.wait()?)
        }
    }
}

/// Waits up to `grace` for the child to exit (and, with `group`, for its
/// process group to empty); the child's status if it exited.
fn wait_until(child: &mut Child, grace: Duration, group: bool) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + grace;
    let mut status = None;
    loop {
        if status.is_none() {
            status = child.try_wait()?;
        }
        if status.is_some() && !(group && group_alive(child)) {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            return Ok(status);
        }
        thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
fn group_of(child: &Child) -> Option<rustix::process::Pid> {
    i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
}

/// Whether any process is left in the child's process group.
#[cfg(unix)]
fn group_alive(child: &Child) -> bool {
    group_of(child).is_some_and(|pid| rustix::process::test_kill_process_group(pid).is_ok())
}

#[cfg(not(unix))]
fn group_alive(_child: &Child) -> bool {
    false
}

/// SIGTERM (or, with `kill`, SIGKILL) to the child's whole process group.
#[cfg(unix)]
fn signal_group(child: &Child, kill: bool) {
    use rustix::process::{Signal, kill_process_group};
    let signal = if kill { Signal::KILL } else { Signal::TERM };
    if let Some(pid) = group_of(child) {
        let _ = kill_process_group(pid, signal);
    }
}

#[cfg(not(unix))]
fn signal_group(_child: &Child, _kill: bool) {}

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

pub(super) fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("code {code}"),
        None => format!("signal, exit code {}", exit_code(status)),
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
