//! Exactness: what passes through comes out as it came in (issue 9).

use crate::{callfix, write};

const NUMBERS: &str = r#"{"a":1.0,"b":1e2,"c":-0.0,"d":1234567890123456789012345,"e":0.100000000000000005551115123125782702,"f":2E-3}"#;

fn numbers_schema() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "n.json",
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"c":{"type":"number"},"d":{"type":"integer"},"e":{"type":"number"},"f":{"type":"number"},"s":{"type":"string","pattern":"^-?[0-9.]+$"}},"additionalProperties":false}"#,
    );
    dir
}

fn run(dir: &tempfile::TempDir, args: &[&str], stdin: String) -> String {
    let out = callfix()
        .arg("-s")
        .arg(dir.path())
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn valid_numbers_keep_their_text_in_every_format() {
    let dir = numbers_schema();
    let generic = format!(r#"{{"name":"n","arguments":{NUMBERS}}}"#);
    let openai = format!(
        r#"{{"id":"c1","type":"function","function":{{"name":"n","arguments":{}}}}}"#,
        serde_json::to_string(NUMBERS).unwrap()
    );
    let anthropic = format!(r#"{{"type":"tool_use","id":"t1","name":"n","input":{NUMBERS}}}"#);
    for input in [&generic, &openai, &anthropic] {
        // args: the arguments themselves.
        assert_eq!(
            run(&dir, &["-f", "args"], input.clone()),
            format!("{NUMBERS}\n")
        );
        // json: inside the result object.
        let json = run(&dir, &["-f", "json"], input.clone());
        assert!(json.contains(&format!(r#""args":{NUMBERS}"#)), "{json}");
        // call, in its own envelope and converted: as an object or as text.
        let call = run(&dir, &["-f", "call"], input.clone());
        let escaped = serde_json::to_string(NUMBERS).unwrap();
        assert!(call.contains(NUMBERS) || call.contains(&escaped), "{call}");
        let to_anthropic = run(&dir, &["-f", "call", "--to", "anthropic"], input.clone());
        assert!(
            to_anthropic.contains(&format!(r#""input":{NUMBERS}"#)),
            "{to_anthropic}"
        );
        for to in ["openai", "mistral", "openai-responses"] {
            let out = run(&dir, &["-f", "call", "--to", to], input.clone());
            assert!(
                out.contains(&format!(r#""arguments":{escaped}"#)),
                "{to}: {out}"
            );
        }
        for to in ["gemini", "mcp"] {
            let out = run(&dir, &["-f", "call", "--to", to], input.clone());
            assert!(out.contains(NUMBERS), "{to}: {out}");
        }
    }
}

#[test]
fn untouched_numbers_of_a_repaired_call_keep_their_text() {
    let dir = numbers_schema();
    let input = r#"{"name":"n","arguments":{"b":1e2,"d":12345678901234567890123456,"s":3.10}}"#;
    let out = run(&dir, &["-f", "args"], input.to_owned());
    assert_eq!(
        out,
        "{\"b\":1e2,\"d\":12345678901234567890123456,\"s\":\"3.10\"}\n"
    );
}

#[test]
fn coerce_string_uses_the_number_text() {
    let dir = numbers_schema();
    for (sent, want) in [
        ("3.10", r#""3.10""#),
        ("9400111899223344556677", r#""9400111899223344556677""#),
    ] {
        let out = run(
            &dir,
            &["-f", "args"],
            format!(r#"{{"name":"n","arguments":{{"s":{sent}}}}}"#),
        );
        assert_eq!(out, format!("{{\"s\":{want}}}\n"));
    }
}

#[test]
fn a_near_miss_key_is_rejected_with_a_suggestion_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "restart.json",
        r#"{"type":"object","properties":{"service":{"type":"string"},"force":{"type":"boolean"}},"required":["service"],"additionalProperties":false}"#,
    );
    let out = callfix()
        .arg("-s")
        .arg(dir.path())
        .write_stdin(r#"{"name":"restart","arguments":{"service":"db","forced":true}}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Please rewrite the input with valid arguments. Errors: forced: unrecognized key (did you mean \"force\"?)\n"
    );
}

#[test]
fn an_object_sent_as_a_string_where_the_provider_wants_an_object_is_a_repair() {
    // Anthropic `input` and Gemini `args` are objects; a string holding one is a
    // double encoding, never "valid".
    for record in [
        r#"{"type":"tool_use","id":"t1","name":"read","input":"{\"file_path\":\"/a\"}"}"#,
        r#"{"functionCall":{"name":"read","args":"{\"file_path\":\"/a\"}"}}"#,
    ] {
        let (code, results) = crate::run_json(&[], record);
        assert_eq!(code, 0);
        assert_eq!(results[0]["status"], "repaired", "{record}");
        assert_eq!(results[0]["repairs"][0]["kind"], "double-encoded");
        assert_eq!(results[0]["args"], serde_json::json!({"file_path": "/a"}));
    }
    // OpenAI carries text: valid as it is.
    let (_, results) = crate::run_json(
        &[],
        r#"{"id":"c","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\"}"}}"#,
    );
    assert_eq!(results[0]["status"], "valid");
}

#[test]
fn an_embedded_json_string_with_raw_newlines_parses_to_those_characters() {
    let arguments = serde_json::json!({
        "todos": "[{\"content\":\"line 1\nline 2\",\"status\":\"pending\",\"priority\":\"low\"}]"
    });
    let record = serde_json::json!({"name": "todowrite", "arguments": arguments}).to_string();
    let (code, results) = crate::run_json(&[], &record);
    assert_eq!(code, 0, "{results:?}");
    assert_eq!(results[0]["args"]["todos"][0]["content"], "line 1\nline 2");
    assert_eq!(results[0]["repairs"][0]["kind"], "parse-json-string");
}

/// `callfix -s schemas -f json` on `input`: its results and exit code.
fn shipped_json(input: String) -> (Vec<serde_json::Value>, Option<i32>) {
    let out = crate::callfix()
        .args(["-s", "schemas", "-f", "json"])
        .write_stdin(input)
        .output()
        .unwrap();
    (crate::json_lines(&out.stdout), out.status.code())
}

#[test]
fn a_key_given_twice_in_argument_text_is_rejected_naming_it() {
    // Which value a tool runs with depends on its JSON reader (most keep the
    // last, some the first): callfix judges neither.
    let input = [
        r#"{"id":"a","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\",\"limit\":1,\"limit\":2}"}}"#,
        r#"{"name":"todowrite","arguments":"{\"todos\":[{\"content\":\"a\",\"status\":\"pending\",\"status\":\"completed\"}]}"}"#,
        "{\"name\":\"read\",\"arguments\":\"```json\\n{\\\"file_path\\\":\\\"/a\\\",\\\"file_path\\\":\\\"/b\\\"}\\n```\"}",
        r#"{"name":"read","arguments":"{\"file_path\":\"/a\",\"limit\":1}"}"#,
    ]
    .join("\n");
    let (lines, code) = shipped_json(input);
    let errors: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["status"].as_str().unwrap(),
                l["errors"][0]["path"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [
            ("rejected", "limit"),
            ("rejected", "todos.0.status"),
            ("rejected", "file_path"),
            ("valid", "")
        ]
    );
    assert_eq!(
        lines[0]["message"],
        "Please rewrite the input with valid arguments. Errors: limit: given twice; send each key once"
    );
    assert_eq!(code, Some(1));
}

#[test]
fn a_key_given_twice_read_leniently_streamed_or_double_encoded_is_rejected() {
    // Found by an attack pass: these readings kept the last value and wrote
    // a call no JSON reader agrees on ("valid" for the stream).
    let sse = [
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}"#,
        "",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"file_path\":\"/a\",\"file_path\":\"/etc/shadow\"}"}}"#,
        "",
        r#"data: {"type":"content_block_stop","index":0}"#,
        "",
        r#"data: {"type":"message_stop"}"#,
        "",
    ]
    .join("\n");
    let records = [
        r#"{"name":"read","arguments":"{'file_path': '/a', 'file_path': '/etc/shadow'}"}"#,
        r#"{"name":"read","arguments":"{\"file_path\":\"/a\",\"file_path\":\"/etc/shadow\",}"}"#,
        r#"{"name":"read","arguments":"{\"file_path\":\"/a\",\"x\":{\"k\":1,\"k\":2},}"}"#,
        r#"{"type":"function","id":"x","function":{"name":"read","arguments":"\"{\\\"file_path\\\":\\\"/a\\\",\\\"file_path\\\":\\\"/etc/shadow\\\"}\""}}"#,
    ]
    .join("\n");
    for input in [sse, records] {
        let (lines, code) = shipped_json(input.clone());
        assert!(!lines.is_empty(), "{input}");
        for line in &lines {
            assert_eq!(line["status"], "rejected", "{line}");
            assert!(
                line["errors"][0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("given twice"),
                "{line}"
            );
        }
        assert_eq!(code, Some(1));
    }
    let (lines, _) = shipped_json(records_paths());
    let paths: Vec<&str> = lines
        .iter()
        .map(|l| l["errors"][0]["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["file_path", "x.k"]);
    // Arguments double-encoded under a wrapper key are not unwrapped.
    let (lines, _) = shipped_json(
        r#"{"name":"read","arguments":{"arguments":"{\"file_path\":\"/a\",\"file_path\":\"/etc/shadow\"}"}}"#.to_owned(),
    );
    assert_eq!(lines[0]["status"], "rejected");
    assert_eq!(lines[0]["args"], serde_json::Value::Null);
}

fn records_paths() -> String {
    [
        r#"{"name":"read","arguments":"{'file_path': '/a', 'file_path': '/b'}"}"#,
        r#"{"name":"read","arguments":"{'file_path': '/a', 'x': {'k': 1, 'k': 1}}"}"#,
    ]
    .join("\n")
}

#[test]
fn a_call_a_repeated_key_makes_read_two_ways_is_rejected_and_no_other() {
    // Objects inside a record: a reader keeping the first value and one
    // keeping the last make different calls of the first record's and of
    // the third's second call; the same value twice, or a repeated key
    // outside the calls, changes no call.
    let input = [
        r#"{"type":"tool_use","id":"t","name":"read","input":{"file_path":"/a","limit":1,"limit":"2"}}"#,
        r#"{"type":"tool_use","id":"u","name":"read","input":{"file_path":"/a","limit":1,"limit":1}}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"read","input":{"file_path":"/a"}},{"type":"tool_use","id":"b","name":"read","input":{"file_path":"/b","options":{"x":1},"options":{"x":2}}}],"meta":{"k":1,"k":2}}"#,
        r#"{"type":"tool_use","id":"v","name":"read","name":"write","input":{"file_path":"/a"}}"#,
    ]
    .join("\n");
    let (lines, _) = shipped_json(input);
    // As for argument text: the key is the error's path.
    let got: Vec<String> = lines
        .iter()
        .map(|l| {
            let e = &l["errors"][0];
            let (path, message) = (e["path"].as_str(), e["message"].as_str());
            format!(
                "{} {} {}",
                l["id"].as_str().unwrap(),
                path.unwrap_or("-"),
                message.unwrap_or("-")
            )
        })
        .collect();
    let want = [
        "t limit given twice; send each key once",
        "u - -",
        "a - -",
        "b options given twice; send each key once",
        "v  a key of this call is given twice; send each key once",
    ];
    assert_eq!(got, want);
}
