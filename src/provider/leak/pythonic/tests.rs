//! The pythonic reader's literals, lists and what it does not read.

use super::*;
use serde_json::json;

fn read(text: &str) -> Parsed<Vec<(String, Value)>> {
    let mut p = Parser::new(text);
    p.calls().map(|c| {
        c.into_iter()
            .inspect(|c| assert!(c.positional.is_empty()))
            .map(|c| (c.name, Value::Object(c.args)))
            .collect()
    })
}

#[test]
fn escapes_read_as_python_reads_them() {
    // Found by an attack pass: `\012` was read as NUL then `12`, and `\b`
    // and `\101` were kept as written.
    let calls = read(r"[f(a='\a\b\f\v', b='\012\101\0\08\777\7x', c='\d\8\q')]").unwrap();
    let [(_, args)] = calls.as_slice() else {
        panic!("{calls:?}");
    };
    assert_eq!(
        args,
        &json!({"a": "\u{7}\u{8}\u{c}\u{b}", "b": "\nA\0\08\u{1ff}\u{7}x", "c": "\\d\\8\\q"})
    );
}

#[test]
fn literals() {
    let calls = read(
        r#"[f(a=1, b=-2.5e3, c="x\"y", d='it\'s', e=True, f=None, g=[1, 'a'], h={"k": False}, i="\u00e9\d")]"#,
    )
    .unwrap();
    // Numbers keep their text (`-2.5e3`, not `-2500.0` nor `-2.5e+3`).
    let want = r#"{"a":1,"b":-2.5e3,"c":"x\"y","d":"it's","e":true,"f":null,"g":[1,"a"],"h":{"k":false},"i":"é\\d"}"#;
    let [(name, args)] = calls.as_slice() else {
        panic!("{calls:?}");
    };
    assert_eq!((name.as_str(), args.to_string().as_str()), ("f", want));
}

#[test]
fn several_calls_and_no_arguments() {
    let calls = read("[a(), b.c(x='')]").unwrap();
    assert_eq!(
        calls,
        [
            ("a".to_owned(), json!({})),
            ("b.c".to_owned(), json!({"x": ""}))
        ]
    );
}

#[test]
fn cut_anywhere_is_cut() {
    let text = r#"[read(file_path="/a", offset=120, flag=True, xs=[1, {"k": 'v'}])]"#;
    for end in 1..text.len() {
        match read(&text[..end]) {
            Err(Stop::Cut) => {}
            other => panic!("{:?}: {other:?}", &text[..end]),
        }
    }
    assert!(read(text).is_ok());
}

#[test]
fn what_is_not_read() {
    for text in [
        "[f(1)]",
        "[f(a=b)]",
        "[f(a=1_000)]",
        "[f(a=.5)]",
        "[f(a=0x1f)]",
        "[f(a='''x''')]",
        "[f(a=1, a=2)]",
        "[]",
        "[f(a='x\ny')]",
        "[f(a='\\x+1')]",
        "[f(a='\\u00g1')]",
        "[f(a='\\N{BULLET}')]",
        "[f(a={'k': 1, 'k': 2})]",
    ] {
        assert!(matches!(read(text), Err(Stop::Bad(_))), "{text}");
    }
}
