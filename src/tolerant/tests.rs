use super::*;
use serde_json::json;

fn ok(text: &str) -> (Value, Vec<&'static str>) {
    let (v, used) = parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    (v, used.names())
}

#[test]
fn strict_json_needs_no_leniency() {
    let text = r#"{"a": [1, -2.5e3, "x\u00e9\ud83d\ude00\n"], "b": {"c": null, "d": true}}"#;
    let (v, used) = ok(text);
    assert_eq!(v, serde_json::from_str::<Value>(text).unwrap());
    assert!(used.is_empty());
}

#[test]
fn the_mastra_and_kimi_cases() {
    assert_eq!(ok(r#"{"a":1,}"#), (json!({"a": 1}), vec!["trailing comma"]));
    assert_eq!(
        ok(r#"{command:"ls"}"#),
        (json!({"command": "ls"}), vec!["unquoted key"])
    );
    assert_eq!(
        ok(r#"{'key':'val'}"#),
        (json!({"key": "val"}), vec!["single quotes"])
    );
    assert_eq!(
        ok("{'paths': ['app.py', 'b.py',],}"),
        (
            json!({"paths": ["app.py", "b.py"]}),
            vec!["trailing comma", "single quotes"]
        )
    );
}

#[test]
fn python_literals_only_outside_strings() {
    assert_eq!(
        ok("{'theme': 'dark', 'size': 14, 'on': True, 'x': None, 's': 'True'}"),
        (
            json!({"theme": "dark", "size": 14, "on": true, "x": null, "s": "True"}),
            vec!["single quotes", "Python literal"]
        )
    );
}

#[test]
fn comments() {
    assert_eq!(
        ok("{\n  // the file\n  \"a\": 1, /* two */ \"b\": 2\n}"),
        (json!({"a": 1, "b": 2}), vec!["comment"])
    );
    assert_eq!(ok(r#"{"url": "http://x//y"}"#).1, Vec::<&str>::new());
}

#[test]
fn quotes_inside_other_quotes() {
    assert_eq!(
        ok(r#"{'say': "it's", 'q': 'a \'b\' "c"'}"#).0,
        json!({"say": "it's", "q": "a 'b' \"c\""})
    );
}

#[test]
fn truncated_text_is_never_completed() {
    for text in [
        r#"{"command":"rm -rf /tmp/scra"#,
        r#"{"command":"#,
        r#"{"a":[1,2"#,
        r#"{"a":1,"#,
        r#"{"a":tr"#,
        r#"{"a":12"#,
        r#"{"a":"\u00"#,
        "{'a': 'b' /* open",
        "",
        "  ",
    ] {
        assert_eq!(parse(text), Err(Failure::Truncated), "{text:?}");
    }
}

#[test]
fn dangling_key_is_invalid_not_null() {
    assert!(matches!(
        parse(r#"{"command":}"#),
        Err(Failure::Invalid { .. })
    ));
}

#[test]
fn what_json5_would_allow_but_we_do_not() {
    for text in [
        "{a: NaN}",
        "{a: 0x10}",
        "{a: .5}",
        "{a: +1}",
        "{a: 01}",
        "{a: Infinity}",
        "[1,,2]",
        "{a: {1, 2}}",
    ] {
        assert!(
            matches!(parse(text), Err(Failure::Invalid { .. })),
            "{text}"
        );
    }
}

#[test]
fn trailing_values_are_reported() {
    assert_eq!(
        parse(r#"{"a":1} {"a":1}"#),
        Err(Failure::Trailing { at: 8 })
    );
    let (v, _, end) = parse_prefix(r#"{"a":1}{"b":2}"#).unwrap();
    assert_eq!((v, end), (json!({"a": 1}), 7));
}

#[test]
fn a_key_named_twice_is_no_reading() {
    // Which value a reader keeps (first, last, an error) is the reader's:
    // neither is taken. The path is the first repeat's, in text order.
    for (text, at, path) in [
        (r#"{'path': 'a', 'path': 'b'}"#, 26, "path"),
        (r#"{"a": 1, a: 2,}"#, 15, "a"),
        (
            r#"{"x": [{"k": 1}, {"k": 1, "k": 1}], "x": 0}"#,
            43,
            "x.1.k",
        ),
        (r#"{"x": {"k": 1, "k": 2}, "x": 0}"#, 31, "x.k"),
        (r#"{"x": 0, "x": {"k": 1, "k": 2}}"#, 31, "x"),
        (r#"[{"a": {"b": 1, "b": 1}}]"#, 25, "0.a.b"),
    ] {
        let path = path.to_owned();
        assert_eq!(
            parse(text),
            Err(Failure::Repeated {
                at,
                path: path.clone()
            }),
            "{text}"
        );
        assert_eq!(
            parse_prefix(&format!("{text} more")),
            Err(Failure::Repeated { at, path }),
            "{text}"
        );
    }
    // The same key in different objects is no repeat.
    assert!(parse(r#"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#).is_ok());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    // Issue 25: every recursive reader has a depth limit. 100,000 levels of
    // each container and leniency, on a thread with a quarter of a worker's stack (the
    // limit, not the stack, bounds the recursion).
    let n = 100_000;
    let texts = [
        format!("{}{}", "[".repeat(n), "]".repeat(n)),
        format!("{}1{}", "{a: ".repeat(n), "}".repeat(n)),
        format!("{}1{}", "{'a': [".repeat(n), "]}".repeat(n)),
        "[".repeat(n),
    ];
    let small = std::thread::Builder::new().stack_size(512 * 1024);
    let got = small
        .spawn(move || texts.iter().map(|t| parse(t)).collect::<Vec<_>>())
        .unwrap()
        .join()
        .unwrap();
    for g in got {
        assert_eq!(
            g,
            Err(Failure::Invalid {
                at: match g {
                    Err(Failure::Invalid { at, .. }) => at,
                    _ => 0,
                },
                what: "nesting deeper than 128"
            })
        );
    }
    // 128 levels are read.
    let text = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(parse(&text).is_ok());
    let text = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    assert!(parse(&text).is_err());
}
