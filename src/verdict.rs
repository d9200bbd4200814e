//! The verdict on one call: look the tool up, turn its arguments into JSON,
//! validate, repair what the rules allow, and either pass the arguments on or say
//! what is wrong.
//!
//! The fast path for a valid call is parse → cached validator → `is_valid`: no
//! error collection, no salvage, no copy of the arguments. Everything else runs
//! only for calls that fail.

use serde_json::Value;

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

#[derive(Debug, Clone, PartialEq)]
/// The verdict on one call.
pub struct Verdict {
    /// Valid, repaired or rejected.
    pub status: Status,
    /// The arguments: as passed on for valid/repaired calls, as received (when they
    /// parsed) for rejected ones.
    pub args: Option<Value>,
    /// The repairs made, in order.
    pub repairs: Vec<Repair>,
    /// What is wrong, when rejected.
    pub errors: Vec<ArgError>,
    /// The instruction for the model; `None` unless rejected.
    pub message: Option<String>,
    /// Whose mistake a rejection is.
    pub fault: Fault,
    /// The argument text, when it could not be parsed (to recognise a repeat).
    pub raw: Option<String>,
    /// The same rejected call has come back `--loop-limit` times.
    pub looped: bool,
}

impl Verdict {
    fn accepted(args: Value, repairs: Vec<Repair>) -> Self {
        Verdict {
            status: if repairs.is_empty() {
                Status::Valid
            } else {
                Status::Repaired
            },
            args: Some(args),
            repairs,
            errors: Vec::new(),
            message: None,
            fault: Fault::Call,
            raw: None,
            looped: false,
        }
    }

    /// A rejection whose message is the instruction built from `errors`.
    pub fn invalid(args: Option<Value>, errors: Vec<ArgError>, style: &Style) -> Self {
        let message = message::instruction(style, &errors);
        Verdict {
            status: Status::Rejected,
            args,
            repairs: Vec::new(),
            errors,
            message: Some(message),
            fault: Fault::Call,
            raw: None,
            looped: false,
        }
    }

    /// A rejection with a message of its own (unknown tool, broken record).
    pub fn rejected(message: String, fault: Fault) -> Self {
        // Whatever of the input the message quotes, it stays one line.
        let message = message::one_line(&message).into_owned();
        Verdict {
            status: Status::Rejected,
            args: None,
            repairs: Vec::new(),
            errors: vec![ArgError::root(message.clone())],
            message: Some(message),
            fault,
            raw: None,
            looped: false,
        }
    }
}

/// Judges one call. Its arguments are moved out of `call`; a `rename-tool`
/// repair renames the call itself.
pub fn judge(registry: &Registry, call: &mut Call, style: &Style, policy: Policy) -> Verdict {
    if let Args::Malformed(why) = &call.args {
        return Verdict::invalid(None, vec![ArgError::root(why.clone())], style);
    }
    let mut repairs = Vec::new();
    if let Some(markup) = &call.leaked {
        repairs.push(Repair {
            path: String::new(),
            kind: Kind::ExtractFromText,
            from: Value::String(markup.clone()),
            to: Value::Null,
        });
    }
    let tool = match find_tool(registry, call, style, policy, &mut repairs) {
        Ok(tool) => tool,
        Err((text, fault)) => return Verdict::rejected(text, fault),
    };
    if let Args::Text(text) = &call.args
        && !call.text_args_allowed()
    {
        if !policy.enabled.has(Kind::DoubleEncoded) {
            let error = message::arguments_as_text(call.provider);
            return Verdict::invalid(None, vec![error], style);
        }
        repairs.push(Repair {
            path: String::new(),
            kind: Kind::DoubleEncoded,
            from: Value::String(text.clone()),
            to: Value::Null,
        });
    }
    let args = match std::mem::replace(&mut call.args, Args::Missing) {
        Args::Value(v) => v,
        Args::Text(text) => match salvage::salvage(&text, policy.enabled) {
            Ok(Salvaged::Value(v, r)) => {
                repairs.extend(r);
                v
            }
            Ok(Salvaged::Empty(r)) => {
                match empty_arguments(tool, policy, message::empty_arguments()) {
                    Ok(v) => {
                        repairs.extend(r);
                        repairs.push(empty_repair());
                        v
                    }
                    Err(e) => return Verdict::invalid(None, vec![e], style),
                }
            }
            Err(e) => {
                let mut verdict = Verdict::invalid(None, vec![e], style);
                verdict.raw = Some(text);
                return verdict;
            }
        },
        Args::Malformed(why) => return Verdict::invalid(None, vec![ArgError::root(why)], style),
        Args::Missing => match empty_arguments(tool, policy, message::missing_arguments()) {
            Ok(v) => {
                repairs.push(empty_repair());
                v
            }
            Err(e) => return Verdict::invalid(None, vec![e], style),
        },
    };
    if tool.validator.is_valid(&args) {
        return Verdict::accepted(args, repairs);
    }
    // Repair works on a copy; a rejection reports the errors of the input.
    let mut work = salvage::peel(args.clone(), policy.enabled, &mut repairs);
    if !tool.validator.is_valid(&work) {
        match repair::repair(tool, &work, policy) {
            Some((fixed, r)) => {
                work = fixed;
                repairs.extend(r);
            }
            None => {
                let mut errors = message::validation_errors(tool, &args);
                if errors.is_empty() {
                    errors.push(message::schema_mismatch());
                }
                return Verdict::invalid(Some(args), errors, style);
            }
        }
    }
    Verdict::accepted(work, repairs)
}

/// The call's tool, renamed to the one tool its name means when that is unique
/// ignoring case and `_`/`-` (`rename-tool`). Otherwise, why there is none.
fn find_tool<'r>(
    registry: &'r Registry,
    call: &mut Call,
    style: &Style,
    policy: Policy,
    repairs: &mut Vec<Repair>,
) -> Result<&'r Tool, (String, Fault)> {
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
            match registry.same_normalised(&call.name)[..] {
                [only] if policy.enabled.has(Kind::RenameTool) => Some(only.to_owned()),
                _ => None,
            }
        }
    };
    let Some(new) = renamed else {
        let suggestion = registry.closest(&call.name);
        let text = message::unknown_tool(style, &call.name, registry.names(), suggestion);
        return Err((text, Fault::Call));
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

fn broken(name: &str, err: &crate::registry::SchemaError) -> (String, Fault) {
    (message::broken_schema(name, err), Fault::Schema)
}

/// `{}` for blank or missing arguments, only when the schema accepts `{}` (that
/// is, nothing is required).
fn empty_arguments(tool: &Tool, policy: Policy, refusal: ArgError) -> Result<Value, ArgError> {
    let empty = Value::Object(serde_json::Map::new());
    if policy.enabled.has(Kind::EmptyArguments) && tool.validator.is_valid(&empty) {
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
