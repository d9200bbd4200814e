//! The verdict on one call: look the tool up, parse its arguments, validate, and
//! either pass the arguments on or say what is wrong.
//!
//! The fast path for a valid call is parse → cached validator → `is_valid`: no
//! error collection and no copy of the arguments.

use serde_json::Value;

use crate::envelope::{Args, Call};
use crate::message::{self, ArgError, Style};
use crate::registry::{Lookup, Registry};
use crate::salvage;
use crate::suggest;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The arguments validate as they are.
    Valid,
    /// The arguments validate after the repairs listed.
    Repaired,
    /// The call cannot be used; `message` says why.
    Rejected,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::Repaired => "repaired",
            Status::Rejected => "rejected",
        }
    }
}

/// One change made to a call's arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    pub path: String,
    pub kind: &'static str,
    pub from: Value,
    pub to: Value,
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
pub struct Verdict {
    pub status: Status,
    /// The arguments: as passed on for valid/repaired calls, as received (when they
    /// parsed) for rejected ones.
    pub args: Option<Value>,
    pub repairs: Vec<Repair>,
    pub errors: Vec<ArgError>,
    /// The instruction for the model; `None` unless rejected.
    pub message: Option<String>,
    pub fault: Fault,
}

impl Verdict {
    fn valid(args: Value) -> Self {
        Verdict {
            status: Status::Valid,
            args: Some(args),
            repairs: Vec::new(),
            errors: Vec::new(),
            message: None,
            fault: Fault::Call,
        }
    }

    /// A rejection whose message is the instruction built from `errors`.
    fn invalid(args: Option<Value>, errors: Vec<ArgError>, style: &Style) -> Self {
        let message = message::instruction(style, &errors);
        Verdict {
            status: Status::Rejected,
            args,
            repairs: Vec::new(),
            errors,
            message: Some(message),
            fault: Fault::Call,
        }
    }

    /// A rejection with a message of its own (unknown tool, broken record).
    pub fn rejected(message: String, fault: Fault) -> Self {
        Verdict {
            status: Status::Rejected,
            args: None,
            repairs: Vec::new(),
            errors: vec![ArgError::root(message.clone())],
            message: Some(message),
            fault,
        }
    }
}

/// Judges one call. Its arguments are moved out of `call`.
pub fn judge(registry: &Registry, call: &mut Call, style: &Style) -> Verdict {
    let tool = match registry.lookup(&call.name) {
        Lookup::Found(tool) => tool,
        Lookup::Broken(err) => {
            return Verdict::rejected(message::broken_schema(&call.name, err), Fault::Schema);
        }
        Lookup::Unknown => {
            let suggestion = suggest::closest(&call.name, registry.names());
            let text = message::unknown_tool(&call.name, registry.names(), suggestion);
            return Verdict::rejected(text, Fault::Call);
        }
    };
    let args = match std::mem::replace(&mut call.args, Args::Missing) {
        Args::Value(v) => v,
        Args::Text(text) => match salvage::parse_arguments(&text) {
            Ok(v) => v,
            Err(e) => return Verdict::invalid(None, vec![e], style),
        },
        Args::Missing => return Verdict::invalid(None, vec![message::missing_arguments()], style),
    };
    if tool.validator.is_valid(&args) {
        return Verdict::valid(args);
    }
    let mut errors = message::validation_errors(tool, &args);
    if errors.is_empty() {
        errors.push(message::schema_mismatch());
    }
    Verdict::invalid(Some(args), errors, style)
}
