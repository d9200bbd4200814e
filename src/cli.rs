//! The command line, defined once: `--help` and the README are written from it.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::message::DEFAULT_PREFIX;
use crate::output::Format;
use crate::repair::Enabled;

pub const EXIT_CODES: &str = "\
Exit codes:
  0  every call valid (or repaired)
  1  at least one call rejected (with --strict: or repaired)
  2  usage error, unreadable input, or an unusable schema source or schema";

/// Validate LLM tool calls against JSON Schema: pass valid arguments on, answer the
/// rest with one line the model can act on.
///
/// Reads tool calls (JSON Lines, concatenated JSON or one JSON array; any provider's
/// envelope) from FILEs or stdin, looks each tool up in --schemas, and writes one
/// result per call, in input order.
#[derive(Debug, Parser)]
#[command(name = "callfix", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// Files of tool calls ('-' = stdin) [default: stdin]
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

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

    /// The input is the bare arguments of one call to NAME (the shape a shell hook gets)
    #[arg(short, long, value_name = "NAME")]
    pub tool: Option<String>,

    /// Output format [default: human on a terminal, else args]
    #[arg(short, long, value_enum)]
    pub format: Option<FormatArg>,

    /// When to colour human output
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,

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
    /// (strip-fence, strip-leaked-tag, tolerant-parse, double-encoded, empty-arguments,
    /// duplicate-object, parse-json-string, coerce-number, coerce-boolean, coerce-string,
    /// wrap-array, drop-placeholder, rename-key, drop-unknown, enum-case, unwrap-autolink,
    /// rename-tool)
    #[arg(long, default_value = "all", value_name = "KINDS",
          value_parser = |s: &str| Enabled::parse(s))]
    pub repair: Enabled,

    /// At most N rounds of validate → repair
    #[arg(long, default_value_t = 6, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=100))]
    pub max_rounds: u16,

    /// After N identical rejections of a call, tell the model to stop retrying (0: never)
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub loop_limit: u32,

    /// Count repaired calls as failures too (exit 1): for CI over recorded calls
    #[arg(long)]
    pub strict: bool,

    /// Print a summary to stderr at the end: calls, valid, repaired, rejected, per tool
    #[arg(long)]
    pub stats: bool,

    /// Reject records larger than this many bytes without parsing them
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_name = "BYTES")]
    pub max_record_bytes: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
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
pub enum ColorArg {
    /// Colour when writing to a terminal and NO_COLOR is not set
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
}
