//! Garbage written as leaked calls: leak-family text, markup edited token by
//! token, pythonic lists and call notation.

use proptest::prelude::*;
use serde_json::json;

use super::vocab::{FILLER, LEAK_TOKENS};
use super::{LEAK_TEMPLATES, count, repeat};

/// Assistant text made of leak tokens and filler, with a repeat combinator.
fn leak_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        3 => prop::sample::select(LEAK_TOKENS).prop_map(str::to_owned),
        2 => prop::sample::select(FILLER).prop_map(str::to_owned),
        1 => (prop::sample::select(LEAK_TOKENS), prop::sample::select(FILLER), count())
            .prop_map(|(a, b, n)| format!("{a}{b}").repeat(n.min(3000))),
        1 => "[a-z=\"<>/ ]{0,8}",
    ];
    prop::collection::vec(token, 0..12).prop_map(|v| v.concat())
}

/// An assistant message whose text is leak soup.
pub(crate) fn leak_record() -> impl Strategy<Value = Vec<u8>> {
    (leak_text(), 0u8..3)
        .prop_map(|(text, how)| {
            match how {
                0 => json!({"role": "assistant", "content": text}),
                1 => json!({"role": "assistant", "content": [{"type": "text", "text": text}]}),
                _ => json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}),
            }
            .to_string()
            .into_bytes()
        })
}

/// Splits markup into tokens: a tag opening up to its `=`, `>` or space
/// (`<function=`, `</parameter`, `<invoke`), `>`, `"`, `=`, runs of space,
/// runs of other text.
fn tokens(markup: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_tag = false;
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.is_empty() {
            out.push(std::mem::take(cur));
        }
    };
    for c in markup.chars() {
        match c {
            '<' => {
                flush(&mut cur, &mut out);
                cur.push(c);
                in_tag = true;
            }
            '>' | '"' | '=' => {
                if c == '=' && in_tag {
                    cur.push(c);
                    flush(&mut cur, &mut out);
                } else {
                    flush(&mut cur, &mut out);
                    out.push(c.to_string());
                }
                in_tag = false;
            }
            c if c.is_whitespace() => {
                if in_tag || !cur.chars().all(char::is_whitespace) {
                    flush(&mut cur, &mut out);
                }
                in_tag = false;
                cur.push(c);
            }
            c => {
                if !in_tag && cur.chars().all(char::is_whitespace) {
                    flush(&mut cur, &mut out);
                }
                cur.push(c);
            }
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// A change to a family's markup, token-wise.
#[derive(Debug, Clone)]
enum Edit {
    /// Delete from one token up to a later closing tag (`</…`): an opening
    /// tag that never closes before the markup's end.
    DeleteToClosing(prop::sample::Index, prop::sample::Index),
    DeleteRange(prop::sample::Index, usize),
    Truncate(prop::sample::Index),
    Duplicate(prop::sample::Index),
    Insert(prop::sample::Index, &'static str),
    EmptyName,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => any::<(prop::sample::Index, prop::sample::Index)>().prop_map(|(i, j)| Edit::DeleteToClosing(i, j)),
        2 => (any::<prop::sample::Index>(), 1usize..6).prop_map(|(i, n)| Edit::DeleteRange(i, n)),
        1 => any::<prop::sample::Index>().prop_map(Edit::Truncate),
        1 => any::<prop::sample::Index>().prop_map(Edit::Duplicate),
        2 => (any::<prop::sample::Index>(), prop::sample::select(LEAK_TOKENS)).prop_map(|(i, t)| Edit::Insert(i, t)),
        1 => Just(Edit::EmptyName),
    ]
}

fn apply_edit(tokens: &mut Vec<String>, e: &Edit) {
    if tokens.is_empty() {
        return;
    }
    let n = tokens.len();
    match e {
        Edit::DeleteToClosing(i, j) => {
            let from = i.index(n);
            let closings: Vec<usize> = (from + 1..n)
                .filter(|&k| tokens[k].starts_with("</"))
                .collect();
            if !closings.is_empty() {
                tokens.drain(from..closings[j.index(closings.len())]);
            }
        }
        Edit::DeleteRange(i, k) => {
            let from = i.index(n);
            tokens.drain(from..(from + k).min(n));
        }
        Edit::Truncate(i) => tokens.truncate(i.index(n)),
        Edit::Duplicate(i) => {
            let at = i.index(n);
            let t = tokens[at].clone();
            tokens.insert(at, t);
        }
        Edit::Insert(i, t) => tokens.insert(i.index(n + 1), (*t).to_owned()),
        Edit::EmptyName => {
            for t in tokens.iter_mut().filter(|t| *t == "glob") {
                t.clear();
            }
        }
    }
}

/// A family's markup, edited token-wise: tags left open, names left out,
/// sentinels doubled or dropped — the near misses a model writes.
pub(crate) fn markup_record() -> impl Strategy<Value = Vec<u8>> {
    (
        0..LEAK_TEMPLATES.len(),
        prop::collection::vec(edit(), 1..4),
        any::<bool>(),
    )
        .prop_map(|(i, edits, prose)| {
            let mut t = tokens(&LEAK_TEMPLATES[i].replace('@', "*"));
            for e in &edits {
                apply_edit(&mut t, e);
            }
            let text = t.concat();
            let text = if prose {
                format!("I will look. {text}")
            } else {
                text
            };
            json!({"role": "assistant", "content": text})
                .to_string()
                .into_bytes()
        })
}

/// A Python literal, recursively, with deep nesting by repetition.
fn py_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("'*'".to_owned()),
        Just("\"a\\\"b\"".to_owned()),
        Just("120".to_owned()),
        Just("-1.5e3".to_owned()),
        Just("True".to_owned()),
        Just("None".to_owned()),
        Just("x".to_owned()),
        Just("'".to_owned()),
        Just("".to_owned()),
    ];
    let nested = leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!(
                "{{{}}}",
                v.iter()
                    .map(|x| format!("'k': {x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            inner.prop_map(|x| format!("glob(pattern={x})")),
        ]
    });
    (
        nested,
        count(),
        prop::sample::select(vec![
            ("[", "]"),
            ("{'a': ", "}"),
            ("(", ")"),
            ("[", ""),
            ("glob(p=", ")"),
        ]),
    )
        .prop_map(|(leaf, n, (open, close))| repeat(open, close, n, &leaf))
}

/// A pythonic call list, bare (the whole message) or after
/// `<|python_start|>`; or calls in call notation (`name: value` or
/// `name=value`, a positional value first, one object literal as the
/// arguments), one a line starting the message or inside `<tool_call>`.
pub(crate) fn pythonic_record() -> impl Strategy<Value = Vec<u8>> {
    let call = (
        prop::sample::select(vec!["glob", "read", "nope", "g.lob"]),
        prop::option::of(py_value()),
        prop::collection::vec(
            (
                prop::sample::select(vec!["pattern", "file_path", "offset", "x"]),
                py_value(),
            ),
            0..3,
        ),
        prop::sample::select(vec!["=", ": ", " = "]),
        any::<bool>(),
    )
        .prop_map(|(name, positional, kv, sep, literal)| {
            let args: Vec<String> = kv.iter().map(|(k, v)| format!("{k}{sep}{v}")).collect();
            if literal && positional.is_none() {
                // `read({file_path: '/a'})`: a JavaScript object literal.
                let keys: Vec<String> = kv.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                return format!("{name}({{{}}})", keys.join(", "));
            }
            let all: Vec<String> = positional.into_iter().chain(args).collect();
            format!("{name}({})", all.join(", "))
        });
    (
        prop::collection::vec(call, 0..4),
        count(),
        0u8..6,
        any::<bool>(),
    )
        .prop_map(|(calls, many, how, closed)| {
            if how >= 3 {
                // Call notation: lines that are each one call, or one call
                // inside `<tool_call>`; cut off when not closed.
                let mut text = if how == 5 && many > 8 {
                    vec!["glob(pattern: '*')"; many.min(5000)].join("\n")
                } else if how == 4 {
                    let first = calls.first().cloned().unwrap_or_default();
                    format!("<tool_call>{first}</tool_call>")
                } else {
                    calls.join("\n")
                };
                if !closed {
                    text.pop();
                }
                return json!({"role": "assistant", "content": text})
                    .to_string()
                    .into_bytes();
            }
            let mut list = calls.join(", ");
            if many > 8 {
                // Many calls in one list.
                list = vec!["glob(pattern='*')"; many.min(5000)].join(", ");
            }
            let list = if closed {
                format!("[{list}]")
            } else {
                format!("[{list}")
            };
            let text = match how {
                0 => list,
                1 => format!("<|python_start|>{list}<|python_end|>"),
                _ => format!("I will call <|python_start|>{list}"),
            };
            json!({"role": "assistant", "content": text})
                .to_string()
                .into_bytes()
        })
}
