//! The front door for programs: a set of tools, and one call checked against it.
//!
//! ```
//! use callfix::toolset::{Outcome, Toolset};
//! use serde_json::json;
//!
//! let tools = Toolset::from_schemas([(
//!     "read".to_owned(),
//!     json!({"type": "object", "properties": {"path": {"type": "string"},
//!            "offset": {"type": "integer"}}, "required": ["path"]}),
//! )]);
//! assert!(matches!(tools.check("read", json!({"path": "/a"})), Outcome::Valid { .. }));
//! match tools.check("read", json!({"path": "/a", "offset": "2"})) {
//!     Outcome::Repaired { args, .. } => assert_eq!(args, json!({"path": "/a", "offset": 2})),
//!     other => panic!("{other:?}"),
//! }
//! match tools.check("read", json!({})) {
//!     Outcome::Rejected { message, .. } => assert!(message.ends_with("path: Required")),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! A `Toolset` is immutable; [`Toolset::check`] never does loop detection (that
//! needs one state per conversation: a [`Session`], which the caller owns).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Unrecognised;
use crate::filter::{Conversation, Filter, Judge, Loops, Options, Summary, Tally};
use crate::kinds::Kind;
use crate::message::{ArgError, Style};
use crate::provider::Call;
use crate::provider::{self, Args, Extracted};
use crate::registry::{Registry, SourceError};
use crate::repair::{Policy, Repair};
use crate::spelling::Spellings;
use crate::verdict::{Fault, Status, Verdict};

mod report;

/// Tools by name, with how calls to them are checked ([`Options`]).
#[derive(Debug)]
pub struct Toolset {
    registry: Registry,
    options: Options,
}

/// What became of one call.
///
/// ```
/// use callfix::{Outcome, Toolset};
/// use serde_json::json;
///
/// let tools = Toolset::from_schemas([(
///     "grep".to_owned(),
///     json!({"type": "object", "properties": {"pattern": {"type": "string"},
///            "-n": {"type": "boolean"}}, "required": ["pattern"]}),
/// )]);
/// match tools.check("grep", json!({"pattern": "fn", "-n": "true"})) {
///     Outcome::Repaired { args, repairs } => {
///         assert_eq!(args, json!({"pattern": "fn", "-n": true}));
///         assert_eq!((repairs[0].path.as_str(), repairs[0].kind.name()), ("-n", "coerce-boolean"));
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The arguments validate as they are.
    Valid {
        /// The arguments, unchanged.
        args: Value,
    },
    /// The arguments validate after the repairs listed.
    Repaired {
        /// The repaired arguments.
        args: Value,
        /// Every change, in order.
        repairs: Vec<Repair>,
    },
    /// The call cannot be used.
    Rejected {
        /// What is wrong, path by path.
        errors: Vec<ArgError>,
        /// The one line for the model.
        message: String,
    },
    /// The tool's schema is broken (not JSON, not a valid schema, a `$ref` it
    /// may not follow): the operator's error, which no retry by the model can
    /// fix. The command line answers the model with `message` and exits 2.
    Broken {
        /// Which tool and why (`Tool "read" cannot be checked: its schema is
        /// broken (…)`).
        message: String,
    },
}

impl Outcome {
    /// Whether the call can be used (valid or repaired).
    pub fn is_ok(&self) -> bool {
        matches!(self, Outcome::Valid { .. } | Outcome::Repaired { .. })
    }

    /// The arguments to use: as sent, or repaired; `None` when rejected.
    pub fn args(&self) -> Option<&Value> {
        match self {
            Outcome::Valid { args } | Outcome::Repaired { args, .. } => Some(args),
            Outcome::Rejected { .. } | Outcome::Broken { .. } => None,
        }
    }

    /// The one line for the model, when the call cannot be used.
    pub fn message(&self) -> Option<&str> {
        match self {
            Outcome::Rejected { message, .. } | Outcome::Broken { message } => Some(message),
            Outcome::Valid { .. } | Outcome::Repaired { .. } => None,
        }
    }
}

impl From<Verdict> for Outcome {
    /// What a [`Sink`](crate::Sink)'s verdict comes to.
    fn from(v: Verdict) -> Self {
        if v.fault == Fault::Schema {
            return Outcome::Broken {
                message: v.message.unwrap_or_default(),
            };
        }
        match (v.status, v.args.map(crate::verdict::Arguments::into_value)) {
            (Status::Valid, Some(args)) => Outcome::Valid { args },
            (Status::Repaired, Some(args)) => Outcome::Repaired {
                args,
                repairs: v.repairs,
            },
            _ => Outcome::Rejected {
                errors: v.errors,
                message: v.message.unwrap_or_default(),
            },
        }
    }
}

impl Toolset {
    /// Tools from schemas in memory, by name. Nothing is read from the
    /// filesystem; a schema's `$ref` may point only inside itself.
    pub fn from_schemas(schemas: impl IntoIterator<Item = (String, Value)>) -> Self {
        Self::new(Registry::from_schemas(schemas))
    }

    /// Tools from a provider's tool list given as a value (OpenAI, Anthropic,
    /// Gemini or MCP shape); `None` if `tools` is no tool list.
    pub fn from_tools(tools: Value) -> Option<Self> {
        Registry::from_tool_list(tools).map(Self::new)
    }

    /// Tools from a directory of `<tool>.json` schemas, or a provider's tool-list
    /// file; schemas are compiled when first needed, and a `$ref` may point only
    /// at files under the directory.
    ///
    /// ```
    /// use callfix::Toolset;
    /// use serde_json::json;
    ///
    /// let tools = Toolset::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas")).unwrap();
    /// assert!(tools.contains("read"));
    /// let outcome = tools.check("read", json!({"file_path": "/a", "offset": "3"}));
    /// assert_eq!(outcome.args(), Some(&json!({"file_path": "/a", "offset": 3})));
    /// ```
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, SourceError> {
        Registry::load(&[path.as_ref().to_owned()]).map(Self::new)
    }

    /// Tools already compiled into a [`Registry`], checked with the default
    /// [`Options`].
    pub fn new(registry: Registry) -> Self {
        Toolset {
            registry,
            options: Options::default(),
        }
    }

    /// The same tools, with other settings (message style, repairs, record
    /// limits, the loop limit of [`Filter`] runs, threads). A [`Session`] takes
    /// its own loop limit ([`Toolset::session`]).
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The same tools, with another message style (prefix, how many errors, how
    /// long each).
    pub fn with_style(mut self, style: Style) -> Self {
        self.options.style = style;
        self
    }

    /// The same tools, with other repair settings (which kinds, how many rounds).
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.options.policy = policy;
        self
    }

    /// The same tools, with `$ref`s under each URI prefix served from a local
    /// directory (`("https://example.com/schemas/", "vendor/schemas")`), tried
    /// in order; nothing is ever fetched.
    pub fn with_ref_map(mut self, map: impl IntoIterator<Item = (String, PathBuf)>) -> Self {
        let map = crate::resolve::RefMap::new(map.into_iter().collect());
        self.registry = self.registry.with_ref_map(map);
        self
    }

    /// How calls are checked.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The compiled tools and the options, taken apart.
    pub(crate) fn into_parts(self) -> (Registry, Options) {
        (self.registry, self.options)
    }

    /// The compiled tools.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The tool names, sorted.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.registry.names()
    }

    /// Whether a tool of that name is declared.
    pub fn contains(&self, name: &str) -> bool {
        self.registry.contains(name)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.registry.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.registry.is_empty()
    }

    /// A stream of records checked against these tools with their options: the
    /// `callfix` filter (`callfix --schemas DIR < calls.jsonl`), one result per
    /// call into a [`Sink`](crate::Sink).
    ///
    /// ```
    /// use callfix::{Format, Input, Printer, Summary, Toolset};
    /// use serde_json::json;
    ///
    /// let tools = Toolset::from_schemas([(
    ///     "read".to_owned(),
    ///     json!({"type": "object", "properties": {"limit": {"type": "integer"}}}),
    /// )]);
    /// let records = b"{\"name\": \"read\", \"arguments\": {\"limit\": \"2\"}}\n";
    /// let mut printer = Printer::new(Vec::new(), Format::Args);
    /// let mut summary = Summary::default();
    /// tools
    ///     .filter()
    ///     .stream(Input::from_bytes(records, "calls.jsonl"), &mut printer, &mut summary)
    ///     .unwrap();
    /// assert_eq!(printer.into_inner(), b"{\"limit\":2}\n");
    /// assert_eq!(summary.total().repaired, 1);
    /// ```
    pub fn filter(&self) -> Filter<'_> {
        self.filter_with(&self.options)
    }

    /// As [`Toolset::filter`], with other options (a session's loop limit).
    pub fn filter_with<'a>(&'a self, options: &'a Options) -> Filter<'a> {
        Filter {
            registry: &self.registry,
            options,
        }
    }

    /// Checks one call to `tool` with `arguments` (a JSON object, as sent).
    pub fn check(&self, tool: &str, arguments: Value) -> Outcome {
        self.judge(
            &mut value_call(tool, arguments),
            &self.options,
            Tally::Nothing,
        )
    }

    /// Checks one call to `tool` whose arguments are JSON text (as OpenAI sends
    /// them): the text may be salvaged (fences, trailing commas, …) as a repair.
    pub fn check_text(&self, tool: &str, arguments: &str) -> Outcome {
        let mut call = provider::bare_call(tool, arguments.to_owned());
        self.judge(&mut call, &self.options, Tally::Nothing)
    }

    /// Checks every call in one record, in any envelope the filter reads (an
    /// OpenAI tool call or message, an Anthropic block or message, a Gemini
    /// part, an MCP `tools/call`, a generic `{name, arguments}`, calls leaked into
    /// assistant text). A record that holds no recognisable call is an `Err`
    /// saying what was seen; a text-only message is `Ok` with no calls.
    pub fn check_record(&self, record: Value) -> Result<Vec<Checked>, Unrecognised> {
        Ok(self
            .calls_in(record)?
            .into_iter()
            .map(|mut call| {
                let outcome = self.judge(&mut call, &self.options, Tally::Nothing);
                checked(call, outcome)
            })
            .collect())
    }

    /// The calls of a record, in any envelope the filter reads.
    fn calls_in(&self, record: Value) -> Result<Vec<Call>, Unrecognised> {
        let declared = |name: &str| self.registry.contains(name);
        let from_text = (self.options.policy.enabled)
            .has(Kind::ExtractFromText)
            .then_some(&declared as provider::Declared);
        match provider::extract(record, from_text) {
            Extracted::Unrecognised(reason) => Err(Unrecognised(reason)),
            Extracted::Calls(calls) => Ok(calls),
        }
    }

    /// A conversation: the same checks, plus repeated-failure escalation (the
    /// same rejected call `loop_limit` times is told to stop; 0: never).
    pub fn session(&self, loop_limit: u32) -> Session<'_> {
        Session {
            tools: self,
            loops: Loops::default(),
            options: Options {
                loop_limit,
                ..self.options.clone()
            },
        }
    }

    /// [`Filter::bare`] for arguments already in memory, without a reader or a
    /// sink: what `bare` hands its sink for `bytes` (the record's number
    /// spellings, the call and its verdict). With a `summary`, its loop memory
    /// and counts are kept there as `bare` keeps them; `None` is `bare` with a
    /// fresh summary of which nothing is kept (`options.loop_limit` must then be
    /// 0: no repeats are counted). `source` names the input in messages and is
    /// the conversation repeats are counted in. The one difference: a broken
    /// schema is not said to a sink's [`diagnostic`](crate::Sink::diagnostic).
    /// One call checked this way skips `bare`'s reading (a copy of the bytes)
    /// and the caller's sink (a result kept in a list).
    ///
    /// ```
    /// use callfix::{Options, Summary, Toolset};
    /// use serde_json::json;
    ///
    /// let tools = Toolset::from_schemas([(
    ///     "read".to_owned(),
    ///     json!({"type": "object", "properties": {"offset": {"type": "integer"}}}),
    /// )]);
    /// let mut summary = Summary::default();
    /// let text = br#"{"offset": "2"}"#;
    /// let one = tools.check_bare(&Options::default(), "read", text.to_vec(), "<in>", Some(&mut summary));
    /// assert_eq!(one.verdict.args(), Some(&json!({"offset": 2})));
    /// assert_eq!(summary.total().repaired, 1);
    /// ```
    pub fn check_bare(
        &self,
        options: &Options,
        tool: &str,
        bytes: Vec<u8>,
        source: &str,
        summary: Option<&mut Summary>,
    ) -> BareCheck {
        let size = bytes.len();
        let (spellings, call, verdict) = (self.filter_with(options)).bare_checked(
            tool,
            bytes,
            size,
            source,
            summary,
            &mut |_| {},
        );
        BareCheck {
            spellings: spellings.unwrap_or_default(),
            call,
            verdict,
        }
    }

    /// A shortcut to one answer of [`Toolset::check_bare`]: `Some(args)` when
    /// it would say the call is valid as sent (no repair, no error), where
    /// `args` is the arguments' compact JSON text, what a result writes for
    /// them ([`Spellings::to_text`]; `text` itself when already compact).
    /// `None` says nothing: the arguments are not in the plain JSON this reads
    /// (integers only, the common string escapes, small objects) or not valid
    /// as sent, or `tool` is not one of the tools by that exact name; then ask
    /// `check_bare`. Nothing is counted, and no [`serde_json::Value`] is built;
    /// a tool first met here compiles only the validator this needs (the one
    /// `check_bare` uses is compiled when a call first goes that way).
    ///
    /// ```
    /// use callfix::{Options, Toolset};
    /// use serde_json::json;
    ///
    /// let tools = Toolset::from_schemas([(
    ///     "read".to_owned(),
    ///     json!({"type": "object", "properties": {"offset": {"type": "integer"}}}),
    /// )]);
    /// let options = Options::default();
    /// assert_eq!(tools.valid_as_sent(&options, "read", r#"{"offset": 2}"#).as_deref(), Some(r#"{"offset":2}"#));
    /// assert_eq!(tools.valid_as_sent(&options, "read", r#"{"offset": "2"}"#), None);
    /// ```
    pub fn valid_as_sent<'t>(
        &self,
        options: &Options,
        tool: &str,
        text: &'t str,
    ) -> Option<std::borrow::Cow<'t, str>> {
        if text.len() > options.max_record_bytes {
            return None;
        }
        self.registry.tool(tool)?.valid_as_sent(text)
    }

    /// The verdict on `text` as the arguments of one call to `tool` by the
    /// full path alone (parse, validate, salvage, repair), without the
    /// shortcut to "valid as sent" every surface takes first: what the tests
    /// pin the shortcut to. Judged only (its message not worded).
    #[cfg(test)]
    pub(crate) fn judged_fully(&self, options: &Options, tool: &str, text: &str) -> Verdict {
        let mut call = crate::provider::bare_call(tool, text.to_owned());
        Judge::new(&self.registry, options).judge_fully(&mut call)
    }

    /// The one settle step ([`Judge::check`]) for one call, with `options`.
    fn judge(&self, call: &mut Call, options: &Options, tally: Tally<'_>) -> Outcome {
        Outcome::from(Judge::new(&self.registry, options).check(call, tally))
    }
}

/// One call checked from its argument bytes ([`Toolset::check_bare`]): what
/// [`Filter::bare`] hands its sink.
#[derive(Debug)]
pub struct BareCheck {
    /// The number spellings of the arguments' text (none when the bytes were
    /// no text: too many, or not UTF-8).
    pub spellings: Spellings,
    /// The call, its arguments as sent.
    pub call: Call,
    /// What became of it.
    pub verdict: Verdict,
}

/// One call of a record, checked ([`Toolset::check_record`]).
///
/// ```
/// use callfix::{Outcome, Toolset};
/// use serde_json::json;
///
/// let tools = Toolset::from_schemas([(
///     "read".to_owned(),
///     json!({"type": "object", "properties": {"path": {"type": "string"}}}),
/// )]);
/// // An OpenAI assistant message: arguments as JSON text.
/// let message = json!({"role": "assistant", "tool_calls": [{"id": "call_1",
///     "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"/a\"}"}}]});
/// let checked = tools.check_record(message).unwrap();
/// assert_eq!((checked[0].id.as_str(), checked[0].tool.as_str()), (Some("call_1"), "read"));
/// assert!(matches!(checked[0].outcome, Outcome::Valid { .. }));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The call's id as sent (null when it had none).
    pub id: Value,
    /// The tool called (after `rename-tool`).
    pub tool: String,
    /// What became of it.
    pub outcome: Outcome,
}

/// One conversation's checks: a [`Toolset`]'s, plus repeated-failure escalation.
///
/// ```
/// use callfix::{Outcome, Toolset};
/// use serde_json::json;
///
/// let tools = Toolset::from_schemas([(
///     "read".to_owned(),
///     json!({"type": "object", "required": ["path"]}),
/// )]);
/// let mut session = tools.session(2);
/// let message = |o: Outcome| match o {
///     Outcome::Rejected { message, .. } => message,
///     other => panic!("{other:?}"),
/// };
/// assert!(message(session.check("read", json!({}))).starts_with("Please rewrite"));
/// // The same rejected call a second time: the model is told to stop.
/// assert!(message(session.check("read", json!({}))).starts_with("Stop retrying"));
/// ```
#[derive(Debug)]
pub struct Session<'t> {
    tools: &'t Toolset,
    loops: Loops,
    options: Options,
}

impl Session<'_> {
    /// Checks one call, as [`Toolset::check`], counting repeated rejections.
    pub fn check(&mut self, tool: &str, arguments: Value) -> Outcome {
        self.judge(&mut value_call(tool, arguments))
    }

    /// Checks one call whose arguments are JSON text, as
    /// [`Toolset::check_text`], counting repeated rejections.
    pub fn check_text(&mut self, tool: &str, arguments: &str) -> Outcome {
        self.judge(&mut provider::bare_call(tool, arguments.to_owned()))
    }

    /// Checks every call in one record, as [`Toolset::check_record`], counting
    /// repeated rejections.
    pub fn check_record(&mut self, record: Value) -> Result<Vec<Checked>, Unrecognised> {
        Ok(self
            .tools
            .calls_in(record)?
            .into_iter()
            .map(|mut call| {
                let outcome = self.judge(&mut call);
                checked(call, outcome)
            })
            .collect())
    }

    fn judge(&mut self, call: &mut Call) -> Outcome {
        let conversation = Conversation::Input("");
        let mut repeats = self.loops.within(&conversation);
        (self.tools).judge(call, &self.options, Tally::Repeats(&mut repeats))
    }
}

/// A call to `tool` whose arguments came as a value.
fn value_call(tool: &str, arguments: Value) -> Call {
    let mut call = provider::bare_call(tool, String::new());
    call.args = Args::Value(arguments);
    call.args_as_text = false;
    call
}

fn checked(call: Call, outcome: Outcome) -> Checked {
    Checked {
        id: call.id,
        tool: call.name,
        outcome,
    }
}

#[cfg(test)]
mod tests;
