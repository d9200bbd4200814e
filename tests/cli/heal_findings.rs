//! `callfix heal` against the second attack pass: lone surrogates, number
//! spellings in arguments sent as text, ids that are not strings, pairing
//! across misplaced calls and results, `--to` never losing content silently,
//! and records passed through exactly as they came.

use serde_json::{Value, json};

use super::heal::{assert_anthropic_paired, assert_openai_paired, heal, one};

const OA_TOOLS: &str = r#"[{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"limit":{"type":"integer"},"path":{"type":"string"}}}}}]"#;
const AN_TOOLS: &str = r#"[{"name":"read","input_schema":{"type":"object","properties":{"limit":{"type":"integer"},"path":{"type":"string"}}}}]"#;

fn oa(messages: &str) -> String {
    format!(r#"{{"model":"m","tools":{OA_TOOLS},"messages":{messages}}}"#)
}

fn an(messages: &str) -> String {
    format!(r#"{{"model":"m","tools":{AN_TOOLS},"messages":{messages}}}"#)
}

#[test]
fn heal_lone_surrogate_in_user_text_still_heals_and_is_written_as_sent() {
    let record = oa(
        r#"[{"role":"user","content":"cut \ud83d"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"limit\": \"5\"}"}}]}]"#,
    );
    for to in [&[][..], &["--to", "anthropic"][..]] {
        let (code, out, stderr) = heal(to, record.clone());
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains("repaired"), "{stderr}");
        let text = String::from_utf8(out).unwrap();
        // The escape comes out as sent, not masked, not replaced.
        assert!(text.contains(r"cut \ud83d"), "{text}");
        assert!(!text.contains('\u{F0000}'), "{text}");
    }
    let (_, out, _) = heal(&[], record);
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains(r#""arguments":"{\"limit\":5}""#), "{text}");
}

#[test]
fn heal_lone_surrogate_in_arguments_is_rejected_naming_the_path() {
    let record = an(
        r#"[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{"limit":1,"path":"a\ud800"}}]}]"#,
    );
    let (code, out, stderr) = heal(&[], record);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("path: holds a lone surrogate escape"),
        "{stderr}"
    );
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#""path":"a\ud800""#),
        "input kept as sent: {text}"
    );
}

#[test]
fn heal_keeps_number_spellings_of_repaired_text_arguments() {
    let record = oa(
        r#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"limit\": \"5\", \"n\": 1e2, \"m\": 1E5, \"k\": 2.50}"}}]}]"#,
    );
    let (code, out, stderr) = heal(&[], record.clone());
    assert_eq!(code, 0, "{stderr}");
    let body = one(&out);
    assert_eq!(
        body["messages"][0]["tool_calls"][0]["function"]["arguments"],
        r#"{"limit":5,"n":1e2,"m":1E5,"k":2.50}"#
    );
    let (_, out, _) = heal(&["--to", "anthropic"], record);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#""input":{"limit":5,"n":1e2,"m":1E5,"k":2.50}"#),
        "{text}"
    );
}

#[test]
fn heal_pairs_a_numeric_call_id_with_its_result() {
    let record = oa(
        r#"[{"role":"assistant","content":null,"tool_calls":[{"id":12345678901234567890123,"type":"function","function":{"name":"read","arguments":"{}"}}]},{"role":"tool","tool_call_id":12345678901234567890123,"content":"ok"},{"role":"assistant","content":null,"tool_calls":[{"id":7,"type":"function","function":{"name":"read","arguments":"{}"}}]},{"role":"tool","tool_call_id":"7","content":"string seven"}]"#,
    );
    let (_, out, stderr) = heal(&[], record.clone());
    let body = one(&out);
    assert_openai_paired(&body);
    let m = &body["messages"];
    assert_eq!(m[0]["tool_calls"][0]["id"], "call_0_0", "{stderr}");
    assert_eq!(
        m[1],
        json!({"role":"tool","tool_call_id":"call_0_0","content":"ok"})
    );
    // The string "7" names no call sent with the number 7.
    assert_eq!(m[3]["tool_call_id"], "call_2_0");
    assert!(
        m[3]["content"]
            .as_str()
            .unwrap()
            .starts_with("[callfix] No result")
    );
    assert_eq!(m[4]["role"], "user");
    assert!(m[4]["content"].as_str().unwrap().ends_with("string seven"));
    let (_, out, _) = heal(&["--to", "anthropic"], record);
    let body = one(&out);
    assert_anthropic_paired(&body);
    assert_eq!(body["messages"][1]["content"][0]["content"], "ok");
}

/// Every value that names a call in an Anthropic body, for tests: tool_use
/// ids in assistant turns and tool_result ids in user turns.
pub(crate) fn an_ids(body: &Value) -> (Vec<String>, Vec<String>) {
    let (mut calls, mut results) = (Vec::new(), Vec::new());
    for m in body["messages"].as_array().unwrap() {
        for b in m["content"].as_array().into_iter().flatten() {
            match b["type"].as_str() {
                Some("tool_use") => calls.push(b["id"].as_str().unwrap().to_owned()),
                Some("tool_result") => results.push(b["tool_use_id"].as_str().unwrap().to_owned()),
                _ => {}
            }
        }
    }
    (calls, results)
}

#[test]
fn heal_moves_an_anthropic_result_out_of_an_assistant_message() {
    let record = an(
        r#"[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a"}},{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]"#,
    );
    let (code, out, stderr) = heal(&[], record.clone());
    assert_eq!(code, 0, "{stderr}");
    let body = one(&out);
    assert_anthropic_paired(&body);
    assert_eq!(
        an_ids(&body),
        (vec!["toolu_1".into()], vec!["toolu_1".into()])
    );
    assert_eq!(
        body["messages"][1],
        json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]})
    );
    // --to keeps the result as the call's, nothing lost.
    let (_, out, _) = heal(&["--to", "openai"], record);
    let body = one(&out);
    assert_openai_paired(&body);
    assert_eq!(body["messages"][1]["content"], "x");
}

#[test]
fn heal_keeps_calls_in_user_messages_as_text_and_says_so() {
    let anthropic = an(
        r#"[{"role":"user","content":[{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a"}}]}]"#,
    );
    let openai = oa(
        r#"[{"role":"user","content":"hi","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]}]"#,
    );
    for (record, to) in [
        (&anthropic, "anthropic"),
        (&anthropic, "openai"),
        (&openai, "openai"),
        (&openai, "anthropic"),
    ] {
        let (code, out, stderr) = heal(&["--to", to], record.clone());
        assert_eq!(code, 1, "{stderr}");
        assert!(
            stderr
                .contains("messages[0] \"\": a tool call in a user message, where no call can be"),
            "{stderr}"
        );
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("[callfix] A tool call in a user message"),
            "{text}"
        );
        assert!(
            text.contains(r#"read"#) && text.contains(r#"path"#),
            "quoted: {text}"
        );
        let body: Value = serde_json::from_str(&text).unwrap();
        if to == "openai" {
            assert_openai_paired(&body);
            assert!(body["messages"][0].get("tool_calls").is_none());
        } else {
            assert_anthropic_paired(&body);
            assert_eq!(an_ids(&body), (vec![], vec![]));
        }
    }
}

fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(crate::fixture(&format!("heal/{name}"))).unwrap()
}

#[test]
fn heal_to_anthropic_says_what_it_writes_as_text_and_loses_nothing() {
    let (code, out, stderr) = heal(&["--to", "anthropic"], fixture_text("openai_content.json"));
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line per record: {stderr}");
    for said in [
        "callfix: converted: stdin:1: messages[0]: a part of type \"image_url\" in a system message, written as text",
        "messages[1]: a part of type \"input_audio\", written as text",
        "messages[2]: a part of type \"refusal\", written as text",
    ] {
        assert!(stderr.contains(said), "{said}\n{stderr}");
    }
    let body = one(&out);
    assert_anthropic_paired(&body);
    let text = body.to_string();
    for kept in ["AAAA", "JVBER", "\\\"refusal\\\":\\\"no\\\"", "input_audio"] {
        assert!(text.contains(kept), "{kept} lost: {text}");
    }
    // The tool result's image is carried as an image block of the result.
    let result = &body["messages"][2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["content"][1]["source"]["data"], "BBBB");
    // The string form of image_url is read; no empty text block is written.
    assert!(text.contains(r#""url":"http://x/y.png""#), "{text}");
    assert!(!text.contains(r#""text":"""#), "{text}");
}

#[test]
fn heal_to_openai_says_what_it_leaves_out_and_moves() {
    let (code, out, stderr) = heal(&["--to", "openai"], fixture_text("anthropic_content.json"));
    assert_eq!(code, 1, "a call in a user message: {stderr}");
    for said in [
        "messages[1]: a part of type \"thinking\", left out (no counterpart)",
        "messages[1]: a part of type \"server_tool_use\", written as text",
        "messages[2]: an image in a tool result, moved to the user message after the results",
        "tools[1]: the server tool \"web_search_20250305\", left out",
    ] {
        assert!(stderr.contains(said), "{said}\n{stderr}");
    }
    let body = one(&out);
    assert_openai_paired(&body);
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "no function stands for a server tool");
    let text = body.to_string();
    for kept in ["CCCC", "srvtoolu_1", "in the wrong turn", "toolu_3"] {
        assert!(text.contains(kept), "{kept} lost: {text}");
    }
    // Without --to nothing is converted and nothing said of it.
    let (_, _, stderr) = heal(&[], fixture_text("anthropic_content.json"));
    assert!(!stderr.contains("converted:"), "{stderr}");
}
