use super::*;
use serde_json::json;

/// Sentinel families only: no tool is declared.
fn find(text: &str) -> (Vec<Leaked>, String) {
    super::find(text, &|_| false)
}

/// With `read` and `glob` declared.
fn find_declared(text: &str) -> (Vec<Leaked>, String) {
    super::find(text, &|name| matches!(name, "read" | "glob"))
}

fn one(text: &str) -> (Leaked, String) {
    let (mut calls, clean) = find(text);
    assert_eq!(calls.len(), 1, "{calls:?}");
    (calls.remove(0), clean)
}

#[test]
fn dsml_with_prefix_and_typed_values() {
    // opencode #24566 comment (DeepSeek, read).
    let text = "I'll read it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read\">\n<｜DSML｜parameter name=\"filePath\" string=\"true\">I:\\hrc\\usermode\\src\\hypercall\\hypercall.cpp</｜DSML｜parameter>\n<｜DSML｜parameter name=\"limit\" string=\"false\">15</｜DSML｜parameter>\n<｜DSML｜parameter name=\"offset\" string=\"false\">357</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let (call, clean) = one(text);
    assert_eq!(call.name, "read");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"filePath": "I:\\hrc\\usermode\\src\\hypercall\\hypercall.cpp", "limit": 15, "offset": 357})
    );
    assert_eq!(clean, "I'll read it.");
}

#[test]
fn dsml_without_prefix() {
    // opencode #34676 (DeepSeek V4 Flash).
    let (call, clean) = one(
        "<invoke name=\"read\"><parameter name=\"filePath\" string=\"true\">/home/u/frontend/src/lib/api.ts</parameter></invoke>",
    );
    assert_eq!(call.name, "read");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"filePath": "/home/u/frontend/src/lib/api.ts"})
    );
    assert_eq!(clean, "");
}

#[test]
fn dsml_broken_json_is_malformed_not_guessed() {
    // opencode #24566 (DeepSeek, question): `options` lost its brackets.
    let text = "<｜DSML｜invoke name=\"question\"><｜DSML｜parameter name=\"questions\" string=\"false\">[{\"question\": \"x\", \"options\": {\"label\": \"a\", \"description\": \"b\"}, {\"label\": \"c\", \"description\": \"d\"}, \"header\": \"h\"}]</｜DSML｜parameter></｜DSML｜invoke>";
    let (call, _) = one(text);
    assert_eq!(call.name, "question");
    let why = call.args.unwrap_err();
    assert!(
        matches!(&why, LeakProblem::ParameterNotJson { name, .. } if name == "questions"),
        "{why}"
    );
}

#[test]
fn qwen_function_format() {
    let text = "Let me search.\n<function=grep>\n<parameter=pattern>\nfn main\n</parameter>\n<parameter=head_limit>\n15\n</parameter>\n</function>\nDone.";
    let (call, clean) = one(text);
    assert_eq!(call.name, "grep");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"pattern": "fn main", "head_limit": "15"})
    );
    assert_eq!(clean, "Let me search.\n\nDone.");
}

#[test]
fn hermes_tool_call() {
    let (call, clean) = one(
        "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}\n</tool_call>",
    );
    assert_eq!(call.name, "glob");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"pattern": "*.rs"})
    );
    assert_eq!(clean, "");
    let (call, _) = one(
        "<tool_call>{\"name\": \"glob\", \"arguments\": \"{\\\"pattern\\\": \\\"*\\\"}\"}</tool_call>",
    );
    assert_eq!(Value::Object(call.args.unwrap()), json!({"pattern": "*"}));
}

#[test]
fn several_calls_in_order() {
    let text =
        "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> and <function=b></function>";
    let (calls, clean) = find(text);
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(clean, "and");
}

#[test]
fn malformed_markup_is_reported() {
    for (text, why) in [
        (
            "<tool_call>{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}",
            "not closed",
        ),
        (
            "<tool_call>{\"name\": \"glob\",}</tool_call>",
            "not valid JSON",
        ),
        ("<tool_call>{\"arguments\": {}}</tool_call>", "has no name"),
        (
            "<invoke name=\"read\"><parameter name=\"p\" string=\"true\">x</invoke>",
            "not closed",
        ),
        ("<function=read><parameter=p>x</function>", "not closed"),
    ] {
        let (calls, _) = find(text);
        assert_eq!(calls.len(), 1, "{text}");
        let err = calls[0].args.clone().unwrap_err();
        assert!(err.contains(why), "{text}: {err}");
    }
}

#[test]
fn prose_is_left_alone() {
    let text =
        "Use <function> tags or <tool_call> wrappers? No: a < b, <invoke>, <important-rules>.";
    let (calls, clean) = find(text);
    // `<tool_call>` named in a sentence, prose after it, is text: no call
    // syntax writes a word then another word there (a call cut off right
    // after its opening, or in its name, is still rejected: tests_attack).
    assert!(calls.is_empty(), "{calls:?}");
    assert_eq!(clean, text);
    let (calls, clean) = find("No markup here: <b>bold</b>, Vec<T>.");
    assert!(calls.is_empty());
    assert_eq!(clean, "No markup here: <b>bold</b>, Vec<T>.");
}

#[test]
fn code_spans_and_fences_are_not_calls_but_markup_after_them_is() {
    let text = "Quoted: `<tool_call>{\"name\": \"a\"}</tool_call>` and\n```\n<function=b></function>\n```\nthen <function=c></function>";
    let (calls, _) = find(text);
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["c"]);
    assert_eq!(calls[0].family, "qwen-coder");
}

#[test]
fn a_lone_backtick_quotes_nothing() {
    let (calls, _) = find("It's `odd: <function=c></function>");
    assert_eq!(calls.len(), 1);
}

#[test]
fn one_tool_call_tag_three_syntaxes() {
    for (text, family) in [
        (
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
            "hermes",
        ),
        (
            "<tool_call><function=a></function></tool_call>",
            "qwen3-coder",
        ),
        ("<tool_call>a</tool_call>", "glm"),
    ] {
        let (call, _) = one(text);
        assert_eq!((call.name.as_str(), call.family), ("a", family), "{text}");
        assert_eq!(call.markup, text);
    }
}

#[test]
fn llama3_calls_joined_by_semicolons() {
    let (calls, clean) = find(
        "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {\"x\": 1}}<|eom_id|>",
    );
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(clean, "");
}

#[test]
fn a_bare_call_list_naming_declared_tools() {
    for (text, family) in [
        ("[read(file_path=\"/a\"), glob(pattern='*.rs')]", "pythonic"),
        (
            "[{\"name\": \"read\", \"arguments\": {\"file_path\": \"/a\"}}, {\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}]",
            "json",
        ),
    ] {
        let (calls, clean) = find_declared(&format!("  {text}\n"));
        let got: Vec<(&str, &str)> = calls.iter().map(|c| (c.name.as_str(), c.family)).collect();
        assert_eq!(got, [("read", family), ("glob", family)], "{text}");
        assert_eq!(
            Value::Object(calls[1].args.clone().unwrap()),
            json!({"pattern": "*.rs"})
        );
        assert_eq!(clean, "");
        // Not declared, or not the whole message: text, not a call.
        assert!(find(text).0.is_empty(), "{text}");
        assert!(find_declared(&format!("Try {text}")).0.is_empty(), "{text}");
    }
    let (calls, _) = find_declared("{\"name\": \"read\", \"parameters\": {\"file_path\": \"/a\"}}");
    assert_eq!((calls[0].name.as_str(), calls[0].family), ("read", "json"));
}

#[test]
fn a_bare_list_that_only_looks_like_calls_is_text() {
    for text in [
        "[read(the docs)]",
        "[read(file_path=\"/a\"), unknown()]",
        "{\"name\": \"read\"}",
        "{\"name\": \"read\", \"arguments\": {}, \"why\": \"x\"}",
        "[]",
        "[\"read\"]",
    ] {
        assert!(find_declared(text).0.is_empty(), "{text}");
    }
}

#[test]
fn a_bare_list_cut_off_is_rejected_when_its_first_name_is_declared() {
    for text in [
        "[read(file_path=\"/a",
        "[{\"name\": \"read\", \"arguments\": {\"file_",
    ] {
        let (calls, _) = find_declared(text);
        assert_eq!(calls.len(), 1, "{text}");
        assert_eq!(calls[0].args, Err(LeakProblem::NotClosed));
        assert!(find_declared(&text.replace("read", "other")).0.is_empty());
    }
}

#[test]
fn llama4_python_start() {
    let (call, clean) =
        one("Reading.<|python_start|>[read(file_path=\"/a\", offset=120)]<|python_end|>");
    assert_eq!((call.name.as_str(), call.family), ("read", "pythonic"));
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"file_path": "/a", "offset": 120})
    );
    assert_eq!(clean, "Reading.");
}

// ---- part 14: attacks on the readers ----

/// Every family's markup, well formed, each calling `read`.
const SHAPES: &[&str] = &[
    "<｜DSML｜function_calls><｜DSML｜invoke name=\"read\"><｜DSML｜parameter name=\"p\" string=\"true\">/a</｜DSML｜parameter><｜DSML｜parameter name=\"n\" string=\"false\">1</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
    "<minimax:tool_call><invoke name=\"read\"><parameter name=\"p\">/a</parameter></invoke></minimax:tool_call>",
    "<function=read>\n<parameter=p>\n/a\n</parameter>\n</function>",
    "<tool_call>\n<function=read>\n<parameter=p>\n/a\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>{\"name\": \"read\", \"arguments\": {\"p\": \"/a\"}}</tool_call>",
    "<tool_call>read<arg_key>p</arg_key><arg_value>/a</arg_value></tool_call>",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{\"p\": \"/a\"}<|tool_call_end|><|tool_calls_section_end|>",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read\n```json\n{\"p\": \"/a\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>read<｜tool▁sep｜>{\"p\": \"/a\"}<｜tool▁call▁end｜>",
    "[TOOL_CALLS][{\"name\": \"read\", \"arguments\": {\"p\": \"/a\"}}]",
    "[TOOL_CALLS]read[ARGS]{\"p\": \"/a\"}",
    "<|python_tag|>{\"name\": \"read\", \"parameters\": {\"p\": \"/a\"}}; {\"name\": \"read\", \"parameters\": {}}<|eom_id|>",
    "<|tool_call|>[{\"name\": \"read\", \"arguments\": {\"p\": \"/a\"}}]",
    "<|START_ACTION|>[{\"tool_name\": \"read\", \"parameters\": {\"p\": \"/a\"}}]<|END_ACTION|>",
    "<|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{\"p\": \"/a\"}<|call|>",
    "<|python_start|>[read(p=\"/a\", n=[1, {'k': None}])]<|python_end|>",
    "[read(p=\"/a\")]",
    "[{\"name\": \"read\", \"arguments\": {\"p\": \"/a\"}}]",
    // Part 15.
    "<function name=\"read\"><param name=\"p\"><![CDATA[/a]]></param></function>",
    "<seed:tool_call><function=read><parameter=p>/a</parameter></function></seed:tool_call>",
    "<tool_call>[{\"name\": \"read\", \"arguments\": {\"p\": \"/a\"}}] ok",
    "<|tool_calls_section_begin|><|tool_call_begin|>functionsread0<|tool_call_argument_begin|>{}<|tool_call_end|>",
    "<function=read{\"p\": \"/a\"}></function>",
    "function=read>{\"p\": \"/a\"}</function>",
    "<|python_start|>{\"type\": \"function\", \"function\": {\"name\": \"read\", \"parameters\": {}}}",
    "<|python_start|>read('/a', n: 1, o={k: [1]})<|python_end|>",
    "read(p: \"/a\", q={k: 'v'})\nthen prose",
];

#[test]
fn broken_heads_are_malformed_not_a_panic() {
    // Item 2 of part 14, and Llama 3.3 on Groq (`<function=NAME {json}` or
    // `<function=NAME={json}`, the `>` missing).
    for text in [
        "<tool_call><function=</function></tool_call>",
        "<function=</function>",
        "<invoke name=\"\"</invoke>",
        "<invoke name=\"read\"</invoke>",
        "<｜DSML｜invoke name=\"\"</｜DSML｜invoke>",
        "<function=read={\"file_path\": \"sample.txt\"}</function>",
        "<function=glob {\"pattern\": \"*.rs\"}</function>",
        "<tool_call><function=glob {\"pattern\": \"*\"}</function></tool_call>",
        "<function=read><parameter=</function>",
        "<function=read><parameter=p</parameter></function>",
        "<invoke name=\"read\"><parameter name=\"p\"</parameter></invoke>",
        "<|tool_call_begin|><|tool_call_end|>",
        "<｜tool▁call▁begin｜><｜tool▁call▁end｜>",
        "<|START_ACTION|><|END_ACTION|>",
        "<|channel|>commentary to=functions.",
    ] {
        let (calls, _) = find_declared(text);
        assert_eq!(calls.len(), 1, "{text}: {calls:?}");
        assert!(calls[0].args.is_err(), "{text}: {calls:?}");
        assert_eq!(calls[0].markup, text, "{text}");
    }
}

#[test]
fn llama31_function_tag_with_a_json_body() {
    // Llama 3.1's own custom-tool format (langchain #31440): the arguments
    // are a JSON object between the tags, not lost.
    let (call, clean) = one("<function=brave_search>{\"query\": \"Hello!\"}</function>");
    assert_eq!(call.name, "brave_search");
    assert_eq!(
        Value::Object(call.args.unwrap()),
        json!({"query": "Hello!"})
    );
    assert_eq!(clean, "");
    // Text that is neither parameters nor one JSON object is not dropped.
    let (call, _) = one("<function=read>{\"p\": 1} and more</function>");
    assert!(call.args.is_err(), "{call:?}");
    let (call, _) = one("<function=read>stray<parameter=p>1</parameter></function>");
    assert!(call.args.is_err(), "{call:?}");
}

const CLOSERS: &[&str] = &[
    "</function>",
    "</parameter>",
    "</invoke>",
    "</｜DSML｜invoke>",
    "</｜DSML｜parameter>",
    "</tool_call>",
    "</arg_value>",
    "<|tool_call_end|>",
    "<｜tool▁call▁end｜>",
    "<|END_ACTION|>",
    "<|python_end|>",
    "<|call|>",
    "<|message|>",
];

/// Mutations of every shape: no reader panics, whatever the markup.
#[test]
fn no_mutation_of_any_family_panics() {
    let inserts = [
        "<", ">", "=", "\"", "{", "}", "[", "]", "(", ")", "\\", "\n", "é", "｜",
    ];
    for shape in SHAPES {
        let bounds: Vec<usize> = (0..=shape.len())
            .filter(|i| shape.is_char_boundary(*i))
            .collect();
        for (k, &i) in bounds.iter().enumerate() {
            let mut texts = vec![shape[..i].to_owned(), shape[i..].to_owned()];
            if let Some(&j) = bounds.get(k + 1) {
                texts.push(format!("{}{}", &shape[..i], &shape[j..]));
            }
            for ins in inserts {
                texts.push(format!("{}{ins}{}", &shape[..i], &shape[i..]));
            }
            for close in CLOSERS {
                texts.push(format!("{}{close}", &shape[..i]));
            }
            for text in texts {
                let _ = find_declared(&text);
                let _ = find_declared(&format!("x {text} y"));
            }
        }
    }
}

#[test]
fn deep_pythonic_lists_are_rejected_within_a_small_stack() {
    // Item 3: nesting has a limit, checked before the stack runs out, on a
    // thread a quarter the size of a worker's (2 MiB), in a debug build.
    let deep = |n: usize| format!("[glob(pattern={}{})]", "[".repeat(n), "]".repeat(n));
    let handle = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            let mut out = Vec::new();
            for n in [pythonic::MAX_DEPTH, pythonic::MAX_DEPTH + 1, 100_000] {
                let bare = find_declared(&deep(n)).0;
                let tagged = find(&format!("<|python_start|>{}<|python_end|>", deep(n))).0;
                out.push((n, bare, tagged));
            }
            out
        })
        .unwrap();
    for (n, bare, tagged) in handle.join().unwrap() {
        for calls in [bare, tagged] {
            assert_eq!(calls.len(), 1, "{n}");
            if n <= pythonic::MAX_DEPTH {
                assert!(calls[0].args.is_ok(), "{n}: {:?}", calls[0].args);
            } else {
                let why = calls[0].args.clone().unwrap_err();
                assert!(why.contains("more than 128 levels deep"), "{why}");
            }
        }
    }
}

#[test]
fn calls_in_a_list_hold_their_own_markup() {
    // Item 4: n calls in one list held n copies of the whole text.
    let n = 300;
    let obj = |k: usize| format!("{{\"name\": \"read\", \"arguments\": {{\"p\": \"/{k}\"}}}}");
    let objs = (0..n).map(obj).collect::<Vec<_>>();
    let py = (0..n)
        .map(|k| format!("read(p='/{k}')"))
        .collect::<Vec<_>>();
    let cohere = (0..n)
        .map(|k| format!("{{\"tool_name\": \"read\", \"parameters\": {{\"p\": \"/{k}\"}}}}"))
        .collect::<Vec<_>>();
    let llama3 = (0..n)
        .map(|k| format!("{{\"name\": \"read\", \"parameters\": {{\"p\": \"/{k}\"}}}}"))
        .collect::<Vec<_>>();
    for text in [
        format!("[{}]", py.join(", ")),
        format!("<|python_start|>[{}]<|python_end|>", py.join(", ")),
        format!("[{}]", objs.join(", ")),
        format!("[TOOL_CALLS][{}]", objs.join(", ")),
        format!("<|tool_call|>[{}]", objs.join(", ")),
        format!("<tool_call>[{}]</tool_call>", objs.join(", ")),
        format!("<|START_ACTION|>[{}]<|END_ACTION|>", cohere.join(",\n")),
        format!("<|python_tag|>{}<|eom_id|>", llama3.join("; ")),
    ] {
        let (calls, _) = find_declared(&text);
        assert_eq!(calls.len(), n, "{text}");
        let total: usize = calls.iter().map(|c| c.markup.len()).sum();
        assert!(total <= text.len(), "{total} > {}: {text}", text.len());
        for (k, c) in calls.iter().enumerate() {
            assert!(
                c.markup.contains(&format!("/{k}'")) || c.markup.contains(&format!("/{k}\"")),
                "{k}: {}",
                c.markup
            );
            assert!(text.contains(&c.markup));
        }
    }
}

#[test]
fn a_list_of_one_call_keeps_its_whole_markup() {
    // Output stays as it was where the list holds one call.
    for text in [
        "[TOOL_CALLS][{\"name\": \"read\", \"arguments\": {}}]",
        "<|START_ACTION|>[{\"tool_name\": \"read\", \"parameters\": {}}]<|END_ACTION|>",
        "<tool_call>[{\"name\": \"read\", \"arguments\": {}}]</tool_call>",
        "<|python_start|>[read(p=\"/a\")]",
        "<|python_tag|>{\"name\": \"read\", \"parameters\": {}}",
    ] {
        let (call, _) = one(text);
        assert_eq!(call.markup, text);
    }
    let (call, _) = one("<|tool_call|>[{\"name\": \"read\", \"arguments\": {}}]");
    assert_eq!(
        call.markup,
        "<|tool_call|>[{\"name\": \"read\", \"arguments\": {}}]"
    );
    let (calls, _) = find_declared(" [read(p='/a')]\n");
    assert_eq!(calls[0].markup, "[read(p='/a')]");
}

/// Steps the opening search takes over `text`, driven as `find` drives it.
fn opening_steps(text: &str) -> (usize, usize) {
    let mut openings = Openings::new(text);
    let mut at = 0;
    let mut found = 0;
    while let Some((start, _)) = openings.next(text, at) {
        found += 1;
        at = start + 1;
    }
    (found, openings.steps)
}

#[test]
fn code_spans_are_scanned_in_one_pass() {
    // Item 5: each opening inside code was checked against every code span
    // before it.
    for unit in [
        "`<tool_call>` ",
        "```\n<function=a></function>\n```\n",
        "`` `<tool_call>` `` ",
    ] {
        let small = unit.repeat(1_000);
        let big = unit.repeat(10_000);
        let (found_small, steps_small) = opening_steps(&small);
        let (found_big, steps_big) = opening_steps(&big);
        assert_eq!((found_small, found_big), (0, 0), "{unit}");
        assert!(steps_big <= 100 * 10_000, "{unit}: {steps_big} steps");
        assert!(
            steps_big <= 12 * steps_small.max(1),
            "{unit}: {steps_small} → {steps_big}"
        );
    }
    // Runs of distinct lengths, none closed: each looked for its closer to the end.
    let ragged: String = (1..300).map(|n| format!("{}x", "`".repeat(n))).collect();
    let (_, steps) = opening_steps(&ragged);
    assert!(
        steps <= 20 * ragged.len(),
        "{steps} steps for {} bytes",
        ragged.len()
    );
}
