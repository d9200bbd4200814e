//! The kinds of repair, which are on, and a repair as it is reported: shared by
//! salvage (argument text) and repair (schema-guided), neither of which needs
//! the other for it.

use std::fmt;

use serde_json::Value;

/// Every kind of repair, salvage of argument text first, then the schema-guided
/// rules in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// A whole-text markdown fence around the arguments.
    StripFence,
    /// A leaked closing tag after the arguments (`</tool_call>`).
    StripLeakedTag,
    /// JSON with trailing commas, single quotes, comments or Python literals.
    TolerantParse,
    /// An object encoded as a JSON string (once or twice).
    DoubleEncoded,
    /// Blank or missing arguments, where the schema accepts `{}`.
    EmptyArguments,
    /// The same object twice in a row.
    DuplicateObject,
    /// The arguments one level down, under a key the schema does not declare
    /// (`arguments`, `parameters`, `input`, `args`, `tool_call`).
    UnwrapArguments,
    /// A string holding the object or array the schema wants.
    ParseJsonString,
    /// A decimal string where the schema wants a number.
    CoerceNumber,
    /// `"true"`/`"false"` where the schema wants a boolean.
    CoerceBoolean,
    /// A number or boolean where the schema wants a string.
    CoerceString,
    /// A single value where the schema wants an array of it.
    WrapArray,
    /// A placeholder (`null`, `""`, `"undefined"`, …) at an optional property.
    DropPlaceholder,
    /// A key that is a spelling of exactly one missing declared property.
    RenameKey,
    /// An unknown key in a closed object, when it is no near miss.
    DropUnknown,
    /// An enum value written with another case or separators.
    EnumCase,
    /// An autolinked path (`[a.md](http://a.md)`) in a path-like property.
    UnwrapAutolink,
    /// A tool name written with another case or separators.
    RenameTool,
    /// A call written into assistant text (leaked markup).
    ExtractFromText,
    /// A value given by position (`read('/a')`), named by the schema.
    NameArguments,
}

impl Kind {
    /// Every kind, salvage first, then the schema-guided rules in their order.
    pub const ALL: &'static [Kind] = &[
        Kind::StripFence,
        Kind::StripLeakedTag,
        Kind::TolerantParse,
        Kind::DoubleEncoded,
        Kind::EmptyArguments,
        Kind::DuplicateObject,
        Kind::UnwrapArguments,
        Kind::ParseJsonString,
        Kind::CoerceNumber,
        Kind::CoerceBoolean,
        Kind::CoerceString,
        Kind::WrapArray,
        Kind::DropPlaceholder,
        Kind::RenameKey,
        Kind::DropUnknown,
        Kind::EnumCase,
        Kind::UnwrapAutolink,
        Kind::RenameTool,
        Kind::ExtractFromText,
        Kind::NameArguments,
    ];

    /// The kind's name, as `--repair` takes it and `--format json` writes it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::StripFence => "strip-fence",
            Kind::StripLeakedTag => "strip-leaked-tag",
            Kind::TolerantParse => "tolerant-parse",
            Kind::DoubleEncoded => "double-encoded",
            Kind::EmptyArguments => "empty-arguments",
            Kind::DuplicateObject => "duplicate-object",
            Kind::UnwrapArguments => "unwrap-arguments",
            Kind::ParseJsonString => "parse-json-string",
            Kind::CoerceNumber => "coerce-number",
            Kind::CoerceBoolean => "coerce-boolean",
            Kind::CoerceString => "coerce-string",
            Kind::WrapArray => "wrap-array",
            Kind::DropPlaceholder => "drop-placeholder",
            Kind::RenameKey => "rename-key",
            Kind::DropUnknown => "drop-unknown",
            Kind::EnumCase => "enum-case",
            Kind::UnwrapAutolink => "unwrap-autolink",
            Kind::RenameTool => "rename-tool",
            Kind::ExtractFromText => "extract-from-text",
            Kind::NameArguments => "name-arguments",
        }
    }

    /// What the kind repairs, in a few words (`--help` lists these).
    pub fn summary(self) -> &'static str {
        match self {
            Kind::StripFence => "a markdown fence around the arguments",
            Kind::StripLeakedTag => "a leaked closing tag after the arguments",
            Kind::TolerantParse => "trailing commas, single quotes, comments, Python literals",
            Kind::DoubleEncoded => "an object encoded as a JSON string",
            Kind::EmptyArguments => "blank arguments, where the schema accepts {}",
            Kind::DuplicateObject => "the same object twice in a row",
            Kind::UnwrapArguments => "the arguments one level down, under an undeclared key",
            Kind::ParseJsonString => "a string holding the object or array the schema wants",
            Kind::CoerceNumber => "a decimal string where a number is wanted",
            Kind::CoerceBoolean => "\"true\"/\"false\" where a boolean is wanted",
            Kind::CoerceString => {
                "a number or boolean as text, where enum/pattern/format admits it"
            }
            Kind::WrapArray => "a single value where an array of it is wanted",
            Kind::DropPlaceholder => "a placeholder (null, \"\", \"undefined\") at an optional key",
            Kind::RenameKey => "a misspelling of exactly one missing declared key",
            Kind::DropUnknown => "an unknown key in a closed object, when no near miss",
            Kind::EnumCase => "an enum value in another case or with other separators",
            Kind::UnwrapAutolink => "an autolinked path ([a.md](http://a.md))",
            Kind::RenameTool => "a tool name in other case, with namespace/token, or no prefix",
            Kind::ExtractFromText => "a call written into assistant text",
            Kind::NameArguments => "a value given by position, where the schema names it",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One change made to a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    /// Dotted path of the value changed (empty for the arguments as a whole).
    pub path: String,
    /// What was done.
    pub kind: Kind,
    /// The value (or text) before.
    pub from: Value,
    /// The value after; null for a removal.
    pub to: Value,
}

/// Which kinds of repair may run (`--repair all|none|LIST`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Enabled(u32);

impl Enabled {
    /// Every kind.
    pub const ALL: Enabled = Enabled(u32::MAX);
    /// No kind.
    pub const NONE: Enabled = Enabled(0);

    /// Whether `kind` is on.
    pub fn has(self, kind: Kind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// Exactly these kinds.
    pub fn only(kinds: impl IntoIterator<Item = Kind>) -> Enabled {
        Enabled(kinds.into_iter().fold(0, |bits, k| bits | k.bit()))
    }

    /// `all`, `none`, or a comma-separated list of kinds.
    pub fn parse(spec: &str) -> Result<Enabled, UnknownKind> {
        match spec.trim() {
            "all" => return Ok(Enabled::ALL),
            "none" | "" => return Ok(Enabled::NONE),
            _ => {}
        }
        let mut bits = 0;
        for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match Kind::from_name(name) {
                Some(k) => bits |= k.bit(),
                None => return Err(UnknownKind(name.to_owned())),
            }
        }
        Ok(Enabled(bits))
    }
}

/// A repair kind name that is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        write!(
            f,
            "unknown repair kind \"{}\" (known: all, none, {})",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownKind {}

/// How far repair may go (`#[non_exhaustive]`: start from [`Policy::default`]).
///
/// ```
/// use callfix::{Enabled, Kind, Outcome, Policy, Toolset};
/// use serde_json::json;
///
/// let mut policy = Policy::default();
/// policy.enabled = Enabled::only([Kind::CoerceNumber]);
/// let tools = Toolset::from_schemas([(
///     "t".to_owned(),
///     json!({"properties": {"n": {"type": "integer"}, "b": {"type": "boolean"}}}),
/// )])
/// .with_policy(policy);
/// assert!(matches!(tools.check("t", json!({"n": "1"})), Outcome::Repaired { .. }));
/// assert!(matches!(tools.check("t", json!({"b": "true"})), Outcome::Rejected { .. }));
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Policy {
    /// Which kinds may run.
    pub enabled: Enabled,
    /// At most this many rounds of validate → repair.
    pub max_rounds: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            enabled: Enabled::ALL,
            max_rounds: 6,
        }
    }
}
