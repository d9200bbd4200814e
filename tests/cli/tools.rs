//! `callfix tools`: each provider's documented shape, and names mapped back.

use serde_json::{Value, json};

use crate::{callfix, write};

fn tools(args: &[&str]) -> Value {
    let out = callfix().arg("tools").args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn read_of(list: &[Value], name_path: &str) -> Value {
    list.iter()
        .find(|d| d.pointer(name_path) == Some(&json!("read")))
        .unwrap()
        .clone()
}

#[test]
fn openai_shape() {
    let v = tools(&["--provider", "openai"]);
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 9);
    for d in list {
        assert_eq!(d["type"], "function");
        let f = d["function"].as_object().unwrap();
        assert_eq!(
            f.keys().collect::<Vec<_>>(),
            ["name", "description", "parameters"]
        );
        assert_eq!(f["parameters"]["type"], "object");
        assert!(f["parameters"].get("$schema").is_none());
    }
    let read = read_of(list, "/function/name");
    // The description is rendered from descriptions/read.txt, variables and all.
    let desc = read["function"]["description"].as_str().unwrap();
    assert!(desc.starts_with("Reads a file from the local filesystem"));
    assert!(!desc.contains("<CWD>") && desc.contains(&crate::root().display().to_string()));
    // The sibling $ref is inlined: providers cannot read _defs.json.
    assert_eq!(
        read["function"]["parameters"]["properties"]["file_path"],
        json!({"type": "string", "minLength": 1, "description": "Absolute path to the file, e.g. /home/user/project/src/main.rs"})
    );
    assert_eq!(
        read["function"]["parameters"]["additionalProperties"],
        false
    );
}

#[test]
fn anthropic_shape() {
    let v = tools(&["--provider", "anthropic"]);
    for d in v.as_array().unwrap() {
        let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "description", "input_schema"]);
    }
}

#[test]
fn gemini_shape() {
    let v = tools(&["--provider", "gemini"]);
    let decls = v[0]["functionDeclarations"].as_array().unwrap();
    assert_eq!(decls.len(), 9);
    for d in decls {
        let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "description", "parameters"]);
        // Gemini's API rejects additionalProperties.
        assert!(!d["parameters"].to_string().contains("additionalProperties"));
    }
}

#[test]
fn mcp_shape() {
    let v = tools(&["--provider", "mcp"]);
    for d in v["tools"].as_array().unwrap() {
        let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "description", "inputSchema"]);
    }
}

#[test]
fn names_are_sanitised_and_mapped_back() {
    let dir = tempfile::tempdir().unwrap();
    let list = json!([{"name": "uber.ride", "description": "Order a ride.",
        "input_schema": {"type": "object", "properties": {"to": {"type": "string", "description": "Where to."}}, "required": ["to"]}}]);
    write(dir.path(), "tools.json", &list.to_string());
    let file = dir.path().join("tools.json");
    let s = file.to_str().unwrap();
    let none = dir.path().join("none");
    let v = tools(&["-s", s, "--descriptions", none.to_str().unwrap()]);
    assert_eq!(v[0]["function"]["name"], "uber_ride");
    // The schema's own description is used when there is no template.
    assert_eq!(v[0]["function"]["description"], "Order a ride.");
    let v = tools(&[
        "-s",
        s,
        "--descriptions",
        none.to_str().unwrap(),
        "--provider",
        "mcp",
    ]);
    assert_eq!(v["tools"][0]["name"], "uber.ride");
    // A call that comes back under the sanitised name resolves to the tool.
    let out = callfix()
        .args(["-f", "json", "-s", s])
        .write_stdin(r#"{"id":"c","type":"function","function":{"name":"uber_ride","arguments":"{\"to\":\"home\"}"}}"#)
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (r["tool"].as_str(), r["status"].as_str()),
        (Some("uber.ride"), Some("valid"))
    );
}

#[test]
fn a_broken_description_fails_and_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "glob.txt", "Find <FILSE>.");
    callfix()
        .args(["tools", "--descriptions"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains("unknown variable <FILSE>"));
}

#[test]
fn openai_strict_mode() {
    let out = callfix()
        .args(["tools", "--provider", "openai", "--openai-strict"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let read = read_of(list.as_array().unwrap(), "/function/name");
    assert_eq!(read["function"]["strict"], true);
    let params = &read["function"]["parameters"];
    assert_eq!(params["additionalProperties"], false);
    assert_eq!(params["required"], json!(["file_path", "offset", "limit"]));
    assert_eq!(
        params["properties"]["offset"]["type"],
        json!(["integer", "null"])
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "warning: tool \"read\": minLength at /properties/file_path stripped: openai-strict does not take it"
        ),
        "{stderr}"
    );
    // Responses says strict either way: its API's default is true.
    let list = tools(&["--provider", "openai-responses"]);
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .all(|d| d["strict"] == false)
    );
}

#[test]
fn a_schema_strict_mode_cannot_express_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "env.json",
        r#"{"type": "object", "properties": {"vars": {"type": "object", "additionalProperties": {"type": "string"}}}}"#,
    );
    let out = callfix()
        .args(["tools", "--openai-strict", "-s"])
        .arg(dir.path())
        .args(["--descriptions"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "tool \"env\": additionalProperties at /properties/vars: strict mode takes only closed objects"
        ),
        "{stderr}"
    );
    // Only OpenAI has the mode.
    callfix()
        .args(["tools", "--provider", "gemini", "--openai-strict"])
        .assert()
        .code(2);
}

#[test]
fn gemini_strips_what_it_refuses_and_says_so() {
    let out = callfix()
        .args(["tools", "--provider", "gemini"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let decls = v[0]["functionDeclarations"].as_array().unwrap();
    assert!(
        decls
            .iter()
            .all(|d| d["parameters"].get("additionalProperties").is_none())
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: tool \"read\": additionalProperties at the top level stripped: gemini does not take it"),
        "{stderr}"
    );
}
