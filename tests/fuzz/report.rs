//! `report`'s grammar: the mixed grammar of every surface, counted by
//! `callfix::report::Report` as the filter's sink.
//!
//! Invariants: no panic; every result the filter writes is counted once (a
//! call, or a broken record); valid + repaired + rejected = calls, and the
//! per-model, per-tool and per-class tables add up to the totals; every valid
//! part of the stream is counted valid or repaired.

use callfix::report::Report;
use callfix::{Format, Input, Printer, Summary};
use proptest::test_runner::TestCaseError;

use super::{fail, grammar, tools};

pub(crate) fn check(parts: &[grammar::Part]) -> Result<(), TestCaseError> {
    let case = grammar::build(parts);
    let input = &case.input;
    let filter = tools().filter();
    let mut printer = Printer::new(Vec::new(), Format::Json);
    filter
        .stream(
            Input::from_bytes(input, "fuzz"),
            &mut printer,
            &mut Summary::default(),
        )
        .map_err(|e| fail(format!("filter: {e}"), input))?;
    let results = printer
        .into_inner()
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    let mut report = Report::new("fuzz");
    filter
        .stream(
            Input::from_bytes(input, "fuzz"),
            &mut report,
            &mut Summary::default(),
        )
        .map_err(|e| fail(format!("report: {e}"), input))?;
    let t = report.total();
    let sum = |m: &std::collections::BTreeMap<String, callfix::filter::Counts>| {
        m.values().map(|c| c.calls).sum::<u64>()
    };
    let classes: u64 = report.rejections().values().sum();
    let checks = [
        (
            "calls + broken records = results",
            t.calls + report.broken_records(),
            results as u64,
        ),
        (
            "valid + repaired + rejected = calls",
            t.valid + t.repaired + t.rejected,
            t.calls,
        ),
        ("by model", sum(report.by_model()), t.calls),
        ("by tool", sum(report.by_tool()), t.calls),
        ("rejections by class", classes, t.rejected),
    ];
    for (what, got, want) in checks {
        if got != want {
            return Err(fail(format!("{what}: {got} != {want}"), input));
        }
    }
    if t.valid + t.repaired < case.want.len() as u64 {
        return Err(fail(
            format!(
                "{} valid parts, {} counted usable",
                case.want.len(),
                t.valid + t.repaired
            ),
            input,
        ));
    }
    let _ = report.to_json();
    Ok(())
}
