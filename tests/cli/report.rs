//! `callfix report`: the counts equal an independent tally on a generated log
//! of known composition (the generator counts what it writes; callfix is not
//! asked), and both formats as a user sees them.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::callfix;

const SCHEMA: &str = r#"{"type":"object","required":["city"],"properties":{"city":{"type":"string"},"days":{"type":"integer"}}}"#;

/// What the generator wrote, counted as it wrote it.
#[derive(Default)]
struct Tally {
    total: [u64; 4],
    by_model: BTreeMap<String, [u64; 4]>,
    by_tool: BTreeMap<String, [u64; 4]>,
    repairs: BTreeMap<&'static str, u64>,
    leaks: BTreeMap<&'static str, u64>,
    rejections: BTreeMap<&'static str, u64>,
    stops: BTreeMap<&'static str, u64>,
}

/// calls, valid, repaired, rejected.
fn bump(c: &mut [u64; 4], status: usize) {
    c[0] += 1;
    c[status] += 1;
}

/// A small deterministic generator (no dependency: an LCG).
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// One record of outcome `kind` from `model` (none: the file's label) to
/// `tool`; tallies what it wrote.
fn record(kind: u64, model: Option<&str>, label: &str, tool: &str, t: &mut Tally) -> String {
    let city = json!({"city": "Oslo"}).to_string();
    // (arguments, name, finish_reason, status, repair, class, leaked)
    let (args, name, finish, status, repair, class, leaked) = match kind {
        0 => (city, tool, "tool_calls", 1, None, None, false),
        1 => (
            r#"{"city":"Oslo","days":"3"}"#.to_owned(),
            tool,
            "tool_calls",
            2,
            Some("coerce-number"),
            None,
            false,
        ),
        2 => (
            r#"{"days":3}"#.to_owned(),
            tool,
            "tool_calls",
            3,
            None,
            Some("missing-required"),
            false,
        ),
        3 => (
            r#"{"city":5}"#.to_owned(),
            tool,
            "tool_calls",
            3,
            None,
            Some("wrong-type"),
            false,
        ),
        4 => (
            "{}".to_owned(),
            "launch_rockets",
            "tool_calls",
            3,
            None,
            Some("unknown-tool"),
            false,
        ),
        5 => (
            r#"{"city":"Os"#.to_owned(),
            tool,
            "length",
            3,
            None,
            Some("cut-off"),
            false,
        ),
        6 => (
            "not json at all".to_owned(),
            tool,
            "tool_calls",
            3,
            None,
            Some("not-json"),
            false,
        ),
        _ => (city, tool, "stop", 2, Some("extract-from-text"), None, true),
    };
    let who = model.unwrap_or(label);
    bump(&mut t.total, status);
    bump(t.by_model.entry(who.to_owned()).or_default(), status);
    bump(t.by_tool.entry(name.to_owned()).or_default(), status);
    if let Some(r) = repair {
        *t.repairs.entry(r).or_default() += 1;
    }
    if let Some(c) = class {
        *t.rejections.entry(c).or_default() += 1;
        if c == "cut-off" {
            *t.stops.entry(finish).or_default() += 1;
        }
    }
    let message = if leaked {
        *t.leaks.entry("hermes").or_default() += 1;
        let call = json!({"name": name, "arguments": {"city": "Oslo"}});
        json!({"role": "assistant", "content": format!("<tool_call>{call}</tool_call>")})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": name, "arguments": args}}]})
    };
    let mut r = json!({"choices": [{"finish_reason": finish, "message": message}]});
    if let Some(m) = model {
        r["model"] = json!(m);
    }
    r.to_string()
}

fn write_log(path: &Path, n: usize, models: &[&str], label: &str, seed: u64, t: &mut Tally) {
    let mut rng = Lcg(seed);
    let mut text = String::new();
    for _ in 0..n {
        let model = (!models.is_empty()).then(|| models[rng.below(models.len() as u64) as usize]);
        let tool = ["get_weather", "get_time"][rng.below(2) as usize];
        text.push_str(&record(rng.below(8), model, label, tool, t));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

fn counts(v: &Value) -> [u64; 4] {
    ["calls", "valid", "repaired", "rejected"].map(|k| v[k].as_u64().unwrap())
}

fn keyed<T: Clone + Into<Value>>(map: &BTreeMap<impl ToString, T>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.to_string(), v.clone().into()))
            .collect(),
    )
}

fn setup() -> (tempfile::TempDir, Tally) {
    let dir = tempfile::tempdir().unwrap();
    let schemas = dir.path().join("schemas");
    std::fs::create_dir(&schemas).unwrap();
    for tool in ["get_weather", "get_time"] {
        std::fs::write(schemas.join(format!("{tool}.json")), SCHEMA).unwrap();
    }
    let mut t = Tally::default();
    write_log(
        &dir.path().join("a.jsonl"),
        700,
        &["m-a", "m-b"],
        "a",
        7,
        &mut t,
    );
    write_log(
        &dir.path().join("b.jsonl"),
        300,
        &[],
        "vendor-x",
        11,
        &mut t,
    );
    (dir, t)
}

#[test]
fn report_json_counts_equal_the_generators_tally() {
    let (dir, t) = setup();
    let out = callfix()
        .current_dir(dir.path())
        .args([
            "report", "-s", "schemas", "a.jsonl", "b.jsonl", "--label", "a", "--label", "vendor-x",
        ])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(counts(&v), t.total);
    for (field, want) in [("by_model", &t.by_model), ("by_tool", &t.by_tool)] {
        let got: BTreeMap<String, [u64; 4]> = v[field]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, c)| (k.clone(), counts(c)))
            .collect();
        assert_eq!(&got, want, "{field}");
    }
    assert_eq!(v["repairs"], keyed(&t.repairs));
    assert_eq!(v["leaks"], keyed(&t.leaks));
    assert_eq!(v["rejections"], keyed(&t.rejections));
    assert_eq!(v["cut_off_stops"], keyed(&t.stops));
    let [calls, valid, repaired, _] = t.total;
    assert_eq!(
        v["schema_accuracy"].as_f64(),
        Some(valid as f64 / calls as f64)
    );
    assert_eq!(
        v["accuracy_after"].as_f64(),
        Some((valid + repaired) as f64 / calls as f64)
    );
    // Every error path has one example, counts summing to the rejections.
    let examples = v["examples"].as_array().unwrap();
    let listed: u64 = examples.iter().map(|e| e["count"].as_u64().unwrap()).sum();
    assert_eq!(listed, t.total[3]);
}

#[test]
fn report_table_is_worst_first_and_coloured_only_when_asked() {
    let (dir, t) = setup();
    let run = |env: &[(&str, &str)], color: &str| {
        let mut cmd = callfix();
        cmd.current_dir(dir.path())
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .args([
                "report", "-s", "schemas", "a.jsonl", "b.jsonl", "--color", color,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = run(&[], "auto");
    assert!(!plain.contains('\u{1b}'), "{plain}");
    let [calls, valid, repaired, rejected] = t.total;
    assert!(
        plain.starts_with(&format!(
            "{calls} calls: {valid} valid, {repaired} repaired, {rejected} rejected; schema accuracy"
        )),
        "{plain}"
    );
    // The unknown tool (nothing usable) is the worst tool row.
    let tool_rows: Vec<&str> = plain
        .lines()
        .skip_while(|l| !l.starts_with("tool "))
        .collect();
    assert!(
        tool_rows
            .get(1)
            .is_some_and(|l| l.starts_with("launch_rockets ")),
        "{plain}"
    );
    assert!(plain.contains("\nmodel "), "{plain}");
    assert!(
        plain.contains("\nb.jsonl "),
        "the file name labels a file without --label: {plain}"
    );
    assert!(plain.contains("cut off, by stop reason: length"), "{plain}");
    assert!(run(&[], "always").contains('\u{1b}'));
    assert!(!run(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")], "auto").contains('\u{1b}'));
}

#[test]
fn report_unreadable_input_is_trouble_and_the_rest_still_counted() {
    let (dir, _) = setup();
    let out = callfix()
        .current_dir(dir.path())
        .args([
            "report",
            "-s",
            "schemas",
            "missing.jsonl",
            "b.jsonl",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["calls"], 300);
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.jsonl"));
    let out = callfix()
        .current_dir(dir.path())
        .args(["report", "b.jsonl", "--label", "x", "--label", "y"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--label"));
}
