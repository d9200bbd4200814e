//! Stage 5: schema-guided repair.
//!
//! Runs only when validation fails, only at the instance paths the validator named,
//! with rules tried in one fixed order ([`RULES`]; the order is load-bearing: a
//! stringified array must be parsed before anything wraps a scalar). A rule's
//! change is kept only when re-validation shows it resolved the error at its path,
//! so a repair is exact or absent. The loop validate → repair → validate runs at
//! most `max_rounds` rounds; the result is used only if it validates.

use std::collections::{HashMap, HashSet};
use std::fmt;

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use crate::message::pointer_segments;
use crate::registry::Tool;
use crate::resolve::At;
use crate::salvage;
use crate::suggest::{self, normalise};

/// Every kind of repair, salvage of argument text first, then the schema-guided
/// rules in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    StripFence,
    StripLeakedTag,
    TolerantParse,
    DoubleEncoded,
    EmptyArguments,
    DuplicateObject,
    ParseJsonString,
    CoerceNumber,
    CoerceBoolean,
    CoerceString,
    WrapArray,
    DropPlaceholder,
    RenameKey,
    DropUnknown,
    EnumCase,
    UnwrapAutolink,
    RenameTool,
    ExtractFromText,
}

impl Kind {
    pub const ALL: [Kind; 18] = [
        Kind::StripFence,
        Kind::StripLeakedTag,
        Kind::TolerantParse,
        Kind::DoubleEncoded,
        Kind::EmptyArguments,
        Kind::DuplicateObject,
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
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::StripFence => "strip-fence",
            Kind::StripLeakedTag => "strip-leaked-tag",
            Kind::TolerantParse => "tolerant-parse",
            Kind::DoubleEncoded => "double-encoded",
            Kind::EmptyArguments => "empty-arguments",
            Kind::DuplicateObject => "duplicate-object",
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
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
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
    pub kind: Kind,
    pub from: Value,
    pub to: Value,
}

/// Which kinds of repair may run (`--repair all|none|LIST`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Enabled(u32);

impl Enabled {
    pub const ALL: Enabled = Enabled(u32::MAX);
    pub const NONE: Enabled = Enabled(0);

    pub fn has(self, kind: Kind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// `all`, `none`, or a comma-separated list of kinds.
    pub fn parse(spec: &str) -> Result<Enabled, String> {
        match spec.trim() {
            "all" => return Ok(Enabled::ALL),
            "none" | "" => return Ok(Enabled::NONE),
            _ => {}
        }
        let mut bits = 0;
        for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match Kind::from_name(name) {
                Some(k) => bits |= k.bit(),
                None => {
                    let known: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
                    return Err(format!(
                        "unknown repair kind \"{name}\" (known: all, none, {})",
                        known.join(", ")
                    ));
                }
            }
        }
        Ok(Enabled(bits))
    }
}

/// How far repair may go.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    pub enabled: Enabled,
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

// ---------------------------------------------------------------------------
// Sites: where the validator says something is wrong.

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Site {
    /// The value at this path is rejected.
    Value(Vec<String>),
    /// The object at this path has a key its schema does not allow.
    UnknownKey(Vec<String>, String),
    /// The object at this path lacks a required property.
    Missing(Vec<String>, String),
}

impl Site {
    /// The path this site changes, for keeping one change per region per round: a
    /// value, or one key of an object (so the keys of one object are fixed
    /// together).
    fn region(&self) -> Vec<String> {
        match self {
            Site::Value(p) => p.clone(),
            Site::UnknownKey(p, key) | Site::Missing(p, key) => {
                let mut region = p.clone();
                region.push(key.clone());
                region
            }
        }
    }
}

/// The distinct sites of the errors, in error order.
fn sites(errors: &Errors<'_>) -> Vec<Site> {
    let mut out: Vec<Site> = Vec::new();
    let mut seen: HashSet<Site> = HashSet::new();
    let mut push = |s: Site| {
        if !seen.contains(&s) {
            seen.insert(s.clone());
            out.push(s);
        }
    };
    for (path, e) in &errors.list {
        let path = path.clone();
        match e.kind() {
            ValidationErrorKind::Required { property } => {
                if let Some(p) = property.as_str() {
                    push(Site::Missing(path, p.to_owned()));
                }
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                for k in unexpected {
                    push(Site::UnknownKey(path.clone(), k.clone()));
                }
            }
            // The regex engine gave up: that says nothing about the value.
            ValidationErrorKind::BacktrackLimitExceeded { .. }
            | ValidationErrorKind::RegexEngineFailure { .. } => {}
            _ => push(Site::Value(path)),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The schema at an instance path.

/// What the schemas that apply at one path accept.
#[derive(Default)]
struct Wanted<'a> {
    types: Vec<&'a str>,
    enums: Vec<&'a Value>,
    required: Vec<&'a str>,
    properties: Vec<&'a str>,
    formats: Vec<&'a str>,
}

impl Wanted<'_> {
    fn has(&self, t: &str) -> bool {
        self.types.contains(&t) || (t == "number" && self.types.contains(&"integer"))
    }

    fn wants_exactly_integer(&self) -> bool {
        self.types.contains(&"integer") && !self.types.contains(&"number")
    }
}

struct Schemas<'a> {
    tool: &'a Tool,
}

impl<'a> Schemas<'a> {
    /// Follows `$ref` (as the validator resolves it) and the branches of
    /// allOf/anyOf/oneOf: every schema that may apply to the same value.
    fn expand(&self, node: At<'a>, out: &mut Vec<At<'a>>, depth: usize) {
        if depth > 32 {
            return;
        }
        out.push(node.clone());
        if let Some(target) = node.target() {
            self.expand(target, out, depth + 1);
        }
        if let Value::Object(map) = node.schema {
            for key in ["allOf", "anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = map.get(key) {
                    for b in branches {
                        self.expand(node.child(b), out, depth + 1);
                    }
                }
            }
        }
    }

    /// All schemas that apply at `path` of `instance`.
    fn at(&self, instance: &Value, path: &[String]) -> Vec<At<'a>> {
        let mut current = Vec::new();
        self.expand(self.tool.root(), &mut current, 0);
        let mut value = Some(instance);
        for seg in path {
            let mut next = Vec::new();
            let index = match value {
                Some(Value::Array(_)) => seg.parse::<usize>().ok(),
                _ => None,
            };
            for node in &current {
                for child in step(node.schema, seg, index) {
                    self.expand(node.child(child), &mut next, 0);
                }
            }
            value = value.and_then(|v| match (v, index) {
                (Value::Array(items), Some(i)) => items.get(i),
                (Value::Object(m), _) => m.get(seg.as_str()),
                _ => None,
            });
            current = next;
        }
        current
    }

    fn wanted(&self, instance: &Value, path: &[String]) -> Wanted<'a> {
        let mut w = Wanted::default();
        for node in self.at(instance, path) {
            let Value::Object(m) = node.schema else {
                continue;
            };
            match m.get("type") {
                Some(Value::String(t)) => w.types.push(t),
                Some(Value::Array(ts)) => w.types.extend(ts.iter().filter_map(Value::as_str)),
                _ => {
                    if m.contains_key("properties") {
                        w.types.push("object");
                    }
                    if m.contains_key("items") || m.contains_key("prefixItems") {
                        w.types.push("array");
                    }
                }
            }
            if let Some(Value::Array(opts)) = m.get("enum") {
                w.enums.extend(opts.iter());
            }
            if let Some(c) = m.get("const") {
                w.enums.push(c);
            }
            if let Some(Value::Array(req)) = m.get("required") {
                w.required.extend(req.iter().filter_map(Value::as_str));
            }
            if let Some(Value::Object(props)) = m.get("properties") {
                w.properties.extend(props.keys().map(String::as_str));
            }
            if let Some(Value::String(f)) = m.get("format") {
                w.formats.push(f);
            }
        }
        w
    }
}

/// The subschemas for one step into an object key or array index.
fn step<'a>(schema: &'a Value, seg: &str, index: Option<usize>) -> Vec<&'a Value> {
    let Value::Object(m) = schema else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match index {
        Some(i) => {
            if let Some(Value::Array(prefix)) = m.get("prefixItems") {
                match prefix.get(i) {
                    Some(s) => out.push(s),
                    None => out.extend(m.get("items")),
                }
            } else {
                match m.get("items") {
                    // Draft 4-7 tuple form.
                    Some(Value::Array(tuple)) => match tuple.get(i) {
                        Some(s) => out.push(s),
                        None => out.extend(m.get("additionalItems")),
                    },
                    Some(s) => out.push(s),
                    None => {}
                }
            }
        }
        None => match m.get("properties").and_then(|p| p.get(seg)) {
            Some(s) => out.push(s),
            None => out.extend(m.get("additionalProperties").filter(|s| s.is_object())),
        },
    }
    out
}

// ---------------------------------------------------------------------------
// The rules, in the order they are tried at a site.

/// A change to the arguments.
#[derive(Debug, Clone)]
enum Change {
    Set(Vec<String>, Value),
    Remove(Vec<String>),
    Rename(Vec<String>, String, String),
}

struct Fix {
    change: Change,
    path: Vec<String>,
    from: Value,
    to: Value,
}

type Rule = fn(&Schemas<'_>, &Value, &Site) -> Option<Fix>;

/// The schema-guided rules, in the order they are tried. The order is
/// load-bearing: a stringified array is parsed before anything could wrap it.
const RULES: [(Kind, Rule); 10] = [
    (Kind::ParseJsonString, parse_json_string),
    (Kind::CoerceNumber, coerce_number),
    (Kind::CoerceBoolean, coerce_boolean),
    (Kind::CoerceString, coerce_string),
    (Kind::WrapArray, wrap_array),
    (Kind::DropPlaceholder, drop_placeholder),
    (Kind::RenameKey, rename_key),
    (Kind::DropUnknown, drop_unknown),
    (Kind::EnumCase, enum_case),
    (Kind::UnwrapAutolink, unwrap_autolink),
];

fn value_site<'v>(doc: &'v Value, site: &'v Site) -> Option<(&'v Value, &'v [String])> {
    let Site::Value(path) = site else {
        return None;
    };
    Some((get(doc, path)?, path.as_slice()))
}

fn set(path: &[String], from: &Value, to: Value) -> Fix {
    Fix {
        change: Change::Set(path.to_vec(), to.clone()),
        path: path.to_vec(),
        from: from.clone(),
        to,
    }
}

/// 1. A string holding the object or array the schema wants.
fn parse_json_string(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let Value::String(text) = v else { return None };
    let w = s.wanted(doc, path);
    if w.has("string") || !(w.has("object") || w.has("array")) {
        return None;
    }
    let parsed = salvage::parse_embedded(text)?;
    let fits = (parsed.is_object() && w.has("object")) || (parsed.is_array() && w.has("array"));
    fits.then(|| set(path, v, parsed))
}

/// 2. A decimal string where the schema wants a number.
fn coerce_number(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let Value::String(text) = v else { return None };
    let w = s.wanted(doc, path);
    if w.has("string") || !w.has("number") {
        return None;
    }
    let n = decimal(text, w.wants_exactly_integer())?;
    Some(set(path, v, Value::Number(n)))
}

/// `^-?\d+(\.\d+)?$` as an exact JSON number; `integer` keeps only integral values.
fn decimal(text: &str, integer: bool) -> Option<serde_json::Number> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || (digits.contains('.') && !all_digits(frac)) {
        return None;
    }
    let integral = frac.bytes().all(|b| b == b'0');
    if integer && !integral {
        return None;
    }
    // The number as written, digit for digit (`arbitrary_precision`); only leading
    // zeros go, as JSON has none.
    let int = match int.trim_start_matches('0') {
        "" => "0",
        digits => digits,
    };
    let sign = if text.starts_with('-') { "-" } else { "" };
    let exact = if digits.contains('.') {
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}{int}")
    };
    exact.parse().ok()
}

/// 3. Exactly `"true"` or `"false"` where the schema wants a boolean.
fn coerce_boolean(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let b = match v.as_str()? {
        "true" => true,
        "false" => false,
        _ => return None,
    };
    let w = s.wanted(doc, path);
    (w.has("boolean") && !w.has("string")).then(|| set(path, v, Value::Bool(b)))
}

/// 4. A number or boolean where the schema wants a string.
fn coerce_string(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let text = match v {
        // The number's text as sent, digit for digit; an exponent may have been
        // respelled by the parser (`1E2` is read as `1e+2`), so it is left alone.
        Value::Number(n) => Some(n.to_string()).filter(|t| !t.contains(['e', 'E']))?,
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    let w = s.wanted(doc, path);
    let own = if v.is_boolean() { "boolean" } else { "number" };
    (w.has("string") && !w.has(own)).then(|| set(path, v, Value::String(text)))
}

/// 5. A single value where the schema wants an array of such values.
///
/// A placeholder means "no value" and is never wrapped.
fn wrap_array(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    if v.is_array() || is_placeholder(v) {
        return None;
    }
    let w = s.wanted(doc, path);
    let own = json_type_name(v);
    if !w.has("array") || w.has(own) {
        return None;
    }
    Some(set(path, v, Value::Array(vec![v.clone()])))
}

/// 6. A placeholder at an optional property whose schema rejects it.
fn drop_placeholder(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let (key, parent) = path.split_last()?;
    if !get(doc, parent)?.is_object() {
        return None;
    }
    if !is_placeholder(v) || s.wanted(doc, parent).required.contains(&key.as_str()) {
        return None;
    }
    Some(Fix {
        change: Change::Remove(path.to_vec()),
        path: path.to_vec(),
        from: v.clone(),
        to: Value::Null,
    })
}

/// What models send for "no value": `null`, `{}`, `[]`, `""`, `"null"`, `"undefined"`.
fn is_placeholder(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(t) => matches!(t.as_str(), "" | "null" | "undefined"),
        _ => false,
    }
}

/// 7. An unknown key that is a spelling of exactly one missing declared property.
fn rename_key(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (path, object) = match site {
        Site::UnknownKey(p, _) | Site::Missing(p, _) => (p, get(doc, p)?.as_object()?),
        Site::Value(_) => return None,
    };
    let w = s.wanted(doc, path);
    let undeclared = |k: &str| !w.properties.contains(&k);
    let missing = |p: &&&str| !object.contains_key(**p);
    let (from, to) = match site {
        Site::UnknownKey(_, key) => {
            if !undeclared(key) {
                return None;
            }
            let norm = normalise(key);
            let mut targets = w
                .properties
                .iter()
                .filter(missing)
                .filter(|p| normalise(p) == norm);
            let target = *targets.next()?;
            if targets.next().is_some() {
                return None;
            }
            (key.clone(), target.to_owned())
        }
        Site::Missing(_, prop) => {
            let norm = normalise(prop);
            let mut keys = object
                .keys()
                .filter(|k| undeclared(k) && normalise(k) == norm);
            let key = keys.next()?;
            if keys.next().is_some() {
                return None;
            }
            // The same key must not fit another missing property as well.
            let rivals = w
                .properties
                .iter()
                .filter(missing)
                .filter(|p| normalise(p) == norm)
                .count();
            if rivals != 1 {
                return None;
            }
            (key.clone(), prop.clone())
        }
        Site::Value(_) => return None,
    };
    let mut new_path = path.clone();
    new_path.push(to.clone());
    Some(Fix {
        change: Change::Rename(path.clone(), from.clone(), to.clone()),
        path: new_path,
        from: Value::String(from),
        to: Value::String(to),
    })
}

/// 8. An unknown key in a closed object, when no rename applies and it is no near
///    miss of a declared property: `forced` for `force` may carry what `force`
///    means, and dropping it would change the call's meaning.
fn drop_unknown(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let Site::UnknownKey(path, key) = site else {
        return None;
    };
    let w = s.wanted(doc, path);
    if w.properties.iter().any(|p| suggest::near_miss(key, p)) {
        return None;
    }
    let value = get(doc, path)?.as_object()?.get(key)?;
    let mut key_path = path.clone();
    key_path.push(key.clone());
    Some(Fix {
        change: Change::Remove(key_path.clone()),
        path: key_path,
        from: value.clone(),
        to: Value::Null,
    })
}

/// 9. A string that is exactly one enum value but for case and separators.
fn enum_case(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let text = v.as_str()?;
    let w = s.wanted(doc, path);
    // Normalising only drops characters: a text far longer than every enum value
    // cannot match one (and is not normalised at all).
    let longest = w
        .enums
        .iter()
        .filter_map(|e| e.as_str())
        .map(str::len)
        .max()?;
    if text.len() > longest.saturating_mul(4).saturating_add(16) {
        return None;
    }
    let norm = normalise(text);
    let mut matches: Vec<&str> = w
        .enums
        .iter()
        .filter_map(|e| e.as_str())
        .filter(|e| normalise(e) == norm)
        .collect();
    matches.dedup();
    match matches.as_slice() {
        [one] if *one != text => Some(set(path, v, Value::String((*one).to_owned()))),
        _ => None,
    }
}

/// 10. `[notes.md](http://notes.md)` in a path-like property → `notes.md`.
fn unwrap_autolink(s: &Schemas<'_>, doc: &Value, site: &Site) -> Option<Fix> {
    let (v, path) = value_site(doc, site)?;
    let text = v.as_str()?;
    let key = path.last()?;
    let w = s.wanted(doc, path);
    let norm = normalise(key);
    let path_like = ["path", "file", "dir", "filename"]
        .iter()
        .any(|suffix| norm.ends_with(suffix))
        || w.formats
            .iter()
            .any(|f| matches!(*f, "uri-reference" | "path"));
    if !path_like {
        return None;
    }
    let inner = text.strip_prefix('[')?.strip_suffix(')')?;
    let (label, url) = inner.split_once("](")?;
    let (scheme, rest) = url.split_once("://")?;
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (scheme_ok && !label.is_empty() && label == rest && !label.contains(['[', ']', '(', ')']))
        .then(|| set(path, v, Value::String(label.to_owned())))
}

fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

// ---------------------------------------------------------------------------
// The engine.

fn get<'v>(doc: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(doc, |v, seg| match v {
        Value::Object(m) => m.get(seg.as_str()),
        Value::Array(items) => items.get(seg.parse::<usize>().ok()?),
        _ => None,
    })
}

fn get_mut<'v>(doc: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    path.iter().try_fold(doc, |v, seg| match v {
        Value::Object(m) => m.get_mut(seg.as_str()),
        Value::Array(items) => items.get_mut(seg.parse::<usize>().ok()?),
        _ => None,
    })
}

/// Applies disjoint changes to `doc` in place. Removals and renames in one object
/// are done in one pass over it, so a call with many of them stays linear.
fn apply_all(doc: &mut Value, changes: &[&Change]) {
    let mut removals: HashMap<&[String], HashSet<&str>> = HashMap::new();
    let mut renames: HashMap<&[String], HashMap<&str, &str>> = HashMap::new();
    for change in changes {
        match change {
            Change::Set(path, v) => {
                if let Some(slot) = get_mut(doc, path) {
                    *slot = v.clone();
                }
            }
            Change::Remove(path) => {
                if let Some((key, parent)) = path.split_last() {
                    removals.entry(parent).or_default().insert(key);
                }
            }
            Change::Rename(path, from, to) => {
                renames.entry(path).or_default().insert(from, to);
            }
        }
    }
    for (parent, keys) in removals {
        if let Some(object) = get_mut(doc, parent).and_then(Value::as_object_mut) {
            object.retain(|k, _| !keys.contains(k.as_str()));
        }
    }
    for (path, names) in renames {
        if let Some(object) = get_mut(doc, path).and_then(Value::as_object_mut) {
            // Keep each key where it stood.
            let renamed: Map<String, Value> = std::mem::take(object)
                .into_iter()
                .map(|(k, v)| match names.get(k.as_str()) {
                    Some(to) => ((*to).to_owned(), v),
                    None => (k, v),
                })
                .collect();
            *object = renamed;
        }
    }
}

/// The validator's errors for one document, indexed by instance path.
struct Errors<'i> {
    list: Vec<(Vec<String>, ValidationError<'i>)>,
    /// Error positions in `list`, by instance path.
    at: HashMap<Vec<String>, Vec<usize>>,
    /// Every path that has an error at it or below it (built when first asked).
    under: std::cell::OnceCell<HashSet<Vec<String>>>,
}

impl<'i> Errors<'i> {
    fn of(tool: &'i Tool, doc: &'i Value) -> Self {
        let mut errors = Errors {
            list: Vec::new(),
            at: HashMap::new(),
            under: std::cell::OnceCell::new(),
        };
        for e in tool.validator.iter_errors(doc) {
            if errors.list.len() > MAX_SITES {
                break;
            }
            let path = pointer_segments(e.instance_path().as_str());
            errors
                .at
                .entry(path.clone())
                .or_default()
                .push(errors.list.len());
            errors.list.push((path, e));
        }
        errors
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether any error is at `path` or below it.
    fn under(&self, path: &[String]) -> bool {
        self.under
            .get_or_init(|| {
                let mut under = HashSet::new();
                for (p, _) in &self.list {
                    for n in 0..=p.len() {
                        if !under.contains(&p[..n]) {
                            under.insert(p[..n].to_vec());
                        }
                    }
                }
                under
            })
            .contains(path)
    }

    /// The errors at exactly `path`.
    fn at(&self, path: &[String]) -> impl Iterator<Item = &ValidationError<'i>> {
        self.at
            .get(path)
            .into_iter()
            .flatten()
            .map(|&i| &self.list[i].1)
    }
}

/// Whether the candidate's errors show `site` resolved (and, for wrap-array,
/// everything under it).
fn resolved(errors: &Errors<'_>, site: &Site, fix: &Fix, kind: Kind) -> bool {
    let unexpected = |e: &ValidationError<'_>, key: &String| {
        matches!(e.kind(),
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected }
            if unexpected.contains(key))
    };
    match (site, kind) {
        (Site::Value(p), Kind::WrapArray) => !errors.under(p),
        (Site::Value(p), _) => errors.at(p).next().is_none(),
        (Site::UnknownKey(p, key), Kind::DropUnknown) => !errors.at(p).any(|e| unexpected(e, key)),
        (Site::UnknownKey(p, _) | Site::Missing(p, _), Kind::RenameKey) => {
            let (Value::String(from), Value::String(to)) = (&fix.from, &fix.to) else {
                return false;
            };
            !errors.at(p).any(|e| match e.kind() {
                ValidationErrorKind::Required { property } => property.as_str() == Some(to),
                _ => unexpected(e, from) || unexpected(e, to),
            }) && errors.at(&fix.path).next().is_none()
        }
        _ => false,
    }
}

/// Paths changed so far in a round: a site whose region overlaps one of them
/// (is above, below or equal) waits for the next round.
#[derive(Default)]
struct Touched {
    exact: HashSet<Vec<String>>,
    prefixes: HashSet<Vec<String>>,
}

impl Touched {
    fn overlaps(&self, region: &[String]) -> bool {
        self.prefixes.contains(region)
            || (0..=region.len()).any(|n| self.exact.contains(&region[..n]))
    }

    fn add(&mut self, region: &[String]) {
        for n in 0..=region.len() {
            if !self.prefixes.contains(&region[..n]) {
                self.prefixes.insert(region[..n].to_vec());
            }
        }
        self.exact.insert(region.to_vec());
    }
}

/// A call with more validation errors (or sites) than this is rejected without
/// repair.
const MAX_SITES: usize = 10_000;

/// Repairs `args` against `tool`'s schema. Returns the repaired arguments (which
/// validate) and what was done, or `None` when they cannot be repaired.
///
/// Each round takes the sites of the current errors whose regions do not
/// overlap, and proposes one fix per site: the first rule, in `RULES` order, that
/// has one. All proposed fixes are applied together and the result is validated
/// once; a fix is kept only if the error at its site is gone. A site whose fix did
/// not resolve it tries its next rule, again in one batch. So a round costs a few
/// validations of the document, however many sites it has: linear in its size.
pub fn repair(tool: &Tool, args: &Value, policy: Policy) -> Option<(Value, Vec<Repair>)> {
    // Arguments this large are no near miss, and listing their errors is costly.
    if crate::message::more_values_than(args, crate::message::ALL_ERRORS_UP_TO) {
        return None;
    }
    let schemas = Schemas { tool };
    let mut doc = args.clone();
    let mut repairs = Vec::new();
    for _ in 0..policy.max_rounds {
        let found = {
            let errors = Errors::of(tool, &doc);
            if errors.is_empty() {
                return Some((doc, repairs));
            }
            // Past this many problems a call is not a near miss: no repair.
            let sites = sites(&errors);
            if errors.list.len() > MAX_SITES || sites.len() > MAX_SITES {
                return None;
            }
            sites
        };
        let mut touched = Touched::default();
        let mut pending: Vec<(&Site, usize)> = Vec::new();
        for site in &found {
            let region = site.region();
            if !touched.overlaps(&region) {
                touched.add(&region);
                pending.push((site, 0));
            }
        }
        let mut kept = 0;
        while !pending.is_empty() {
            // The next fix each pending site proposes, from its next rule on.
            let mut batch: Vec<(&Site, usize, Fix)> = Vec::new();
            let mut renamed: HashSet<(Vec<String>, String)> = HashSet::new();
            let mut renamed_to: HashSet<(Vec<String>, String)> = HashSet::new();
            for &(site, from) in &pending {
                let proposal = RULES
                    .iter()
                    .enumerate()
                    .skip(from)
                    .find_map(|(i, (kind, rule))| {
                        if !policy.enabled.has(*kind) {
                            return None;
                        }
                        rule(&schemas, &doc, site).map(|fix| (i, fix))
                    });
                // Two sites may propose the same change (a rename seen from the
                // unknown key and from the missing property): made once.
                if let Some((i, fix)) = proposal {
                    // One rename per key and per target in a batch: two keys
                    // renamed to the same name would lose one value.
                    if let Change::Rename(path, from, to) = &fix.change
                        && !(renamed.insert((path.clone(), from.clone()))
                            & renamed_to.insert((path.clone(), to.clone())))
                    {
                        continue;
                    }
                    batch.push((site, i, fix));
                }
            }
            if batch.is_empty() {
                break;
            }
            let mut candidate = doc.clone();
            apply_all(
                &mut candidate,
                &batch.iter().map(|(_, _, f)| &f.change).collect::<Vec<_>>(),
            );
            let (good, bad): (Vec<_>, Vec<_>) = {
                let errors = Errors::of(tool, &candidate);
                batch
                    .into_iter()
                    .partition(|(site, i, fix)| resolved(&errors, site, fix, RULES[*i].0))
            };
            if bad.is_empty() {
                doc = candidate;
            } else if !good.is_empty() {
                apply_all(
                    &mut doc,
                    &good.iter().map(|(_, _, f)| &f.change).collect::<Vec<_>>(),
                );
            }
            kept += good.len();
            for (_, i, fix) in good {
                repairs.push(Repair {
                    path: fix.path.join("."),
                    kind: RULES[i].0,
                    from: fix.from,
                    to: fix.to,
                });
            }
            pending = bad.into_iter().map(|(site, i, _)| (site, i + 1)).collect();
        }
        if kept == 0 {
            return None;
        }
    }
    tool.validator.is_valid(&doc).then_some((doc, repairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value) -> Tool {
        Tool::from_schema(schema)
    }

    /// Repairs `args`; returns the result and the kinds used, or None.
    fn fix(schema: Value, args: Value) -> Option<(Value, Vec<&'static str>)> {
        let t = tool(schema);
        assert!(
            !t.validator.is_valid(&args),
            "the test input must be invalid"
        );
        repair(&t, &args, Policy::default()).map(|(v, r)| {
            assert!(t.validator.is_valid(&v), "repaired output must validate");
            // Repairing a repaired output changes nothing.
            assert!(
                repair(&t, &v, Policy::default()).is_some_and(|(w, r2)| w == v && r2.is_empty())
            );
            (v, r.iter().map(|r| r.kind.name()).collect())
        })
    }

    fn object(props: Value, required: &[&str]) -> Value {
        json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
    }

    fn todos() -> Value {
        object(
            json!({"todos": {"type": "array", "items": object(json!({
                "id": {"type": "string"},
                "content": {"type": "string"},
                "status": {"enum": ["pending", "in_progress", "completed", "cancelled"]},
                "priority": {"enum": ["high", "medium", "low"]},
            }), &["content", "status", "priority"])}}),
            &["todos"],
        )
    }

    fn read() -> Value {
        object(
            json!({
                "filePath": {"type": "string"},
                "offset": {"type": "integer", "minimum": 1},
                "limit": {"type": "integer", "minimum": 1},
            }),
            &["filePath"],
        )
    }

    #[test]
    fn valid_arguments_are_returned_untouched() {
        let t = tool(read());
        let args = json!({"filePath": "/a", "offset": 3});
        assert_eq!(repair(&t, &args, Policy::default()), Some((args, vec![])));
    }

    #[test]
    fn parse_json_string_todos() {
        // opencode #24912, #10813, kilocode #10168: the array arrives as a string.
        let items = json!([{"content": "Test todo", "priority": "low", "status": "completed"}]);
        let got = fix(todos(), json!({"todos": items.to_string()}));
        assert_eq!(
            got,
            Some((json!({"todos": items}), vec!["parse-json-string"]))
        );
    }

    #[test]
    fn parse_json_string_then_repairs_inside() {
        // llxprt #222 inside a stringified list: the id is a number.
        let items = r#"[{"id": 1, "content": "a", "status": "pending", "priority": "high"}]"#;
        let got = fix(todos(), json!({"todos": items}));
        assert_eq!(
            got,
            Some((
                json!({"todos": [{"id": "1", "content": "a", "status": "pending", "priority": "high"}]}),
                vec!["parse-json-string", "coerce-string"]
            ))
        );
    }

    #[test]
    fn parse_json_string_with_a_leaked_tail() {
        // opencode #1373 (Claude Sonnet 4 via Copilot).
        let text = "[{\"content\": \"Analyze\", \"id\": \"1\", \"priority\": \"high\", \"status\": \"completed\"}]</parameter>\n</invoke>";
        let got = fix(todos(), json!({"todos": text})).unwrap();
        assert_eq!(got.0["todos"][0]["content"], "Analyze");
    }

    #[test]
    fn a_stringified_array_is_parsed_not_wrapped() {
        // codex #3913: command as a string holding the array.
        let schema = object(
            json!({"command": {"type": "array", "items": {"type": "string"}}}),
            &["command"],
        );
        let got = fix(schema, json!({"command": "[\"ls\", \"-la\"]"}));
        assert_eq!(
            got,
            Some((json!({"command": ["ls", "-la"]}), vec!["parse-json-string"]))
        );
    }

    #[test]
    fn parse_json_string_with_raw_newlines_and_tabs_in_its_strings() {
        // The outer JSON already decoded `\n` and `\t`: the embedded text holds the
        // characters themselves, which strict JSON refuses inside a string.
        let sent = json!({"todos": "[{\"content\":\"line 1\nline\t2\",\"status\":\"pending\",\"priority\":\"low\"}]"});
        let (args, kinds) = fix(todos(), sent).unwrap();
        assert_eq!(args["todos"][0]["content"], "line 1\nline\t2");
        assert_eq!(kinds, ["parse-json-string"]);
    }

    #[test]
    fn parse_json_string_refusals() {
        // Not JSON, the wrong type, or cut off: stays rejected.
        assert_eq!(fix(todos(), json!({"todos": "buy milk"})), None);
        assert_eq!(fix(todos(), json!({"todos": "{\"content\": \"a\"}"})), None);
        assert_eq!(fix(todos(), json!({"todos": "[{\"content\": \"a\""})), None);
    }

    #[test]
    fn coerce_number_strict_decimals_only() {
        // opencode #26870: offset "2490".
        let got = fix(
            read(),
            json!({"filePath": "AL\\alpha.py", "limit": 90, "offset": "2490"}),
        );
        assert_eq!(
            got,
            Some((
                json!({"filePath": "AL\\alpha.py", "limit": 90, "offset": 2490}),
                vec!["coerce-number"]
            ))
        );
        for bad in [
            "1e5", "0x10", " 5", "5 ", "+5", ".5", "5.", "1.5", "-", "NaN",
        ] {
            assert_eq!(
                fix(read(), json!({"filePath": "a", "offset": bad})),
                None,
                "{bad:?}"
            );
        }
        // "" is no number: at an optional property it is a placeholder, and dropped.
        assert_eq!(
            fix(read(), json!({"filePath": "a", "offset": ""})),
            Some((json!({"filePath": "a"}), vec!["drop-placeholder"]))
        );
        // An integer that breaks a bound stays rejected: the repair must fix the error.
        assert_eq!(fix(read(), json!({"filePath": "a", "offset": "0"})), None);
        let num = object(json!({"t": {"type": "number"}}), &[]);
        assert_eq!(
            fix(num.clone(), json!({"t": "1.5"})).unwrap().0,
            json!({"t": 1.5})
        );
        assert_eq!(
            fix(num.clone(), json!({"t": "-20"})).unwrap().0,
            json!({"t": -20})
        );
        // The digits as written, however many: no float rounding.
        for (text, want) in [
            ("1.50", "1.50"),
            (
                "0.1000000000000000055511151231257827",
                "0.1000000000000000055511151231257827",
            ),
            ("12345678901234567890123", "12345678901234567890123"),
            ("007", "7"),
            ("-3.0", "-3.0"),
        ] {
            let got = fix(num.clone(), json!({ "t": text })).unwrap().0;
            assert_eq!(got["t"].to_string(), want, "{text}");
        }
    }

    #[test]
    fn coerce_boolean_exact_strings_only() {
        // opencode #908 (Gemini 3 Pro): "replaceAll": "false".
        let schema = object(json!({"replaceAll": {"type": "boolean"}}), &[]);
        assert_eq!(
            fix(schema.clone(), json!({"replaceAll": "false"})),
            Some((json!({"replaceAll": false}), vec!["coerce-boolean"]))
        );
        for bad in ["False", "TRUE", "yes", "1"] {
            assert_eq!(
                fix(schema.clone(), json!({"replaceAll": bad})).map(|r| r.0),
                None,
                "{bad}"
            );
        }
    }

    #[test]
    fn coerce_string_from_numbers_and_booleans() {
        let schema = object(
            json!({"id": {"type": "string"}, "flag": {"type": "string"}}),
            &[],
        );
        assert_eq!(
            fix(schema, json!({"id": 1, "flag": true})),
            Some((
                json!({"id": "1", "flag": "true"}),
                vec!["coerce-string", "coerce-string"]
            ))
        );
        // The number's own text, not its shortest float form.
        let id = object(json!({"id": {"type": "string"}}), &[]);
        for text in ["3.10", "9400111899223344556677", "-0.0", "1.000"] {
            let args: Value = serde_json::from_str(&format!(r#"{{"id":{text}}}"#)).unwrap();
            let got = fix(id.clone(), args).unwrap();
            assert_eq!(got.0, json!({ "id": text }), "{text}");
        }
        // An exponent may have been respelled by the parser: no source text, no repair.
        for text in ["1e2", "1E+2", "2.5e-3"] {
            let args: Value = serde_json::from_str(&format!(r#"{{"id":{text}}}"#)).unwrap();
            assert_eq!(fix(id.clone(), args), None, "{text}");
        }
    }

    #[test]
    fn wrap_array_only_a_valid_item() {
        // hermes #19717: urls as a bare string.
        let schema = object(
            json!({"urls": {"type": "array", "items": {"type": "string", "format": "uri"}}}),
            &["urls"],
        );
        assert_eq!(
            fix(schema.clone(), json!({"urls": "https://a.com"})),
            Some((json!({"urls": ["https://a.com"]}), vec!["wrap-array"]))
        );
        // Not a valid item: not wrapped.
        assert_eq!(fix(schema.clone(), json!({"urls": "not a uri"})), None);
        assert_eq!(fix(schema, json!({"urls": {"u": 1}})), None);
    }

    #[test]
    fn drop_placeholder_only_at_optional_properties() {
        // jarvis #199 (Groq): null for an optional string.
        let schema = object(
            json!({"quote": {"type": "string"}, "fact": {"type": "string"}, "cursor": {"type": "string", "minLength": 1},
                   "tags": {"type": "array", "minItems": 1}, "opts": {"type": "object", "minProperties": 1}}),
            &["fact"],
        );
        assert_eq!(
            fix(schema.clone(), json!({"fact": "x", "quote": null})),
            Some((json!({"fact": "x"}), vec!["drop-placeholder"]))
        );
        // opencode #33341: "" placeholders (here the schema rejects "").
        assert_eq!(
            fix(
                schema.clone(),
                json!({"fact": "x", "cursor": "", "tags": [], "opts": {}})
            )
            .map(|r| r.0),
            Some(json!({"fact": "x"}))
        );
        for p in [json!("null"), json!("undefined")] {
            assert_eq!(
                fix(schema.clone(), json!({"fact": "x", "tags": p})).map(|r| r.0),
                Some(json!({"fact": "x"}))
            );
        }
        // Never at a required property, and a placeholder is never wrapped.
        assert_eq!(fix(schema.clone(), json!({"fact": null})), None);
        let required_tags = object(json!({"tags": {"type": "array"}}), &["tags"]);
        assert_eq!(fix(required_tags, json!({"tags": "null"})), None);
    }

    #[test]
    fn rename_key_when_unique() {
        let got = fix(read(), json!({"file_path": "/a", "limit": 3}));
        assert_eq!(
            got,
            Some((json!({"filePath": "/a", "limit": 3}), vec!["rename-key"]))
        );
        // Open object: found through the missing required property.
        let open = json!({"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]});
        assert_eq!(
            fix(open, json!({"FilePath": "/a"})).unwrap().0,
            json!({"file_path": "/a"})
        );
        // Two declared properties that normalise alike: ambiguous, no rename.
        let twin = object(
            json!({"a_b": {"type": "string"}, "ab": {"type": "string"}}),
            &["a_b", "ab"],
        );
        assert_eq!(fix(twin, json!({"A-B": "x"})), None);
    }

    #[test]
    fn drop_unknown_in_closed_objects_only() {
        // opencode #49725 shape: an extra `description` on a closed schema.
        let shell = object(json!({"command": {"type": "string"}}), &["command"]);
        assert_eq!(
            fix(
                shell.clone(),
                json!({"command": "git status", "description": "Check"})
            ),
            Some((json!({"command": "git status"}), vec!["drop-unknown"]))
        );
        // `cmd` is not a spelling of `command`: dropped, but command is still
        // missing, so the call stays rejected.
        assert_eq!(fix(shell, json!({"cmd": "ls", "description": "x"})), None);
    }

    #[test]
    fn drop_unknown_never_drops_a_near_miss() {
        // Issue 9: `forced` for a schema declaring `force` was dropped, turning a
        // forced restart into a plain one.
        let schema = object(
            json!({"service": {"type": "string"}, "force": {"type": "boolean"}, "file_path": {"type": "string"}, "pattern": {"type": "string"}}),
            &["service"],
        );
        for near in ["forced", "forec", "path", "pattren", "FILEPATH2"] {
            let args = json!({"service": "db", near: true});
            assert_eq!(fix(schema.clone(), args), None, "{near}");
        }
        // The same name but for case and separators: renamed (exactly one fit).
        assert_eq!(
            fix(schema.clone(), json!({"service": "db", "Force_": true})).map(|r| r.1),
            Some(vec!["rename-key"])
        );
        // Far from every declared name: dropped.
        assert_eq!(
            fix(schema, json!({"service": "db", "explanation": "why"})),
            Some((json!({"service": "db"}), vec!["drop-unknown"]))
        );
    }

    #[test]
    fn enum_case_one_match_only() {
        let got = fix(
            todos(),
            json!({"todos": [{"content": "a", "status": "In-Progress", "priority": "HIGH"}]}),
        );
        assert_eq!(
            got.unwrap().0["todos"][0],
            json!({"content": "a", "status": "in_progress", "priority": "high"})
        );
        // opencode #1354: "failed" is no spelling of any status.
        assert_eq!(
            fix(
                todos(),
                json!({"todos": [{"content": "a", "status": "failed", "priority": "low"}]})
            ),
            None
        );
    }

    #[test]
    fn unwrap_autolink_in_path_properties() {
        let schema = object(
            json!({"file_path": {"type": "string", "pattern": "^[^\\[\\]()]+$"},
                                   "note": {"type": "string", "pattern": "^[^\\[\\]()]+$"}}),
            &[],
        );
        assert_eq!(
            fix(
                schema.clone(),
                json!({"file_path": "[notes.md](http://notes.md)"})
            ),
            Some((json!({"file_path": "notes.md"}), vec!["unwrap-autolink"]))
        );
        // Real markdown, and non-path properties, are left alone.
        assert_eq!(
            fix(
                schema.clone(),
                json!({"file_path": "[click](https://example.com)"})
            ),
            None
        );
        assert_eq!(
            fix(schema, json!({"note": "[notes.md](http://notes.md)"})),
            None
        );
    }

    #[test]
    fn a_rule_never_applies_where_the_schema_accepts_the_value() {
        // A string where anyOf allows string or array stays a string, even when it
        // looks like an array.
        let schema = object(
            json!({"t": {"anyOf": [{"type": "string"}, {"type": "array"}]}, "n": {"type": "integer"}}),
            &[],
        );
        let got = fix(schema, json!({"t": "[1]", "n": "4"})).unwrap();
        assert_eq!(got.0, json!({"t": "[1]", "n": 4}));
    }

    #[test]
    fn several_paths_in_one_call_and_rounds() {
        let got = fix(
            read(),
            json!({"file_path": "/a", "offset": "10", "limit": null, "extra": 1}),
        )
        .unwrap();
        assert_eq!(got.0, json!({"filePath": "/a", "offset": 10}));
    }

    #[test]
    fn thousands_of_sites_are_repaired_in_a_few_validations() {
        let item = json!({"content": "a", "status": "Pending", "priority": "high"});
        let (fixed, kinds) = fix(todos(), json!({"todos": vec![item; 8_000]})).unwrap();
        assert_eq!(kinds.len(), 8_000);
        assert!(kinds.iter().all(|k| *k == "enum-case"));
        assert!(
            fixed["todos"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["status"] == "pending")
        );
        // Many unknown keys in one closed object: dropped in one pass.
        let mut args = serde_json::Map::new();
        args.insert("filePath".into(), json!("/a"));
        for i in 0..5_000 {
            args.insert(format!("extra{i}"), json!(i));
        }
        let (fixed, kinds) = fix(read(), Value::Object(args)).unwrap();
        assert_eq!(fixed, json!({"filePath": "/a"}));
        assert_eq!(kinds.len(), 5_000);
    }

    #[test]
    fn two_spellings_of_one_key_are_never_both_renamed() {
        // Both normalise to `filePath`: renaming both would keep one value and
        // silently lose the other.
        assert_eq!(
            fix(read(), json!({"file_path": "/a", "FILEPATH": "/b"})),
            None
        );
        let got = fix(read(), json!({"file_path": "/a"}));
        assert_eq!(got, Some((json!({"filePath": "/a"}), vec!["rename-key"])));
    }

    #[test]
    fn past_the_site_limit_a_call_is_not_repaired() {
        let item = json!({"content": "a", "status": "Pending", "priority": "high"});
        assert_eq!(
            fix(todos(), json!({"todos": vec![item; MAX_SITES + 1]})),
            None
        );
    }

    #[test]
    fn disabled_kinds_do_not_run() {
        let t = tool(read());
        let policy = Policy {
            enabled: Enabled::parse("coerce-number").unwrap(),
            max_rounds: 6,
        };
        assert!(repair(&t, &json!({"filePath": "/a", "offset": "2"}), policy).is_some());
        assert!(repair(&t, &json!({"file_path": "/a"}), policy).is_none());
    }

    #[test]
    fn enabled_parses_lists_and_refuses_unknown_kinds() {
        assert_eq!(Enabled::parse("all"), Ok(Enabled::ALL));
        assert_eq!(Enabled::parse("none"), Ok(Enabled::NONE));
        let e = Enabled::parse("coerce-number, wrap-array").unwrap();
        assert!(e.has(Kind::WrapArray) && e.has(Kind::CoerceNumber) && !e.has(Kind::RenameKey));
        assert!(
            Enabled::parse("coerce")
                .unwrap_err()
                .starts_with("unknown repair kind \"coerce\"")
        );
    }
}
