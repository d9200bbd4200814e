//! The command line, defined once: `--help` (quoted in docs/options.md, where it
//! runs as a test), the shell completions and the man page are written from it.
#![allow(rustdoc::invalid_html_tags)] // doc comments here are `--help` text, `<tool>` and all

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::provider::Provider;
use crate::repair::Kind;

use crate::message::DEFAULT_PREFIX;
use crate::output::Format;
use crate::repair::Enabled;

mod commands;

pub(crate) use commands::{
    CheckArgs, CheckFormat, HealArgs, HookAgent, HookArgs, McpArgs, McpSchemasArgs, RenderArgs,
    RenderFormat, RepairedDecision, ReportArgs, ReportFormat, ToolsArgs,
};

/// The version `--version` prints: with the git commit where `build.rs` found
/// one (the Python module's build has no such script: the package version).
pub(crate) const VERSION: &str = match option_env!("CALLFIX_VERSION") {
    Some(v) => v,
    None => env!("CARGO_PKG_VERSION"),
};

pub(crate) const EXIT_CODES: &str = "\
Exit codes:
  0  every call valid (or repaired); for subcommands, success
  1  at least one call rejected (with --strict: or repaired); render: a template
     error; check: an error finding (with --deny-warnings: or a warning)
  2  usage error, unreadable input, or an unusable schema source or schema";

/// Validate LLM tool calls against JSON Schema: pass valid arguments on, answer the
/// rest with one line the model can act on.
///
/// Reads tool calls (JSON Lines, concatenated JSON or one JSON array; any provider's
/// envelope) from FILEs or stdin, looks each tool up in --schemas, and writes one
/// result per call, in input order.
#[derive(Debug, Parser)]
#[command(
    name = "callfix",
    version = VERSION,
    after_help = EXIT_CODES,
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Read settings from this callfix.toml [default: the nearest callfix.toml
    /// from the working directory up]
    #[arg(long, global = true, value_name = "FILE", env = "CALLFIX_CONFIG")]
    pub config: Option<PathBuf>,

    /// Read no callfix.toml
    #[arg(long, global = true, conflicts_with = "config")]
    pub no_config: bool,

    #[command(flatten)]
    pub filter: FilterArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Render tool description templates (<PLATFORM>-style variables) into text
    Render(RenderArgs),
    /// Print the tool definitions a provider API expects, descriptions rendered
    Tools(ToolsArgs),
    /// Check a tool set for CI: schemas, descriptions, drift, recorded calls
    Check(CheckArgs),
    /// Run an MCP server (stdio) behind callfix, which judges its tools/call requests
    ///
    /// Every message passes through unchanged, except tools/call requests to tools
    /// the server listed: valid ones are forwarded as they came, repairable ones
    /// repaired, and the rest answered by callfix with an isError result holding
    /// the instruction (the server never sees them).
    Mcp(McpArgs),
    /// Answer an agent's pre-tool-use hook (payload on stdin, decision on stdout)
    Hook(HookArgs),
    /// Pull an MCP server's tool schemas into DIR/mcp__SERVER__TOOL.json (for the hook)
    ///
    /// Runs the server (stdio), asks for its tools (every page) and writes each
    /// tool's inputSchema to DIR/mcp__SERVER__TOOL.json, named as Claude Code
    /// names the tool (characters outside A-Z a-z 0-9 _ - become _). Prints
    /// each file written. Claude Code checks its built-in tools' input itself,
    /// before any hook runs: the hook helps MCP tools only.
    McpSchemas(McpSchemasArgs),
    /// Make a conversation acceptable again: every tool call valid, repaired or neutralised
    ///
    /// One request body per record (OpenAI chat or Anthropic messages, with its
    /// tools). Valid calls are left byte for byte, repairable ones repaired, and
    /// the rest neutralised: arguments a JSON object, the call's result carrying
    /// the instruction and what was sent. Every call gets exactly one result.
    /// Exit 0: every call valid or repaired; 1: a call neutralised; 2: a record
    /// not healed (written as it came), or an error.
    Heal(HealArgs),
    /// Summarise recorded traffic: how well each model called its tools
    ///
    /// Judges every call as the filter would and counts, per model (the
    /// record's `model`, else --label, else the file name), per tool and
    /// overall: valid, repaired (by kind), rejected (by class), leaked calls,
    /// the schema accuracy (valid as sent ÷ calls) and the accuracy after
    /// callfix ((valid + repaired) ÷ calls), with the most frequent error
    /// paths. Exit 0 unless an input cannot be read or a schema is broken (2).
    Report(ReportArgs),
    /// Print a shell completion script: bash, zsh, fish, powershell or elvish
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): callfix man > callfix.1
    ///
    /// A subcommand's page: callfix man check > callfix-check.1; every page at
    /// once (callfix.1 and the callfix-COMMAND.1 pages it cites): callfix man
    /// --dir DIR
    Man(ManArgs),
}

/// `callfix man [COMMAND] [--dir DIR]`
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// The subcommand whose page to print (callfix-COMMAND(1)); without one,
    /// callfix(1)
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,

    /// Write every page (callfix.1 and one callfix-COMMAND.1 per subcommand,
    /// the pages callfix(1) cites) into DIR instead
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

/// Where the tool schemas are.
#[derive(Debug, Clone, Args)]
pub(crate) struct SchemaArgs {
    /// A directory of <tool>.json schemas, or one file listing tools (OpenAI,
    /// Anthropic, Gemini or MCP shape). Repeatable; the first definition of a name wins.
    #[arg(
        short,
        long = "schemas",
        value_name = "PATH",
        env = "CALLFIX_SCHEMAS",
        default_value = "schemas"
    )]
    pub schemas: Vec<PathBuf>,

    /// Serve `$ref` and `$schema` documents under URI_PREFIX from the local
    /// directory DIR (e.g. http://localhost:1234/=remotes). Repeatable. Nothing is
    /// ever fetched; an unmapped remote reference is a schema error.
    #[arg(long = "ref-map", value_name = "URI_PREFIX=DIR", value_parser = crate::resolve::RefMap::parse_pair)]
    pub ref_map: Vec<(String, PathBuf)>,
}

/// Template variables, over the built-ins.
#[derive(Debug, Clone, Args)]
pub(crate) struct VarArgs {
    /// Set a variable (overrides the built-ins and --vars); repeatable
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,

    /// A JSON object of variable values (strings or numbers)
    #[arg(long = "vars", value_name = "FILE.json")]
    pub vars_file: Option<PathBuf>,
}

/// A provider, named as `--to` and `--provider` take it; the list is the
/// library's [`PROVIDERS`](crate::provider::PROVIDERS).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProviderArg(pub Provider);

impl ValueEnum for ProviderArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: LazyLock<Vec<ProviderArg>> = LazyLock::new(|| {
            crate::provider::PROVIDERS
                .iter()
                .map(|p| ProviderArg(*p))
                .collect()
        });
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

/// A provider whose request bodies `heal` writes (`heal --to`): only those of
/// [`crate::heal::SHAPES`], so `--help` and clap's usage error list only them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShapeArg(pub Provider);

impl ValueEnum for ShapeArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: LazyLock<Vec<ShapeArg>> =
            LazyLock::new(|| crate::heal::SHAPES.iter().map(|p| ShapeArg(*p)).collect());
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

/// One `--repair` value: `all`, `none` or a kind, from the library's one list of
/// kinds ([`Kind::ALL`]), each with its summary in `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RepairArg {
    All,
    None,
    Kind(Kind),
}

impl RepairArg {
    /// The kinds a `--repair` list turns on.
    pub(crate) fn enabled(list: &[RepairArg]) -> Enabled {
        if list.contains(&RepairArg::All) {
            return Enabled::ALL;
        }
        Enabled::only(list.iter().filter_map(|r| match r {
            RepairArg::Kind(k) => Some(*k),
            _ => None,
        }))
    }
}

impl ValueEnum for RepairArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: LazyLock<Vec<RepairArg>> = LazyLock::new(|| {
            [RepairArg::All, RepairArg::None]
                .into_iter()
                .chain(Kind::ALL.iter().copied().map(RepairArg::Kind))
                .collect()
        });
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            RepairArg::All => PossibleValue::new("all").help("every kind below"),
            RepairArg::None => PossibleValue::new("none").help("validate only"),
            RepairArg::Kind(k) => PossibleValue::new(k.name()).help(k.summary()),
        })
    }
}

fn parse_pointer(s: &str) -> Result<String, String> {
    if s.is_empty() || s.starts_with('/') {
        Ok(s.to_owned())
    } else {
        Err(format!("a JSON pointer starts with '/', got \"{s}\""))
    }
}

/// The most threads `--jobs` (and `jobs` in callfix.toml) may ask for.
pub(crate) use crate::filter::MAX_JOBS;

fn parse_jobs(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if n > MAX_JOBS {
        return Err(format!("at most {MAX_JOBS} threads (0: one per core)"));
    }
    Ok(n)
}

fn parse_var(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("expected NAME=VALUE, got \"{s}\"")),
    }
}

/// How calls are judged and answered: the same for the filter, `mcp` and `hook`.
#[derive(Debug, Clone, Args)]
pub(crate) struct JudgeArgs {
    /// Text before the errors in the instruction for the model
    #[arg(long, default_value = DEFAULT_PREFIX, value_name = "TEXT")]
    pub prefix: String,

    /// At most N errors per instruction; the rest are counted as (+N more)
    #[arg(long, default_value_t = 5, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..))]
    pub max_errors: u16,

    /// Cut each "path: message" to at most N characters
    #[arg(long, default_value_t = 100, value_name = "N",
          value_parser = clap::value_parser!(u16).range(10..))]
    pub max_chars: u16,

    /// Repairs to make: all, none, or a comma-separated list of kinds
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "all",
        value_name = "KINDS",
        hide_possible_values = false
    )]
    pub repair: Vec<RepairArg>,

    /// At most N rounds of validate → repair
    #[arg(long, default_value_t = 6, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=100))]
    pub max_rounds: u16,

    /// After N identical rejections of a call in one conversation, tell the model to
    /// stop retrying (0: never)
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub loop_limit: u32,
}

/// The filter: tool calls in, one result per call out.
#[derive(Debug, Args)]
pub(crate) struct FilterArgs {
    /// Files of tool calls ('-' = stdin) [default: stdin]
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub schemas: SchemaArgs,

    /// The input is the bare arguments of one call to NAME (the shape a shell hook gets)
    #[arg(short, long, value_name = "NAME")]
    pub tool: Option<String>,

    /// Output format [default: human on a terminal, else args]
    #[arg(short, long, value_enum)]
    pub format: Option<FormatArg>,

    /// When to colour human output
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,

    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Count repeated rejections per conversation: the JSON pointer to a record's
    /// conversation id (e.g. /metadata/conversation_id). Without it, each input
    /// (stdin, each FILE) is one conversation
    #[arg(long, value_name = "POINTER", value_parser = parse_pointer)]
    pub session: Option<String>,

    /// Write calls for this provider (with --format call; ids and names in --format json)
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub to: Option<ProviderArg>,

    /// Count repaired calls as failures too (exit 1): for CI over recorded calls
    #[arg(long)]
    pub strict: bool,

    /// Print a summary to stderr at the end: calls, valid, repaired, rejected, per tool
    #[arg(long)]
    pub stats: bool,

    /// Reject records larger than this many bytes without parsing them, and a
    /// provider stream (or one streamed call) that grows past it as it is reassembled
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_name = "BYTES")]
    pub max_record_bytes: usize,

    /// Reject records holding more than this many JSON values without parsing them
    /// (a value takes far more memory than its bytes)
    #[arg(long, default_value_t = 1_000_000, value_name = "N")]
    pub max_record_values: u64,

    /// Parse and judge records on N threads (0: one per core; at most 256). Results
    /// come out in input order, the same for any N
    #[arg(short, long, default_value_t = 1, value_name = "N", value_parser = parse_jobs)]
    pub jobs: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
    /// One line per call: the arguments as compact JSON, or the instruction text
    Args,
    /// One JSON object per call: index, call, id, tool, status, args, repairs, errors, message
    Json,
    /// The call in its provider's envelope, or that provider's error tool result
    Call,
    /// Tool, coloured status, pretty arguments, one error per line
    Human,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Args => Format::Args,
            FormatArg::Json => Format::Json,
            FormatArg::Call => Format::Call,
            FormatArg::Human => Format::Human,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorArg {
    /// Colour on a terminal, unless NO_COLOR is set and not empty; CLICOLOR_FORCE
    /// (not empty, not 0) colours a pipe too
    Auto,
    Always,
    Never,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn help_lists_every_repair_kind() {
        let help = Cli::command().render_long_help().to_string();
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for &kind in crate::repair::Kind::ALL {
            assert!(flat.contains(kind.name()), "--help lacks {}", kind.name());
        }
    }
}
