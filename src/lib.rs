//! callfix: a filter between an LLM and its tools.
//!
//! A call goes through the stages in this order, one module each:
//! [`input`] (records from a byte stream) → [`provider`] (provider shapes) →
//! [`registry`] (the tool's compiled schema) → [`salvage`] (argument text) →
//! [`verdict`] (validate; repair comes here) → [`message`] (the instruction text)
//! → [`output`] (the chosen format). [`filter`] drives them over a stream, and
//! [`toolset`] is the front door for programs that check one call at a time.
//!
//! The library takes typed options and in-memory inputs and returns data; it
//! never reads command-line types, never decides exit codes, and writes only to
//! the writers it is given. The `callfix` binary (`src/main.rs`, `src/app/`) owns
//! the command line, printing, colour and exit codes.

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
/// package's `callfix` command: not part of the library's API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod app;
pub mod check;
pub mod error;
pub mod filter;
pub mod fnv;
pub mod input;
pub mod json;
pub mod kinds;
pub mod mcp;
pub mod message;
pub mod output;
pub mod provider;
pub mod registry;
pub mod render;
pub mod repair;
pub mod resolve;
pub mod salvage;
pub mod source;
pub mod span;
pub mod spelling;
pub mod suggest;
pub mod surrogates;
pub mod tolerant;
pub mod tools;
pub mod toolset;
pub mod verdict;
