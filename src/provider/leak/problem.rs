//! Why a call written into text cannot be read, as data: the kind of problem
//! and what its sentence needs (a name, a byte offset, the parser's reason).
//! The sentences are written in `message::leak` (each type's `Display`), so
//! every word stays in `message/` while the readers here, below it, only name
//! the problem. A reader tells one problem from another by its kind, never by
//! its words.

/// Why a call found written in assistant text cannot be read. `Display`
/// writes the sentence the call's rejection gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LeakProblem {
    /// The markup was cut off before its end: never completed.
    NotClosed,
    /// The markup names no tool.
    NoName,
    /// JSON that does not parse: the parser's reason.
    NotJson(String),
    /// JSON that parsed but could not be taken from the text as one piece.
    JsonNotTaken,
    /// Nothing but space where the JSON should be.
    Empty,
    /// Arguments that are not a JSON object.
    ArgsNotAnObject,
    /// DeepSeek V3: the arguments after the name are not in a ```` ```json ````
    /// fence.
    ArgsNotFenced,
    /// Lists or dicts nested deeper than the readers follow: the limit.
    TooDeep(usize),
    /// A call list after a sentinel that is not one of Python literal calls.
    NotPythonCalls(PythonProblem),
    /// A sentinel's body that is not one call in call notation.
    NotCallNotation,
    /// A wrapper holding more than its one function tag.
    MoreAfterFunction,
    /// A call id with no separator before the call's end: no arguments.
    NoArguments,
    /// Markup that never writes the separator between a call's name and its
    /// arguments (`[ARGS]`): that separator.
    NoSeparator(&'static str),
    /// A section of calls whose opening (this one) is followed by no call.
    EmptySection(String),
    /// A Kimi call id that is not `functions.NAME:INDEX` and names no one
    /// declared tool: the id.
    IdNamesNoTool(String),
    /// A Kimi call id that is not `functions.NAME:INDEX` and names more than
    /// one declared tool.
    IdNamesTools {
        /// The id as written.
        id: String,
        /// The declared tools it may name, in the order they were read.
        tools: Vec<String>,
    },
    /// A function tag whose head is not closed by `>`.
    HeadNotClosed,
    /// What stands where a function tag's name goes, which is not one word.
    NotAToolName(String),
    /// A function tag holding text beside its parameters.
    TextOutsideParameters,
    /// A parameter tag whose head is not closed by `>`.
    ParameterTagNotClosed,
    /// A parameter tag with no name.
    ParameterWithoutName,
    /// A parameter (this one) whose closing tag never came.
    ParameterNotClosed(String),
    /// A parameter marked as JSON (`string="false"`) whose value does not parse.
    ParameterNotJson {
        /// The parameter.
        name: String,
        /// The parser's reason.
        why: String,
    },
    /// A parameter (this one) given twice: two readings, neither taken.
    ParameterTwice(String),
    /// A key (at this dotted path) named twice in one object of JSON: which
    /// value a reader keeps depends on the reader, so neither is taken.
    KeyTwice(String),
    /// A GLM `<arg_key>`/`<arg_value>` pair with a half missing.
    PairNotComplete,
    /// A `{name, arguments}` object with no sentinel that does not parse: the
    /// byte of the object where it broke, and what the parser expected there.
    InvalidAt {
        /// The byte offset in the object's text.
        at: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// A `{name, arguments}` object with no sentinel, closed, then more
    /// brackets: the byte of the object where they start.
    TrailingAt(usize),
}

/// Why a call list (or a call in call notation) is not Python literal calls:
/// where the reading stopped, and on what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PythonProblem {
    /// One of these characters was expected at a byte; another stood there.
    Expected {
        /// The characters that may stand there.
        want: &'static [char],
        /// The byte offset.
        at: usize,
        /// What stood there.
        found: char,
    },
    /// `[]`: a list of no calls.
    EmptyList,
    /// No function name at a byte.
    ExpectedName(usize),
    /// No `name=value` argument at a byte.
    ExpectedKeyword(usize),
    /// An argument named with a `.` or `-` (no Python name).
    NotAnArgumentName(String),
    /// One argument given twice.
    ArgumentTwice {
        /// The argument.
        name: String,
        /// The byte its second value starts at.
        at: usize,
    },
    /// A dict or object literal naming a key (at this dotted path) twice.
    KeyTwice(String),
    /// A value given by position after a named one (byte).
    PositionalAfterNamed(usize),
    /// A dict key that is not a string.
    DictKeyNotString,
    /// Something at a byte that is no literal.
    NotALiteral(usize),
    /// An object literal whose end falls inside a character.
    ObjectLiteralSplitsChar,
    /// Something at a byte that is no object literal.
    NotAnObjectLiteral(usize),
    /// A number JSON cannot hold as written (`0x1f`, `1_000`).
    NotANumber(String),
    /// A triple-quoted string.
    TripleQuoted,
    /// A string that runs past the end of its line.
    StringPastLine,
    /// An escape (`\x`, `\u`, `\U`) without its hex digits.
    EscapeDigits {
        /// The escape's letter.
        escape: char,
        /// How many hex digits it needs.
        digits: usize,
    },
    /// A `\N{…}` escape (a character by its Unicode name).
    NamedEscape,
    /// An escape whose hex digits are no character.
    NotACharacter {
        /// The escape's letter.
        escape: char,
        /// Its hex digits.
        hex: String,
    },
    /// Text after the one call a body holds (byte).
    TextAfterCall(usize),
}

#[cfg(test)]
impl LeakProblem {
    /// Whether its sentence holds `words` (for tests that check a reason by
    /// what the model reads).
    pub(crate) fn contains(&self, words: &str) -> bool {
        self.to_string().contains(words)
    }
}
