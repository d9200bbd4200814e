//! `ts.report(records, { label })`: recorded traffic summarised as `callfix
//! report --format json` summarises a file (the library's
//! `callfix::Toolset::report`, the filter with a `Report` as its sink), as
//! that object's JSON text. `node/index.js` turns whatever it was given (a
//! log as a string or bytes, records in an array or iterable) into the bytes
//! of one log. The filter runs on a thread of its own with a stack of a known
//! size (its depth is bounded, so a fixed stack does for any input: a deep
//! record is a broken record, never a crash).

use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::boundary::{catch, error};
use crate::toolset::NativeToolset;

/// The stack of the thread a report runs on.
const STACK: usize = 16 * 1024 * 1024;

/// The label of calls whose record names no model, when none is given.
const DEFAULT_LABEL: &str = "<records>";

#[napi]
impl NativeToolset {
    /// A summary of every call in `records` (the bytes of a log in any form
    /// the CLI reads): the JSON text of `callfix report --format json
    /// --label LABEL`'s object (version 1).
    #[napi]
    pub fn report(&self, records: Buffer, label: Option<String>) -> napi::Result<String> {
        let label = label.as_deref().unwrap_or(DEFAULT_LABEL);
        let bytes: &[u8] = &records;
        let toolset = &*self.inner;
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("callfix-report".into())
                .stack_size(STACK)
                .spawn_scoped(scope, || {
                    catch(|| {
                        let report = toolset
                            .report(bytes, label)
                            .map_err(|e| error(e.to_string()))?;
                        Ok(report.to_json().to_string())
                    })
                })
                .map_err(|e| error(format!("cannot start a thread to report: {e}")))?
                .join()
                .unwrap_or_else(|_| {
                    Err(error("internal error, please report it (callfix panicked)"))
                })
        })
    }
}
