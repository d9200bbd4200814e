//! callfix: a filter between an LLM and its tools.
//!
//! A tool call arrives in any provider's shape; callfix checks it against its
//! tool's JSON Schema and answers with one of three outcomes: **valid** (the
//! arguments unchanged), **repaired** (changed only where the schema rejected
//! them, each change reported) or **rejected** (with one line the model can act
//! on).
//!
//! # The front door
//!
//! | You have | Use |
//! |---|---|
//! | schemas (a directory, a mapping, a provider's tool list) | [`Toolset`] ([`Toolset::from_path`], [`Toolset::from_schemas`], [`Toolset::from_tools`]) |
//! | one call to check | [`Toolset::check`], [`Toolset::check_text`] → [`Outcome`] |
//! | a record in any provider's envelope | [`Toolset::check_record`] → [`Checked`] |
//! | a conversation (repeated failures escalate) | [`Toolset::session`] → [`Session`] |
//! | a stream of records (JSON Lines, SSE, transcripts) | [`Filter`] over an [`Input`], into a [`Sink`] such as [`Printer`] |
//! | a conversation (OpenAI chat or Anthropic messages body) to make acceptable again | [`heal::Healer`] → [`heal::Healed`] |
//! | how calls are judged and worded | [`Options`], [`Style`], [`Policy`] |
//! | an MCP server to guard | [`mcp::Proxy`] |
//! | tool definitions for a provider's API | [`tools::payload`] |
//! | a description template | [`render::render`] |
//! | a tool set to lint in CI | [`check::check`] |
//! | a call to write in another provider's shape, or answer with its error result | [`provider::convert_call`], [`provider::Provider::error_result`] |
//! | the calls in a record, without checking them | [`provider::extract`] |
//! | something that stops a run (an unreadable source, a broken schema) | the typed errors of [`error`]; [`error::Chain`] says them on one line |
//!
//! ```
//! use callfix::{Outcome, Toolset};
//! use serde_json::json;
//!
//! let tools = Toolset::from_schemas([(
//!     "read".to_owned(),
//!     json!({"type": "object", "properties": {"path": {"type": "string"},
//!            "limit": {"type": "integer"}}, "required": ["path"]}),
//! )]);
//! match tools.check("read", json!({"limit": "2"})) {
//!     Outcome::Rejected { message, .. } => assert_eq!(
//!         message,
//!         "Please rewrite the input with valid arguments. \
//!          Errors: path: Required; limit: expected integer, got string"
//!     ),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! # How a call goes through
//!
//! One stage per module, one way down: `input` (records from a byte stream) →
//! [`provider`] (provider shapes) → [`registry`] (the tool's compiled schema) →
//! `salvage` (argument text) → [`verdict`] (validate; `repair` comes here) →
//! `message` (the instruction text) → [`output`] (the chosen format). [`filter`]
//! drives them over a stream; [`toolset`] checks one call at a time; [`error`]
//! holds what stops a run. Beside them: [`check`], [`render`], [`tools`],
//! [`mcp`], [`heal`]. Only the modules linked here are public (and each shows only what a
//! program needs); the stages in plain type are the library's own. The whole
//! public surface is listed in `docs/public-api.txt`, checked in CI.
//!
//! The library takes typed options and in-memory inputs and returns data; it
//! never reads command-line types, never decides exit codes, and writes only to
//! the writers it is given. The `callfix` binary (`src/main.rs`) runs the hidden
//! `app` module (feature `cli`, on by default), which owns the command line,
//! printing, colour and exit codes; build the library alone with
//! `default-features = false`.

#![deny(missing_docs)]
// A panic must not be reachable from input: library code reads through checked
// access (`get`, `strip_prefix`, iterators); tests may index and unwrap.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::string_slice,
        clippy::unwrap_used,
        clippy::expect_used
    )
)]

/// The `callfix` command line, run by `src/main.rs` and by the Python
/// package's `callfix` command: not part of the library's API. It lives in the
/// library (rather than beside `main.rs`) so that both run the same code and the
/// internals it uses stay private to the crate.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod app;
pub mod check;
pub mod error;
pub mod filter;
pub(crate) mod fnv;
pub mod heal;
pub(crate) mod input;
pub(crate) mod json;
pub(crate) mod kinds;
pub mod mcp;
pub(crate) mod message;
pub mod output;
pub mod provider;
pub mod registry;
pub mod render;
pub(crate) mod repair;
pub mod report;
pub(crate) mod resolve;
pub(crate) mod salvage;
pub(crate) mod source;
pub(crate) mod span;
pub(crate) mod spelling;
pub(crate) mod suggest;
pub(crate) mod surrogates;
pub(crate) mod tape;
pub(crate) mod tolerant;
pub mod tools;
pub mod toolset;
pub mod verdict;

pub use crate::filter::{Filter, Input, Options, StreamError, Summary};
pub use crate::kinds::{Enabled, Kind, Policy, Repair, UnknownKind};
pub use crate::message::{ArgError, DEFAULT_PREFIX, Style};
pub use crate::output::{Format, Position, Printer, Sink};
pub use crate::spelling::Spellings;
pub use crate::toolset::{Checked, Outcome, Session, Toolset};
pub use crate::verdict::{Status, Verdict};
