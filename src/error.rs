//! The library's errors: what stops a run (exit code 2), as opposed to a rejected
//! call, which is a result.
//!
//! Every error here is an enum or struct whose `Display` says what failed and
//! whose [`source`](std::error::Error::source) says why, down to the I/O or parse
//! error underneath. [`Chain`] writes the whole story on one line (`cannot read
//! calls.jsonl: permission denied`), as the binary's `anyhow` does with `{:#}`.
//!
//! ```
//! use callfix::Toolset;
//! use callfix::error::{Chain, SourceProblem};
//!
//! let error = Toolset::from_path("no/such/dir").unwrap_err();
//! assert!(matches!(error.problem, SourceProblem::Io(_)));
//! assert_eq!(
//!     Chain(&error).to_string(),
//!     "schema source no/such/dir: no such file or directory"
//! );
//! ```

use std::fmt;
use std::io;
use std::path::PathBuf;

pub(crate) use crate::source::io_reason;

/// What stops a run (exit code 2), as opposed to a rejected call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A `--schemas` source cannot be used.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// An input cannot be opened or read.
    #[error("cannot read {input}")]
    Read {
        /// The input, as named to the user.
        input: String,
        /// Why.
        #[source]
        source: IoCause,
    },
    /// Results cannot be written (a closed pipe is one case).
    #[error("cannot write results")]
    Write(#[source] IoCause),
}

impl Error {
    /// A closed stdout (`callfix … | head -1`): the reader is gone, so the run ends
    /// quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write(e) if e.0.kind() == io::ErrorKind::BrokenPipe)
    }

    /// An input that cannot be read.
    pub(crate) fn read(input: impl Into<String>, error: io::Error) -> Self {
        Error::Read {
            input: input.into(),
            source: IoCause(error),
        }
    }

    /// Results that cannot be written.
    #[cfg(feature = "cli")]
    pub(crate) fn write(error: io::Error) -> Self {
        Error::Write(IoCause(error))
    }
}

/// An I/O error, shown as a short lower-case reason (`no such file or
/// directory`, without `(os error 2)`); the `io::Error` itself is `.0`.
#[derive(Debug, thiserror::Error)]
#[error("{}", io_reason(.0))]
pub struct IoCause(pub io::Error);

impl From<io::Error> for IoCause {
    fn from(e: io::Error) -> Self {
        IoCause(e)
    }
}

/// A schema source that cannot be used at all (missing directory, unreadable or
/// unrecognised tool-list file).
#[derive(Debug, thiserror::Error)]
#[error("schema source {}", path.display())]
pub struct SourceError {
    /// The source.
    pub path: PathBuf,
    /// What is wrong with it.
    #[source]
    pub problem: SourceProblem,
}

/// What is wrong with a schema source.
#[derive(Debug, thiserror::Error)]
pub enum SourceProblem {
    /// It cannot be read.
    #[error(transparent)]
    Io(#[from] IoCause),
    /// A tool-list file that is not JSON.
    #[error("not valid JSON")]
    Json(#[source] serde_json::Error),
    /// A file that is JSON but neither a tool list nor a schema.
    #[error(
        "not a directory, a tool list (OpenAI tools, Anthropic tools, Gemini \
         functionDeclarations, MCP tools/list) or a JSON Schema"
    )]
    Unrecognised,
}

/// A JSON file that cannot be read or parsed.
#[derive(Debug, thiserror::Error)]
pub enum JsonFileError {
    /// It cannot be read.
    #[error(transparent)]
    Io(#[from] IoCause),
    /// It is not JSON.
    #[error("not valid JSON")]
    Json(#[source] serde_json::Error),
}

impl From<JsonFileError> for SourceProblem {
    fn from(e: JsonFileError) -> Self {
        match e {
            JsonFileError::Io(e) => SourceProblem::Io(e),
            JsonFileError::Json(e) => SourceProblem::Json(e),
        }
    }
}

/// One tool's schema that does not compile. The other tools still work; calls to
/// this one are rejected with this reason ([`Outcome::Broken`](crate::Outcome::Broken)).
///
/// ```
/// use callfix::{Outcome, Toolset};
/// use serde_json::json;
///
/// let tools = Toolset::from_schemas([
///     ("ok".to_owned(), json!({"type": "object"})),
///     ("bad".to_owned(), json!({"properties": {"a": {"type": "bogus"}}})),
/// ]);
/// assert!(tools.check("ok", json!({})).is_ok());
/// let Outcome::Broken { message } = tools.check("bad", json!({})) else { panic!() };
/// assert!(message.starts_with("Tool \"bad\" cannot be checked: its schema is broken"));
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{}{}", file.display(), ToolName(tool.as_deref()))]
pub struct SchemaError {
    /// The file the schema lives in.
    pub file: PathBuf,
    /// Where in the file the problem is, when known.
    pub at: Option<crate::span::Loc>,
    /// For a tool inside a tool-list file, the tool's name.
    pub tool: Option<String>,
    /// What is wrong.
    #[source]
    pub problem: SchemaProblem,
}

struct ToolName<'a>(Option<&'a str>);

impl fmt::Display for ToolName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(tool) => write!(f, " (tool \"{tool}\")"),
            None => Ok(()),
        }
    }
}

/// Why a schema does not compile.
#[derive(Debug, thiserror::Error)]
pub enum SchemaProblem {
    /// The directory it sits in cannot be resolved.
    #[error("cannot resolve its directory")]
    Directory(#[source] IoCause),
    /// The file cannot be read.
    #[error(transparent)]
    Io(#[from] IoCause),
    /// The file resolves (through a symlink) outside its directory.
    #[error("resolves to {}, outside the schema directory", .0.display())]
    Outside(PathBuf),
    /// The file is not JSON.
    #[error("not valid JSON")]
    Json(#[source] serde_json::Error),
    /// A `$ref` cannot be resolved, or the base URI is not valid. (Its text
    /// already carries its cause, so it is not chained again.)
    #[error("{}", RefText(.0))]
    Reference(Box<referencing::Error>),
    /// The `$ref`s multiply past the limit of subschemas, or nest too deep.
    #[error(
        "its $refs expand to more than {limit} subschemas (references that multiply at each \
         level, or nest deeper than {depth} levels)"
    )]
    Expansion {
        /// The most subschemas a schema may stand for.
        limit: u64,
        /// The deepest chain of references followed.
        depth: usize,
    },
    /// The validator refuses the schema (an unknown format, a bad regex, a keyword
    /// with the wrong type).
    #[error("{message}{}", At(at))]
    Invalid {
        /// The validator's reason.
        message: String,
        /// Where in the schema, as a JSON pointer.
        at: String,
    },
}

struct At<'a>(&'a str);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, " (at {})", self.0)
        }
    }
}

/// A `$ref` the sandbox will not or cannot resolve. The validator's own error
/// wraps it and writes its text, so this one says everything itself.
#[derive(Debug, thiserror::Error)]
pub enum RefError {
    /// A `--ref-map` directory that cannot be resolved.
    #[error("--ref-map directory {}: {reason}", dir.display())]
    MapDirectory {
        /// The directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// A URI no local directory serves.
    #[error(
        "remote $ref \"{0}\" refused: callfix never fetches schemas over the network \
         (serve it from a local directory with --ref-map PREFIX=DIR)"
    )]
    Remote(String),
    /// A file that cannot be read or parsed.
    #[error("$ref \"{uri}\": {reason}")]
    Unreadable {
        /// The reference.
        uri: String,
        /// Why.
        reason: String,
    },
    /// A reference that resolves outside its directory.
    #[error("$ref \"{uri}\" points outside the schema directory {}", root.display())]
    Outside {
        /// The reference.
        uri: String,
        /// The directory.
        root: PathBuf,
    },
}

impl RefError {
    /// Why, without the reference (for a message that names it already).
    pub fn reason(&self) -> String {
        match self {
            RefError::MapDirectory { .. } => self.to_string(),
            RefError::Remote(_) => "callfix never fetches schemas over the network (serve it \
                 from a local directory with --ref-map PREFIX=DIR)"
                .into(),
            RefError::Unreadable { reason, .. } => reason.clone(),
            RefError::Outside { root, .. } => {
                format!("it points outside the schema directory {}", root.display())
            }
        }
    }
}

/// A reference error in callfix's words: a document that cannot be had says
/// why (the sandbox's [`RefError`]), not that it "is not present in a registry".
struct RefText<'a>(&'a referencing::Error);

impl fmt::Display for RefText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            referencing::Error::Unretrievable { uri, source } => {
                match source.downcast_ref::<RefError>() {
                    Some(e) => write!(f, "{e}"),
                    None => write!(f, "$ref \"{uri}\" cannot be read: {source}"),
                }
            }
            referencing::Error::PointerToNowhere { pointer } => {
                write!(f, "a $ref points at \"{pointer}\", which does not exist")
            }
            referencing::Error::NoSuchAnchor { anchor } => {
                write!(f, "a $ref names anchor \"{anchor}\", which does not exist")
            }
            e => write!(f, "{e}"),
        }
    }
}

impl From<referencing::Error> for SchemaProblem {
    fn from(e: referencing::Error) -> Self {
        SchemaProblem::Reference(Box::new(e))
    }
}

/// A record that holds no tool call the filter can recognise; what was seen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unrecognised(pub String);

/// An error and its causes on one line, joined with `: ` (what `anyhow` writes
/// for `{:#}`).
pub struct Chain<'a>(pub &'a (dyn std::error::Error + 'a));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut next = self.0.source();
        while let Some(e) = next {
            write!(f, ": {e}")?;
            next = e.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_joins_every_cause() {
        let e = Error::from(SourceError {
            path: "tools.json".into(),
            problem: SourceProblem::Io(IoCause(io::Error::from(io::ErrorKind::NotFound))),
        });
        assert_eq!(
            Chain(&e).to_string(),
            "schema source tools.json: no such file or directory"
        );
        let e = SchemaError {
            file: "list.json".into(),
            at: None,
            tool: Some("Read".into()),
            problem: SchemaProblem::Outside("/etc/passwd".into()),
        };
        assert_eq!(
            Chain(&e).to_string(),
            "list.json (tool \"Read\"): resolves to /etc/passwd, outside the schema directory"
        );
    }

    #[test]
    fn broken_pipe_is_quiet() {
        assert!(Error::write(io::Error::from(io::ErrorKind::BrokenPipe)).is_broken_pipe());
        assert!(!Error::write(io::Error::from(io::ErrorKind::NotFound)).is_broken_pipe());
    }
}
