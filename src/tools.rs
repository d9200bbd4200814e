//! `callfix tools`: the tool definitions a provider API expects, built from the
//! same schemas the filter validates against and the rendered descriptions.

use std::collections::BTreeMap;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, IoCause};
use crate::provider::Provider;
use crate::provider::keywords::{self, Note};
use crate::registry::{Lookup, Registry, SchemaError, Tool};
use crate::render::{self, Syntax, Vars};
use crate::resolve::At;

/// Keys no provider accepts in a parameters schema.
const STRIPPED: [&str; 3] = ["$schema", "$id", "$comment"];

/// Where the description templates are: `given`, else the `descriptions`
/// directory beside the first schema source (`schemas/` → `descriptions/`,
/// `conf/tools.json` → `conf/descriptions/`). `check` and `tools` both read there,
/// so the file `check` asks for is the file `tools` reads.
pub fn descriptions_dir(given: Option<&Path>, sources: &[PathBuf]) -> PathBuf {
    if let Some(dir) = given {
        return dir.to_owned();
    }
    let beside = sources
        .first()
        .and_then(|s| s.parent())
        .unwrap_or(Path::new(""));
    beside.join("descriptions")
}

/// The description templates in `dir`, by tool name (a missing directory has none).
pub fn description_files(dir: &Path) -> Result<BTreeMap<String, PathBuf>, Error> {
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
    /// A schema the provider's rules cannot take (OpenAI strict mode and an
    /// open object).
    #[error("tool \"{tool}\": {} at {}: {}", .note.keyword, .note.place(), .note.refused.as_deref().unwrap_or_default())]
    Refused {
        /// The tool.
        tool: String,
        /// What was refused, and why.
        note: Note,
    },
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

/// A provider payload, and the schema keywords stripped to make it (by tool).
#[derive(Debug)]
pub struct Payload {
    /// The payload.
    pub value: Value,
    /// Each keyword stripped because the provider does not take it (or
    /// written its way, meaning the same: `Note::rewritten`), by tool.
    pub stripped: Vec<(String, Note)>,
    /// The tools written with an empty description (none in the schema, no
    /// template): the model sees only the name and the parameters.
    pub undescribed: Vec<String>,
}

/// The tool definitions `provider`'s API expects for every tool of `registry`,
/// by name: each description rendered from `descriptions` (`<tool>.txt`, as
/// [`description_files`] finds them) or the schema's own, each schema as
/// `parameters` cleans it; with `strict`, in the provider's strict mode (OpenAI).
/// Every problem is returned, not just the first.
///
/// ```
/// use callfix::provider::Provider;
/// use callfix::render::Vars;
/// use callfix::Toolset;
/// use serde_json::json;
/// use std::collections::BTreeMap;
///
/// let tools = Toolset::from_schemas([(
///     "read".to_owned(),
///     json!({"description": "Reads a file.", "type": "object",
///            "properties": {"path": {"type": "string"}}}),
/// )]);
/// let no_templates = BTreeMap::new();
/// let payload = callfix::tools::payload(
///     tools.registry(), Provider::Anthropic, &no_templates, &Vars::new(), false,
/// ).unwrap();
/// assert_eq!(payload.value[0]["name"], "read");
/// assert_eq!(payload.value[0]["description"], "Reads a file.");
/// assert_eq!(payload.value[0]["input_schema"]["properties"]["path"]["type"], "string");
/// ```
pub fn payload<'r>(
    registry: &'r Registry,
    provider: Provider,
    descriptions: &BTreeMap<String, PathBuf>,
    vars: &Vars,
    strict: bool,
) -> Result<Payload, Vec<PayloadError<'r>>> {
    let api = provider.api();
    let mut stripped = Vec::new();
    let mut undescribed = Vec::new();
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
        if description.trim().is_empty() {
            undescribed.push(name.to_owned());
        }
        let exposed = api.tool_name(name);
        if let Some(other) = names.insert(exposed.clone(), name.to_owned()) {
            problems.push(PayloadError::SameName {
                first: other,
                second: name.to_owned(),
                exposed: exposed.clone(),
            });
        }
        let (schema, notes) = parameters(tool, provider, strict);
        for note in notes {
            match note.refused {
                Some(_) => problems.push(PayloadError::Refused {
                    tool: name.to_owned(),
                    note,
                }),
                None => stripped.push((name.to_owned(), note)),
            }
        }
        let mut def = api.tool_definition(&exposed, &description, schema);
        api.set_strict(&mut def, strict);
        defs.push(def);
    }
    if problems.is_empty() {
        Ok(Payload {
            value: api.tools_payload(defs),
            stripped,
            undescribed,
        })
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
pub(crate) fn description(
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
/// cannot read sibling files), `$schema`/`$id`/`$comment` removed, then adapted
/// to the provider's own rules ([`keywords::adapt`]), which say what they did.
pub(crate) fn parameters(tool: &Tool, provider: Provider, strict: bool) -> (Value, Vec<Note>) {
    let inlined = inline(tool.root(), 0);
    let mut clean = keywords::without(&inlined, &STRIPPED);
    if !contains_ref(&clean)
        && let Value::Object(m) = &mut clean
    {
        m.remove("$defs");
        m.remove("definitions");
    }
    match provider.dialect(strict) {
        Some(dialect) => {
            let adapted = keywords::adapt(&clean, dialect);
            (adapted.schema, adapted.notes)
        }
        None => (clean, Vec::new()),
    }
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

fn contains_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(contains_ref),
        Value::Array(items) => items.iter().any(contains_ref),
        _ => false,
    }
}
