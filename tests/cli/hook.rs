//! `callfix hook claude-code` on recorded PreToolUse payloads (the shape Claude
//! Code's hooks reference documents).

use serde_json::{Value, json};

use super::callfix;

const SCHEMAS: &str = "tests/fixtures/claude-code/schemas";

fn hook(payload: &str, extra: &[&str]) -> (i32, String, String) {
    let path = super::root()
        .join("tests/fixtures/claude-code")
        .join(payload);
    // A fresh state dir: loop counts of earlier runs stay out.
    let state = tempfile::tempdir().unwrap();
    let out = callfix()
        .env("CALLFIX_STATE_DIR", state.path())
        .args(["hook", "claude-code", "--schemas", SCHEMAS])
        .args(extra)
        .pipe_stdin(path)
        .unwrap()
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn decision(stdout: &str) -> Value {
    serde_json::from_str::<Value>(stdout).unwrap()["hookSpecificOutput"].clone()
}

#[test]
fn a_valid_call_gets_no_opinion() {
    // Nothing printed, exit 0: the user's own permission rules decide.
    assert_eq!(
        hook("pre_tool_use_valid.json", &[]),
        (0, String::new(), String::new())
    );
}

#[test]
fn a_repairable_call_is_passed_back_repaired_for_the_user_to_approve() {
    let (code, stdout, _) = hook("pre_tool_use_repair.json", &[]);
    assert_eq!(code, 0);
    assert_eq!(
        decision(&stdout),
        json!({
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "callfix repaired the input: offset: \"120\" → 120 (coerce-number)",
            "updatedInput": {"file_path": "/home/dev/app/src/main.rs", "offset": 120, "limit": 40},
        })
    );
}

#[test]
fn repaired_calls_can_be_allowed_outright() {
    let (_, stdout, _) = hook("pre_tool_use_repair.json", &["--repaired", "allow"]);
    assert_eq!(decision(&stdout)["permissionDecision"], "allow");
}

#[test]
fn an_invalid_call_is_blocked_with_the_instruction_for_claude() {
    let (code, stdout, _) = hook("pre_tool_use_block.json", &[]);
    assert_eq!(code, 0);
    assert_eq!(
        decision(&stdout),
        json!({
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Please rewrite the input with valid arguments. Errors: file_path: Required; limit: expected number, got string; path: unrecognized key (did you mean \"file_path\"?)",
        })
    );
}

#[test]
fn tools_without_a_schema_and_other_events_get_no_opinion() {
    for payload in ["pre_tool_use_no_schema.json", "post_tool_use.json"] {
        assert_eq!(
            hook(payload, &[]),
            (0, String::new(), String::new()),
            "{payload}"
        );
    }
}

#[test]
fn trouble_is_a_non_blocking_error_never_exit_2() {
    // Exit 2 would block the call in Claude Code: a broken hook must not.
    let out = callfix()
        .args(["hook", "claude-code", "--schemas", SCHEMAS])
        .write_stdin("{\"hook_event_name\":")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = callfix()
        .args(["hook", "claude-code", "--schemas", "no/such/dir"])
        .pipe_stdin(super::root().join("tests/fixtures/claude-code/pre_tool_use_valid.json"))
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir"));
}

#[test]
fn the_filter_reads_the_payload_as_an_envelope() {
    let out = callfix()
        .args([
            "--schemas",
            SCHEMAS,
            "-f",
            "json",
            "tests/fixtures/claude-code/pre_tool_use_repair.json",
        ])
        .output()
        .unwrap();
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["tool"], "Read");
    assert_eq!(result["id"], "toolu_01Hh2m9QeT4rVb6Wc1xLs8Nd");
    assert_eq!(result["status"], "repaired");
}

/// `callfix ARGS` in `dir` with `stdin`: (exit code, stdout, stderr).
fn run_in(dir: &std::path::Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let state = tempfile::tempdir().unwrap();
    let out = callfix()
        .env("CALLFIX_STATE_DIR", state.path())
        .current_dir(dir)
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn valid_payload() -> String {
    std::fs::read_to_string(
        super::root().join("tests/fixtures/claude-code/pre_tool_use_valid.json"),
    )
    .unwrap()
}

#[test]
fn usage_errors_are_exit_1_never_exit_2() {
    let root = super::root();
    let schemas = root.join(SCHEMAS);
    let schemas = schemas.to_str().unwrap();
    for args in [
        &["hook"][..],
        &["hook", "cursor"],
        &["hook", "claude-code", "--bogus"],
        &[
            "hook",
            "claude-code",
            "--schemas",
            schemas,
            "--max-errors",
            "x",
        ],
        &[
            "hook",
            "claude-code",
            "--schemas",
            schemas,
            "--repaired",
            "maybe",
        ],
        &["--config", "no/such/callfix.toml", "hook", "claude-code"],
        &["--bogus", "hook", "claude-code"],
    ] {
        let (code, stdout, stderr) = run_in(&root, args, &valid_payload());
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(
            stderr.contains("error"),
            "{args:?}: the reason is said: {stderr}"
        );
    }
    // Help is still help.
    let (code, stdout, _) = run_in(&root, &["hook", "--help"], "");
    assert_eq!(code, 0);
    assert!(stdout.contains("claude-code"));
}

#[test]
fn an_invalid_config_up_the_tree_is_exit_1_never_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let below = dir.path().join("project/src");
    std::fs::create_dir_all(&below).unwrap();
    let schemas = super::root().join(SCHEMAS);
    for config in [
        "bogus = 1\n",
        "jobs = 100000\n",
        "max-errors = \"x\"\n",
        "[[[",
    ] {
        std::fs::write(dir.path().join("callfix.toml"), config).unwrap();
        let (code, stdout, stderr) = run_in(
            &below,
            &[
                "hook",
                "claude-code",
                "--schemas",
                schemas.to_str().unwrap(),
            ],
            &valid_payload(),
        );
        assert_eq!(code, 1, "{config}: {stderr}");
        assert!(stdout.is_empty(), "{config}");
        assert!(stderr.contains("callfix.toml:1:"), "{config}: {stderr}");
    }
}

#[test]
fn a_lone_surrogate_in_the_tool_input_is_blocked() {
    // serde_json refuses the payload; exit 1 would let the call run unchecked.
    let payload = valid_payload().replace(
        "\"/home/dev/app/src/main.rs\"",
        "\"/home/dev/app/src/\\ud83d.rs\"",
    );
    assert!(payload.contains("\\ud83d.rs"));
    let (code, stdout, stderr) = run_in(
        &super::root(),
        &["hook", "claude-code", "--schemas", SCHEMAS],
        &payload,
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        decision(&stdout),
        json!({
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Please rewrite the input with valid arguments. Errors: file_path: holds a lone surrogate escape, which is no character",
        })
    );
    // A lone surrogate outside the tool input changes nothing.
    let payload = valid_payload().replace("\"cwd\":\"/home/dev/app\"", "\"cwd\":\"/home/\\udc00\"");
    assert!(payload.contains("\\udc00"));
    let (code, stdout, stderr) = run_in(
        &super::root(),
        &["hook", "claude-code", "--schemas", SCHEMAS],
        &payload,
    );
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
}

/// The block fixture's payload in session `session`, run with loop state in
/// `state`: the reason the hook gives (exit 0 and a deny, always).
fn deny_in(state: &std::path::Path, session: &str, extra: &[&str]) -> String {
    let path = super::root().join("tests/fixtures/claude-code/pre_tool_use_block.json");
    let mut payload: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    payload["session_id"] = json!(session);
    let out = callfix()
        .env("CALLFIX_STATE_DIR", state)
        .args(["hook", "claude-code", "--no-config", "--schemas", SCHEMAS])
        .args(extra)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    let answer = decision(&stdout);
    assert_eq!(answer["permissionDecision"], "deny", "{stdout}");
    answer["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned()
}

const PLAIN: &str = "Please rewrite the input with valid arguments. Errors: ";

fn stop(times: u32) -> String {
    format!(
        "Stop retrying: this exact call to \"Read\" was rejected {times} times. Do not send it \
         again; ask the user how to proceed. Errors: file_path: Required; limit: expected number, \
         got string; path: unrecognized key (did you mean \"file_path\"?)"
    )
}

#[test]
fn the_same_invalid_call_loop_limit_times_in_a_session_is_told_to_stop() {
    let state = tempfile::tempdir().unwrap();
    for _ in 0..3 {
        assert!(deny_in(state.path(), "s1", &["--loop-limit", "4"]).starts_with(PLAIN));
    }
    assert_eq!(deny_in(state.path(), "s1", &["--loop-limit", "4"]), stop(4));
    assert_eq!(deny_in(state.path(), "s1", &["--loop-limit", "4"]), stop(5));
    // The default limit is the filter's: 3 (this call has been seen 5 times).
    assert_eq!(deny_in(state.path(), "s1", &[]), stop(6));
    // 0: never.
    assert!(deny_in(state.path(), "s1", &["--loop-limit", "0"]).starts_with(PLAIN));
}

#[test]
fn each_session_counts_its_own_calls() {
    let state = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        assert!(deny_in(state.path(), "s1", &[]).starts_with(PLAIN));
    }
    // A session id is no file name: one that looks like a path is still a key.
    for other in ["s2", "../s1", ""] {
        assert!(
            deny_in(state.path(), other, &[]).starts_with(PLAIN),
            "{other}"
        );
    }
    assert_eq!(deny_in(state.path(), "s1", &[]), stop(3));
    assert!(deny_in(state.path(), "s2", &[]).starts_with(PLAIN));
    assert_eq!(deny_in(state.path(), "s2", &[]), stop(3));
}

#[test]
fn a_payload_without_a_session_is_not_counted() {
    let state = tempfile::tempdir().unwrap();
    let path = super::root().join("tests/fixtures/claude-code/pre_tool_use_block.json");
    let mut payload: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    payload.as_object_mut().unwrap().remove("session_id");
    for _ in 0..4 {
        let out = callfix()
            .env("CALLFIX_STATE_DIR", state.path())
            .args(["hook", "claude-code", "--no-config", "--schemas", SCHEMAS])
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        let reason =
            decision(&String::from_utf8(out.stdout).unwrap())["permissionDecisionReason"].clone();
        assert!(reason.as_str().unwrap().starts_with(PLAIN), "{reason}");
    }
    assert!(walk(state.path()).is_empty());
}

#[test]
fn a_stale_session_file_goes_when_a_new_one_is_made() {
    let state = tempfile::tempdir().unwrap();
    deny_in(state.path(), "old", &[]);
    let old = walk(state.path());
    assert_eq!(old.len(), 1);
    let week = std::time::Duration::from_secs(8 * 24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&old[0])
        .unwrap()
        .set_modified(std::time::SystemTime::now() - week)
        .unwrap();
    let other = state.path().join("not-ours");
    std::fs::write(&other, "x").unwrap();
    deny_in(state.path(), "new", &[]);
    let now = walk(state.path());
    assert_eq!(now.len(), 2, "{now:?}");
    assert!(!now.contains(&old[0]) && now.contains(&other));
}

#[test]
fn a_corrupt_or_unusable_state_file_is_a_plain_deny_never_a_failure() {
    let state = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        assert!(deny_in(state.path(), "s1", &[]).starts_with(PLAIN));
    }
    let files: Vec<_> = walk(state.path());
    assert!(!files.is_empty(), "the count is kept in a file");
    for (i, garbage) in [&b"\xff\x00garbage"[..], b"", &[7; 100_000]]
        .iter()
        .enumerate()
    {
        for f in &files {
            std::fs::write(f, garbage).unwrap();
        }
        // Unreadable state is no state: counting starts again.
        assert!(deny_in(state.path(), "s1", &[]).starts_with(PLAIN), "{i}");
    }
    assert!(deny_in(state.path(), "s1", &[]).starts_with(PLAIN));
    assert_eq!(deny_in(state.path(), "s1", &[]), stop(3));
    // A state dir that cannot be made (a file is in its place): a plain deny.
    let file = state.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    for _ in 0..4 {
        assert!(deny_in(&file, "s1", &[]).starts_with(PLAIN));
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
