//! Repairs an attack pass found wrong (attack F13): `wrap-array` wraps only a
//! text with one reading, written as JSON or as the text of an XML parameter.

use super::*;
use crate::util::{one_in, repair_kinds, schema_dir};

/// `rm`: `paths`, an array of strings (required).
fn schemas() -> tempfile::TempDir {
    schema_dir(&[(
        "rm.json",
        r#"{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}}},"required":["paths"],"additionalProperties":false}"#,
    )])
}

/// The call as JSON, and as Qwen3-Coder markup in the text.
fn both(text: &str) -> [Value; 2] {
    let json = serde_json::json!({"name": "rm", "arguments": {"paths": text}});
    let markup = format!(
        "<tool_call>\n<function=rm>\n<parameter=paths>\n{text}\n</parameter>\n</function>\n</tool_call>"
    );
    [
        json,
        serde_json::json!({"role": "assistant", "content": markup}),
    ]
}

#[test]
fn a_broken_or_quoted_list_is_never_wrapped_as_one_item() {
    let dir = schemas();
    for text in [
        // Cut off, or not JSON: a list that does not parse.
        r#"["a.txt", "b.txt""#,
        "[a.txt]",
        // Quoted: the quotes are JSON's, or the name's.
        r#""a.txt""#,
        // Two files, or one name with a comma.
        "a.txt, b.txt",
    ] {
        for record in both(text) {
            let v = one_in(dir.path(), &record);
            assert_eq!(v["status"], "rejected", "{record}: {v}");
            assert!(!repair_kinds(&v).contains(&"wrap-array"), "{record}: {v}");
        }
    }
    // One file, written as one: wrapped, in JSON and in markup alike.
    for record in both("a.txt") {
        let v = one_in(dir.path(), &record);
        assert_eq!(v["status"], "repaired", "{record}: {v}");
        assert_eq!(v["args"], serde_json::json!({"paths": ["a.txt"]}));
    }
}
