use serde_json::{Value, json};

use super::*;
use crate::provider::leak::Written;
use crate::provider::{Leak, bare_call};

fn registry() -> Registry {
    let object = |props: Value, required: Value| json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
    Registry::from_schemas([
        (
            "read".to_owned(),
            object(
                json!({"file_path": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}}),
                json!(["file_path"]),
            ),
        ),
        (
            "ping".to_owned(),
            object(json!({"host": {"type": "string"}}), json!([])),
        ),
        (
            "copy".to_owned(),
            object(
                json!({"from": {"type": "string"}, "to": {"type": "string"}}),
                json!(["from", "to"]),
            ),
        ),
        (
            "note".to_owned(),
            object(
                json!({"text": {"type": "string"}, "tags": {"type": "array"}}),
                json!([]),
            ),
        ),
    ])
}

/// A call to `tool` leaked into text, with `named` arguments and `positional`
/// values, as a call-notation reader gives it.
fn leaked(tool: &str, named: Value, positional: Vec<Value>) -> Call {
    let mut call = bare_call(tool, String::new());
    call.args = Args::Value(named);
    call.args_as_text = false;
    call.leaked = Some(Leak {
        markup: format!("{tool}(…)"),
        family: "pythonic",
        written: Written {
            untyped: Vec::new(),
            positional,
        },
    });
    call
}

fn judged(call: &mut Call, policy: Policy) -> Verdict {
    let mut verdict = judge(&registry(), call, policy);
    verdict.finish(&message::Style::default(), &call.name.clone());
    verdict
}

fn kinds(v: &Verdict) -> Vec<&'static str> {
    v.repairs.iter().map(|r| r.kind.name()).collect()
}

#[test]
fn one_value_by_position_is_named_where_the_schema_says_which_it_is() {
    // The one required parameter not named.
    let mut call = leaked("read", json!({"limit": 3}), vec![json!("/src/main.rs")]);
    let v = judged(&mut call, Policy::default());
    assert_eq!(v.status, Status::Repaired, "{:?}", v.message);
    assert_eq!(
        v.args(),
        Some(&json!({"file_path": "/src/main.rs", "limit": 3}))
    );
    // Placed first, as it was written.
    let keys: Vec<&String> = v.args().unwrap().as_object().unwrap().keys().collect();
    assert_eq!(keys, ["file_path", "limit"]);
    assert_eq!(kinds(&v), ["extract-from-text", "name-arguments"]);
    let named = &v.repairs[1];
    assert_eq!(
        (named.path.as_str(), &named.from, &named.to),
        ("file_path", &json!("/src/main.rs"), &json!("/src/main.rs"))
    );
    // The tool's only parameter, required or not.
    let mut call = leaked("ping", json!({}), vec![json!("example.com")]);
    let v = judged(&mut call, Policy::default());
    assert_eq!(v.args(), Some(&json!({"host": "example.com"})));
    // A positional value keeps its own type (the schema judges it).
    let mut call = leaked("ping", json!({}), vec![json!(7)]);
    let v = judged(&mut call, Policy::default());
    assert_eq!(v.status, Status::Rejected);
    assert_eq!(v.errors[0].line(), "host: expected string, got number");
}

#[test]
fn values_by_position_with_more_than_one_reading_are_rejected_with_an_instruction() {
    let named = "Please rewrite the input with valid arguments. Errors: ";
    for (tool, args, positional, example) in [
        // Two values.
        (
            "read",
            json!({}),
            vec![json!("/a"), json!(3)],
            r#"{"file_path": …}"#,
        ),
        // The required parameter already named: an optional one of two.
        (
            "read",
            json!({"file_path": "/a"}),
            vec![json!(3)],
            r#"{"file_path": …}"#,
        ),
        // Two required parameters missing.
        (
            "copy",
            json!({}),
            vec![json!("/a")],
            r#"{"from": …, "to": …}"#,
        ),
        // Nothing required, two declared.
        (
            "note",
            json!({}),
            vec![json!("hi")],
            r#"{"text": …, "tags": …}"#,
        ),
        // The only parameter already named.
        (
            "ping",
            json!({"host": "a"}),
            vec![json!("b")],
            r#"{"host": …}"#,
        ),
    ] {
        let mut call = leaked(tool, args.clone(), positional.clone());
        let v = judged(&mut call, Policy::default());
        assert_eq!(v.status, Status::Rejected, "{tool} {args} {positional:?}");
        assert_eq!(
            v.message.as_deref(),
            Some(
                format!("{named}{tool}: call the tool with named JSON arguments, e.g. {example}")
                    .as_str()
            ),
        );
        // The call as written, to know a repeat by and to show in a history.
        assert_eq!(v.raw.as_deref(), Some(format!("{tool}(…)").as_str()));
        assert_eq!(v.args(), None);
    }
    // Turned off, even the one reading is not taken.
    let mut call = leaked("read", json!({}), vec![json!("/a")]);
    let policy = Policy {
        enabled: crate::kinds::Enabled::parse("extract-from-text").unwrap(),
        ..Policy::default()
    };
    let v = judged(&mut call, policy);
    assert_eq!(v.status, Status::Rejected);
    assert!(v.message.unwrap().ends_with(r#"e.g. {"file_path": …}"#));
}

#[test]
fn untyped_text_is_typed_and_json_values_are_not() {
    let mut call = leaked(
        "read",
        json!({"file_path": "02134", "offset": "2", "limit": "3"}),
        Vec::new(),
    );
    if let Some(leak) = &mut call.leaked {
        leak.written.untyped = vec!["file_path".into(), "limit".into()];
    }
    let v = judged(&mut call, Policy::default());
    // `offset` was written as a JSON string: the rule types it, reported.
    assert_eq!(
        v.args(),
        Some(&json!({"file_path": "02134", "offset": 2, "limit": 3}))
    );
    assert_eq!(kinds(&v), ["extract-from-text", "coerce-number"]);
    assert_eq!(v.repairs[1].path, "offset");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Whatever the text of a string parameter, the judged call holds it byte
    /// for byte.
    #[test]
    fn any_text_of_a_string_parameter_comes_out_as_it_went_in(
        text in proptest::prop_oneof![
            proptest::prelude::any::<String>(),
            "-?[0-9]{1,8}(\\.[0-9]{1,3})?",
            "(true|True|false|False|None|null|\\[\\]|\\{\\})",
        ],
    ) {
        let mut call = leaked("read", json!({"file_path": text, "limit": "3"}), Vec::new());
        if let Some(leak) = &mut call.leaked {
            leak.written.untyped = vec!["file_path".into(), "limit".into()];
        }
        let v = judged(&mut call, Policy::default());
        proptest::prop_assert_eq!(v.status, Status::Repaired);
        proptest::prop_assert_eq!(v.args(), Some(&json!({"file_path": text, "limit": 3})));
        proptest::prop_assert_eq!(kinds(&v), ["extract-from-text"]);
    }
}

/// Arguments kept as text compare by their values, as `Value`s do: key
/// order is no difference, and a kept text equals the value it stands for.
#[test]
fn arguments_compare_by_value_however_kept() {
    let a = Arguments::sent(r#"{"a":1,"b":2}"#.to_owned());
    let b = Arguments::sent(r#"{"b":2,"a":1}"#.to_owned());
    assert_eq!(a, b);
    assert_eq!(a, Arguments::Value(json!({"a": 1, "b": 2})));
    assert_ne!(a, Arguments::sent(r#"{"a":1,"b":3}"#.to_owned()));
}
