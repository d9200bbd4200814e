//! A conversation made acceptable again (`callfix heal`): every assistant
//! tool call in an OpenAI chat or Anthropic messages request body comes out
//! valid (unchanged), repaired (its arguments replaced, reported) or
//! neutralised (arguments a JSON object every provider accepts, its result
//! carrying the instruction and what was sent), and every call paired with
//! exactly one result.
//!
//! ```
//! use callfix::heal::{Action, Healer};
//! use serde_json::json;
//!
//! let request = json!({"model": "m", "tools": [{"type": "function", "function": {
//!     "name": "read", "parameters": {"type": "object",
//!     "properties": {"limit": {"type": "integer"}}, "required": ["limit"]}}}],
//!   "messages": [{"role": "user", "content": "hi"},
//!     {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
//!      "function": {"name": "read", "arguments": "{\"limit\": \"2\"}"}}]}]});
//! let healed = Healer::new(None).heal(request.to_string().as_bytes()).unwrap();
//! assert_eq!(healed.calls()[0].action(), Action::Repaired);
//! let messages = &healed.request()["messages"];
//! assert_eq!(messages[1]["tool_calls"][0]["function"]["arguments"], "{\"limit\":2}");
//! // The call had no result: it gets one.
//! assert_eq!(messages[2]["role"], "tool");
//! assert_eq!(messages[2]["tool_call_id"], "c1");
//! ```
//!
//! The walk over messages and the provider shapes are in
//! `provider/conversation/`; the words written into the conversation in
//! `message/heal.rs`. See docs/heal.md for every decision.

use std::io::{self, Read, Write};

use serde_json::Value;

use crate::filter::Options;
use crate::input::{CHUNK, Framer};
use crate::provider::conversation;
use crate::provider::{Call, Provider};
use crate::spelling::Spellings;
use crate::surrogates;
use crate::toolset::Toolset;
use crate::verdict::{Fault, Verdict};

/// The providers whose request bodies `heal` reads and writes (`--to`).
pub static SHAPES: &[Provider] = &[Provider::OpenAi, Provider::Anthropic];

/// Why a record could not be healed (it is no conversation `heal` reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HealError {
    /// The record is not JSON.
    #[error("not valid JSON ({0})")]
    NotJson(serde_json::Error),
    /// The record is JSON, but no request body with a `messages` list.
    #[error(
        "not a conversation: no \"messages\" list (an OpenAI chat or Anthropic messages request body)"
    )]
    NotAConversation,
    /// No tools were given and the request has no usable `tools` list.
    #[error(
        "no tools to check the calls against: the request has no \"tools\" list and none was given"
    )]
    NoTools,
    /// `--to` names a provider `heal` does not write.
    #[error("heal writes openai or anthropic request bodies, not {0}")]
    Unsupported(&'static str),
}

/// What became of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Left exactly as it was.
    Unchanged,
    /// Rewritten: repaired, or written as its provider requires (OpenAI
    /// arguments as text).
    Repaired,
    /// Rejected: its arguments made a JSON object, its result carries the
    /// instruction and what was sent.
    Neutralised,
}

/// One call of a healed conversation.
#[derive(Debug)]
pub struct HealedCall {
    message: usize,
    call: Option<Call>,
    verdict: Verdict,
    action: Action,
}

impl HealedCall {
    /// The index in the request's `messages` of the message holding the call.
    pub fn message(&self) -> usize {
        self.message
    }
    /// The call as read (`None` when it could not be read as a call).
    pub fn call(&self) -> Option<&Call> {
        self.call.as_ref()
    }
    /// The verdict on it, as the filter gives it.
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }
    /// What became of it.
    pub fn action(&self) -> Action {
        self.action
    }
    /// The call and its verdict, taken apart.
    pub fn into_parts(self) -> (Option<Call>, Verdict) {
        (self.call, self.verdict)
    }
    /// The tool called (after `rename-tool`), or `""` for a call that could
    /// not be read.
    pub fn tool(&self) -> &str {
        self.call.as_ref().map_or("", Call::name)
    }
}

/// A healed conversation.
#[derive(Debug)]
pub struct Healed {
    request: Value,
    calls: Vec<HealedCall>,
    provider: Provider,
    spellings: Spellings,
    changed: bool,
    not_carried: Vec<String>,
}

impl Healed {
    /// With `--to`: each piece of content the other provider has no place
    /// for, and what became of it (`messages[3]: a "refusal" part, written
    /// as text`); empty otherwise.
    pub fn not_carried(&self) -> &[String] {
        &self.not_carried
    }
    /// The healed request body.
    pub fn request(&self) -> &Value {
        &self.request
    }
    /// The healed request body, taken out.
    pub fn into_request(self) -> Value {
        self.request
    }
    /// One per assistant tool call of the history, in order.
    pub fn calls(&self) -> &[HealedCall] {
        &self.calls
    }
    /// The calls, taken out.
    pub fn into_calls(self) -> Vec<HealedCall> {
        self.calls
    }
    /// How many calls were neutralised.
    pub fn neutralised(&self) -> usize {
        self.calls
            .iter()
            .filter(|c| c.action == Action::Neutralised)
            .count()
    }
    /// Whether a call's tool schema is broken (the operator's error).
    pub fn schema_faults(&self) -> usize {
        (self.calls.iter())
            .filter(|c| c.verdict.fault() == Fault::Schema)
            .count()
    }
    /// The provider whose request body the input was.
    pub fn provider(&self) -> Provider {
        self.provider
    }
    /// The number spellings of the input (how the request's numbers are
    /// written back).
    pub fn spellings(&self) -> &Spellings {
        &self.spellings
    }
    /// Whether the request differs from the input in any way.
    pub fn changed(&self) -> bool {
        self.changed
    }
    /// The request as compact JSON text, numbers spelled as in the input.
    pub fn to_text(&self) -> String {
        self.spellings.to_text(&self.request)
    }
}

/// The result text for a rejected call whose arguments are shown as `{}` in
/// the history it stays in: the instruction, then the arguments as sent (on
/// one line, cut to 200 characters). The filter's converted histories
/// (`-f call --to`) and the LiteLLM guardrail's re-ask say it so.
///
/// ```
/// assert_eq!(
///     callfix::heal::with_arguments_sent("Please rewrite.", "{'a': 1"),
///     "Please rewrite. (arguments as sent: {'a': 1)"
/// );
/// ```
pub fn with_arguments_sent(instruction: &str, sent: &str) -> String {
    crate::message::with_arguments_sent(instruction, sent)
}

/// How conversations are healed: against which tools (or each request's
/// own), with which [`Options`], into which provider's shape.
#[derive(Debug)]
pub struct Healer<'t> {
    tools: Option<&'t Toolset>,
    options: Options,
    to: Option<Provider>,
}

/// What a [`Healer::stream`] run counted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// Records read.
    pub records: u64,
    /// Calls repaired.
    pub repaired: u64,
    /// Calls neutralised.
    pub neutralised: u64,
    /// Records passed through unhealed (not a conversation), or lost (larger
    /// than the record limit).
    pub passed: u64,
    /// Calls whose tool's schema is broken.
    pub schema_faults: u64,
}

/// What a [`Healer::stream`] run says as it goes.
#[derive(Debug)]
#[non_exhaustive]
pub enum Report<'a> {
    /// A call was repaired or neutralised.
    Call {
        /// The 1-based line of the input on which the record starts.
        line: u64,
        /// The call.
        call: &'a HealedCall,
    },
    /// With `--to`: content of a record the other provider has no place for,
    /// written as text or left out (one report per record).
    NotCarried {
        /// The 1-based line of the input on which the record starts.
        line: u64,
        /// What, and what became of it (the healed body's message indexes).
        what: &'a [String],
    },
    /// A record was written as it came, unhealed (or, too large, dropped).
    Passed {
        /// The 1-based line of the input on which the record starts.
        line: u64,
        /// Why.
        why: String,
    },
}

impl<'t> Healer<'t> {
    /// Heals against `tools`, or, with `None`, each request's own `tools`
    /// (checked with the default [`Options`]).
    pub fn new(tools: Option<&'t Toolset>) -> Self {
        let options = tools.map(|t| t.options().clone()).unwrap_or_default();
        Healer {
            tools,
            options,
            to: None,
        }
    }

    /// The options a request's own tools are checked with.
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// Writes healed conversations as `to`'s request bodies (one of
    /// [`SHAPES`]).
    pub fn to(mut self, to: Provider) -> Result<Self, HealError> {
        if !SHAPES.contains(&to) {
            return Err(HealError::Unsupported(to.name()));
        }
        self.to = Some(to);
        Ok(self)
    }

    /// Heals one request body given as JSON text. A body holding a lone
    /// surrogate escape is refused ([`HealError::NotJson`]): a
    /// [`serde_json::Value`] cannot hold one (the command, [`Healer::stream`],
    /// heals it and writes it back as sent).
    pub fn heal(&self, text: &[u8]) -> Result<Healed, HealError> {
        let value = serde_json::from_slice::<Value>(text).map_err(HealError::NotJson)?;
        self.heal_value(value, Spellings::scan(text))
    }

    /// [`Healer::heal`], and a body with a lone surrogate escape read with it
    /// masked, as the filter reads it: its strings come out as sent from
    /// [`Healed::to_text`] (a call whose arguments hold one is neutralised,
    /// naming the path), not from [`Healed::request`].
    fn heal_masked(&self, text: &[u8]) -> Result<Healed, HealError> {
        let (value, masked) = match serde_json::from_slice::<Value>(text) {
            Ok(v) => (v, false),
            Err(e) => match surrogates::mask(text).and_then(|m| serde_json::from_slice(&m).ok()) {
                Some(v) => (v, true),
                None => return Err(HealError::NotJson(e)),
            },
        };
        let mut spellings = Spellings::scan(text);
        spellings.masked = masked;
        self.heal_value(value, spellings)
    }

    /// Heals one request body already parsed (`spellings`: its numbers'
    /// spellings, or the default).
    pub fn heal_value(
        &self,
        request: Value,
        mut spellings: Spellings,
    ) -> Result<Healed, HealError> {
        let Value::Object(body) = request else {
            return Err(HealError::NotAConversation);
        };
        let provider = conversation::detect(&body).ok_or(HealError::NotAConversation)?;
        let own;
        let tools = match self.tools {
            Some(t) => t,
            None => {
                let list = body.get("tools").cloned().ok_or(HealError::NoTools)?;
                own = Toolset::from_tools(list)
                    .ok_or(HealError::NoTools)?
                    .with_options(self.options.clone());
                &own
            }
        };
        let original = body.clone();
        let (body, calls) = heal_body(body, provider, tools, &mut spellings);
        let mut not_carried = Vec::new();
        let body = match self.to {
            Some(to) if to != provider => {
                let converted = conversation::convert(
                    body,
                    (provider, to),
                    &spellings,
                    &mut not_carried,
                    crate::message::heal::moved_image,
                );
                // Written again in `to`'s shape: ids and pairing as it takes them.
                heal_body(converted, to, tools, &mut spellings).0
            }
            _ => body,
        };
        let changed = body != original;
        Ok(Healed {
            request: Value::Object(body),
            calls,
            provider,
            spellings,
            changed,
            not_carried,
        })
    }

    /// Heals every record of `reader` (JSON Lines, or JSON documents in any
    /// layout, as the filter frames them) into `out`, one line per record: a
    /// record nothing changed in is written byte for byte as it came, a
    /// healed one as compact JSON; a record that is no conversation is
    /// written as it came and reported. `report` hears of every repaired or
    /// neutralised call and every record passed through.
    pub fn stream<R: Read, W: Write>(
        &self,
        reader: R,
        out: &mut W,
        report: &mut dyn FnMut(Report<'_>),
    ) -> io::Result<Counts> {
        let mut framer = Framer::with_capacity(reader, self.options.max_record_bytes, 0, CHUNK);
        let mut buf = Vec::new();
        let mut counts = Counts::default();
        loop {
            // Live: what is healed is flushed before the framer waits for more.
            let mut flushed = Ok(());
            let next = framer.next_record(&mut buf, &mut || {
                if flushed.is_ok() {
                    flushed = out.flush();
                }
            });
            flushed?;
            let Some(meta) = next? else {
                break;
            };
            counts.records += 1;
            let line = meta.line;
            if let Some(size) = meta.oversized {
                counts.passed += 1;
                let why = format!(
                    "record of {size} bytes is over the limit of {} and was dropped",
                    self.options.max_record_bytes
                );
                report(Report::Passed { line, why });
                continue;
            }
            let healed = if meta.values > self.options.max_record_values {
                Err(format!(
                    "record holds over {} JSON values",
                    self.options.max_record_values
                ))
            } else {
                self.heal_masked(&buf).map_err(|e| e.to_string())
            };
            match healed {
                Err(why) => {
                    counts.passed += 1;
                    report(Report::Passed { line, why });
                    out.write_all(&buf)?;
                    if buf.ends_with(b"\n") {
                        // Its own line end, as it came: no blank line added.
                        continue;
                    }
                }
                Ok(healed) => {
                    for call in &healed.calls {
                        match call.action {
                            Action::Unchanged => continue,
                            Action::Repaired => counts.repaired += 1,
                            Action::Neutralised => counts.neutralised += 1,
                        }
                        if call.verdict.fault() == Fault::Schema {
                            counts.schema_faults += 1;
                        }
                        report(Report::Call { line, call });
                    }
                    if !healed.not_carried.is_empty() {
                        let what = healed.not_carried.as_slice();
                        report(Report::NotCarried { line, what });
                    }
                    if healed.changed {
                        let mut text = Vec::with_capacity(buf.len() + 64);
                        healed.spellings.write(&mut text, &healed.request)?;
                        out.write_all(&text)?;
                    } else {
                        out.write_all(&buf)?;
                    }
                }
            }
            out.write_all(b"\n")?;
        }
        out.flush()?;
        Ok(counts)
    }
}

mod judging;

use judging::heal_body;

#[cfg(test)]
mod tests;
