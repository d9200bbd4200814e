mod unit {
    use super::super::diagnosis::{MAX_ERROR_CHARS, MAX_ERRORS};
    use super::super::{
        ArgError, DEFAULT_PREFIX, Style, breaks_lines, cut, instruction, invalid_json, join,
        loop_instruction, one_line, quote, reorders_text, repaired, short_json, unknown_tool,
        validation_errors,
    };
    use crate::registry::Tool;
    use serde_json::Value;
    use serde_json::json;

    fn tool(schema: Value) -> Tool {
        Tool::from_schema(schema)
    }

    fn lines_raw(schema: Value, args: Value) -> Vec<ArgError> {
        validation_errors(&tool(schema), &args)
    }

    fn lines(schema: Value, args: Value) -> Vec<String> {
        validation_errors(&tool(schema), &args)
            .iter()
            .map(ArgError::line)
            .collect()
    }

    fn read_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 1},
                "limit": {"type": "number", "maximum": 2000},
                "mode": {"enum": ["a", "b", "c"]},
            },
            "required": ["file_path"],
            "additionalProperties": false,
        })
    }

    #[test]
    fn the_example_from_the_brief() {
        let errors = validation_errors(&tool(read_schema()), &json!({"limit": "5"}));
        assert_eq!(
            instruction(&Style::default(), &errors),
            "Please rewrite the input with valid arguments. Errors: file_path: Required; limit: expected number, got string"
        );
    }

    #[test]
    fn required_then_type_then_rest_in_document_order() {
        let got = lines(
            read_schema(),
            json!({"mode": "d", "offset": 0, "limit": true, "extra": 1}),
        );
        assert_eq!(
            got,
            [
                "file_path: Required",
                "limit: expected number, got boolean",
                "mode: expected one of \"a\", \"b\", \"c\", got \"d\"",
                "offset: must be >= 1",
                "extra: unrecognized key (allowed: file_path, offset, limit, mode)",
            ]
        );
    }

    #[test]
    fn nested_paths_are_dotted() {
        let schema = json!({"type": "object", "properties": {"edits": {"type": "array",
            "items": {"type": "object", "required": ["path"],
                      "properties": {"path": {"type": "string", "minLength": 1}}}}}});
        assert_eq!(
            lines(schema, json!({"edits": [{"path": "a"}, {}, {"path": ""}]})),
            [
                "edits.1.path: Required",
                "edits.2.path: must be at least 1 character"
            ]
        );
    }

    #[test]
    fn root_errors_have_no_path() {
        assert_eq!(
            lines(read_schema(), json!("just text")),
            ["expected object, got string"]
        );
    }

    #[test]
    fn each_keyword_has_an_instruction() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 200, "pattern": "^[a-z]+$"},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "minItems": 1, "uniqueItems": true},
            "n": {"type": "integer", "exclusiveMaximum": 10, "multipleOf": 2},
            "k": {"const": "x"},
        }});
        let long = "a".repeat(201);
        assert_eq!(
            lines(
                schema.clone(),
                json!({"name": long, "when": "yesterday", "tags": []})
            ),
            [
                "name: must be at most 200 characters",
                "when: must be a valid date-time",
                "tags: must have at least 1 item(s)",
            ]
        );
        assert_eq!(
            lines(
                schema,
                json!({"name": "A1", "tags": [1, 1], "n": 11, "k": "y"})
            ),
            [
                "name: must match pattern ^[a-z]+$",
                "tags: must not contain duplicate items",
                "n: must be < 10",
                "n: must be a multiple of 2",
                "k: expected \"x\", got \"y\"",
            ]
        );
    }

    #[test]
    fn any_of_type_mismatch_becomes_one_line() {
        let schema = json!({"type": "object", "properties": {
            "target": {"anyOf": [{"type": "string"}, {"type": "array"}]}}});
        assert_eq!(
            lines(schema, json!({"target": 5})),
            ["target: expected string or array, got number"]
        );
    }

    #[test]
    fn one_of_picks_the_closest_branch() {
        let schema = json!({"type": "object", "properties": {"op": {"oneOf": [
            {"type": "object", "required": ["kind", "path"],
             "properties": {"kind": {"const": "delete"}, "path": {"type": "string"}}},
            {"type": "object", "required": ["kind", "path", "text"],
             "properties": {"kind": {"const": "write"}, "path": {"type": "string"},
                            "text": {"type": "string"}}},
        ]}}});
        assert_eq!(
            lines(schema, json!({"op": {"kind": "write", "path": "a"}})),
            ["op.text: Required"]
        );
    }

    #[test]
    fn any_of_consts_become_one_list() {
        let schema = json!({"anyOf": [{"const": "a"}, {"const": "b"}]});
        assert_eq!(
            lines(schema, json!("c")),
            ["expected one of \"a\", \"b\", got \"c\""]
        );
    }

    #[test]
    fn an_error_that_reads_like_the_count_is_not_taken_for_it() {
        // The count of left-out errors is data on the entry that carries it; an
        // error whose text merely reads like one is listed and counted as itself.
        let style = Style {
            max_errors: 1,
            ..Style::default()
        };
        let errors = [ArgError::root("a"), ArgError::root("(+7 more)")];
        assert_eq!(
            instruction(&style, &errors),
            format!("{DEFAULT_PREFIX} a; (+1 more)")
        );
    }

    #[test]
    fn instruction_truncates_each_error_and_counts_the_rest() {
        let errors: Vec<ArgError> = (0..8)
            .map(|i| ArgError::at(format!("p{i}"), "é".repeat(150)))
            .collect();
        let text = instruction(&Style::default(), &errors);
        assert!(text.ends_with("; (+3 more)"), "{text}");
        for part in text.split("; ").take(5) {
            let part = part
                .strip_prefix(DEFAULT_PREFIX)
                .map_or(part, str::trim_start);
            assert_eq!(part.chars().count(), 100, "{part}");
            assert!(part.ends_with('…'));
        }
    }

    #[test]
    fn errors_are_capped_and_the_rest_counted_in_json_and_in_the_instruction() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}});
        let args = json!({"a": vec![1; 20_000]});
        let errors = lines_raw(schema, args);
        assert_eq!(errors.len(), MAX_ERRORS + 1);
        assert_eq!(errors[0].line(), "a.0: expected string, got number");
        // The first 10,000 are read and ordered; all 20,000 are counted.
        assert_eq!(errors[MAX_ERRORS].line(), "(+19900 more)");
        let text = instruction(&Style::default(), &errors);
        assert!(
            text.ends_with("a.4: expected string, got number; (+19995 more)"),
            "{text}"
        );
    }

    #[test]
    fn a_huge_enum_is_not_listed_whole() {
        let options: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
        let schema = json!({"type": "object", "properties": {"e": {"enum": options}}});
        let errors = lines_raw(schema, json!({"e": "x"}));
        assert!(
            errors[0].message.chars().count() <= MAX_ERROR_CHARS,
            "{}",
            errors[0].message.len()
        );
    }

    #[test]
    fn cut_respects_character_boundaries() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "ab…");
        assert_eq!(cut("日本語テキスト", 4), "日本語…");
        assert_eq!(cut("", 0), "");
    }

    #[test]
    fn unknown_tool_lists_and_suggests() {
        assert_eq!(
            unknown_tool(
                &Style::default(),
                "todo_write",
                &[
                    "read".to_owned(),
                    "write".to_owned(),
                    "todowrite".to_owned()
                ],
                3,
                Some("todowrite")
            ),
            "Unknown tool \"todo_write\". Available tools: read, write, todowrite (did you mean \"todowrite\"?)"
        );
        let listed: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        let text = unknown_tool(&Style::default(), "x", &listed, 25, None);
        assert!(text.ends_with("t19 (+5 more)"), "{text}");
    }

    #[test]
    fn one_line_escapes_every_control_and_line_separator_visibly() {
        assert_eq!(
            one_line("a\nb\rc\td\u{1b}]0;x\u{7}e\u{7f}f\u{85}g\u{9b}h\u{2028}i\u{2029}j"),
            "a\\nb\\rc\\td\\u001b]0;x\\u0007e\\u007ff\\u0085g\\u009bh\\u2028i\\u2029j"
        );
        assert!(matches!(
            one_line("plain ✓ ü"),
            std::borrow::Cow::Borrowed(_)
        ));
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let said = one_line(c.encode_utf8(&mut [0; 4])).into_owned();
            assert!(
                !said.chars().any(|c| breaks_lines(c) || reorders_text(c)),
                "U+{:04X} -> {said:?}",
                u32::from(c)
            );
        }
        // A right-to-left override would show `evil` reversed, and the rest of
        // the line after it.
        assert_eq!(
            one_line("a\u{202e}live\u{2066}b\u{2069}\u{200f}"),
            "a\\u202elive\\u2066b\\u2069\u{200f}"
        );
    }

    #[test]
    fn names_in_messages_are_quoted_with_every_line_break_escaped() {
        // JSON leaves DEL, C1 and U+2028/2029 raw; a message never does.
        let name = "t\u{9b}\u{85}\u{2028}\u{2029}\u{7f}\n\u{1b}";
        assert_eq!(
            quote(name),
            "\"t\\u009b\\u0085\\u2028\\u2029\\u007f\\n\\u001b\""
        );
        let text = unknown_tool(&Style::default(), name, &[], 0, Some(name));
        assert!(!text.chars().any(breaks_lines), "{text}");
        let text = loop_instruction(&Style::default(), name, 3, &[ArgError::root("x")]);
        assert!(!text.chars().any(breaks_lines), "{text}");
        // The registry's names (an MCP server's) and the operator's prefix too.
        let listed = vec!["ok".to_owned(), "bad\u{2028}\nname".to_owned()];
        let text = unknown_tool(&Style::default(), "x", &listed, 2, None);
        assert!(text.ends_with(r"ok, bad\u2028\nname"), "{text}");
        let style = Style {
            prefix: "Fix:\n".into(),
            ..Style::default()
        };
        assert_eq!(instruction(&style, &[ArgError::root("x")]), r"Fix:\n x");
        // What a person approving a repair reads.
        let repair = crate::kinds::Repair {
            path: "a".into(),
            kind: crate::kinds::Kind::CoerceString,
            from: json!("\u{85}\u{7f}"),
            to: json!(1),
        };
        let text = repaired(&[repair]);
        assert!(!text.chars().any(breaks_lines), "{text}");
        let key = join("a", "k\u{2028}");
        assert_eq!(key, "a.\"k\\u2028\"");
    }

    #[test]
    fn a_repair_of_text_or_a_removal_shows_no_arrow_to_null() {
        let repair = |kind, from: Value, to: Value| crate::kinds::Repair {
            path: "a".into(),
            kind,
            from,
            to,
        };
        let text = repaired(&[
            repair(
                crate::kinds::Kind::ExtractFromText,
                json!("<tool_call>…"),
                Value::Null,
            ),
            repair(crate::kinds::Kind::DropPlaceholder, json!(""), Value::Null),
            repair(crate::kinds::Kind::CoerceNumber, json!("2"), json!(2)),
        ]);
        assert_eq!(
            text,
            "callfix repaired the input: a: \"<tool_call>…\" (extract-from-text); \
             a: \"\" removed (drop-placeholder); a: \"2\" → 2 (coerce-number)"
        );
    }

    #[test]
    fn invalid_json_says_where() {
        let err = serde_json::from_str::<Value>("{\"a\": 1,, }").unwrap_err();
        assert_eq!(
            invalid_json(&err).message,
            "arguments are not valid JSON: key must be a string at line 1 column 9"
        );
        let err = serde_json::from_str::<Value>("{\"command\":\"rm -rf /tmp/scra").unwrap_err();
        assert_eq!(
            invalid_json(&err).message,
            "arguments are incomplete JSON (cut off at line 1 column 28); send the complete arguments"
        );
    }

    #[test]
    fn short_json_never_renders_huge_values_whole() {
        let big = Value::String("x".repeat(10_000_000));
        let s = short_json(&big);
        assert_eq!(s.chars().count(), 40);
        assert!(s.ends_with('…'));
        assert_eq!(short_json(&json!([1, 2])), "[1,2]");
    }
}

mod properties {
    use super::super::cut;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn cut_is_bounded_and_a_prefix(s in "\\PC{0,300}", max in 1usize..150) {
            let c = cut(&s, max);
            prop_assert!(c.chars().count() <= max);
            if s.chars().count() <= max {
                prop_assert_eq!(&c, &s);
            } else {
                let kept = c.strip_suffix('…').unwrap();
                prop_assert!(s.starts_with(kept));
            }
        }
    }
}

mod positional {
    use super::super::name_the_arguments;

    #[test]
    fn the_instruction_to_name_the_arguments() {
        assert_eq!(
            name_the_arguments("read", (&["file_path"], false)).line(),
            r#"read: call the tool with named JSON arguments, e.g. {"file_path": …}"#
        );
        assert_eq!(
            name_the_arguments("copy", (&["from", "to", "mode"], true)).line(),
            r#"copy: call the tool with named JSON arguments, e.g. {"from": …, "to": …, "mode": …, …}"#
        );
        // A name is written as a JSON string, on one line; no parameter, `{}`.
        let odd = name_the_arguments("t", (&["a\"b\nc"], false));
        assert!(
            odd.message.ends_with(r#"e.g. {"a\"b\nc": …}"#),
            "{}",
            odd.message
        );
        assert!(
            name_the_arguments("t", (&[], false))
                .message
                .ends_with("e.g. {}")
        );
    }
}
