use super::*;
use serde_json::json;

#[test]
fn schemas_in_memory_may_not_reach_files() {
    let tools = Toolset::from_schemas([(
        "t".to_owned(),
        json!({"properties": {"p": {"$ref": "/etc/passwd"}}}),
    )]);
    // A schema that cannot be used is the operator's error, told apart
    // from a call the model got wrong, in a session too.
    match tools.check("t", json!({"p": 1})) {
        Outcome::Broken { message } => assert!(message.contains("broken"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        tools.session(3).check_text("t", "{}"),
        Outcome::Broken { .. }
    ));
}

#[test]
fn a_session_checks_text_and_records_and_counts_them_together() {
    let tools = Toolset::from_schemas([("t".to_owned(), json!({"required": ["a"]}))]);
    let mut session = tools.session(3);
    let record = json!({"name": "t", "arguments": {}});
    assert!(
        session
            .check("t", json!({}))
            .message()
            .unwrap()
            .starts_with("Please")
    );
    assert!(
        session
            .check_text("t", "{}")
            .message()
            .unwrap()
            .starts_with("Please")
    );
    let third = session.check_record(record).unwrap();
    assert_eq!(third.len(), 1);
    let message = third[0].outcome.message().unwrap();
    assert!(message.starts_with("Stop retrying"), "{message}");
    assert!(session.check_record(json!({"a": 1})).is_err());
}

#[test]
fn tools_from_every_provider_list_shape() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "integer"}}});
    for list in [
        json!([{"type": "function", "function": {"name": "s", "parameters": schema}}]),
        json!([{"name": "s", "input_schema": schema}]),
        json!({"functionDeclarations": [{"name": "s", "parameters": schema}]}),
        json!({"tools": [{"name": "s", "inputSchema": schema}]}),
    ] {
        let tools = Toolset::from_tools(list.clone()).unwrap();
        assert_eq!(
            tools.check("s", json!({"q": "3"})),
            Outcome::Repaired {
                args: json!({"q": 3}),
                repairs: vec![Repair {
                    path: "q".into(),
                    kind: crate::kinds::Kind::CoerceNumber,
                    from: json!("3"),
                    to: json!(3),
                }]
            },
            "{list}"
        );
    }
    assert!(Toolset::from_tools(json!({"nope": 1})).is_none());
}

#[test]
fn a_record_in_any_envelope_and_a_session_that_stops_a_loop() {
    let tools = Toolset::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas")).unwrap();
    let record = json!({"role": "assistant", "content": [
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "t1", "name": "read", "input": {"file_path": "/a", "offset": "3"}},
        {"type": "tool_use", "id": "t2", "name": "read", "input": {}}
    ]});
    let checked = tools.check_record(record).unwrap();
    assert_eq!(checked.len(), 2);
    assert_eq!(
        (checked[0].id.clone(), checked[0].tool.as_str()),
        (json!("t1"), "read")
    );
    assert!(matches!(checked[0].outcome, Outcome::Repaired { .. }));
    assert!(matches!(checked[1].outcome, Outcome::Rejected { .. }));
    assert!(tools.check_record(json!({"a": 1})).is_err());
    // A toolset never escalates; a session does, on the third time.
    for _ in 0..3 {
        let Outcome::Rejected { message, .. } = tools.check("read", json!({})) else {
            panic!()
        };
        assert!(message.starts_with("Please rewrite"));
    }
    let mut session = tools.session(3);
    let messages: Vec<String> = (0..3)
        .map(|_| match session.check("read", json!({})) {
            Outcome::Rejected { message, .. } => message,
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(messages[1].starts_with("Please rewrite"));
    assert!(messages[2].starts_with("Stop retrying"), "{}", messages[2]);
}

#[test]
fn style_and_policy_reach_checks_and_sessions() {
    let tools = Toolset::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas"))
        .unwrap()
        .with_style(Style {
            prefix: "Fix:".to_owned(),
            max_errors: 1,
            max_chars: 100,
        })
        .with_policy(Policy {
            enabled: crate::kinds::Enabled::NONE,
            max_rounds: 6,
        });
    let wrong = json!({"file_path": "/a", "offset": "3", "limit": "x"});
    let rejected = |o: Outcome| match o {
        Outcome::Rejected { message, .. } => message,
        other => panic!("repaired under a policy with no repairs: {other:?}"),
    };
    let message = rejected(tools.check("read", wrong.clone()));
    assert!(message.starts_with("Fix:"), "{message}");
    assert!(message.contains("(+1 more)"), "{message}");
    let message = rejected(tools.session(3).check("read", wrong));
    assert!(message.starts_with("Fix:"), "{message}");
    // Repaired under the default policy; not under this one.
    let repairable = json!({"file_path": "/a", "offset": "3"});
    rejected(tools.check("read", repairable.clone()));
    rejected(tools.session(3).check("read", repairable));
}

#[test]
fn text_arguments_are_salvaged_and_unknown_tools_rejected() {
    let tools = Toolset::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas")).unwrap();
    match tools.check_text("glob", "```json\n{\"pattern\": \"*\"}\n```") {
        Outcome::Repaired { args, repairs } => {
            assert_eq!(args, json!({"pattern": "*"}));
            assert_eq!(repairs[0].kind.name(), "strip-fence");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        tools.check("nope", json!({})),
        Outcome::Rejected { .. }
    ));
}

/// What `Filter::bare` hands its sink.
#[derive(Default)]
struct Kept(Spellings, Vec<(Call, Verdict)>);

impl crate::Sink for Kept {
    fn begin_record(&mut self, spellings: Spellings) {
        self.0 = spellings;
    }

    fn call(&mut self, _: crate::Position, call: Call, verdict: Verdict) -> std::io::Result<()> {
        self.1.push((call, verdict));
        Ok(())
    }

    fn record(&mut self, _: crate::Position, _: Verdict) -> std::io::Result<()> {
        unreachable!("bare arguments are one call")
    }
}

#[test]
fn check_bare_is_what_the_filter_hands_its_sink_for_bare_arguments() {
    let tools = Toolset::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas")).unwrap();
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let big = format!(r#"{{"file_path": "{}"}}"#, "a".repeat(400));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("read", br#"{"file_path": "/a", "offset": 2}"#.to_vec()),
        ("read", br#"{"file_path": "/a", "offset": "2"}"#.to_vec()),
        (
            "read",
            br#"{"filePath": "/a", "offset": "2.0", "limit": 1e2}"#.to_vec(),
        ),
        (
            "read",
            br#"{"file_path": "/a", "offset": 12345678901234567890123}"#.to_vec(),
        ),
        ("read", b"```json\n{\"file_path\": \"/a\",}\n```".to_vec()),
        ("read", br#"{"file_path": "/a""#.to_vec()),
        ("read", b"".to_vec()),
        ("read", b"not json".to_vec()),
        ("read", br#"{}"#.to_vec()),
        ("read", br#"[1, 2]"#.to_vec()),
        ("read", br#""{\"file_path\": \"/a\"}""#.to_vec()),
        ("read", b"{\"file_path\": \"/\xff\"}".to_vec()),
        ("read", br#"{"file_path": "/a\ud800"}"#.to_vec()),
        ("read", deep.clone().into_bytes()),
        ("read", big.clone().into_bytes()),
        ("Read", br#"{"file_path": "/a"}"#.to_vec()),
        ("nope", br#"{"file_path": "/a"}"#.to_vec()),
        ("bash", br#"{"command": "ls", "timeout": "1e3"}"#.to_vec()),
        (
            "grep",
            br#"{"pattern": "fn", "-n": "true", "head_limit": "5"}"#.to_vec(),
        ),
        ("todowrite", br#"{"todos": "[{\"id\": \"1\"}]"}"#.to_vec()),
        (
            "edit",
            br#"{"file_path": "/a", "old_string": "a", "new_string": "a"}"#.to_vec(),
        ),
    ];
    for loop_limit in [0, 2] {
        let mut options = tools.options().clone();
        options.loop_limit = loop_limit;
        options.max_record_bytes = 300;
        let (mut slow, mut fast) = (Summary::default(), Summary::default());
        // Twice through: the second time, rejections repeat.
        for (tool, bytes) in cases.iter().chain(&cases) {
            let mut kept = Kept::default();
            tools
                .filter_with(&options)
                .bare(
                    crate::Input::from_bytes(bytes, "<in>"),
                    tool,
                    &mut kept,
                    &mut slow,
                )
                .unwrap();
            let one = tools.check_bare(&options, tool, bytes.clone(), "<in>", Some(&mut fast));
            let what = String::from_utf8_lossy(bytes);
            if loop_limit == 0 {
                // Without a summary: the same, nothing counted.
                let alone = tools.check_bare(&options, tool, bytes.clone(), "<in>", None);
                assert_eq!(kept.1, vec![(alone.call, alone.verdict)], "{tool} {what}");
                assert_eq!(kept.0, alone.spellings, "{tool} {what}");
            }
            assert_eq!(kept.1, vec![(one.call, one.verdict)], "{tool} {what}");
            assert_eq!(kept.0, one.spellings, "{tool} {what}");
            assert_eq!(
                (
                    slow.records(),
                    slow.total(),
                    slow.repairs(),
                    slow.schema_faults()
                ),
                (
                    fast.records(),
                    fast.total(),
                    fast.repairs(),
                    fast.schema_faults()
                )
            );
        }
    }
}
