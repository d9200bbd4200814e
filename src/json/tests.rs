use super::*;
use proptest::prelude::*;

fn parse(bytes: &[u8]) -> serde_json::Result<Value> {
    parse_once(bytes).map(|(value, _)| value)
}

/// What serde_json's own parse makes of `bytes`, as text (key order and
/// number spellings included) or its error.
fn serde(bytes: &[u8]) -> Result<String, String> {
    serde_json::from_slice::<Value>(bytes)
        .map(|v| v.to_string())
        .map_err(|e| e.to_string())
}

fn ours(bytes: &[u8]) -> Result<String, String> {
    parse(bytes)
        .map(|v| v.to_string())
        .map_err(|e| e.to_string())
}

fn ours_str(bytes: &[u8]) -> Result<String, String> {
    let text = std::str::from_utf8(bytes).unwrap();
    parse_str(text)
        .map(|v| v.to_string())
        .map_err(|e| e.to_string())
}

/// Texts made of JSON's tokens, often valid, often not: duplicate keys,
/// every number spelling, escapes, lone surrogates, serde_json's private
/// number key.
fn text() -> impl Strategy<Value = Vec<u8>> {
    let token = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\n",
        "\"a\"",
        "\"b\"",
        "\"a\"",
        "\"\\u00e9\\n\"",
        "\"\\ud800\"",
        "\"\\ud83d\\ude00\"",
        "\"é\"",
        "0",
        "-0",
        "1.0",
        "1e2",
        "2E-3",
        "12345678901234567890123",
        "0.1000000000000000055511151231257827",
        "-1.5e+300",
        "1e400",
        "true",
        "false",
        "null",
        "\"$serde_json::private::Number\"",
        "\"12\"",
        "01",
        "\"\\x\"",
        "nul",
    ]);
    prop::collection::vec(token, 0..24).prop_map(|t| t.concat().into_bytes())
}

/// Valid JSON text whose objects name few keys, often one twice (`\u0061`
/// is `a` too).
fn few_keys() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop::sample::select(vec!["1", "\"x\"", "null", "[]", "{}"]).prop_map(str::to_owned);
    let text = leaf.prop_recursive(4, 32, 4, |inner| {
        let key = prop::sample::select(vec!["a", "b", "\\u0061", "a.b"]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec((key, inner), 0..4).prop_map(|members| {
                let members: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    });
    text.prop_map(String::into_bytes)
}

/// Valid JSON with nesting, built as a value and written out.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[^\u{0}]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(("[a-h]{0,2}", inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn token_soup_parses_as_serde_json_parses_it(bytes in text()) {
        prop_assert_eq!(ours(&bytes), serde(&bytes));
        prop_assert_eq!(ours_str(&bytes), serde(&bytes));
    }

    #[test]
    fn a_repeated_key_is_named_as_the_span_reader_names_it(
        bytes in prop_oneof![text(), few_keys()],
    ) {
        let Ok(text) = std::str::from_utf8(&bytes) else { return Ok(()) };
        let Ok((value, repeated)) = parse_str_once(text) else { return Ok(()) };
        let want = if repeated {
            Err(crate::span::Spanned::parse(text).repeated_key().unwrap())
        } else {
            Ok(value)
        };
        prop_assert_eq!(parse_str_unrepeated(text).unwrap(), want);
    }

    #[test]
    fn nested_values_parse_as_serde_json_parses_them(v in value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) };
        let bytes = text.unwrap().into_bytes();
        prop_assert_eq!(ours(&bytes), serde(&bytes));
    }
}

#[test]
fn the_same_depth_limit_and_the_same_errors() {
    for depth in [127, 128, 129, 10_000] {
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(ours(text.as_bytes()), serde(text.as_bytes()), "{depth}");
        let text = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
        assert_eq!(ours(text.as_bytes()), serde(text.as_bytes()), "{depth}");
    }
    for text in [
        &b"{\"a\":1,\"b\":2,\"a\":3}"[..],
        b"\xff",
        b"\"\xff\"",
        b"{} x",
        b"",
    ] {
        assert_eq!(ours(text), serde(text));
    }
    assert_eq!(ours(br#"{"b":1,"a":2,"b":3}"#).unwrap(), r#"{"b":3,"a":2}"#);
}

#[test]
fn a_key_named_twice_is_told() {
    let once = |t: &str| parse_str_once(t).unwrap().1;
    assert!(once(r#"{"a":1,"a":2}"#));
    assert!(once(r#"{"x":[{"b":{},"c":1,"b":{}}]}"#));
    assert!(!once(r#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#));
    // Not carried to the next parse, nor out of a failed one.
    assert!(!once(r#"{"a":1}"#));
    assert!(parse_str_once(r#"{"a":1,"a":2"#).is_err());
    assert!(!once(r#"{"a":1}"#));
    assert_eq!(
        parse_str_once(r#"{"a":1,"a":2}"#).unwrap().0.to_string(),
        r#"{"a":2}"#
    );
}

#[test]
fn the_first_difference_is_named_by_its_path() {
    let diff = |a: &str, b: &str| {
        first_difference(&parse(a.as_bytes()).unwrap(), &parse(b.as_bytes()).unwrap())
            .map(|path| path.join("."))
    };
    assert_eq!(
        diff(r#"{"a":1,"b":[1,{"c":2}]}"#, r#"{"a":1,"b":[1,{"c":3}]}"#).as_deref(),
        Some("b.1.c")
    );
    assert_eq!(diff(r#"{"a":1}"#, r#"{"a":1,"z":2}"#).as_deref(), Some("z"));
    assert_eq!(diff(r#"{"a":1,"z":2}"#, r#"{"a":1}"#).as_deref(), Some("z"));
    assert_eq!(diff(r#"[1,2]"#, r#"[1]"#).as_deref(), Some(""));
    assert_eq!(diff(r#"{"b":1,"a":2}"#, r#"{"a":2,"b":1}"#), None);
}

#[test]
fn first_wins_keeps_the_first_value_in_its_place() {
    let v = parse_first_wins(br#"{"b":1,"a":{"x":1,"x":2},"b":3}"#).unwrap();
    assert_eq!(v.to_string(), r#"{"b":1,"a":{"x":1}}"#);
    // The mode does not stay with the thread.
    assert_eq!(
        parse(br#"{"x":1,"x":2}"#).unwrap().to_string(),
        r#"{"x":2}"#
    );
}

#[test]
fn a_huge_record_does_not_keep_its_scratch() {
    let wide = format!("[{}1]", "1,".repeat(SCRATCH_KEPT * 2));
    assert!(parse(wide.as_bytes()).is_ok());
    let kept = SCRATCH.take();
    assert!(kept.items.capacity() <= SCRATCH_KEPT);
    let small = parse(b"[1,2,3]").unwrap();
    assert_eq!(small.to_string(), "[1,2,3]");
    assert!(SCRATCH.take().items.capacity() >= 3);
}

#[test]
fn pointer_segments_unescape_each_token_once() {
    assert_eq!(pointer_segments(""), Vec::<String>::new());
    assert_eq!(pointer_segments("/"), [""]);
    assert_eq!(pointer_segments("/offset/0"), ["offset", "0"]);
    assert_eq!(pointer_segments("/a~1b/c~0d"), ["a/b", "c~d"]);
    // `~01` is `~1` unescaped once, not `/`.
    assert_eq!(pointer_segments("/~01/~10"), ["~1", "/0"]);
}

proptest! {
    #[test]
    fn pointer_segments_undo_pointer_token(keys in proptest::collection::vec("[a~/0-1]{0,6}", 0..5)) {
        let pointer: String = keys.iter().map(|k| format!("/{}", pointer_token(k))).collect();
        prop_assert_eq!(pointer_segments(&pointer), keys);
    }
}
