use super::*;
use crate::output::{Format, Position, Printer, Sink};
use crate::spelling::Spellings;
use proptest::prelude::*;

fn reads(text: &str) -> Option<(Value, bool)> {
    read(text).map(|r| (to_value(&r.value), r.compact))
}

#[test]
fn the_plain_subset_is_read_and_everything_else_is_left() {
    let accepted = [
        (r#"{"a":1}"#, true),
        (
            r#" { "a" : [ -12 , 0 , true , null , "x\n\"\\" ] } "#,
            false,
        ),
        (r#"{"é":"€\t\b\f\r","b":{}}"#, true),
        ("[]", true),
        ("123456789012345", true),
        (r#""""#, true),
    ];
    for (text, compact) in accepted {
        let (value, was_compact) = reads(text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(value, crate::json::parse_str(text).unwrap(), "{text}");
        assert_eq!(was_compact, compact, "{text}");
    }
    let declined = [
        "",
        " ",
        "1.5",
        "1e2",
        "-0",
        "01",
        "1234567890123456",
        r#""\/""#,
        r#""\u0041""#,
        "\"a\u{1}\"",
        "\"\u{85}\"",
        "\"\u{2028}\"",
        r#"{"a":1,"a":2}"#,
        r#"{"$serde_json::private::Number":"12"}"#,
        r#"{"n":{"$serde_json::private::Number":"5"}}"#,
        r#"{"a":1,}"#,
        "[1,]",
        "[1] [2]",
        "nul",
        "{'a':1}",
        r#"{"a" 1}"#,
    ];
    for text in declined {
        assert!(read(text).is_none(), "{text:?}");
    }
}

#[test]
fn limits_leave_deep_and_wide_values_to_the_full_path() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(read(&deep(MAX_DEPTH)).is_some());
    assert!(read(&deep(MAX_DEPTH + 1)).is_none());
    let wide = |n: usize| {
        let members: Vec<String> = (0..n).map(|i| format!("\"k{i}\":{i}")).collect();
        format!("{{{}}}", members.join(","))
    };
    assert!(read(&wide(MAX_MEMBERS)).is_some());
    assert!(read(&wide(MAX_MEMBERS + 1)).is_none());
}

#[test]
fn compact_drops_only_the_space_between_tokens() {
    assert_eq!(
        compact("{ \"a b\" :\n [ 1 ,\t\"\\\" x\" ] }"),
        "{\"a b\":[1,\"\\\" x\"]}"
    );
}

#[test]
fn references_to_sibling_files_resolve_as_the_full_path_resolves_them() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "a.json",
        r#"{"type": "object", "properties": {"v": {"$ref": "defs/b.json#/$defs/n"}}}"#,
    );
    std::fs::create_dir(dir.path().join("defs")).unwrap();
    write(
        "defs/b.json",
        r#"{"$defs": {"n": {"type": "integer", "minimum": 2}}}"#,
    );
    let registry = crate::registry::Registry::load(&[dir.path().to_owned()]).unwrap();
    let tools = crate::Toolset::new(registry);
    let options = crate::Options::default();
    assert_eq!(
        tools.valid_as_sent(&options, "a", r#"{"v": 3}"#).as_deref(),
        Some(r#"{"v":3}"#)
    );
    for invalid in [r#"{"v": 1}"#, r#"{"v": "3"}"#] {
        assert_eq!(
            tools.valid_as_sent(&options, "a", invalid),
            None,
            "{invalid}"
        );
        let full = tools.check_bare(&options, "a", invalid.into(), "<in>", None);
        assert_ne!(
            full.verdict.status(),
            crate::verdict::Status::Valid,
            "{invalid}"
        );
    }
    // An unknown or misspelt name is the full path's to answer.
    assert_eq!(tools.valid_as_sent(&options, "A", r#"{"v": 3}"#), None);
}

#[test]
fn enum_and_const_compare_as_the_full_path_does() {
    use serde_json::json;
    let cases = [
        (json!({"enum": [1.0]}), "1", true),
        (json!({"const": -12.0}), "-12", true),
        (json!({"const": 1e2}), "100", true),
        (json!({"const": 100.5}), "100", false),
        (json!({"enum": [[0], [1]]}), "[1]", true),
        (json!({"enum": [[0], [1]]}), "[2]", false),
        (json!({"enum": [[0], [1]]}), "[1, 1]", false),
        (
            json!({"const": {"b": 2, "a": 1.0}}),
            r#"{"a": 1, "b": 2}"#,
            true,
        ),
        (
            json!({"const": {"b": 2, "a": 1}}),
            r#"{"a": 1, "c": 2}"#,
            false,
        ),
        (json!({"const": {"a": 1}}), r#"{"a": 1, "b": 2}"#, false),
        (json!({"const": "é\n"}), r#""é\n""#, true),
    ];
    let options = crate::Options {
        loop_limit: 0,
        ..crate::Options::default()
    };
    for (schema, text, valid) in cases {
        let tools = crate::Toolset::from_schemas([("t".to_owned(), schema.clone())]);
        let full = tools.judged_fully(&options, "t", text);
        let full_valid = full.status() == crate::verdict::Status::Valid;
        assert_eq!(full_valid, valid, "the full path: {schema} {text}");
        let fast = tools.valid_as_sent(&options, "t", text);
        assert_eq!(fast.is_some(), valid, "the shortcut: {schema} {text}");
        // `check_bare` takes the shortcut first: the same verdict.
        let short = tools.check_bare(&options, "t", text.into(), "<in>", None);
        assert_eq!(short.verdict.status(), full.status(), "{schema} {text}");
        assert_eq!(short.verdict.args(), full.args(), "{schema} {text}");
    }
}

/// The surfaces take the shortcut first: a call valid as sent keeps its
/// compact text, and its value is built only when read.
#[test]
fn a_call_valid_as_sent_keeps_its_text() {
    let schema = serde_json::json!({"properties": {"a": {"type": "integer"}}});
    let tools = crate::Toolset::from_schemas([("t".to_owned(), schema)]);
    let options = crate::Options::default();
    let one = tools.check_bare(&options, "t", br#"{"a": 1}"#.to_vec(), "<in>", None);
    let args = one.verdict.args.as_ref();
    assert_eq!(args.and_then(|a| a.text()), Some(r#"{"a":1}"#));
    assert_eq!(one.verdict.args(), Some(&serde_json::json!({"a": 1})));
    // Not valid: a value, repaired.
    let one = tools.check_bare(&options, "t", br#"{"a": "1"}"#.to_vec(), "<in>", None);
    assert_eq!(one.verdict.args.as_ref().and_then(|a| a.text()), None);
    assert_eq!(one.verdict.args(), Some(&serde_json::json!({"a": 1})));
}

/// The result `format` writes for `verdict` (on a record, no call), its
/// record's number spellings `spellings`.
fn written(format: Format, spellings: &Spellings, verdict: &crate::verdict::Verdict) -> String {
    let mut printer = Printer::new(Vec::new(), format);
    Sink::begin_record(&mut printer, spellings.clone());
    let at = Position {
        index: 0,
        call: 0,
        line: 1,
        offset: 0,
    };
    printer.record(at, verdict).unwrap();
    String::from_utf8(printer.into_inner()).unwrap()
}

/// Near-plain JSON text: mostly the subset, now and then one of its edges
/// (numbers, escapes and characters it leaves, keys named twice, a broken
/// token).
pub(crate) fn near_plain_json() -> impl Strategy<Value = String> {
    let space = prop::sample::select(vec!["", "", "", " ", "\n", "\t ", "\r\n"]);
    let number = prop_oneof![
        8 => prop::sample::select(vec!["0", "7", "-12", "123456789012345", "-123456789012345"]),
        1 => prop::sample::select(vec![
            "-0", "007", "1234567890123456", "9007199254740993", "1.5", "1.0", "1e2", "2E-1", "-",
        ]),
    ];
    let piece = prop_oneof![
        12 => prop::sample::select(vec![
            "a", "é", " ", "\\n", "\\\"", "\\\\", "\\t", "\\b", "\\f", "\\r", "x", "\u{7f}", "\u{a0}", "…", "€",
        ]),
        1 => prop::sample::select(vec![
            "\\/", "\\u0041", "\\ud800", "\u{85}", "\u{2028}", "\u{2029}", "\t", "\\q",
        ]),
    ];
    let string = prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()));
    let key = prop::sample::select(vec![
        "\"a\"",
        "\"b\"",
        "\"x\"",
        "\"é\"",
        "\"a\\n\"",
        "\"$serde_json::private::Number\"",
    ]);
    let leaf = prop_oneof![
        3 => number.prop_map(str::to_owned),
        3 => string,
        2 => prop::sample::select(vec!["true", "false", "null"]).prop_map(str::to_owned),
        1 => prop::sample::select(vec!["nul", "{\"a\":1,}", "[1,]", "{\"a\" 1}"]).prop_map(str::to_owned),
    ];
    let inner = leaf.prop_recursive(4, 24, 4, move |inner| {
        let item = (space.clone(), inner.clone(), space.clone())
            .prop_map(|(a, v, b)| format!("{a}{v}{b}"));
        let member = (
            space.clone(),
            key.clone(),
            space.clone(),
            inner,
            space.clone(),
        )
            .prop_map(|(a, k, b, v, c)| format!("{a}{k}{b}:{v}{c}"));
        prop_oneof![
            prop::collection::vec(item, 0..4).prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec(member, 0..4)
                .prop_map(|members| format!("{{{}}}", members.join(","))),
        ]
    });
    (prop::sample::select(vec!["", "", " ", "\n"]), inner).prop_map(|(a, v)| format!("{a}{v}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// What the tape reads, callfix's parser reads the same (no key named
    /// twice), and the compact text is what callfix writes for that value.
    #[test]
    fn what_the_tape_reads_parses_the_same_and_writes_back_compact(text in near_plain_json()) {
        if let Some(read) = read(&text) {
            let (value, repeated) = crate::json::parse_str_once(&text).unwrap();
            prop_assert!(!repeated);
            prop_assert_eq!(&to_value(&read.value), &value);
            let written = Spellings::scan(text.as_bytes()).to_text(&value);
            let expected = if read.compact { text.clone() } else { compact(&text) };
            prop_assert_eq!(written, expected);
        }
    }
}

/// Schemas from the keywords that read numbers, strings, arrays and objects
/// differently, nested, in three drafts.
fn schema() -> impl Strategy<Value = Value> {
    use serde_json::json;
    let leaf = prop::sample::select(vec![
        json!({}),
        json!(true),
        json!(false),
        json!({"type": "integer"}),
        json!({"type": "number"}),
        json!({"type": "string"}),
        json!({"type": "boolean"}),
        json!({"type": "null"}),
        json!({"type": ["integer", "string"]}),
        json!({"type": "object"}),
        json!({"type": "array"}),
        json!({"minimum": 7}),
        json!({"maximum": -12.5}),
        json!({"exclusiveMinimum": 0}),
        json!({"exclusiveMaximum": 7}),
        json!({"multipleOf": 2}),
        json!({"multipleOf": 0.5}),
        json!({"multipleOf": 1e-15}),
        json!({"maximum": 123456789012344_i64}),
        json!({"enum": [7, "a", null, 1.0, 0.0]}),
        json!({"enum": [[7], {"a": 7}, {"a": "é"}]}),
        json!({"const": 0}),
        json!({"const": -12.0}),
        json!({"const": {"b": true, "a": 7}}),
        json!({"minLength": 2}),
        json!({"maxLength": 1}),
        json!({"pattern": "^a"}),
        json!({"pattern": "\\n"}),
        json!({"format": "email"}),
        json!({"format": "date"}),
        json!({"minItems": 2}),
        json!({"maxItems": 1}),
        json!({"uniqueItems": true}),
        json!({"minProperties": 1}),
        json!({"maxProperties": 1}),
        json!({"required": ["a"]}),
        json!({"required": ["a\n"]}),
        json!({"propertyNames": {"maxLength": 1}}),
        json!({"dependentRequired": {"a": ["b"]}}),
        json!({"$ref": "#/$defs/d"}),
    ]);
    let tree = leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| json!({"properties": {"a": a, "é": b}})),
            (inner.clone(), any::<bool>()).prop_map(
                |(a, closed)| json!({"properties": {"a": a}, "additionalProperties": !closed})
            ),
            inner
                .clone()
                .prop_map(|a| json!({"additionalProperties": a})),
            inner.clone().prop_map(|a| json!({"items": a})),
            inner
                .clone()
                .prop_map(|a| json!({"prefixItems": [a], "items": false})),
            inner
                .clone()
                .prop_map(|a| json!({"contains": a, "minContains": 2})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({"anyOf": [a, b]})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({"oneOf": [a, b]})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({"allOf": [a, b]})),
            inner.clone().prop_map(|a| json!({"not": a})),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| json!({"if": a, "then": b, "else": c})),
            inner.clone().prop_map(
                |a| json!({"allOf": [{"properties": {"a": a}}], "unevaluatedProperties": false})
            ),
            inner
                .clone()
                .prop_map(|a| json!({"patternProperties": {"^x": a}})),
        ]
    });
    let draft = prop::sample::select(vec![
        None,
        Some("http://json-schema.org/draft-07/schema#"),
        Some("http://json-schema.org/draft-04/schema#"),
    ]);
    let defs = prop::sample::select(vec![
        serde_json::json!({"type": "integer", "minimum": 0}),
        serde_json::json!({"properties": {"a": {"$ref": "#/$defs/d"}}}),
    ]);
    (tree, draft, defs).prop_map(|(mut schema, draft, defs)| {
        if let Value::Object(map) = &mut schema {
            map.insert("$defs".into(), serde_json::json!({"d": defs}));
            if let Some(draft) = draft {
                map.insert("$schema".into(), Value::String(draft.to_owned()));
            }
        }
        schema
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// On the text the tape reads, its verdict is the full path's: a call is
    /// valid as sent by the shortcut exactly when the full path (parse,
    /// validate, salvage, repair) says valid, and the arguments' text is the
    /// one a result writes. `check_bare`, which takes the shortcut first,
    /// gives the full path's verdict and writes the same result.
    #[test]
    fn the_shortcut_answers_valid_exactly_when_the_full_path_does(
        schema in schema(),
        text in near_plain_json(),
    ) {
        let tools = crate::Toolset::from_schemas([("t".to_owned(), schema)]);
        let options = crate::Options { loop_limit: 0, ..crate::Options::default() };
        let fast = tools.valid_as_sent(&options, "t", &text).map(|c| c.into_owned());
        let full = tools.judged_fully(&options, "t", &text);
        let valid = full.status() == crate::verdict::Status::Valid;
        let spellings = Spellings::scan(text.as_bytes());
        match &fast {
            Some(args) => {
                prop_assert!(valid, "{:?}", full);
                let written = spellings.to_text(full.args().unwrap());
                prop_assert_eq!(args, &written);
            }
            None => prop_assert!(!(valid && read(&text).is_some()), "the tape read it; the full path says valid"),
        }
        let short = tools.check_bare(&options, "t", text.clone().into_bytes(), "<in>", None);
        prop_assert_eq!(short.verdict.status(), full.status());
        prop_assert_eq!(short.verdict.args(), full.args());
        prop_assert_eq!(short.verdict.repairs(), full.repairs());
        prop_assert_eq!(short.verdict.errors(), full.errors());
        prop_assert_eq!(short.verdict.class, full.class);
        prop_assert_eq!(&short.verdict.raw, &full.raw);
        if valid {
            for format in [Format::Args, Format::Json] {
                prop_assert_eq!(
                    written(format, &short.spellings, &short.verdict),
                    written(format, &spellings, &full)
                );
            }
        }
    }
}
