use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "read", "parameters": {"type": "object",
        "properties": {"path": {"type": "string"}, "n": {"type": "integer"}}, "required": ["path"]}}}])
}

fn openai(calls: Vec<Value>, results: Vec<Value>) -> Vec<u8> {
    let mut messages = vec![json!({"role": "assistant", "content": null, "tool_calls": calls})];
    messages.extend(results);
    json!({"model": "m", "tools": tools(), "messages": messages})
        .to_string()
        .into_bytes()
}

fn call(id: &str, name: &str, args: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
}

#[test]
fn valid_calls_leave_the_record_unchanged() {
    let text = openai(
        vec![call("a", "read", "{\"path\": \"/a\" , \"n\": 1e2}")],
        vec![json!({"role": "tool", "tool_call_id": "a", "content": "ok"})],
    );
    let healed = Healer::new(None).heal(&text).unwrap();
    assert!(!healed.changed());
    assert_eq!(healed.calls()[0].action(), Action::Unchanged);
    assert_eq!(healed.to_text().as_bytes(), text.as_slice());
}

#[test]
fn a_rejected_object_is_kept_and_its_result_says_why() {
    let text = openai(vec![call("a", "read", "{\"n\": 2}")], vec![]);
    let healed = Healer::new(None).heal(&text).unwrap();
    assert_eq!(healed.neutralised(), 1);
    let m = &healed.request()["messages"];
    assert_eq!(m[0]["tool_calls"][0]["function"]["arguments"], "{\"n\": 2}");
    assert_eq!(
        m[1]["content"],
        "[callfix] This call was rejected: Please rewrite the input with valid arguments. Errors: path: Required"
    );
}

#[test]
fn arguments_not_an_object_become_empty_and_are_quoted() {
    for args in ["[1]", "null", "path=/a", ""] {
        let healed = Healer::new(None)
            .heal(&openai(vec![call("a", "read", args)], vec![]))
            .unwrap();
        let m = &healed.request()["messages"];
        assert_eq!(
            m[0]["tool_calls"][0]["function"]["arguments"], "{}",
            "{args}"
        );
        let note = m[1]["content"].as_str().unwrap();
        assert!(note.ends_with(&format!("shown as {{}}): {args}")), "{note}");
    }
}

#[test]
fn object_arguments_in_openai_are_written_as_text() {
    let c = json!({"id": "a", "type": "function", "function": {"name": "read", "arguments": {"path": "/a"}}});
    let healed = Healer::new(None).heal(&openai(vec![c], vec![])).unwrap();
    assert_eq!(healed.calls()[0].action(), Action::Repaired);
    assert_eq!(
        healed.request()["messages"][0]["tool_calls"][0]["function"]["arguments"],
        "{\"path\":\"/a\"}"
    );
}

#[test]
fn errors_say_what_is_wrong() {
    let h = Healer::new(None);
    assert!(matches!(h.heal(b"{"), Err(HealError::NotJson(_))));
    assert!(matches!(h.heal(b"[]"), Err(HealError::NotAConversation)));
    assert!(matches!(
        h.heal(b"{\"messages\": []}"),
        Err(HealError::NoTools)
    ));
    assert!(matches!(
        Healer::new(None).to(Provider::Gemini),
        Err(HealError::Unsupported("gemini"))
    ));
}

#[test]
fn a_given_toolset_wins_over_the_requests_tools() {
    let given = Toolset::from_schemas([("read".to_owned(), json!({"type": "object"}))]);
    let text = openai(vec![call("a", "read", "{\"n\": 2}")], vec![]);
    let healed = Healer::new(Some(&given)).heal(&text).unwrap();
    assert_eq!(healed.neutralised(), 0);
}

#[test]
fn stream_passes_what_it_cannot_heal_and_counts() {
    let good = openai(
        vec![call("a", "read", "{\"n\": \"2\", \"path\": \"/\"}")],
        vec![],
    );
    let mut input = b"not json\n".to_vec();
    input.extend(&good);
    input.extend(b"\n{\"messages\": 3}\n");
    let mut out = Vec::new();
    let mut said = Vec::new();
    let counts = Healer::new(None)
        .stream(input.as_slice(), &mut out, &mut |r| {
            said.push(match r {
                Report::Passed { line, .. } => format!("passed {line}"),
                Report::NotCarried { line, .. } => format!("not carried {line}"),
                Report::Call { line, call } => {
                    format!("{:?} {line} {}", call.action(), call.tool())
                }
            })
        })
        .unwrap();
    assert_eq!((counts.records, counts.repaired, counts.passed), (3, 1, 2));
    assert_eq!(said, ["passed 1", "Repaired 2 read", "passed 3"]);
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "not json");
    assert_eq!(lines[2], "{\"messages\": 3}");
}

#[test]
fn a_record_passed_through_keeps_its_own_line_end_and_gets_no_second() {
    let mut out = Vec::new();
    let input = b"{\"model\":\"m\",\"messages\":[\n{\"a\":1}";
    Healer::new(None)
        .stream(input.as_slice(), &mut out, &mut |_| {})
        .unwrap();
    assert_eq!(out, b"{\"model\":\"m\",\"messages\":[\n{\"a\":1}\n");
    let mut out = Vec::new();
    let input = b"{\"model\":\"m\",\"messages\":[\n{\"a\":1}\n";
    Healer::new(None)
        .stream(input.as_slice(), &mut out, &mut |_| {})
        .unwrap();
    assert_eq!(out, input);
}

fn arb_args() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{\"path\": \"/a\"}".to_owned()),
        Just("{\"path\": \"/a\", \"n\": \"3\"}".to_owned()),
        Just("{'path': '/a'}".to_owned()),
        Just("{\"path\": \"/".to_owned()),
        Just("{}".to_owned()),
        "[ -~]{0,12}",
    ]
}

fn arb_message() -> impl Strategy<Value = Value> {
    let id = prop::sample::select(vec!["a", "b", "a b", ""]);
    prop_oneof![
        prop::collection::vec(
            (
                id.clone(),
                prop::sample::select(vec!["read", "Read", "nope", "x y"]),
                arb_args()
            ),
            1..3
        )
        .prop_map(|cs| json!({"role": "assistant", "content": null,
                "tool_calls": cs.into_iter().map(|(i, n, a)| call(i, n, &a)).collect::<Vec<_>>()})),
        id.clone()
            .prop_map(|i| json!({"role": "tool", "tool_call_id": i, "content": "r"})),
        "[a-z]{0,5}".prop_map(|t| json!({"role": "user", "content": t})),
        // Calls where no call can be, and ids that are not strings.
        id.prop_map(|i| json!({"role": "user", "content": "u",
            "tool_calls": [call(i, "read", "{\"path\": \"/a\"}")]})),
        Just(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": 7, "type": "function", "function": {"name": "read", "arguments": "{}"}}]})),
        Just(json!({"role": "tool", "tool_call_id": 7, "content": "seven"})),
    ]
}

fn arb_anthropic_message() -> impl Strategy<Value = Value> {
    let id = prop::sample::select(vec!["a", "b", "a b", ""]);
    let block = prop_oneof![
        id.clone().prop_map(
            |i| json!({"type": "tool_use", "id": i, "name": "read", "input": {"path": "/a"}})
        ),
        id.clone()
            .prop_map(|i| json!({"type": "tool_use", "id": i, "name": "read", "input": {"n": 1}})),
        id.prop_map(|i| json!({"type": "tool_result", "tool_use_id": i, "content": "r"})),
        "[a-z]{1,5}".prop_map(|t| json!({"type": "text", "text": t})),
    ];
    (
        prop::sample::select(vec!["user", "assistant"]),
        prop::collection::vec(block, 0..4),
    )
        .prop_map(|(role, content)| json!({"role": role, "content": content}))
}

/// Every OpenAI call answered once, right after its turn; every result by
/// its call.
fn paired(body: &Value) -> bool {
    let messages = body["messages"].as_array().unwrap();
    let mut i = 0;
    while i < messages.len() {
        if messages[i]["role"] == "tool" {
            return false;
        }
        let mut ids: Vec<&str> = (messages[i]["tool_calls"].as_array().into_iter().flatten())
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        i += 1;
        let mut got = vec![];
        while i < messages.len() && messages[i]["role"] == "tool" {
            got.push(messages[i]["tool_call_id"].as_str().unwrap());
            i += 1;
        }
        ids.sort_unstable();
        got.sort_unstable();
        if ids != got {
            return false;
        }
    }
    true
}

proptest! {
    #[test]
    fn healing_pairs_every_call_and_twice_changes_nothing(messages in prop::collection::vec(arb_message(), 0..8)) {
        let text = json!({"model": "m", "tools": tools(), "messages": messages}).to_string();
        let once = Healer::new(None).heal(text.as_bytes()).unwrap();
        prop_assert!(paired(once.request()), "{}", once.to_text());
        for to in [Provider::OpenAi, Provider::Anthropic] {
            let moved = Healer::new(None).to(to).unwrap().heal(text.as_bytes()).unwrap();
            let back = Healer::new(None).to(Provider::OpenAi).unwrap().heal(moved.to_text().as_bytes()).unwrap();
            prop_assert!(paired(back.request()), "{}", back.to_text());
        }
        let twice = Healer::new(None).heal(once.to_text().as_bytes()).unwrap();
        prop_assert!(!twice.changed(), "{}\n{}", once.to_text(), twice.to_text());
    }

    #[test]
    fn anthropic_calls_and_results_anywhere_end_paired(messages in prop::collection::vec(arb_anthropic_message(), 0..6)) {
        let tools = json!([{"name": "read", "input_schema": {"type": "object",
            "properties": {"path": {"type": "string"}, "n": {"type": "integer"}}, "required": ["path"]}}]);
        let text = json!({"model": "m", "system": "s", "tools": tools, "messages": messages}).to_string();
        let once = Healer::new(None).heal(text.as_bytes()).unwrap();
        let twice = Healer::new(None).heal(once.to_text().as_bytes()).unwrap();
        prop_assert!(!twice.changed(), "{}\n{}", once.to_text(), twice.to_text());
        // Every call, wherever it was sent, answered once: seen through the
        // OpenAI shape, where each call's results follow its turn.
        let moved = Healer::new(None).to(Provider::OpenAi).unwrap().heal(text.as_bytes()).unwrap();
        prop_assert!(paired(moved.request()), "{}", moved.to_text());
        for m in once.request()["messages"].as_array().unwrap() {
            for b in m["content"].as_array().into_iter().flatten() {
                let want = if m["role"] == "user" { "tool_use" } else { "tool_result" };
                prop_assert!(b["type"] != want, "{}", once.to_text());
            }
        }
    }
}
