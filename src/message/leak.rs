//! The words about calls written into assistant text: why a leaked call
//! cannot be read ([`LeakProblem`], and [`PythonProblem`] for a call list
//! that is not Python literal calls).
//!
//! `provider/leak/` names the problem as data (it sits below this stage and
//! does not import it); each sentence is written here, as that type's
//! `Display`. The sentences are reviewed in full in `tests/golden/messages.out`
//! (`leak-words.jsonl`).

use std::fmt;

use crate::provider::leak::{LeakProblem, PythonProblem};

impl fmt::Display for LeakProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeakProblem::NotClosed => {
                f.write_str("the tool call written in the text is not closed")
            }
            LeakProblem::NoName => f.write_str("the tool call written in the text has no name"),
            LeakProblem::NotJson(why) => {
                write!(
                    f,
                    "the tool call written in the text is not valid JSON: {why}"
                )
            }
            LeakProblem::JsonNotTaken => {
                f.write_str("the tool call written in the text is not valid JSON")
            }
            LeakProblem::Empty => f.write_str("the tool call written in the text is empty"),
            LeakProblem::ArgsNotAnObject => f.write_str(
                "the arguments of the tool call written in the text are not a JSON object",
            ),
            LeakProblem::ArgsNotFenced => f.write_str(
                "the arguments of the tool call written in the text are not in a ```json block",
            ),
            LeakProblem::TooDeep(limit) => write!(
                f,
                "the tool call written in the text nests lists or dicts more than {limit} levels deep"
            ),
            LeakProblem::NotPythonCalls(why) => write!(
                f,
                "the tool call written in the text is not a Python call list: {why}"
            ),
            LeakProblem::NotCallNotation => {
                f.write_str("the tool call written in the text is not a call in call notation")
            }
            LeakProblem::MoreAfterFunction => {
                f.write_str("the tool call written in the text has more after its function")
            }
            LeakProblem::NoArguments => {
                f.write_str("the tool call written in the text has no arguments")
            }
            LeakProblem::NoSeparator(sep) => {
                write!(f, "the tool call written in the text has no {sep}")
            }
            LeakProblem::EmptySection(opening) => write!(
                f,
                "the tool call section written in the text holds no call after {opening}"
            ),
            LeakProblem::IdNamesNoTool(id) => write!(
                f,
                "the call id {id:?} of the tool call written in the text is not functions.NAME:INDEX, and no one declared tool is named by it"
            ),
            LeakProblem::IdNamesTools { id, tools } => {
                write!(
                    f,
                    "the call id {id:?} of the tool call written in the text is not functions.NAME:INDEX, and it names more than one declared tool: "
                )?;
                for (i, tool) in tools.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{tool:?}")?;
                }
                Ok(())
            }
            LeakProblem::HeadNotClosed => f.write_str(
                "the opening tag of the tool call written in the text is not closed by '>'",
            ),
            LeakProblem::NotAToolName(name) => write!(
                f,
                "{name:?} in the tool call written in the text is not a tool name"
            ),
            LeakProblem::TextOutsideParameters => {
                f.write_str("the tool call written in the text holds text outside its parameters")
            }
            LeakProblem::ParameterTagNotClosed => f.write_str("a parameter tag is not closed"),
            LeakProblem::ParameterWithoutName => f.write_str("a parameter has no name"),
            LeakProblem::ParameterNotClosed(name) => {
                write!(f, "parameter \"{name}\" is not closed")
            }
            LeakProblem::ParameterNotJson { name, why } => write!(
                f,
                "parameter \"{name}\" is marked as JSON but is not valid JSON: {why}"
            ),
            LeakProblem::ParameterTwice(name) => write!(
                f,
                "parameter \"{name}\" is given twice in the tool call written in the text"
            ),
            LeakProblem::KeyTwice(path) => write!(
                f,
                "key {path:?} is given twice in the tool call written in the text; send each key once"
            ),
            LeakProblem::PairNotComplete => {
                f.write_str("an <arg_key>/<arg_value> pair is not complete")
            }
            LeakProblem::InvalidAt { at, expected } => write!(
                f,
                "the tool call written in the text is not valid JSON (at byte {at} of it: {expected})"
            ),
            LeakProblem::TrailingAt(at) => write!(
                f,
                "the tool call written in the text is not valid JSON (it goes on after its end, at byte {at} of it)"
            ),
        }
    }
}

impl fmt::Display for PythonProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PythonProblem::Expected { want, at, found } => {
                f.write_str("expected ")?;
                for (i, w) in want.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" or ")?;
                    }
                    write!(f, "'{w}'")?;
                }
                write!(f, " at byte {at}, found {found:?}")
            }
            PythonProblem::EmptyList => f.write_str("the list is empty"),
            PythonProblem::ExpectedName(at) => write!(f, "expected a function name at byte {at}"),
            PythonProblem::ExpectedKeyword(at) => {
                write!(f, "expected a keyword argument (name=value) at byte {at}")
            }
            PythonProblem::NotAnArgumentName(name) => {
                write!(f, "{name:?} is not an argument name")
            }
            PythonProblem::ArgumentTwice { name, at } => {
                write!(f, "argument {name:?} is given twice (byte {at})")
            }
            PythonProblem::KeyTwice(path) => write!(f, "key {path:?} is given twice"),
            PythonProblem::PositionalAfterNamed(at) => {
                write!(f, "a positional argument after a named one (byte {at})")
            }
            PythonProblem::DictKeyNotString => f.write_str("a dict key is not a string"),
            PythonProblem::NotALiteral(at) => write!(
                f,
                "byte {at} is not a literal (string, number, True, False, None, list or dict)"
            ),
            PythonProblem::ObjectLiteralSplitsChar => {
                f.write_str("an object literal ends inside a character")
            }
            PythonProblem::NotAnObjectLiteral(at) => {
                write!(f, "byte {at} is not an object literal")
            }
            PythonProblem::NotANumber(text) => {
                write!(f, "{text:?} is not a number JSON can hold as written")
            }
            PythonProblem::TripleQuoted => f.write_str("triple-quoted strings are not read"),
            PythonProblem::StringPastLine => f.write_str("a string runs past the end of its line"),
            PythonProblem::EscapeDigits { escape, digits } => {
                write!(f, "\\{escape} needs {digits} hex digits")
            }
            PythonProblem::NamedEscape => {
                f.write_str("a \\N{…} escape is not read; write the character itself")
            }
            PythonProblem::NotACharacter { escape, hex } => {
                write!(f, "\\{escape}{hex} is not a character")
            }
            PythonProblem::TextAfterCall(at) => write!(f, "text after the call at byte {at}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::provider::leak::{LeakProblem, PythonProblem};

    /// The reasons no reader reaches today (so no golden record shows them),
    /// and the ones whose data is a list: each worded with its data.
    #[test]
    fn each_problem_is_worded_with_its_data() {
        let cases = [
            (
                LeakProblem::JsonNotTaken,
                "the tool call written in the text is not valid JSON",
            ),
            (
                LeakProblem::NotPythonCalls(PythonProblem::ExpectedKeyword(7)),
                "the tool call written in the text is not a Python call list: expected a keyword argument (name=value) at byte 7",
            ),
            (
                LeakProblem::NotPythonCalls(PythonProblem::ObjectLiteralSplitsChar),
                "the tool call written in the text is not a Python call list: an object literal ends inside a character",
            ),
            (
                LeakProblem::NotPythonCalls(PythonProblem::Expected {
                    want: &['['],
                    at: 0,
                    found: 'x',
                }),
                "the tool call written in the text is not a Python call list: expected '[' at byte 0, found 'x'",
            ),
            (
                LeakProblem::IdNamesTools {
                    id: "functionsread10".into(),
                    tools: vec!["read1".into(), "read".into(), "re\"ad".into()],
                },
                "the call id \"functionsread10\" of the tool call written in the text is not functions.NAME:INDEX, and it names more than one declared tool: \"read1\", \"read\", \"re\\\"ad\"",
            ),
            (
                LeakProblem::NotAToolName("a \"b\"".into()),
                "\"a \\\"b\\\"\" in the tool call written in the text is not a tool name",
            ),
        ];
        for (problem, words) in cases {
            assert_eq!(problem.to_string(), words);
        }
        assert_eq!(
            PythonProblem::TextAfterCall(12).to_string(),
            "text after the call at byte 12"
        );
    }
}
