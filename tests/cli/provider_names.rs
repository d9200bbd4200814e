//! Provider names as the command line takes and says them: `--to`,
//! `tools --provider` and `check --provider` take the same ten names, in the
//! same order, and refuse any other in the same words.

use serde_json::Value;

use crate::callfix;

/// Every provider's name, in the order `--help` lists them.
const NAMES: [&str; 10] = [
    "mcp",
    "claude-code",
    "ollama",
    "openai",
    "openai-responses",
    "anthropic",
    "gemini",
    "mistral",
    "bedrock",
    "generic",
];

fn stderr(args: &[&str]) -> (i32, String) {
    let out = callfix().args(args).write_stdin("").output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn an_unknown_provider_is_refused_with_the_list_of_names() {
    let list = NAMES.join(", ");
    for (args, flag) in [
        (&["--to", "bogus"][..], "--to"),
        (&["tools", "--provider", "bogus"][..], "--provider"),
        (&["check", "--provider", "bogus"][..], "--provider"),
    ] {
        let want = format!(
            "error: invalid value 'bogus' for '{flag} <PROVIDER>'\n  [possible values: {list}]\n\nFor more information, try '--help'.\n"
        );
        assert_eq!(stderr(args), (2, want), "{args:?}");
    }
}

#[test]
fn every_provider_name_is_taken_by_to_and_tools() {
    let call = r#"{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\"}"}}"#;
    for name in NAMES {
        let out = callfix()
            .args(["-f", "json", "--to", name])
            .write_stdin(format!("{call}\n"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "--to {name}");
        let line: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(line["provider_name"], "read", "--to {name}");
        let out = callfix()
            .args(["tools", "--provider", name])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "tools --provider {name}");
        serde_json::from_slice::<Value>(&out.stdout).unwrap();
    }
}

#[test]
fn strict_mode_is_named_for_the_two_providers_that_have_it() {
    for name in NAMES {
        let (code, err) = stderr(&["tools", "--provider", name, "--openai-strict"]);
        if name == "openai" || name == "openai-responses" {
            assert!(!err.contains("--openai-strict applies"), "{name}: {err}");
        } else {
            assert_eq!(code, 2, "{name}");
            assert!(
                err.starts_with(&format!(
                    "error: --openai-strict applies to --provider openai or openai-responses, not {name}\n"
                )),
                "{err}"
            );
        }
    }
    let (code, err) = stderr(&["check", "--provider", "gemini", "--openai-strict"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(
            "error: --openai-strict needs --provider openai or --provider openai-responses\n"
        ),
        "{err}"
    );
}
