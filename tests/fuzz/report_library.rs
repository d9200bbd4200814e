//! `Toolset::report`, the library's front door to `callfix report` (and what
//! the Python and Node packages call): the mixed grammar of every surface,
//! read whole and in pieces cut anywhere.
//!
//! Invariants: no panic; the report does not depend on where reads end (a
//! file read in blocks, a Python iterable's batches); it is the object
//! `callfix report --format json` writes for the same bytes.

use std::io::{self, Read};

use proptest::test_runner::TestCaseError;
use serde_json::Value;

use super::{bin, fail, grammar, tools};

/// `input`, handed out in pieces ending at each of `cuts` (taken modulo the
/// input's length), then the rest.
struct Pieces<'a> {
    input: &'a [u8],
    at: usize,
    cuts: Vec<usize>,
}

impl Read for Pieces<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let rest = &self.input[self.at..];
        let end = self
            .cuts
            .iter()
            .map(|c| c % (self.input.len() + 1))
            .filter(|&c| c > self.at)
            .min()
            .map_or(rest.len(), |c| c - self.at);
        let n = end.min(out.len()).min(rest.len());
        out[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

pub(crate) fn check(parts: &[grammar::Part], cuts: Vec<usize>) -> Result<(), TestCaseError> {
    let case = grammar::build(parts);
    let input = &case.input;
    let whole = tools()
        .report(&input[..], "fuzz")
        .map_err(|e| fail(format!("report: {e}"), input))?
        .to_json();
    let pieces = Pieces {
        input,
        at: 0,
        cuts: cuts.clone(),
    };
    let cut = tools()
        .report(pieces, "fuzz")
        .map_err(|e| fail(format!("report in pieces: {e}"), input))?
        .to_json();
    if cut != whole {
        return Err(fail(
            format!("read in pieces (cut at {cuts:?}): {cut}\nwhole: {whole}"),
            input,
        ));
    }
    let schemas = bin::schemas();
    let ran = bin::run(
        &[
            "report",
            "--no-config",
            "--schemas",
            &schemas,
            "--format",
            "json",
            "--label",
            "fuzz",
        ],
        input,
    );
    ran.ended_well(&[0, 2]).map_err(|e| fail(e, input))?;
    let cli: Value = serde_json::from_slice(&ran.stdout)
        .map_err(|e| fail(format!("callfix report wrote no JSON: {e}"), input))?;
    if cli != whole {
        return Err(fail(
            format!("callfix report: {cli}\nToolset::report: {whole}"),
            input,
        ));
    }
    Ok(())
}
