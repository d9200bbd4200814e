//! Rough edges a new user found (issue 26, items 11, 15 and 16): what `tools`
//! writes for Gemini, how `mcp` takes the server's command line, and the small
//! things said wrong.

use std::io::Write;

use serde_json::{Value, json};

use crate::{callfix, write};

/// `tools` on one tool `t` with `schema`: (status, stdout as JSON, stderr).
fn tools_on(schema: &Value, provider: &str) -> (i32, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.json", &schema.to_string());
    let out = callfix()
        .args(["tools", "--provider", provider, "-s"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let stdout = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), stdout, stderr)
}

/// Item 11: google-genai's `Schema` refuses a `type` list; `nullable: true` is
/// how it says "or null". One other type and null: written so, silently (the
/// same schema). Several types: stripped, with a warning.
#[test]
fn gemini_type_unions_become_nullable_or_are_stripped_with_a_warning() {
    let schema = json!({"type": "object", "description": "T.", "properties": {
        "n": {"type": ["integer", "null"], "description": "N.", "minimum": 1},
        "s": {"type": ["string"], "description": "S."},
        "m": {"type": ["string", "integer"], "description": "M."},
        "l": {"type": "array", "description": "L.",
              "items": {"type": ["null", "boolean"]}}
    }});
    let (code, out, stderr) = tools_on(&schema, "gemini");
    assert_eq!(code, 0, "{stderr}");
    let params = &out[0]["functionDeclarations"][0]["parameters"]["properties"];
    assert_eq!(
        params["n"],
        json!({"type": "integer", "nullable": true, "description": "N.", "minimum": 1})
    );
    assert_eq!(params["s"], json!({"type": "string", "description": "S."}));
    assert_eq!(params["m"], json!({"description": "M."}));
    assert_eq!(
        params["l"]["items"],
        json!({"type": "boolean", "nullable": true})
    );
    assert!(
        stderr.contains("tool \"t\": type at /properties/m stripped"),
        "{stderr}"
    );
    // What is written exactly is not warned about.
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
}

/// Item 11: `check --provider gemini` says the API refuses a `type` list.
#[test]
fn check_gemini_flags_a_type_list() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "t.json",
        r#"{"type": "object", "description": "T.", "properties": {
            "n": {"type": ["integer", "null"], "description": "N."}}}"#,
    );
    let out = callfix()
        .args(["check", "--provider", "gemini", "-s"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("[provider-keyword]") && stdout.contains("type at /properties/n"),
        "{stdout}"
    );
    // It says what `tools` really does with it: rewrites, not strips.
    assert!(
        stdout.contains("(`callfix tools` writes it as one type and `nullable: true`)"),
        "{stdout}"
    );
}

/// Item 11: a tool with no description is written with `"description": ""`,
/// and `tools` says so.
#[test]
fn tools_warns_about_an_empty_description() {
    let (code, out, stderr) = tools_on(&json!({"type": "object"}), "openai");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(out[0]["function"]["description"], "");
    assert!(
        stderr.contains("warning: tool \"t\" has no description"),
        "{stderr}"
    );
}

/// `callfix mcp` with `cat -u` (a flag callfix does not know) as the server,
/// spelled `args`: a ping comes back through it as sent.
fn mcp_echoes(args: &[&str]) {
    let mut child = crate::spawn(args);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(ping).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    assert_eq!(
        out.stdout,
        [&ping[..], b"\n"].concat(),
        "{args:?}: {stderr}"
    );
    // The server's own flags are not callfix's: no `--stats` summary.
    assert!(stderr.is_empty(), "{args:?}: {stderr}");
}

/// Item 15: the MCP Inspector's CLI drops the `--`; both spellings run the
/// server, and everything after its name is its own argv.
#[test]
fn mcp_takes_the_server_command_with_or_without_the_double_dash() {
    mcp_echoes(&["mcp", "--grace", "0.5", "--", "cat", "-u"]);
    mcp_echoes(&["mcp", "--grace", "0.5", "cat", "-u"]);
    mcp_echoes(&[
        "mcp", "--grace", "0.5", "sh", "-c", "exec cat", "sh", "--stats",
    ]);
    mcp_echoes(&[
        "mcp", "--grace", "0.5", "--", "sh", "-c", "exec cat", "sh", "--stats",
    ]);
}

/// Item 16: the man page cites `callfix-check(1)` and the others: those pages
/// exist (`callfix man check`, or every page with `--dir`), and no page cites
/// one that does not.
#[test]
fn every_man_page_the_man_page_cites_exists() {
    let dir = tempfile::tempdir().unwrap();
    let out = callfix()
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut pages: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    assert!(pages.contains(&"callfix.1".to_owned()), "{pages:?}");
    assert!(pages.contains(&"callfix-check.1".to_owned()), "{pages:?}");
    for page in &pages {
        let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
        for cited in text.split("callfix\\-").skip(1) {
            let name: String = cited.chars().take_while(char::is_ascii_lowercase).collect();
            if !cited[name.len()..].starts_with("(1)") {
                continue;
            }
            assert!(
                pages.contains(&format!("callfix-{name}.1")),
                "{page} cites callfix-{name}(1): {pages:?}"
            );
        }
    }
    // One page on stdout: the same as the file.
    let check = callfix().args(["man", "check"]).output().unwrap();
    assert_eq!(check.status.code(), Some(0));
    let file = std::fs::read(dir.path().join("callfix-check.1")).unwrap();
    assert_eq!(check.stdout, file);
    assert!(String::from_utf8_lossy(&file).contains(".TH callfix-check 1"));
    let main = callfix().arg("man").output().unwrap();
    assert_eq!(
        main.stdout,
        std::fs::read(dir.path().join("callfix.1")).unwrap()
    );
    callfix().args(["man", "nonesuch"]).assert().code(2);
}

/// Item 16: human output showed `→ null` for a repair of the text (there is no
/// value after it) and for a removal; it shows the text, and "(removed)".
#[test]
fn human_repairs_of_text_show_the_text_not_null() {
    let stdin = concat!(
        r#"{"id":"a","type":"function","function":{"name":"read","arguments":"{\"file_path\": \"/a\",}"}}"#,
        "\n",
        r#"{"id":"b","type":"function","function":{"name":"read","arguments":"{\"file_path\": \"/a\", \"x\": 1}"}}"#,
        "\n",
        r#"{"role":"assistant","content":"<tool_call>{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}}</tool_call>"}"#,
        "\n",
    );
    let out = callfix()
        .args(["-f", "human"])
        .write_stdin(stdin)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains("→ null"), "{stdout}");
    assert!(
        stdout.contains("  ~ tolerant-parse: trailing comma\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  ~ x: drop-unknown 1 (removed)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"  ~ extract-from-text: <tool_call>{"name": "glob""#),
        "{stdout}"
    );
}

/// Item 16: docs/output.md said output is buffered and flushed at the end; it
/// is live (tests/cli/live.rs).
#[test]
fn docs_say_output_is_live() {
    let doc = std::fs::read_to_string(crate::root().join("docs/output.md")).unwrap();
    assert!(!doc.contains("flushed at the end"));
    assert!(doc.contains("Output is live"));
}

/// Item 16: a pip-built `callfix --version` lacked the commit: the Python
/// module's crate had no build script. It runs the binary's (which also takes
/// `CALLFIX_COMMIT` for a build from a copy without `.git`).
#[test]
fn the_python_build_runs_the_version_build_script() {
    let manifest = std::fs::read_to_string(crate::root().join("python/Cargo.toml")).unwrap();
    assert!(
        manifest
            .lines()
            .any(|l| l.trim() == r#"build = "../build.rs""#),
        "{manifest}"
    );
    let script = std::fs::read_to_string(crate::root().join("build.rs")).unwrap();
    assert!(script.contains("CALLFIX_COMMIT"));
}

/// Item 16: a leaked call cut off before its name is read has no name: human
/// output says so instead of a blank.
#[test]
fn human_says_a_call_has_no_name() {
    let stdin = r#"{"role":"assistant","content":"<tool_call>{\"na"}"#;
    let out = callfix()
        .args(["-f", "human"])
        .write_stdin(format!("{stdin}\n"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("#0.0 (no name) rejected\n"), "{stdout}");
}
