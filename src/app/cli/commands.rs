//! Each subcommand's own arguments: `render`, `tools`, `check`, `mcp`,
//! `mcp-schemas`, `hook` (the filter's and the shared groups are in
//! [`super`]).
#![allow(rustdoc::invalid_html_tags)] // doc comments here are `--help` text, `<tool>` and all

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{ColorArg, JudgeArgs, ProviderArg, SchemaArgs, ShapeArg, VarArgs};
use crate::render::Syntax;

#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    /// Template files, or directories of <tool>.txt templates
    #[arg(value_name = "FILE|DIR", required = true)]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub vars: VarArgs,

    /// Write one <tool>.txt per template into DIR
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// text (one template to stdout) or json ({"tool": "text", ...})
    #[arg(short, long, value_enum, default_value_t = RenderFormat::Text)]
    pub format: RenderFormat,

    /// How variables are written: <NAME>, {NAME}, ${name} or {{name}}
    #[arg(long, value_enum, default_value_t = SyntaxArg::Angle)]
    pub syntax: SyntaxArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RenderFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SyntaxArg {
    /// <NAME>
    Angle,
    /// {NAME}
    Brace,
    /// ${name}
    Dollar,
    /// {{name}}
    Mustache,
}

impl From<SyntaxArg> for Syntax {
    fn from(s: SyntaxArg) -> Self {
        match s {
            SyntaxArg::Angle => Syntax::Angle,
            SyntaxArg::Brace => Syntax::Brace,
            SyntaxArg::Dollar => Syntax::Dollar,
            SyntaxArg::Mustache => Syntax::Mustache,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    #[command(flatten)]
    pub schemas: SchemaArgs,

    /// Directory of <tool>.txt description templates [default: descriptions/
    /// beside the first --schemas source]
    #[arg(long, value_name = "DIR")]
    pub descriptions: Option<PathBuf>,

    /// The API whose tool definitions to print
    #[arg(long, value_enum, value_name = "PROVIDER", default_value = "openai")]
    pub provider: ProviderArg,

    /// OpenAI strict mode (openai, openai-responses): `strict: true`, every object
    /// closed, every property required (an optional one nullable), unsupported
    /// keywords stripped with a warning; a schema that cannot be strict is an error
    #[arg(long)]
    pub openai_strict: bool,

    #[command(flatten)]
    pub vars: VarArgs,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub schemas: SchemaArgs,

    /// Directory of <tool>.txt description templates [default: descriptions/
    /// beside the first --schemas source]
    #[arg(long, value_name = "DIR")]
    pub descriptions: Option<PathBuf>,

    #[command(flatten)]
    pub vars: VarArgs,

    /// Recorded calls (any envelope) that must all be valid without repair; `-`
    /// reads stdin; repeatable. An input with no call is an error
    #[arg(long = "calls", value_name = "FILE")]
    pub calls: Vec<PathBuf>,

    /// Also check what this provider's API would refuse (schema keywords, names)
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub provider: Option<ProviderArg>,

    /// With --provider openai or openai-responses: the schemas must suit strict mode
    #[arg(long)]
    pub openai_strict: bool,

    /// How findings are written
    #[arg(short, long, value_enum, default_value_t = CheckFormat::Human, value_name = "FORMAT")]
    pub format: CheckFormat,

    /// Treat warnings as errors
    #[arg(long)]
    pub deny_warnings: bool,

    /// When to colour findings
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    /// path:line:col: severity[rule]: message
    #[value(alias = "text")]
    Human,
    /// One JSON object per finding: file, line, col, severity, rule, message
    Json,
    /// GitHub Actions workflow commands (annotations on the files)
    Github,
    /// One SARIF 2.1.0 log (code scanning)
    Sarif,
    /// github under GitHub Actions (GITHUB_ACTIONS=true), else human
    Auto,
}

/// `callfix mcp [OPTIONS] [--] COMMAND [ARGS]...` or
/// `callfix mcp [OPTIONS] --url URL [--header "Name: value"]...`
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes:\n  the server's own exit code (128+N if signal N ended it); 0 when the\n  client closed the session and the server stopped; 2 if the server could\n  not be started. With --url: 0 when the client closed the session; 1 when\n  the server ended it (HTTP 404 to the session's id); 2 on a bad URL or header"
)]
pub(crate) struct McpArgs {
    /// More tool schemas (a directory of <tool>.json or a tool-list file); they
    /// override what the server lists. Repeatable
    #[arg(short, long = "schemas", value_name = "PATH")]
    pub schemas: Vec<PathBuf>,

    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Append one JSON line per judged tools/call to FILE (the --format json object)
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Print a summary to stderr when the session ends
    #[arg(long)]
    pub stats: bool,

    /// Seconds to wait for the server to exit after the client closes, before
    /// SIGTERM (and as long again before SIGKILL)
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    pub grace: f64,

    /// The MCP server's Streamable HTTP endpoint (http:// or https://), instead
    /// of a COMMAND: callfix POSTs each message there and reads JSON or SSE back
    #[arg(long, value_name = "URL", value_parser = parse_url, conflicts_with = "command")]
    pub url: Option<String>,

    /// A header sent with every request to --url ("Authorization: Bearer ...").
    /// Repeatable
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = parse_header, requires = "url")]
    pub header: Vec<(String, String)>,

    #[command(flatten)]
    pub server: McpServer,
}

/// `mcp`'s server command: required unless `--url` names one.
#[derive(Debug, Args)]
pub(crate) struct McpServer {
    /// The MCP server to run, and its arguments: everything from the first word
    /// that is not a callfix option is the server's own argv (`--` before it is
    /// optional; the MCP Inspector's CLI drops it)
    #[arg(
        required_unless_present = "url",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<std::ffi::OsString>,
}

/// The headers callfix sets itself on requests to `--url`.
const OWN_HEADERS: [&str; 8] = [
    "accept",
    "content-type",
    "content-length",
    "transfer-encoding",
    "host",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// `--url`: http:// or https://, and a host.
fn parse_url(text: &str) -> Result<String, String> {
    let lower = text.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
        .ok_or("the URL must start with http:// or https://")?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err("the URL has no host".into());
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("the URL has a space or a control character in it".into());
    }
    Ok(text.to_owned())
}

/// `--header "Name: value"`: a token, a colon, a value of visible characters,
/// spaces and tabs (surrounding whitespace dropped).
fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or("a header is written \"Name: value\"")?;
    let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(tchar) {
        return Err(format!("\"{name}\" is not a header name"));
    }
    if OWN_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
        return Err(format!("callfix sets the header {name} itself"));
    }
    let value = value.trim_matches([' ', '\t']);
    if value
        .chars()
        .any(|c| c != '\t' && (c.is_control() || !c.is_ascii()))
    {
        return Err(format!("the value of {name} must be visible ASCII"));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// The MCP server a subcommand runs (stdio): `[--] COMMAND [ARGS]...`, last.
#[derive(Debug, Args)]
pub(crate) struct ServerCommand {
    /// The MCP server to run, and its arguments: everything from the first word
    /// that is not a callfix option is the server's own argv (`--` before it is
    /// optional; the MCP Inspector's CLI drops it)
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<std::ffi::OsString>,
}

/// `callfix mcp-schemas --server NAME --out DIR [--] COMMAND [ARGS]...`
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes:\n  0  every tool's schema written\n  1  a tool skipped (its schema is not an object, or its file name is\n     another's), the others written\n  2  usage error; the server could not be started, exited, hung, refused or\n     wrote something that is not MCP (nothing written); a file not written"
)]
pub(crate) struct McpSchemasArgs {
    /// The server's name in Claude Code (its key under mcpServers, or the name
    /// given to `claude mcp add`): the SERVER of mcp__SERVER__TOOL
    #[arg(long, value_name = "NAME", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub server: String,

    /// The directory to write the schemas into (made if missing; files of
    /// other names in it are left alone)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Seconds the server has to list its tools, from its start
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: f64,

    #[command(flatten)]
    pub run: ServerCommand,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(n) if n > 0.0 && n <= 86_400.0 => Ok(n),
        Ok(_) => Err("a number of seconds above 0, at most 86400".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// `callfix hook claude-code`
#[derive(Debug, Args)]
pub(crate) struct HookArgs {
    /// The agent whose hook protocol to speak
    #[arg(value_enum)]
    pub agent: HookAgent,

    #[command(flatten)]
    pub schemas: SchemaArgs,

    #[command(flatten)]
    pub judge: JudgeArgs,

    /// What a repaired call asks for: `ask` shows the user the repaired input
    /// (safe: the agent's permission rules still apply), `allow` runs it at once
    #[arg(long, value_enum, default_value_t = RepairedDecision::Ask, value_name = "DECISION")]
    pub repaired: RepairedDecision,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum HookAgent {
    /// Claude Code's PreToolUse hook (JSON on stdin, hookSpecificOutput on stdout)
    ClaudeCode,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RepairedDecision {
    Ask,
    Allow,
}

/// `callfix heal [FILE]… [--schemas PATH] [--to PROVIDER]`
#[derive(Debug, Args)]
pub(crate) struct HealArgs {
    /// Files of conversations, one request body per record ('-' = stdin) [default: stdin]
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Check the calls against these schemas (a directory of <tool>.json, or a
    /// tool-list file; repeatable) instead of each request's own tools
    // Its own id: a callfix.toml's `schemas` is not taken here (as for `mcp`),
    // only the command line's overrides a request's own tools.
    #[arg(
        id = "heal_schemas",
        short = 's',
        long = "schemas",
        value_name = "PATH"
    )]
    pub schemas: Vec<PathBuf>,

    /// Write each healed conversation as this provider's request body
    /// [default: as it came]
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub to: Option<ShapeArg>,

    #[command(flatten)]
    pub judge: JudgeArgs,
}

/// `callfix report [FILE]… [--schemas PATH] [--label NAME]… [--format json]`
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// Recorded traffic in any form the filter reads ('-' = stdin) [default: stdin]
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Check every call against these schemas (a directory of <tool>.json,
    /// or a tool-list file; repeatable) instead of each record's own `tools`
    /// [default: each record's own `tools`; a record with none has its calls
    /// counted as not judged]
    // No default (not ./schemas): without it, a request body's own tools.
    // The id is the filter's, so callfix.toml's `schemas` is taken here too.
    #[arg(
        id = "schemas",
        short = 's',
        long = "schemas",
        value_name = "PATH",
        env = "CALLFIX_SCHEMAS"
    )]
    pub schemas: Vec<PathBuf>,

    /// Serve `$ref` and `$schema` documents under URI_PREFIX from the local
    /// directory DIR (with --schemas). Repeatable. Nothing is ever fetched
    #[arg(long = "ref-map", value_name = "URI_PREFIX=DIR", value_parser = crate::resolve::RefMap::parse_pair)]
    pub ref_map: Vec<(String, PathBuf)>,

    /// The model of each FILE's calls whose record names none, in the order
    /// of the files (repeatable) [default: the file's name]
    #[arg(long, value_name = "NAME")]
    pub label: Vec<String>,

    /// How to write the report
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, value_name = "FORMAT")]
    pub format: ReportFormat,

    /// Also write the report as one self-contained HTML page to FILE (inline
    /// CSS and SVG: no script, no external reference); the table or JSON
    /// still goes to stdout
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// When to colour the table
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,

    #[command(flatten)]
    pub judge: JudgeArgs,
}

/// `report --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportFormat {
    /// A table for a person
    Human,
    /// One JSON object, `"version": 1` (docs/report.md)
    Json,
}
