//! `report`'s grammar: the mixed grammar of every surface, counted by
//! `callfix::report::Report` as the filter's sink.
//!
//! Invariants: no panic; every result the filter writes is counted once (a
//! call, or a broken record); valid + repaired + rejected = calls, and the
//! per-model, per-tool and per-class tables add up to the totals; every valid
//! part of the stream is counted valid or repaired.
//!
//! [`check_own_tools`]: request bodies judged against their own `tools`
//! (`callfix report` without `--schemas`), through the binary.

use callfix::report::Report;
use callfix::{Format, Input, Printer, Summary};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Value, json};

use super::{fail, grammar, heal, tools};

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

/// What a generated record carries as its `tools`.
#[derive(Debug, Clone)]
pub(crate) enum Tools {
    /// `glob`, in the record's provider's shape.
    Glob,
    /// None at all (its calls are not judged).
    Absent,
    /// Something that is no tool list (its calls are not judged).
    Garbage(Value),
    /// An empty list (every call is to an unknown tool).
    Empty,
}

pub(crate) fn own_tools() -> impl Strategy<Value = Vec<(Vec<heal::Turn>, bool, Tools)>> {
    let tools = prop_oneof![
        3 => Just(Tools::Glob),
        2 => Just(Tools::Absent),
        1 => prop::sample::select(vec![json!("x"), json!([1, {}]), json!({"tools": 5}), json!(null)])
            .prop_map(Tools::Garbage),
        1 => Just(Tools::Empty),
    ];
    prop::collection::vec((heal::turns(), any::<bool>(), tools), 0..8)
}

/// Request bodies with their own tools (or none, or garbage), among garbage
/// lines, reported without `--schemas`.
///
/// Invariants: no panic, exit 0 or 2, one JSON object; valid + repaired +
/// rejected = calls and the tables add up; the `--html` page has no script
/// and no reference, and one chart group per model; a call made where no usable tool
/// list is is never counted as a call; every call to `glob` with valid
/// arguments in a readable record declaring it is counted valid.
pub(crate) fn check_own_tools(
    records: &[(Vec<heal::Turn>, bool, Tools)],
    garbage: &[u8],
) -> Result<(), String> {
    let glob: Value = serde_json::from_str(
        &std::fs::read_to_string(super::bin::root().join("schemas/glob.json")).unwrap(),
    )
    .unwrap();
    let mut input = Vec::new();
    let mut valid_declared = 0u64;
    let mut judged_possible = false;
    for (turns, anthropic, tools) in records {
        let mut body = if *anthropic {
            heal::anthropic(turns)
        } else {
            heal::openai(turns)
        };
        let list = match (tools, anthropic) {
            (Tools::Glob, true) => Some(json!([{"name": "glob", "input_schema": glob}])),
            (Tools::Glob, false) => Some(
                json!([{"type": "function", "function": {"name": "glob", "parameters": glob}}]),
            ),
            (Tools::Absent, _) => None,
            (Tools::Garbage(v), _) => Some(v.clone()),
            (Tools::Empty, _) => Some(json!([])),
        };
        if matches!(tools, Tools::Glob | Tools::Empty) {
            judged_possible = true;
        }
        // A record with something unreadable where a call goes is broken
        // whole (as the filter reads it): none of its calls is counted.
        let readable = !turns.iter().any(|t| matches!(t, heal::Turn::NotACall(_)));
        if matches!(tools, Tools::Glob) && readable {
            for turn in turns {
                if let heal::Turn::Calls(calls) = turn {
                    valid_declared += calls
                        .iter()
                        .filter(|(_, n, a)| {
                            n == "glob" && *a == format!("{{\"pattern\": \"{}\"}}", grammar::NONCE)
                        })
                        .count() as u64;
                }
            }
        }
        if let Some(list) = list {
            body["tools"] = list;
        }
        input.extend_from_slice(body.to_string().as_bytes());
        input.push(b'\n');
        input.extend_from_slice(garbage);
        input.push(b'\n');
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let page_at = dir.path().join("r.html");
    let page_arg = page_at.display().to_string();
    let ran = super::bin::run(
        &[
            "--no-config",
            "report",
            "--format",
            "json",
            "--html",
            &page_arg,
        ],
        &input,
    );
    let shown = || String::from_utf8_lossy(&input).into_owned();
    ran.ended_well(&[0, 2])
        .map_err(|e| format!("{e}: {}", shown()))?;
    let lines = ran.lines();
    let [line] = lines.as_slice() else {
        return Err(format!("{} lines: {}", lines.len(), shown()));
    };
    let v: Value = serde_json::from_str(line).map_err(|e| format!("{e}: {line}"))?;
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or(u64::MAX);
    let sum = |field: &str| -> u64 {
        v[field]
            .as_object()
            .map_or(0, |m| m.values().map(|c| n(c, "calls")).sum())
    };
    let checks = [
        (
            "valid + repaired + rejected = calls",
            n(&v, "valid") + n(&v, "repaired") + n(&v, "rejected"),
            n(&v, "calls"),
        ),
        ("by model", sum("by_model"), n(&v, "calls")),
        ("by tool", sum("by_tool"), n(&v, "calls")),
    ];
    for (what, got, want) in checks {
        if got != want {
            return Err(format!("{what}: {got} != {want}: {line}\n{}", shown()));
        }
    }
    // The page: no script, no reference, one chart group per model.
    let page = std::fs::read_to_string(&page_at).map_err(|e| format!("the page: {e}"))?;
    let lower = page.to_lowercase();
    for bad in ["<script", "//", " src=", "href=", "url("] {
        if lower.contains(bad) {
            return Err(format!("{bad:?} in the page: {page}\n{}", shown()));
        }
    }
    let models = v["by_model"].as_object().map_or(0, serde_json::Map::len);
    if page.matches("<g class=\"model\"").count() != models {
        return Err(format!("{models} models, the chart: {page}"));
    }
    if !judged_possible && n(&v, "calls") != 0 {
        return Err(format!(
            "calls judged with no tool list: {line}\n{}",
            shown()
        ));
    }
    if n(&v, "valid") < valid_declared {
        return Err(format!(
            "{valid_declared} valid calls to a declared tool, {} counted valid: {line}\n{}",
            n(&v, "valid"),
            shown()
        ));
    }
    Ok(())
}
