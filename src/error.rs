//! The library's errors: what stops a run (exit code 2), as opposed to a rejected
//! call, which is a result.

use std::fmt;
use std::io;

use crate::registry::SourceError;
pub use crate::source::io_reason;

#[derive(Debug)]
/// What stops a run (exit code 2), as opposed to a rejected call.
pub enum Error {
    /// A `--schemas` source cannot be used.
    Source(SourceError),
    /// An input cannot be opened or read.
    Read {
        /// The input, as named to the user.
        input: String,
        /// Why.
        error: io::Error,
    },
    /// Results cannot be written (a closed pipe is one case).
    Write(io::Error),
    /// A file cannot be written.
    Create {
        /// The file.
        path: String,
        /// Why.
        error: io::Error,
    },
    /// The command line asks for something that cannot be done.
    Usage(String),
}

impl Error {
    /// A closed stdout (`callfix … | head -1`): the reader is gone, so the run ends
    /// quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Source(e) => write!(f, "{e}"),
            Error::Read { input, error } => write!(f, "cannot read {input}: {}", io_reason(error)),
            Error::Write(e) => write!(f, "cannot write results: {}", io_reason(e)),
            Error::Create { path, error } => write!(f, "cannot write {path}: {}", io_reason(error)),
            Error::Usage(message) => write!(f, "{message}"),
        }
    }
}

/// The messages above already include their cause, so none is chained.
impl std::error::Error for Error {}

impl From<SourceError> for Error {
    fn from(e: SourceError) -> Self {
        Error::Source(e)
    }
}
