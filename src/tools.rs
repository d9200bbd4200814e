//! `callfix tools`: the tool definitions a provider API expects, built from the
//! same schemas the filter validates against and the rendered descriptions.

use std::collections::BTreeMap;

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::error::{Error, IoCause};
use crate::provider::Provider;
use crate::registry::{Lookup, Registry, SchemaError, Tool};
use crate::render::{self, Syntax, Vars};
use crate::resolve::At;

/// Keys no provider accepts in a parameters schema.
const STRIPPED: [&str; 3] = ["$schema", "$id", "$comment"];

/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one schema.
const SCHEMA_ONE: [&str; 11] = [
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];

/// The description templates in `dir`, by tool name (a missing directory has none).
pub fn description_files(dir: &std::path::Path) -> Result<BTreeMap<String, PathBuf>, Error> {
    if !dir.is_dir() {
        return Ok(BTreeMap::new());
    }
    Ok(render::templates_in(dir)?.into_iter().collect())
}

/// Why the payload cannot be made: every problem, one per tool (or pair of tools).
#[derive(Debug, thiserror::Error)]
pub enum PayloadError<'r> {
    /// A tool's schema does not compile.
    #[error(transparent)]
    Schema(&'r SchemaError),
    /// A tool's description template cannot be read or rendered.
    #[error(transparent)]
    Description(#[from] DescriptionError),
    /// Two tools whose names the provider's rules make one.
    #[error("tools \"{first}\" and \"{second}\" both become \"{exposed}\" for this provider")]
    SameName {
        /// The tool seen first.
        first: String,
        /// The tool seen second.
        second: String,
        /// The name both become.
        exposed: String,
    },
}

/// The tool definitions `provider`'s API expects for every tool of `registry`,
/// by name: each description rendered from `descriptions` (`<tool>.txt`, as
/// [`description_files`] finds them) or the schema's own, each schema as
/// [`parameters`] cleans it. Every problem is returned, not just the first.
pub fn payload<'r>(
    registry: &'r Registry,
    provider: &dyn Provider,
    descriptions: &BTreeMap<String, PathBuf>,
    vars: &Vars,
) -> Result<Value, Vec<PayloadError<'r>>> {
    let mut problems = Vec::new();
    let mut defs = Vec::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for name in registry.names() {
        let tool = match registry.lookup(name) {
            Lookup::Found(t) => t,
            Lookup::Broken(e) => {
                problems.push(PayloadError::Schema(e));
                continue;
            }
            Lookup::Unknown => continue,
        };
        let description = match description(tool, descriptions, vars) {
            Ok(d) => d,
            Err(e) => {
                problems.push(e.into());
                continue;
            }
        };
        let exposed = provider.tool_name(name);
        if let Some(other) = names.insert(exposed.clone(), name.to_owned()) {
            problems.push(PayloadError::SameName {
                first: other,
                second: name.to_owned(),
                exposed: exposed.clone(),
            });
        }
        defs.push(provider.tool_definition(&exposed, &description, parameters(tool, provider)));
    }
    if problems.is_empty() {
        Ok(provider.tools_payload(defs))
    } else {
        Err(problems)
    }
}

/// Why a tool's description cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum DescriptionError {
    /// Its template cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The template.
        path: PathBuf,
        /// Why.
        #[source]
        source: IoCause,
    },
    /// Its template has placeholders that cannot be rendered (every one listed).
    #[error("{} placeholder(s) cannot be rendered", .0.len())]
    Template(Vec<render::TemplateError>),
}

/// The description of `tool`: its `descriptions/<tool>.txt` rendered, else the
/// schema's own `description`.
pub fn description(
    tool: &Tool,
    files: &BTreeMap<String, PathBuf>,
    vars: &Vars,
) -> Result<String, DescriptionError> {
    let Some(path) = files.get(&tool.name) else {
        return Ok(tool.description.clone().unwrap_or_default());
    };
    let text = crate::source::read_text(path).map_err(|e| DescriptionError::Read {
        path: path.clone(),
        source: IoCause(e),
    })?;
    render::render(&text, &path.display().to_string(), vars, Syntax::Angle)
        .map(|r| r.text.trim_end().to_owned())
        .map_err(DescriptionError::Template)
}

/// The parameters schema as a provider takes it: references inlined (providers
/// cannot read sibling files), `$schema`/`$id`/`$comment` removed, and the
/// keywords the provider rejects.
pub fn parameters(tool: &Tool, provider: &dyn Provider) -> Value {
    let inlined = inline(tool.root(), 0);
    let mut clean = strip(&inlined, provider);
    if !contains_ref(&clean)
        && let Value::Object(m) = &mut clean
    {
        m.remove("$defs");
        m.remove("definitions");
    }
    clean
}

/// Replaces each `$ref` with what it points at, resolved as the validator does
/// (local, anchors, `$id` scopes, sibling files, `--ref-map` documents).
fn inline(node: At<'_>, depth: usize) -> Value {
    match node.schema {
        Value::Object(m) => {
            if depth < 32
                && let Some(target) = node.target()
            {
                let mut merged = match inline(target, depth + 1) {
                    Value::Object(t) => t,
                    other => return other,
                };
                for (k, v) in m {
                    if k != "$ref" && !merged.contains_key(k) {
                        merged.insert(k.clone(), inline(node.child(v), depth + 1));
                    }
                }
                return Value::Object(merged);
            }
            Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), inline(node.child(v), depth)))
                    .collect(),
            )
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| inline(node.child(v), depth)).collect())
        }
        other => other.clone(),
    }
}

/// Removes the keys a provider rejects, from schema objects only (a property
/// named `$id` stays).
fn strip(schema: &Value, provider: &dyn Provider) -> Value {
    let Value::Object(m) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (k, v) in m {
        if STRIPPED.contains(&k.as_str()) || provider.rejected_keywords().contains(&k.as_str()) {
            continue;
        }
        let v = if SCHEMA_MAPS.contains(&k.as_str()) {
            match v {
                Value::Object(props) => Value::Object(
                    props
                        .iter()
                        .map(|(name, s)| (name.clone(), strip(s, provider)))
                        .collect(),
                ),
                other => other.clone(),
            }
        } else if SCHEMA_ONE.contains(&k.as_str()) {
            strip(v, provider)
        } else if SCHEMA_LISTS.contains(&k.as_str()) {
            match v {
                Value::Array(items) => {
                    Value::Array(items.iter().map(|s| strip(s, provider)).collect())
                }
                other => other.clone(),
            }
        } else {
            v.clone()
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}

fn contains_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(contains_ref),
        Value::Array(items) => items.iter().any(contains_ref),
        _ => false,
    }
}
