//! The native part of the `callfix` npm package (`callfix.<platform>.node`),
//! loaded by `node/index.js`. It only translates between JavaScript and the
//! library's front door (`callfix::Toolset`, `filter::Filter`,
//! `output::Printer`, `tools::payload`, `render`, `heal::Healer`): values
//! cross as JSON text both ways (the JavaScript side calls `JSON.stringify`
//! and `JSON.parse`), and every result is the object `callfix --format json`
//! writes for the same call, plus `argsJson`, so Node and the CLI cannot
//! disagree.
//!
//! One module per concern: `boundary` (panics caught, deep input checked on a
//! thread of its own), `options` (the constructors' options), `result` (a
//! result as JSON text), `toolset` (the classes that check), `report` (`ts.report`), `functions`
//! (`render`, `tools`, `heal`).

mod boundary;
pub mod functions;
mod options;
mod report;
mod result;
pub mod toolset;

/// Rust's allocations in the addon (not Node's) go through mimalloc, as the
/// binary's do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
