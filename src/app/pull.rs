//! `callfix mcp-schemas --server NAME --out DIR [--] COMMAND [ARGS]...`: runs an
//! MCP server, lists its tools ([`Pull`], the library) and writes each tool's
//! `inputSchema` to `DIR/mcp__SERVER__TOOL.json` ([`plan`]), for
//! `callfix hook claude-code --schemas DIR`.
//!
//! The whole list comes first: a server that cannot be started, exits, says
//! nothing for `--timeout` seconds, refuses or writes what is not MCP gets an
//! error (exit 2) and no file is written. Each file is written whole under a
//! temporary name (which the registry does not read: it starts with a dot and
//! does not end in `.json`) and renamed into place: a reader never sees half of
//! one, and a file that cannot be written leaves the one it would replace.
//! The server is stopped as `callfix mcp` stops it: stdin closed, then its
//! process group sent SIGTERM, then SIGKILL.

use std::fs;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::error::IoCause;
use crate::mcp::pull::{Next, Pull, SchemaFile, plan};
use crate::mcp::{MAX_LINE_BYTES, OVERSIZED_PREFIX_BYTES};
use anyhow::{Context, anyhow};
use serde_json::Value;

use super::cli::McpSchemasArgs;
use super::mcp::{describe, read_capped, spawn_server, stop, trim_end, write_line};
use super::{Ctx, Ended};

/// How long the server has to exit once its stdin is closed (and again after
/// SIGTERM).
const GRACE: Duration = Duration::from_secs(1);

/// What the thread reading the server's stdout sends.
enum Read {
    Line(Vec<u8>),
    Oversized,
    /// Its stdout closed (or failed).
    End,
}

pub(crate) fn command(args: &McpSchemasArgs, ctx: &Ctx) -> anyhow::Result<Ended> {
    let (tools, unusable) = list(args)?;
    if unusable > 0 {
        ctx.report(
            "warning:",
            &format!(
                "{unusable} entr{} of the MCP server's tool list {} no name or no inputSchema; not written",
                if unusable == 1 { "y" } else { "ies" },
                if unusable == 1 { "has" } else { "have" },
            ),
        );
    }
    if tools.is_empty() {
        ctx.report(
            "note:",
            "the MCP server lists no tools: nothing was written",
        );
        return Ok(if unusable > 0 {
            Ended::Findings
        } else {
            Ended::Clean
        });
    }
    let (files, skipped) = plan(&args.server, tools);
    for skip in &skipped {
        ctx.report("warning:", &skip.to_string());
    }
    if !files.is_empty() {
        fs::create_dir_all(&args.out).map_err(|e| {
            anyhow!(IoCause(e)).context(format!("cannot make the directory {}", args.out.display()))
        })?;
    }
    let mut stdout = io::stdout().lock();
    for file in &files {
        let path = write_file(&args.out, file)?;
        writeln!(stdout, "{}", path.display())?;
    }
    stdout.flush()?;
    ctx.report(
        "note:",
        &format!(
            "{} of {} tool schema(s) of MCP server \"{}\" written to {}",
            files.len(),
            files.len() + skipped.len() + unusable,
            args.server,
            args.out.display()
        ),
    );
    Ok(if skipped.is_empty() && unusable == 0 {
        Ended::Clean
    } else {
        Ended::Findings
    })
}

/// The server's tools (its whole list) and how many of its entries were not
/// a tool with a name and a schema; or an error.
fn list(args: &McpSchemasArgs) -> anyhow::Result<(Vec<(String, Value)>, usize)> {
    let timeout = Duration::from_secs_f64(args.timeout);
    let deadline = Instant::now() + timeout;
    let mut child = spawn_server(&args.run.command)?;
    let (Some(mut server_in), Some(server_out)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("the MCP server's stdio could not be piped");
    };
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(server_out);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = match read_capped(&mut reader, &mut line) {
                Ok(Some(len)) if len > line.len() => Read::Oversized,
                Ok(Some(_)) => Read::Line(std::mem::take(&mut line)),
                Ok(None) | Err(_) => Read::End,
            };
            let end = !matches!(read, Read::Line(_));
            if tx.send(read).is_err() || end {
                return;
            }
        }
    });
    let (mut pull, first) = Pull::start();
    // A server that stops reading either exits (its stdout closes) or hangs
    // (the timeout): a write that fails says no more than those.
    let _ = write_line(&mut server_in, &first);
    let mut exited = false;
    let listed = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Read::Line(line)) => match pull.line(trim_end(&line)) {
                Ok(Next::Listed(tools)) => break Ok(tools),
                Ok(Next::Send(lines)) => {
                    for l in &lines {
                        let _ = write_line(&mut server_in, l);
                    }
                }
                Err(e) => break Err(anyhow!(e)),
            },
            Ok(Read::Oversized) => {
                break Err(anyhow!(
                    "the MCP server wrote a line longer than {MAX_LINE_BYTES} bytes (callfix read its first {OVERSIZED_PREFIX_BYTES})"
                ));
            }
            Ok(Read::End) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                exited = true;
                break Err(anyhow!("the MCP server closed its stdout"));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                break Err(anyhow!(
                    "the MCP server did not answer within {} s (waiting for its answer to {}; --timeout sets the wait)",
                    args.timeout,
                    pull.waiting_for()
                ));
            }
        }
    };
    drop(server_in);
    let status = stop(&mut child, GRACE)?;
    let program = args
        .run
        .command
        .first()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    match listed {
        Ok(tools) => Ok((tools, pull.unusable())),
        Err(_) if exited => Err(anyhow!(
            "the MCP server {program} exited ({}) before listing its tools; nothing was written",
            describe(status)
        )),
        Err(e) => Err(e.context(format!(
            "cannot pull the tool schemas of the MCP server {program}; nothing was written"
        ))),
    }
}

/// Writes one schema file whole (a temporary file renamed over it); its path.
fn write_file(dir: &Path, file: &SchemaFile) -> anyhow::Result<PathBuf> {
    let path = dir.join(&file.file);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(".{}.{}-{nanos}.tmp", file.file, std::process::id()));
    let mut text = serde_json::to_vec_pretty(&file.schema)?;
    text.push(b'\n');
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(&text)?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(anyhow!(IoCause(e)))
            .with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(path)
}
