//! Bounds on the work of part 15's rows and call notation: linear time
//! (counting steps and bytes looked at, not timing) and a small stack.

use super::super::{Openings, cursor};
use super::find_declared;

/// Work done is linear in the text: counting, not timing.
#[test]
fn call_notation_and_new_rows_read_in_linear_time() {
    for unit in [
        "function=read> ",
        "<seed:tool_call>",
        "<function name=\"a\">",
        "<｜tool▁calls▁begin｜>",
        "read(a=",
    ] {
        let steps = |n: usize| {
            let text = unit.repeat(n);
            let mut openings = Openings::new(&text);
            let mut at = 0;
            let mut found = 0;
            while let Some((start, _)) = openings.next(&text, at) {
                found += 1;
                at = start + 1;
            }
            openings.steps + found
        };
        let (small, big) = (steps(1_000), steps(10_000));
        assert!(big <= 12 * small.max(1), "{unit}: {small} → {big}");
    }
}

/// Reading is linear too: the bytes the cursors look at, counted over whole
/// `find` runs on texts 10 times apart.
#[test]
fn reading_new_rows_looks_at_each_byte_a_bounded_number_of_times() {
    for unit in [
        "function=read> ",
        "function=read>{\"a\": 1} ",
        "<tool_call>[] ",
        "<tool_call>[{\"name\": \"read\", \"arguments\": {}}] x",
        "<function name=\"a\">",
        "<seed:tool_call>",
        "<｜tool▁calls▁begin｜>",
        "<|tool_call_begin|>functionsexec5<|tool_call_argument_begin|>{}<|tool_call_end|>",
        "<|python_start|>read(a: ",
        "<function=read{\"a\": 1} ",
        // Part 15's fixes: broken Harmony JSON ending at `<|call|>`, garbage
        // sections naming their call, singular Kimi sections, calls one per
        // line, complete calls whose closing never came.
        "<|channel|>commentary to=functions.read <|constrain|>json<|message|>{,}<|call|>",
        "<｜tool▁calls▁begin｜><｜tool▁calls▁begin｜>g<｜tool▁call▁begin｜>read<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "<|tool_call_section_begin|>",
        "read(file_path: 'a')\n",
        "<tool_call>{\"name\": \"read\", \"arguments\": {}} x",
        "<|START_ACTION|>[] x",
        // The attack pass's fixes: `function=` at line start, every split of
        // a Kimi id's digits, a parameter given twice.
        "\n  function=read>{\"a\": 1}",
        "<|tool_call_begin|>functionsexec_1234<|tool_call_argument_begin|>{}<|tool_call_end|>",
        "<function name=\"read\"><param name=\"a\">1</param><param name=\"a\">1</param></function>",
        "wrap calls in <tool_call> tags; ",
        "<seed:tool_call> tags; <seed:tool_call>{\"name\": \"read\", \"arguments\": {}}</seed:tool_call>",
        "\n<tool_call>[{\"name\": \"read\", \"arguments\": {}}]\nx ",
    ] {
        let looked = |n: usize| {
            let text = unit.repeat(n);
            let before = cursor::scanned();
            let _ = find_declared(&text);
            cursor::scanned() - before
        };
        let (small, big) = (looked(500), looked(5_000));
        assert!(big <= 12 * small.max(1), "{unit}: {small} → {big}");
    }
}

#[test]
fn deep_object_literals_are_rejected_within_a_small_stack() {
    let deep = |n: usize| format!("read(a={}1{})", "{k: ".repeat(n), "}".repeat(n));
    let handle = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            [100, 100_000].map(|n| {
                (
                    n,
                    find_declared(&deep(n)).0,
                    find_declared(&format!("<|python_start|>{}", deep(n))).0,
                )
            })
        })
        .unwrap();
    for (n, bare, tagged) in handle.join().unwrap() {
        // Too deep without a sentinel: rejected as a call to a declared tool.
        for calls in [bare, tagged] {
            assert_eq!(calls.len(), 1, "{n}");
            assert_eq!(calls[0].args.is_ok(), n == 100, "{n}: {:?}", calls[0].args);
        }
    }
}

#[test]
fn many_parameters_whose_cdata_never_closes_are_read_in_linear_time() {
    for (open, param, close) in [
        (
            "<function name=\"read\">",
            "<param name=\"p{}\"><![CDATA[x</param>",
            "</function>",
        ),
        (
            "<minimax:tool_call><invoke name=\"read\">",
            "<parameter name=\"p{}\"><![CDATA[x</parameter>",
            "</invoke></minimax:tool_call>",
        ),
    ] {
        let looked = |n: usize| {
            let params: String = (0..n)
                .map(|i| param.replace("{}", &i.to_string()))
                .collect();
            let text = format!("{open}{params}{close}");
            let before = cursor::scanned();
            let (calls, _) = find_declared(&text);
            assert_eq!(calls.len(), 1, "{open}");
            cursor::scanned() - before
        };
        let (small, big) = (looked(500), looked(5_000));
        assert!(big <= 15 * small.max(1), "{open}: {small} → {big}");
    }
}
