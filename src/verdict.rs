//! The verdict on one call: look the tool up, turn its arguments into JSON,
//! validate, repair what the rules allow, and either pass the arguments on or say
//! what is wrong.
//!
//! The fast path for a valid call is parse → cached validator → `is_valid`: no
//! error collection, no salvage, no copy of the arguments. Everything else runs
//! only for calls that fail. Before it, the settle step (`Judge::judge`) asks
//! `crate::tape` about arguments sent as plain JSON text: a call valid as sent
//! keeps its text (`Arguments::Sent`) and never comes here; one the tape read but
//! found invalid comes with the value it read (`judge_read`).

use serde_json::Value;

pub(crate) use arguments::Arguments;

use crate::message::{self, ArgError, Style};
use crate::provider::{Args, Call};
use crate::registry::{Lookup, Registry, Tool};
use crate::repair::{self, Kind, Policy, Repair};
use crate::salvage::{self, Salvaged};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// What became of a call.
pub enum Status {
    /// The arguments validate as they are.
    Valid,
    /// The arguments validate after the repairs listed.
    Repaired,
    /// The call cannot be used; `message` says why.
    Rejected,
}

impl Status {
    /// `valid`, `repaired` or `rejected`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::Repaired => "repaired",
            Status::Rejected => "rejected",
        }
    }
}

/// Why a call was rejected, beyond what the model reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The call (or record) is wrong: the model's mistake.
    Call,
    /// The tool's schema is broken: the operator's mistake.
    Schema,
}

/// Which kind of mistake a rejected call made, for summaries
/// (`callfix report`); read through [`Verdict::class`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Class {
    /// The tool named is not declared.
    UnknownTool,
    /// A required argument is missing (the first error).
    MissingRequired,
    /// An argument has the wrong JSON type (the first error).
    WrongType,
    /// The arguments, or the stream carrying them, were cut off.
    CutOff,
    /// The arguments are not JSON.
    NotJson,
    /// Anything else (another schema error, a broken schema or record).
    Other,
}

impl Class {
    /// Every class, in the order summaries list them.
    pub const ALL: [Class; 6] = [
        Class::UnknownTool,
        Class::MissingRequired,
        Class::WrongType,
        Class::CutOff,
        Class::NotJson,
        Class::Other,
    ];

    /// `unknown-tool`, `missing-required`, `wrong-type`, `cut-off`,
    /// `not-json` or `other`.
    pub fn name(self) -> &'static str {
        match self {
            Class::UnknownTool => "unknown-tool",
            Class::MissingRequired => "missing-required",
            Class::WrongType => "wrong-type",
            Class::CutOff => "cut-off",
            Class::NotJson => "not-json",
            Class::Other => "other",
        }
    }
}

/// What a rejection tells the model, decided when the call is judged and worded
/// once, by [`Verdict::finish`], when the outcome is final.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Told {
    /// The instruction: the prefix, then the errors.
    Errors,
    /// A message of its own (a broken schema or record): the one error's text.
    Own,
    /// An unknown tool: the tools there are, and the one it probably meant.
    UnknownTool {
        /// The first names of the registry (the rest are counted).
        listed: Vec<String>,
        /// How many tools there are.
        total: usize,
        /// The nearest name, when one is near.
        suggestion: Option<String>,
    },
}

/// How many registry names an unknown-tool message lists.
const LISTED: usize = 20;

#[derive(Debug, Clone, PartialEq)]
/// The verdict on one call.
pub struct Verdict {
    /// Valid, repaired or rejected.
    pub(crate) status: Status,
    /// The arguments: as passed on for valid/repaired calls, as received (when they
    /// parsed) for rejected ones.
    pub(crate) args: Option<Arguments>,
    /// The repairs made, in order.
    pub(crate) repairs: Vec<Repair>,
    /// What is wrong, when rejected.
    pub(crate) errors: Vec<ArgError>,
    /// What a rejection tells the model.
    pub(crate) told: Told,
    /// The instruction for the model: `None` unless rejected, and until
    /// [`Verdict::finish`] words it.
    pub(crate) message: Option<String>,
    /// Whose mistake a rejection is.
    pub(crate) fault: Fault,
    /// Which kind of mistake a rejection is.
    pub(crate) class: Class,
    /// For a rejected call whose arguments came as text: that text (to
    /// recognise a repeat that could not be parsed, and to keep the call as
    /// sent in a converted history).
    pub(crate) raw: Option<String>,
    /// The same rejected call has come back this many times, `--loop-limit` or
    /// more.
    pub(crate) looped: Option<u32>,
}

impl Verdict {
    /// Valid, repaired or rejected.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The arguments: as passed on for a valid or repaired call, as received
    /// (when they parsed) for a rejected one. A call valid as sent keeps its
    /// arguments' text; their value is parsed from it the first time this is
    /// asked.
    pub fn args(&self) -> Option<&Value> {
        self.args.as_ref().map(Arguments::value)
    }

    /// The repairs made, in order.
    pub fn repairs(&self) -> &[Repair] {
        &self.repairs
    }

    /// What is wrong, when rejected.
    pub fn errors(&self) -> &[ArgError] {
        &self.errors
    }

    /// The one line for the model, when rejected.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Whose mistake a rejection is: the model's, or the operator's (a broken
    /// schema).
    pub fn fault(&self) -> Fault {
        self.fault
    }

    /// Which kind of mistake a rejected call made; `None` unless rejected.
    pub fn class(&self) -> Option<Class> {
        (self.status == Status::Rejected).then_some(self.class)
    }

    /// How many times the same rejected call has come back, once that is the
    /// loop limit or more.
    pub fn looped(&self) -> Option<u32> {
        self.looped
    }

    fn accepted(args: Value, repairs: Vec<Repair>) -> Self {
        Verdict {
            status: if repairs.is_empty() {
                Status::Valid
            } else {
                Status::Repaired
            },
            args: Some(Arguments::Value(args)),
            repairs,
            errors: Vec::new(),
            told: Told::Errors,
            message: None,
            fault: Fault::Call,
            class: Class::Other,
            raw: None,
            looped: None,
        }
    }

    /// A call valid as sent, its arguments kept as their compact JSON `text`
    /// (`crate::tape`'s answer): written from it, parsed only when read.
    pub(crate) fn as_sent(text: String) -> Self {
        Verdict {
            args: Some(Arguments::sent(text)),
            ..Verdict::accepted(Value::Null, Vec::new())
        }
    }

    /// A rejection whose message will be the instruction built from `errors`.
    pub(crate) fn invalid(args: Option<Value>, errors: Vec<ArgError>) -> Self {
        Verdict {
            status: Status::Rejected,
            args: args.map(Arguments::Value),
            repairs: Vec::new(),
            errors,
            told: Told::Errors,
            message: None,
            fault: Fault::Call,
            class: Class::Other,
            raw: None,
            looped: None,
        }
    }

    /// The same verdict, its rejection of class `class`.
    pub(crate) fn class_of(self, class: Class) -> Self {
        Verdict { class, ..self }
    }

    /// A rejection with a message of its own (a broken schema or record).
    pub(crate) fn rejected(message: String, fault: Fault) -> Self {
        // Whatever of the input the message quotes, it stays one line.
        let message = message::one_line(&message).into_owned();
        Verdict {
            told: Told::Own,
            fault,
            ..Verdict::invalid(None, vec![ArgError::root(message)])
        }
    }

    /// Words the message of a rejection of a call to `tool`, once, from the final
    /// outcome (after repeated-failure counting).
    pub(crate) fn finish(&mut self, style: &Style, tool: &str) {
        if self.status != Status::Rejected {
            return;
        }
        if let Told::UnknownTool {
            listed,
            total,
            suggestion,
        } = &self.told
        {
            // The whole text is the error too, as `--format json` lists it.
            let text = message::unknown_tool(style, tool, listed, *total, suggestion.as_deref());
            self.errors = vec![ArgError::root(text)];
            self.told = Told::Own;
        }
        self.message = Some(match (&self.told, self.looped) {
            (_, Some(times)) => message::loop_instruction(style, tool, times, &self.errors),
            (Told::Errors, None) => message::instruction(style, &self.errors),
            (_, None) => self
                .errors
                .first()
                .map(|e| e.message.clone())
                .unwrap_or_default(),
        });
    }
}

/// Judges one call. Its arguments are moved out of `call`; a `rename-tool`
/// repair renames the call itself.
pub(crate) fn judge(registry: &Registry, call: &mut Call, policy: Policy) -> Verdict {
    judge_from(registry, call, policy, None)
}

/// [`judge`] of a call whose argument text `crate::tape` has read and found
/// not valid as sent (`Tool::as_sent`): `read` is its value, which the
/// text is not parsed again for.
pub(crate) fn judge_read(
    registry: &Registry,
    call: &mut Call,
    policy: Policy,
    read: Value,
) -> Verdict {
    judge_from(registry, call, policy, Some(read))
}

fn judge_from(
    registry: &Registry,
    call: &mut Call,
    policy: Policy,
    read: Option<Value>,
) -> Verdict {
    if let Some(path) = call.read_two_ways.take() {
        call.args = Args::Missing;
        return Verdict::invalid(None, vec![message::read_two_ways(&path)]).class_of(Class::Other);
    }
    let sent = match std::mem::replace(&mut call.args, Args::Missing) {
        Args::Malformed(why) => {
            let class = if why == message::stream_cut_off() {
                Class::CutOff
            } else {
                Class::Other
            };
            return Verdict::invalid(None, vec![ArgError::root(why)]).class_of(class);
        }
        sent => sent,
    };
    let mut repairs = Vec::new();
    if let Some(leak) = &call.leaked {
        repairs.push(Repair {
            path: String::new(),
            kind: Kind::ExtractFromText,
            from: Value::String(leak.markup.clone()),
            to: Value::Null,
        });
    }
    let tool = match find_tool(registry, call, policy, &mut repairs) {
        Ok(tool) => tool,
        Err(verdict) => return *verdict,
    };
    // Arguments text holding a lone surrogate escape (`{"x": "\ud800"}`) is
    // valid JSON serde_json refuses: said where it is, as in an object.
    if let Args::Text(text) = &sent
        && let Some(path) = crate::surrogates::in_text(text)
    {
        return Verdict::invalid(None, vec![message::lone_surrogate(&path)]);
    }
    if let Args::Text(text) = &sent
        && !call.text_args_allowed()
    {
        if !policy.enabled.has(Kind::DoubleEncoded) {
            let error = message::arguments_as_text(call.provider.name());
            return Verdict::invalid(None, vec![error]);
        }
        repairs.push(Repair {
            path: String::new(),
            kind: Kind::DoubleEncoded,
            from: Value::String(text.clone()),
            to: Value::Null,
        });
    }
    let mut sent_text = None;
    // The validator found the value the tape read not valid (the same
    // validator, the same value): not validated again.
    let invalid = read.is_some();
    let mut args = match sent {
        Args::Value(v) => v,
        // Text the tape read is plain JSON without a key named twice: what
        // salvage would make of it is its value, nothing repaired.
        Args::Text(text) => match read.map_or_else(
            || salvage::salvage(&text, policy.enabled),
            |v| Ok(Salvaged::Value(v, Vec::new())),
        ) {
            Ok(Salvaged::Value(v, r)) => {
                repairs.extend(r);
                sent_text = Some(text);
                v
            }
            Ok(Salvaged::Empty(r)) => {
                match empty_arguments(tool, policy, message::empty_arguments()) {
                    Ok(v) => {
                        repairs.extend(r);
                        repairs.push(empty_repair());
                        v
                    }
                    Err(e) => return Verdict::invalid(None, vec![e]),
                }
            }
            Err(e) => {
                let class = match e {
                    salvage::Unusable::CutOff { .. } => Class::CutOff,
                    salvage::Unusable::RepeatedKey(_) => Class::Other,
                    _ => Class::NotJson,
                };
                let mut verdict =
                    Verdict::invalid(None, vec![message::unusable(&e)]).class_of(class);
                verdict.raw = Some(text);
                return verdict;
            }
        },
        // (Malformed arguments were answered above.)
        Args::Missing | Args::Malformed(_) => {
            match empty_arguments(tool, policy, message::missing_arguments()) {
                Ok(v) => {
                    repairs.push(empty_repair());
                    v
                }
                Err(e) => return Verdict::invalid(None, vec![e]),
            }
        }
    };
    // A call written in the text, whose values were not all written as JSON,
    // is read by the schema: values given by position are named, and untyped
    // text (XML parameters) is typed, as part of reading it.
    if let Some(leak) = &call.leaked {
        let written = &leak.written;
        if !written.positional.is_empty() {
            match name_positional(tool, &call.name, args, &written.positional, policy) {
                Ok((named, repair)) => {
                    args = named;
                    repairs.push(repair);
                }
                Err(error) => {
                    let mut verdict = Verdict::invalid(None, vec![error]);
                    verdict.raw = Some(leak.markup.clone());
                    return verdict;
                }
            }
        }
        repair::type_untyped(tool, &mut args, &written.untyped);
    }
    if !invalid && tool.is_valid(&args) {
        return Verdict::accepted(args, repairs);
    }
    // Repair works on a copy; a rejection reports the errors of the input.
    // Only a string is peeled (`salvage::peel`): anything else would be the
    // input itself, invalid as just validated, and is neither copied nor
    // validated again.
    let mut peeled = match &args {
        Value::String(_) => match salvage::peel(args.clone(), policy.enabled, &mut repairs) {
            Ok(work) => Some(work),
            Err(path) => {
                let mut verdict = Verdict::invalid(Some(args), vec![message::repeated_key(&path)]);
                verdict.raw = sent_text;
                return verdict;
            }
        },
        _ => None,
    };
    if let Some(work) = peeled.take_if(|work| tool.is_valid(work)) {
        return Verdict::accepted(work, repairs);
    }
    match repair::repair(tool, peeled.as_ref().unwrap_or(&args), policy) {
        Some((fixed, r)) => {
            repairs.extend(r);
            Verdict::accepted(fixed, repairs)
        }
        None => {
            let (mut errors, rank) = message::ranked_errors(tool, &args);
            if errors.is_empty() {
                errors.push(message::schema_mismatch());
            }
            let class = match rank {
                0 => Class::MissingRequired,
                1 => Class::WrongType,
                _ => Class::Other,
            };
            let mut verdict = Verdict::invalid(Some(args), errors).class_of(class);
            verdict.raw = sent_text;
            verdict
        }
    }
}

/// The arguments of a call that gave `positional` values by position, with
/// the one value named where the schema says which parameter it means
/// (`name-arguments`, placed first, as it was written); otherwise the
/// instruction to name them.
fn name_positional(
    tool: &Tool,
    name: &str,
    args: Value,
    positional: &[Value],
    policy: Policy,
) -> Result<(Value, Repair), ArgError> {
    let parameters = repair::Parameters::of(tool);
    let refusal = || message::name_the_arguments(name, parameters.example(3));
    let Value::Object(named) = args else {
        return Err(refusal());
    };
    let (Some(key), [value]) = (
        parameters.for_positional(&named, positional.len()),
        positional,
    ) else {
        return Err(refusal());
    };
    if !policy.enabled.has(Kind::NameArguments) {
        return Err(refusal());
    }
    let mut all = serde_json::Map::with_capacity(named.len() + 1);
    all.insert(key.to_owned(), value.clone());
    all.extend(named);
    let repair = Repair {
        path: key.to_owned(),
        kind: Kind::NameArguments,
        from: value.clone(),
        to: value.clone(),
    };
    Ok((Value::Object(all), repair))
}

/// The call's tool, renamed to the one tool its name means when only one
/// reading exists (`rename-tool`: case and `_`/`-`, a namespace or a special
/// token added, a toolbox prefix dropped; see [`Registry::meant`]). Otherwise,
/// why there is none.
fn find_tool<'r>(
    registry: &'r Registry,
    call: &mut Call,
    policy: Policy,
    repairs: &mut Vec<Repair>,
) -> Result<&'r Tool, Box<Verdict>> {
    let renamed = match registry.lookup(&call.name) {
        Lookup::Found(tool) => return Ok(tool),
        Lookup::Broken(err) => return Err(broken(&call.name, err)),
        Lookup::Unknown => {
            // A name sanitised for a provider (`uber_ride` for `uber.ride`) means
            // its tool when that is unique: the mapping back, not a repair.
            if let [only] = registry.sanitised_to(&call.name)[..] {
                // Results name the real tool; the envelope keeps the provider's name.
                call.name = only.to_owned();
                return match registry.lookup(only) {
                    Lookup::Found(tool) => Ok(tool),
                    Lookup::Broken(err) => Err(broken(only, err)),
                    Lookup::Unknown => unreachable!("the name came from the registry"),
                };
            }
            // The one tool the name means, with another case or separators,
            // a namespace or a special token added, or a toolbox prefix
            // dropped; two readings are none.
            match registry.meant(&call.name)[..] {
                [only] if policy.enabled.has(Kind::RenameTool) => Some(only.to_owned()),
                _ => None,
            }
        }
    };
    let Some(new) = renamed else {
        let names = registry.names();
        let total = names.len();
        let told = Told::UnknownTool {
            listed: names.take(LISTED).map(str::to_owned).collect(),
            total,
            suggestion: registry.closest(&call.name).map(str::to_owned),
        };
        return Err(Box::new(Verdict {
            told,
            class: Class::UnknownTool,
            ..Verdict::invalid(None, vec![ArgError::root("unknown tool".to_owned())])
        }));
    };
    repairs.push(Repair {
        path: String::new(),
        kind: Kind::RenameTool,
        from: Value::String(call.name.clone()),
        to: Value::String(new.clone()),
    });
    call.rename(&new);
    match registry.lookup(&new) {
        Lookup::Found(tool) => Ok(tool),
        Lookup::Broken(err) => Err(broken(&new, err)),
        Lookup::Unknown => unreachable!("the name came from the registry"),
    }
}

fn broken(name: &str, err: &crate::registry::SchemaError) -> Box<Verdict> {
    Box::new(Verdict::rejected(
        message::broken_schema(name, err),
        Fault::Schema,
    ))
}

/// `{}` for blank or missing arguments, only when the schema accepts `{}` (that
/// is, nothing is required).
fn empty_arguments(tool: &Tool, policy: Policy, refusal: ArgError) -> Result<Value, ArgError> {
    let empty = Value::Object(serde_json::Map::new());
    if policy.enabled.has(Kind::EmptyArguments) && tool.is_valid(&empty) {
        Ok(empty)
    } else {
        Err(refusal)
    }
}

fn empty_repair() -> Repair {
    Repair {
        path: String::new(),
        kind: Kind::EmptyArguments,
        from: Value::String(String::new()),
        to: Value::Object(serde_json::Map::new()),
    }
}

mod arguments;
#[cfg(test)]
mod tests;
