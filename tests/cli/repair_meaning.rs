//! Repairs never change what a call means (issue 26, items 9 and 10): the CLI
//! on schemas with plain and pinned string properties, renamed keys and
//! zero-padded numbers.

use crate::util::{one_in, repair_kinds, schema_dir};

fn schemas() -> tempfile::TempDir {
    schema_dir(&[
        (
            "write_file.json",
            r#"{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path"],"additionalProperties":false}"#,
        ),
        (
            "bash.json",
            r#"{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}"#,
        ),
        (
            "pinned.json",
            r#"{"type":"object","properties":{"flag":{"type":"string","enum":["true","false"]},"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"additionalProperties":false}"#,
        ),
        (
            "read.json",
            r#"{"type":"object","properties":{"offset":{"type":"integer"},"force":{"type":"boolean"}},"additionalProperties":false}"#,
        ),
    ])
}

#[test]
fn a_number_or_boolean_for_a_plain_string_is_rejected() {
    let dir = schemas();
    for (call, path, got) in [
        (
            r#"{"name":"write_file","arguments":{"path":7}}"#,
            "path",
            "number",
        ),
        (
            r#"{"name":"bash","arguments":{"command":true}}"#,
            "command",
            "boolean",
        ),
        (
            r#"{"name":"write_file","arguments":{"path":"a","content":2.5}}"#,
            "content",
            "number",
        ),
    ] {
        let r = one_in(dir.path(), call);
        assert_eq!(r["status"], "rejected", "{call}: {r}");
        assert_eq!(r["errors"][0]["path"], path, "{r}");
        assert_eq!(
            r["errors"][0]["message"],
            format!("expected string, got {got}"),
            "{r}"
        );
    }
}

#[test]
fn a_number_or_boolean_for_a_pinned_string_is_repaired() {
    let dir = schemas();
    let r = one_in(
        dir.path(),
        r#"{"name":"pinned","arguments":{"flag":true,"zip":12345}}"#,
    );
    assert_eq!(r["status"], "repaired", "{r}");
    assert_eq!(
        r["args"],
        serde_json::json!({"flag": "true", "zip": "12345"})
    );
    // Not the pinned form: rejected.
    let r = one_in(dir.path(), r#"{"name":"pinned","arguments":{"zip":123}}"#);
    assert_eq!(r["status"], "rejected", "{r}");
}

#[test]
fn a_renamed_key_has_its_value_repaired() {
    let dir = schemas();
    let r = one_in(
        dir.path(),
        r#"{"name":"read","arguments":{"Offset":"3","Force":"false"}}"#,
    );
    assert_eq!(r["status"], "repaired", "{r}");
    assert_eq!(r["args"], serde_json::json!({"offset": 3, "force": false}));
    let kinds = repair_kinds(&r);
    assert_eq!(
        kinds,
        [
            "rename-key",
            "rename-key",
            "coerce-number",
            "coerce-boolean"
        ],
        "{r}"
    );
}

#[test]
fn a_zero_padded_number_is_rejected() {
    let dir = schemas();
    let r = one_in(
        dir.path(),
        r#"{"name":"read","arguments":{"offset":"007"}}"#,
    );
    assert_eq!(r["status"], "rejected", "{r}");
    assert_eq!(r["errors"][0]["message"], "expected integer, got string");
}
