//! One resolver: repair, `tools` and `check` follow `$ref` exactly as the
//! validator does, and `--ref-map` serves remote documents from local files
//! (issue 9).

use serde_json::{Value, json};

use crate::util::schema_dir;
use crate::{callfix, json_lines};

fn filter(dir: &std::path::Path, extra: &[&str], stdin: &str) -> (i32, Vec<Value>) {
    let out = callfix()
        .args(["-f", "json", "-s"])
        .arg(dir)
        .args(extra)
        .write_stdin(stdin.to_owned())
        .output()
        .unwrap();
    (out.status.code().unwrap(), json_lines(&out.stdout))
}

fn tools(dir: &std::path::Path, extra: &[&str]) -> Value {
    let out = callfix()
        .args(["tools", "-s"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn an_anchor_ref_is_seen_by_repair_and_inlined_by_tools() {
    // Issue 9: validation followed `#num` but repair could not see its type.
    let dir = schema_dir(&[(
        "count.json",
        json!({
            "description": "Count.",
            "type": "object",
            "properties": {"n": {"$ref": "#num", "description": "How many."}},
            "$defs": {"num": {"$anchor": "num", "type": "integer"}}
        }),
    )]);
    let (code, r) = filter(dir.path(), &[], r#"{"name":"count","arguments":{"n":"5"}}"#);
    assert_eq!(code, 0, "{r:?}");
    assert_eq!(r[0]["args"], json!({"n": 5}));
    assert_eq!(r[0]["repairs"][0]["kind"], "coerce-number");
    let payload = tools(dir.path(), &[]);
    let params = &payload[0]["function"]["parameters"];
    assert_eq!(params["properties"]["n"]["type"], "integer", "{params}");
    assert!(!params.to_string().contains("$ref"), "{params}");
}

#[test]
fn refs_resolve_against_the_id_in_force() {
    let dir = schema_dir(&[(
        "item.json",
        json!({
            "$id": "https://example.com/tools/item.json",
            "type": "object",
            "properties": {"tags": {"$ref": "defs/tags.json"}},
            "$defs": {"tags": {"$id": "defs/tags.json", "type": "array", "items": {"type": "string"}}}
        }),
    )]);
    let (code, r) = filter(
        dir.path(),
        &[],
        r#"{"name":"item","arguments":{"tags":"a"}}"#,
    );
    assert_eq!(code, 0, "{r:?}");
    assert_eq!(r[0]["args"], json!({"tags": ["a"]}));
    assert_eq!(r[0]["repairs"][0]["kind"], "wrap-array");
}

#[test]
fn ref_map_serves_remote_documents_from_a_directory() {
    let remotes = schema_dir(&[(
        "limit.json",
        json!({"type": "integer", "minimum": 1, "description": "At most this many."}),
    )]);
    let dir = schema_dir(&[(
        "search.json",
        json!({
            "description": "Search.",
            "type": "object",
            "properties": {"limit": {"$ref": "http://localhost:1234/limit.json"}}
        }),
    )]);
    let call = r#"{"name":"search","arguments":{"limit":"3"}}"#;
    // Unmapped: a schema error, nothing fetched.
    let (code, r) = filter(dir.path(), &[], call);
    assert_eq!(code, 2);
    assert!(
        r[0]["message"].as_str().unwrap().contains("never fetches"),
        "{r:?}"
    );
    // Mapped: resolved from the directory, for the filter, tools and check.
    let map = format!("http://localhost:1234/={}", remotes.path().display());
    let (code, r) = filter(dir.path(), &["--ref-map", &map], call);
    assert_eq!(code, 0, "{r:?}");
    assert_eq!(r[0]["args"], json!({"limit": 3}));
    let payload = tools(dir.path(), &["--ref-map", &map]);
    assert_eq!(
        payload[0]["function"]["parameters"]["properties"]["limit"]["minimum"],
        1
    );
    let check = callfix()
        .args(["check", "-s"])
        .arg(dir.path())
        .arg("--descriptions")
        .arg(remotes.path())
        .args(["--ref-map", &map])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(0), "{text}");
    assert!(
        !text.contains("limit"),
        "the $ref target's description counts: {text}"
    );
}

#[test]
fn a_ref_map_cannot_reach_outside_its_directory() {
    let remotes = tempfile::tempdir().unwrap();
    let dir = schema_dir(&[(
        "x.json",
        json!({"properties": {"p": {"$ref": "http://localhost:1234/../../../../etc/hostname"}}}),
    )]);
    let map = format!("http://localhost:1234/={}", remotes.path().display());
    let (code, r) = filter(
        dir.path(),
        &["--ref-map", &map],
        r#"{"name":"x","arguments":{}}"#,
    );
    assert_eq!(code, 2, "{r:?}");
}
