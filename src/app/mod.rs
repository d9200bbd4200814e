//! The `callfix` binary: the command line, printing, colour and exit codes, in
//! one place each. Everything it runs is the library's.

pub(crate) mod check;
pub(crate) mod cli;
pub(crate) mod colour;
pub(crate) mod config;
mod heal;
pub(crate) mod hook;
pub(crate) mod mcp;
#[cfg(feature = "mcp-http")]
mod mcp_http;
mod pull;
pub(crate) mod render;
mod report;
pub mod sse;
mod terminal;
mod tools;

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};

use owo_colors::OwoColorize;

use self::cli::{Cli, ColorArg, Command, FilterArgs, JudgeArgs, SchemaArgs, VarArgs};
use self::colour::{Colours, Stream};
use anyhow::{Context, bail};

use crate::error::{Chain, Error};
use crate::filter::{Options, Summary};
use crate::message::{Style, one_line};
use crate::output::{Format, Printer};
use crate::registry::Registry;
use crate::repair::Policy;

/// The whole program for the arguments `args` (the first is the program's name):
/// parse, run, and the exit code. `src/main.rs` calls it, and so does the Python
/// package's `callfix` command (`python/src/command.rs`).
pub fn main<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::{CommandFactory, FromArgMatches};
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let (command, config) = config::apply(&args, Cli::command());
    let args = config::without_config_flags(&args);
    let parsed = command
        .try_get_matches_from(&args)
        .and_then(|m| Cli::from_arg_matches(&m));
    let (hook, code) = match parsed {
        Ok(cli) => {
            let hook = matches!(cli.command, Some(Command::Hook(_)));
            // A config that cannot be used stops everything but `check`, which
            // reports it as a finding.
            if let Some(e) = config.failed()
                && !matches!(cli.command, Some(Command::Check(_)))
            {
                report(Colours::default(), "error:", &e.to_string());
                return never_block(hook, 2);
            }
            (hook, exit_code(&run(&cli, config)))
        }
        Err(e) => {
            // --help and --version end here too, on stdout with 0.
            let _ = e.print();
            (meant_hook(&args), u8::try_from(e.exit_code()).unwrap_or(2))
        }
    };
    never_block(hook, code)
}

/// The exit code of a run whose stdout was closed before it started
/// (`callfix >&-`): an error, said on stderr.
pub fn stdout_closed() -> u8 {
    let closed = Error::write(io::Error::other("stdout is closed"));
    exit_code(&Err(closed.into()))
}

/// The exit code of a `hook` run: never 2, which Claude Code reads as "block
/// this tool call". A usage error, a config that cannot be used or any other
/// trouble is a non-blocking error (1), its reason already on stderr.
fn never_block(hook: bool, code: u8) -> u8 {
    if hook && code == 2 { 1 } else { code }
}

/// Whether a command line clap could not parse was meant for `hook`: its first
/// word that is not a flag (`--config` is already taken out) is `hook`.
fn meant_hook(args: &[std::ffi::OsString]) -> bool {
    args.iter()
        .skip(1)
        .find(|a| !a.to_str().is_some_and(|a| a.starts_with('-')))
        .is_some_and(|a| a == "hook")
}

/// How calls are judged and worded, from the options every judging command
/// shares.
pub(crate) fn judge_options(judge: &JudgeArgs) -> Options {
    Options {
        style: Style {
            prefix: judge.prefix.clone(),
            max_errors: usize::from(judge.max_errors),
            max_chars: usize::from(judge.max_chars),
        },
        policy: Policy {
            enabled: cli::RepairArg::enabled(&judge.repair),
            max_rounds: usize::from(judge.max_rounds),
        },
        loop_limit: judge.loop_limit,
        ..Options::default()
    }
}

/// What one run has decided before its command runs: the config in use and
/// whether each stream is coloured. [`main`] makes one per command line and
/// passes it down; nothing outlives the run.
pub(crate) struct Ctx {
    /// The project config (`callfix.toml`) read for this command line.
    pub(crate) config: config::Loaded,
    /// Colour for stdout and stderr.
    pub(crate) colours: Colours,
}

impl Ctx {
    /// A diagnostic on stderr ([`report`]), coloured as this run decided.
    pub(crate) fn report(&self, label: &str, message: &str) {
        report(self.colours, label, message);
    }

    /// Tells the registry's warnings after the first `told`, and returns how
    /// many it has. A lone directory's come when it is listed, which calls
    /// may need or not: a command tells them before its calls and again
    /// after.
    pub(crate) fn warnings(&self, registry: &Registry, told: usize) -> usize {
        let mut all = 0;
        for w in registry.warnings() {
            if all >= told {
                self.report("warning:", w);
            }
            all += 1;
        }
        all
    }
}

/// Runs what the command line asks.
pub(crate) fn run(cli: &Cli, config: config::Loaded) -> anyhow::Result<Ended> {
    let color = match &cli.command {
        None => cli.filter.color,
        Some(Command::Check(args)) => args.color,
        Some(Command::Report(args)) => args.color,
        Some(_) => ColorArg::Auto,
    };
    let ctx = Ctx {
        config,
        colours: Colours::decide(color),
    };
    match &cli.command {
        None => filter(&cli.filter, &ctx),
        Some(Command::Render(args)) => render::command(args, &ctx),
        Some(Command::Tools(args)) => tools::command(args, &ctx),
        Some(Command::Check(args)) => check::command(args, &ctx),
        #[cfg(feature = "mcp-http")]
        Some(Command::Mcp(args)) if args.url.is_some() => mcp_http::command(args, &ctx),
        Some(Command::Mcp(args)) => mcp::command(args, &ctx),
        Some(Command::Hook(args)) => hook::command(args, &ctx),
        Some(Command::McpSchemas(args)) => pull::command(args, &ctx),
        Some(Command::Heal(args)) => heal::command(args, &ctx),
        Some(Command::Report(args)) => report::command(args, &ctx),
        Some(Command::Completions { shell }) => terminal::completions(*shell),
        Some(Command::Man(args)) => terminal::man(args),
    }
}

/// The filter: every call in, one result per call out.
fn filter(cli: &FilterArgs, ctx: &Ctx) -> anyhow::Result<Ended> {
    let registry = load_registry(&cli.schemas)?;
    let told = ctx.warnings(&registry, 0);
    let ended = filter_with(cli, ctx, &registry);
    // Those the calls' lookups found (a lone directory listed), however the
    // run ended.
    ctx.warnings(&registry, told);
    ended
}

/// The filter over the command line's inputs, with `registry` loaded.
fn filter_with(cli: &FilterArgs, ctx: &Ctx, registry: &Registry) -> anyhow::Result<Ended> {
    let stdout = io::stdout();
    let format = cli.format.map_or_else(
        || {
            if stdout.is_terminal() {
                Format::Human
            } else {
                Format::Args
            }
        },
        Format::from,
    );
    let options = Options {
        max_record_bytes: cli.max_record_bytes,
        max_record_values: cli.max_record_values,
        // `0`, one per core, is capped by the filter as a number given is.
        jobs: cli.jobs,
        session: cli.session.clone(),
        whole_messages: cli.to.is_some() && format == Format::Call,
        ..judge_options(&cli.judge)
    };
    let filter_run = crate::filter::Filter {
        registry,
        options: &options,
    };
    let colours = ctx.colours;
    let mut printer = Printer::new(BufWriter::with_capacity(1 << 16, stdout.lock()), format)
        .to(cli.to.map(|p| p.0))
        .colour(ctx.colours.on(Stream::Stdout))
        .diagnostics(move |message| report(colours, "error:", message));
    // Per-tool counts cost a lookup per call; only `--stats` shows them.
    let mut summary = if cli.stats {
        Summary::default()
    } else {
        Summary::default().without_per_tool()
    };
    let mut input_failed = false;
    let inputs: Vec<String> = if cli.files.is_empty() {
        vec!["-".to_owned()]
    } else {
        cli.files.iter().map(|p| p.display().to_string()).collect()
    };
    if let Some(hint) = stdin_hint(cli.files.is_empty(), io::stdin().is_terminal()) {
        ctx.report("note:", hint);
    }
    let mut next_index = 0;
    for (i, input) in inputs.iter().enumerate() {
        let name = if input == "-" {
            "stdin"
        } else {
            input.as_str()
        };
        // The framer buffers its reads itself.
        let (reader, ready): (Box<dyn io::Read>, fn() -> bool) = if input == "-" {
            (Box::new(io::stdin().lock()), stdin_ready)
        } else {
            match File::open(input) {
                // A file read never waits for a writer (a FIFO might).
                Ok(f) if f.metadata().is_ok_and(|m| m.is_file()) => (Box::new(f), || true),
                Ok(f) => (Box::new(f), || false),
                Err(error) => {
                    input_failed = true;
                    let missing = error.kind() == io::ErrorKind::NotFound;
                    let e = Error::read(name.to_owned(), error);
                    match subcommand_meant(name).filter(|_| i == 0 && missing) {
                        Some(meant) => ctx.report(
                            "error:",
                            &format!("{} (did you mean the `{meant}` subcommand?)", Chain(&e)),
                        ),
                        None => ctx.report("error:", &Chain(&e).to_string()),
                    }
                    continue;
                }
            }
        };
        let input = crate::filter::Input {
            first_index: next_index,
            ready: Some(ready),
            ..crate::filter::Input::new(reader, name)
        };
        let result = run_input(
            &filter_run,
            input,
            cli.tool.as_deref(),
            &mut printer,
            &mut summary,
        );
        match result {
            Ok(next) => next_index = next,
            Err(e @ Error::Read { .. }) => {
                input_failed = true;
                ctx.report("error:", &Chain(&e).to_string());
            }
            Err(e) => return Err(e.into()),
        }
    }
    printer.flush().map_err(Error::write)?;
    if cli.stats {
        let _ = writeln!(io::stderr().lock(), "callfix: {summary}");
    }
    Ok(filter_ended(&summary, cli.strict, input_failed))
}

/// Whether reading stdin would return at once: input is waiting, or it ended
/// (with `--jobs`, results are written out only before a read that may wait).
fn stdin_ready() -> bool {
    #[cfg(unix)]
    {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let stdin = io::stdin();
        let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        poll(&mut fds, Some(&now)).is_ok_and(|n| n > 0)
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// One input through the filter: a stream of records, or with `--tool` the bare
/// arguments of one call. Returns the number the next input's first record gets.
fn run_input<R: io::Read, W: Write>(
    run: &crate::filter::Filter<'_>,
    input: crate::filter::Input<'_, R>,
    tool: Option<&str>,
    printer: &mut Printer<W>,
    summary: &mut Summary,
) -> Result<u64, Error> {
    let (name, first_index) = (input.source.to_owned(), input.first_index);
    match tool {
        Some(tool) => run
            .bare(input, tool, printer, summary)
            .map(|()| first_index + 1),
        None => run.stream(input, printer, summary),
    }
    .map_err(|e| match e {
        crate::filter::StreamError::Read(error) => Error::read(name, error),
        crate::filter::StreamError::Write(error) => Error::write(error),
    })
}

/// The tool registry the command line names: `--schemas` sources, `--ref-map`.
pub(crate) fn load_registry(args: &SchemaArgs) -> anyhow::Result<Registry> {
    let registry = Registry::load(&args.schemas).map_err(|e| {
        // The default `./schemas` is missing: say how to point callfix elsewhere.
        let default = match args.schemas.as_slice() {
            [only] => only == std::path::Path::new("schemas") && !only.exists(),
            _ => false,
        };
        if default && std::env::var_os("CALLFIX_SCHEMAS").is_none() {
            anyhow::anyhow!(
                "{} (no ./schemas here: pass --schemas PATH or set CALLFIX_SCHEMAS)",
                Chain(&e)
            )
        } else {
            anyhow::Error::from(e)
        }
    })?;
    Ok(registry.with_ref_map(crate::resolve::RefMap::new(args.ref_map.clone())))
}

/// What a bare `callfix` says when a person runs it with nothing piped in: it is
/// waiting for tool calls on stdin, not hung.
/// An input named on the command line (`heal`, `report`): its name as
/// messages say it (`stdin` for `-`), and a reader over it or why it could
/// not be opened.
pub(crate) fn open_input(input: &str) -> (&str, Result<Box<dyn io::Read>, Error>) {
    if input == "-" {
        return ("stdin", Ok(Box::new(io::stdin().lock())));
    }
    let reader = File::open(input)
        .map(|f| Box::new(f) as Box<dyn io::Read>)
        .map_err(|error| Error::read(input.to_owned(), error));
    (input, reader)
}

fn stdin_hint(no_files: bool, stdin_is_terminal: bool) -> Option<&'static str> {
    (no_files && stdin_is_terminal).then_some(
        "reading tool calls from stdin (end with Ctrl-D); `callfix --help` shows the usage",
    )
}

/// The subcommand a missing first FILE was probably meant to be (`chek`).
fn subcommand_meant(file: &str) -> Option<&'static str> {
    const SUBCOMMANDS: [&str; 3] = ["render", "tools", "check"];
    crate::suggest::closest(file, SUBCOMMANDS).filter(|_| !file.contains(['/', '.']))
}

/// How a run ended, before it becomes an exit code in [`exit_code`], the one
/// place where codes are decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Every call valid (or repaired); rendered; printed; no error finding.
    Clean,
    /// A call rejected (with `--strict`, repaired too) or a broken record; a
    /// template, schema or description error; an error finding.
    Findings,
    /// Something could not be checked at all: an unreadable input, a call whose
    /// tool's schema is broken.
    Trouble,
    /// `mcp`: the server's own exit code.
    Server(u8),
}

/// How a filter run ended: trouble when something could not be checked at all,
/// findings when a call was rejected (or, with `strict`, repaired).
fn filter_ended(summary: &Summary, strict: bool, input_failed: bool) -> Ended {
    if input_failed || summary.schema_faults > 0 {
        Ended::Trouble
    } else if summary.failures() > 0 || (strict && summary.total.repaired > 0) {
        Ended::Findings
    } else {
        Ended::Clean
    }
}

/// The exit code contract, in one place: 0 clean, 1 findings, 2 trouble or an
/// error (which is said on stderr), except that a reader going away (`| head`)
/// ends the run quietly with 0.
pub(crate) fn exit_code(result: &anyhow::Result<Ended>) -> u8 {
    match result {
        Ok(Ended::Clean) => 0,
        Ok(Ended::Findings) => 1,
        Ok(Ended::Trouble) => 2,
        Ok(Ended::Server(code)) => *code,
        Err(err) => {
            let quiet = err
                .chain()
                .filter_map(|e| e.downcast_ref::<Error>())
                .any(Error::is_broken_pipe);
            if quiet {
                0
            } else {
                let said = format!("{err:#}");
                let _ = writeln!(io::stderr(), "callfix: {}", one_line(&said));
                2
            }
        }
    }
}

/// Template variables: the built-ins, then `--vars FILE.json`, then `--var`.
pub(crate) fn load_vars(args: &VarArgs, ctx: &Ctx) -> anyhow::Result<crate::render::Vars> {
    let mut vars = crate::render::builtins();
    for (k, v) in ctx.config.vars() {
        vars.insert(k.clone(), v.clone());
    }
    if let Some(path) = &args.vars_file {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| Error::read(&name, error))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("--vars {name}: not valid JSON"))?;
        let serde_json::Value::Object(map) = value else {
            bail!("--vars {name}: expected a JSON object");
        };
        for (k, v) in map {
            let v = match crate::render::var_text(v) {
                Ok(v) => v,
                Err(kind) => bail!("--vars {name}: \"{k}\" is {kind}, not a string or number"),
            };
            vars.insert(k, v);
        }
    }
    for (k, v) in &args.vars {
        vars.insert(k.clone(), v.clone());
    }
    Ok(vars)
}

/// A diagnostic on stderr: `callfix: warning: …` or `callfix: error: …`, one
/// line whatever it quotes (a file name, a server's words: [`one_line`]), its
/// label coloured by `colours`.
pub(crate) fn report(colours: Colours, label: &str, message: &str) {
    let message = one_line(message);
    let label = if label == "note:" {
        label.to_owned()
    } else if label == "error:" {
        colours.paint(Stream::Stderr, label, |s| s.red().to_string())
    } else {
        colours.paint(Stream::Stderr, label, |s| s.yellow().to_string())
    };
    let _ = writeln!(io::stderr().lock(), "callfix: {label} {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_at_a_terminal_is_told_what_callfix_waits_for() {
        assert!(stdin_hint(true, true).is_some());
        assert_eq!(stdin_hint(true, false), None);
        assert_eq!(stdin_hint(false, true), None);
    }

    #[test]
    fn a_hook_run_never_exits_2() {
        let args = |list: &[&str]| -> Vec<std::ffi::OsString> {
            list.iter().map(std::ffi::OsString::from).collect()
        };
        assert!(meant_hook(&args(&["callfix", "hook"])));
        assert!(meant_hook(&args(&["callfix", "--bogus", "hook", "x"])));
        assert!(!meant_hook(&args(&["callfix", "check", "hook"])));
        assert!(!meant_hook(&args(&["callfix", "--jobs=9999"])));
        assert!(!meant_hook(&args(&["callfix"])));
        assert_eq!(never_block(true, 2), 1);
        assert_eq!(never_block(true, 0), 0);
        assert_eq!(never_block(false, 2), 2);
        // A usage error in a hook command line, parsed for real.
        assert_eq!(main(["callfix", "hook", "no-such-agent"]), 1);
        assert_eq!(main(["callfix", "--jobs", "100000"]), 2);
    }

    #[test]
    fn each_run_reads_its_own_config() {
        // The Python package runs many command lines in one process: a config
        // that failed one run must not fail the next.
        let dir = tempfile::tempdir().unwrap();
        let schemas = dir.path().join("s");
        std::fs::create_dir(&schemas).unwrap();
        std::fs::write(
            schemas.join("t.json"),
            r#"{"type": "object", "description": "A tool."}"#,
        )
        .unwrap();
        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, "bogus = [").unwrap();
        let run = |config: &[&std::ffi::OsStr]| {
            let mut args: Vec<&std::ffi::OsStr> = vec!["callfix".as_ref()];
            args.extend(config);
            args.extend(["check".as_ref(), "--schemas".as_ref(), schemas.as_os_str()]);
            main(args)
        };
        assert_eq!(run(&["--config".as_ref(), bad.as_os_str()]), 1);
        assert_eq!(run(&["--no-config".as_ref()]), 0);
    }

    #[test]
    fn a_missing_file_near_a_subcommand_name_suggests_it() {
        assert_eq!(subcommand_meant("chek"), Some("check"));
        assert_eq!(subcommand_meant("tool"), Some("tools"));
        assert_eq!(subcommand_meant("rendr"), Some("render"));
        assert_eq!(subcommand_meant("calls.jsonl"), None);
        assert_eq!(subcommand_meant("./check"), None);
        assert_eq!(subcommand_meant("transcript"), None);
    }
}
