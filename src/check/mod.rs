//! `callfix check`: the CI step that keeps a tool set honest. Schemas parse,
//! compile and declare what they require; descriptions render; schemas and
//! descriptions match one to one; names and property descriptions suit the
//! providers; recorded calls are valid without repair. Every finding has a
//! [`Rule`] and the line and column of the key or value at fault
//! (`crate::span`); `report` writes them for people, JSON, GitHub and SARIF.

mod calls;
pub mod report;
mod rules;
mod schema;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Chain, Error, SchemaProblem};
use crate::json::pointer_token;
use crate::provider::{Provider, keywords, provider_name};
use crate::registry::{Lookup, Registry};
use crate::render::{self, Syntax};
use crate::resolve::At;
use crate::span::{Loc, Node, Spanned};
use crate::tools::description_files;

pub use rules::{Rule, Severity};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
/// One thing `check` found, where it is (`--format json` writes it as it is).
pub struct Finding {
    /// The file.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column, in characters.
    pub col: usize,
    /// Error or warning (the rule's).
    pub severity: Severity,
    /// What kind of finding it is.
    pub rule: Rule,
    /// What is wrong.
    pub message: String,
}

impl Finding {
    /// A finding of `rule` at `at` in `file`.
    pub(crate) fn new(file: impl AsRef<Path>, at: Loc, rule: Rule, message: String) -> Self {
        Finding {
            file: file.as_ref().display().to_string(),
            line: at.line,
            col: at.col,
            severity: rule.severity(),
            rule,
            message,
        }
    }
}

/// A `--calls` input: its name in findings (`<stdin>` for `-`), and its bytes.
pub struct Calls<'a> {
    /// The name findings give it.
    pub name: String,
    /// The records.
    pub reader: Box<dyn Read + 'a>,
}

impl std::fmt::Debug for Calls<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Calls").field("name", &self.name).finish()
    }
}

/// Where the description templates are.
#[derive(Debug, Clone, Copy)]
pub struct Descriptions<'a> {
    /// The directory ([`crate::tools::descriptions_dir`]).
    pub dir: &'a Path,
    /// Whether it was named (`--descriptions`, the config): then it must exist.
    pub given: bool,
}

/// What `check` looks at.
#[derive(Debug)]
pub struct Inputs<'a> {
    /// The tools.
    pub registry: &'a Registry,
    /// Where they came from (registry warnings are reported at the first).
    pub sources: &'a [PathBuf],
    /// Template variables for rendering the descriptions.
    pub vars: &'a render::Vars,
    /// The `<tool>.txt` description templates.
    pub descriptions: Descriptions<'a>,
    /// Recorded calls, each of which must be valid as it is.
    pub calls: Vec<Calls<'a>>,
    /// `--provider`: also what this provider's API would refuse (its schema
    /// keywords, `crate::provider::keywords`; names that collide once sanitised).
    pub provider: Option<Provider>,
    /// `--openai-strict`: the schemas must suit OpenAI strict mode.
    pub strict: bool,
}

/// What `check` found, and how much it looked at.
#[derive(Debug, Default)]
pub struct Report {
    /// Every finding, sorted by file, line and column.
    pub findings: Vec<Finding>,
    /// Tools checked.
    pub tools: usize,
    /// Recorded calls checked.
    pub calls: u64,
}

impl Report {
    /// How many findings are errors.
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count()
    }

    /// How many findings are warnings.
    pub fn warnings(&self) -> usize {
        self.findings.len() - self.errors()
    }
}

/// Checks everything `args` names. `Err` only when an input cannot be read.
///
/// ```
/// use callfix::check::{Calls, Descriptions, Inputs, Rule, check};
/// use callfix::registry::Registry;
/// use serde_json::json;
/// use std::path::Path;
///
/// let registry = Registry::from_schemas([(
///     "read".to_owned(),
///     json!({"description": "Reads a file.", "type": "object",
///            "properties": {"path": {"type": "string", "description": "Absolute."}},
///            "required": ["path"]}),
/// )]);
/// let recorded = Calls {
///     name: "calls.jsonl".to_owned(),
///     reader: Box::new(&b"{\"name\": \"read\", \"arguments\": {}}\n"[..]),
/// };
/// let report = check(Inputs {
///     registry: &registry,
///     sources: &[],
///     vars: &callfix::render::builtins(),
///     descriptions: Descriptions { dir: Path::new("no-descriptions"), given: false },
///     calls: vec![recorded],
///     provider: None,
///     strict: false,
/// })
/// .unwrap();
/// assert_eq!(report.errors(), 1);
/// assert_eq!(report.findings[0].rule, Rule::CallInvalid);
/// ```
pub fn check(args: Inputs<'_>) -> Result<Report, Error> {
    let registry = args.registry;
    let mut out = Vec::new();
    // Every tool is checked: a lone directory is listed here, so its
    // warnings are known.
    let files: Vec<(&str, PathBuf)> = registry
        .names()
        .map(|name| (name, registry.source(name).unwrap_or_default()))
        .collect();
    for w in registry.warnings() {
        out.push(Finding::new(
            args.sources.first().map_or(Path::new(""), PathBuf::as_path),
            Loc::START,
            Rule::SourceIgnored,
            w.to_owned(),
        ));
    }
    let dir = args.descriptions.dir;
    let descriptions = description_files(dir)?;
    if args.descriptions.given && !dir.is_dir() {
        out.push(Finding::new(
            dir,
            Loc::START,
            Rule::DescriptionsNotFound,
            "descriptions directory not found".into(),
        ));
    }
    // Each file is read and parsed once: a tool list holds many tools.
    let mut texts: BTreeMap<&Path, String> = BTreeMap::new();
    for (_, file) in &files {
        if !texts.contains_key(file.as_path()) {
            texts.insert(file, crate::source::read_text(file).unwrap_or_default());
        }
    }
    let parsed: BTreeMap<&Path, Spanned<'_>> = texts
        .iter()
        .map(|(file, text)| (*file, Spanned::parse(text)))
        .collect();
    let mut exposed: BTreeMap<String, Vec<(&str, PathBuf, Loc)>> = BTreeMap::new();
    for (name, file) in &files {
        let (name, file) = (*name, file.as_path());
        let Some(spanned) = parsed.get(file) else {
            continue;
        };
        let place = Place::of(spanned, name);
        let as_sent = args
            .provider
            .map_or_else(|| provider_name(name), |p| p.api().tool_name(name));
        exposed
            .entry(as_sent)
            .or_default()
            .push((name, file.to_owned(), place.name));
        let Some(here) = Here::new(registry, name, file, &place, &mut out) else {
            continue;
        };
        if let Some(provider) = args.provider {
            check_provider(&here, provider, args.strict, &mut out);
        }
        check_tool(&here, &descriptions, dir, &mut out);
    }
    for (as_sent, names) in exposed.iter().filter(|(_, n)| n.len() > 1) {
        let Some((_, file, at)) = names.get(1) else {
            continue;
        };
        let listed: Vec<String> = names.iter().map(|(n, ..)| format!("\"{n}\"")).collect();
        out.push(Finding::new(
            file,
            *at,
            Rule::NameCollision,
            format!(
                "tools {} all become \"{as_sent}\" for the providers (names are sanitised to \
                 [a-zA-Z0-9_-], at most 64); `callfix tools` would refuse them",
                listed.join(", ")
            ),
        ));
    }
    for (tool, path) in &descriptions {
        if matches!(registry.lookup(tool), Lookup::Unknown) {
            out.push(Finding::new(
                path,
                Loc::START,
                Rule::DescriptionOrphan,
                format!("description of \"{tool}\", which has no schema"),
            ));
        }
        let text = crate::source::read_text(path)
            .map_err(|error| Error::read(path.display().to_string(), error))?;
        let name = path.display().to_string();
        if let Err(errors) = render::render(&text, &name, args.vars, Syntax::Angle) {
            for e in errors {
                let mut message = e.what.clone();
                if let Some(s) = &e.suggested {
                    message.push_str(&format!("; did you mean {s}?"));
                }
                let at = Loc {
                    line: e.line,
                    col: e.column,
                };
                out.push(Finding::new(path, at, Rule::DescriptionRender, message));
            }
        }
    }
    let mut calls = 0;
    for input in args.calls {
        calls += calls::check(registry, input, &mut out)?;
    }
    out.sort();
    Ok(Report {
        findings: out,
        tools: registry.len(),
        calls,
    })
}

/// Where a tool is in its file: its name (a tool list's `name`, else the
/// start) and its schema (the list's `parameters`, else the whole file).
struct Place<'s, 't> {
    spanned: &'s Spanned<'t>,
    name: Loc,
    schema: Option<Node<'s, 't>>,
}

impl<'s, 't> Place<'s, 't> {
    fn of(spanned: &'s Spanned<'t>, name: &str) -> Self {
        match spanned.tool(name) {
            Some((at, schema)) => Place {
                spanned,
                name: at,
                schema,
            },
            None => Place {
                spanned,
                name: Loc::START,
                schema: spanned.root(),
            },
        }
    }

    /// Where `pointer` (into the tool's schema) is.
    fn at(&self, pointer: &str) -> Loc {
        match self.schema {
            Some(node) => self.spanned.within(node, pointer),
            None => self.name,
        }
    }
}

/// A tool that compiled, with where it is.
struct Here<'a, 's, 't> {
    name: &'a str,
    tool: &'a crate::registry::Tool,
    file: &'a Path,
    place: &'a Place<'s, 't>,
}

impl<'a, 's, 't> Here<'a, 's, 't> {
    /// The tool, or `None` (and its finding) when its schema is broken.
    fn new(
        registry: &'a Registry,
        name: &'a str,
        file: &'a Path,
        place: &'a Place<'s, 't>,
        out: &mut Vec<Finding>,
    ) -> Option<Self> {
        match registry.lookup(name) {
            Lookup::Found(tool) => Some(Here {
                name,
                tool,
                file,
                place,
            }),
            Lookup::Broken(e) => {
                let said = |reason: String| match &e.tool {
                    Some(t) => format!("tool \"{t}\": {reason}"),
                    None => reason,
                };
                // Every problem the schema has, each at its place; the
                // validator's own error only when none of them is it.
                let problems = match &e.problem {
                    SchemaProblem::Invalid { .. } | SchemaProblem::Reference(_) => place
                        .schema
                        .and_then(|node| place.spanned.value(node))
                        .map(|schema| schema::problems(&schema, &e.file, registry.ref_map()))
                        .unwrap_or_default(),
                    _ => Vec::new(),
                };
                let covered = match &e.problem {
                    // The validator says where a keyword is wrong; a `$ref`
                    // that points nowhere it reports at the top.
                    SchemaProblem::Invalid { at, .. } => problems
                        .iter()
                        .any(|p| p.pointer == *at || (p.reference && at.is_empty())),
                    SchemaProblem::Reference(_) => problems.iter().any(|p| p.reference),
                    _ => false,
                };
                for p in problems {
                    let at = place.at(&p.pointer);
                    out.push(Finding::new(
                        &e.file,
                        at,
                        Rule::SchemaInvalid,
                        said(p.message),
                    ));
                }
                if !covered {
                    let at = e.at.unwrap_or_else(|| match &e.problem {
                        SchemaProblem::Invalid { at, .. } => place.at(at),
                        _ => place.name,
                    });
                    let what = said(Chain(&e.problem).to_string());
                    out.push(Finding::new(&e.file, at, Rule::SchemaInvalid, what));
                }
                None
            }
            Lookup::Unknown => None,
        }
    }

    fn finding(&self, at: Loc, rule: Rule, message: String) -> Finding {
        Finding::new(self.file, at, rule, message)
    }
}

fn check_tool(
    here: &Here<'_, '_, '_>,
    descriptions: &BTreeMap<String, PathBuf>,
    dir: &Path,
    out: &mut Vec<Finding>,
) {
    let (name, tool) = (here.name, here.tool);
    let exposed = provider_name(name);
    if exposed != name {
        out.push(here.finding(
            here.place.name,
            Rule::NameSanitised,
            format!(
                "tool name \"{name}\" is not accepted by OpenAI, Anthropic and Gemini \
                 ([a-zA-Z0-9_-], at most 64); `callfix tools` sends it as \"{exposed}\""
            ),
        ));
    }
    let mut undeclared = Vec::new();
    required_undeclared(&tool.schema, String::new(), &mut undeclared);
    for (pointer, prop) in undeclared {
        out.push(here.finding(
            here.place.at(&pointer),
            Rule::RequiredUndeclared,
            format!("\"required\" names \"{prop}\", which is not a declared property"),
        ));
    }
    let mut bare = Vec::new();
    let (root, inside) = resolved(tool.root(), Some(String::new()));
    undescribed(root, "", inside, "", &mut bare, 0);
    for (path, pointer) in bare {
        out.push(here.finding(
            here.place.at(&pointer),
            Rule::PropertyUndescribed,
            format!("property {path} has no description (the model learns the tool from them)"),
        ));
    }
    if !descriptions.contains_key(name) {
        // The file `tools` would read: `<dir>/<name>.txt`, the name as declared.
        let expected = dir.join(format!("{name}.txt"));
        out.push(match tool.description {
            Some(_) if dir.is_dir() => here.finding(
                here.place.name,
                Rule::DescriptionFileMissing,
                format!(
                    "no {}: the tool's own description is used",
                    expected.display()
                ),
            ),
            Some(_) => return,
            None => here.finding(
                here.place.name,
                Rule::DescriptionMissing,
                format!(
                    "tool \"{name}\" has no description: add one to its definition, or {}",
                    expected.display()
                ),
            ),
        });
    }
}

/// What `provider`'s API would refuse in a tool's schema: a top level that is not
/// an object (every provider), keywords its dialect does not take (warnings:
/// `tools` strips them), and what it cannot express (errors).
fn check_provider(
    here: &Here<'_, '_, '_>,
    provider: Provider,
    strict: bool,
    out: &mut Vec<Finding>,
) {
    let (name, tool) = (here.name, here.tool);
    let object = tool.schema.get("type").and_then(Value::as_str) == Some("object");
    if !object {
        let at = match tool.schema.get("type") {
            Some(_) => here.place.at("/type"),
            None => here.place.at(""),
        };
        out.push(here.finding(
            at,
            Rule::TopLevelNotObject,
            format!(
                "tool \"{name}\": the top-level schema must be {{\"type\": \"object\"}} for {}",
                provider.name()
            ),
        ));
    }
    let (_, notes) = crate::tools::parameters(tool, provider, strict);
    let Some(dialect) = provider.dialect(strict) else {
        return;
    };
    // The top level was reported above, for every provider.
    let top_level = |n: &keywords::Note| n.pointer.is_empty() && n.keyword == "type";
    for note in notes.into_iter().filter(|n| object || !top_level(n)) {
        let at = note.place();
        let (rule, message) = match &note.refused {
            Some(why) => (
                Rule::StrictInexpressible,
                format!("tool \"{name}\": {} at {at}: {why}", note.keyword),
            ),
            None => (
                Rule::ProviderKeyword,
                format!(
                    "tool \"{name}\": {} at {at}: {} refuses it (`callfix tools` {})",
                    note.keyword,
                    dialect.name(),
                    note.action()
                ),
            ),
        };
        let pointer = format!("{}/{}", note.pointer, pointer_token(&note.keyword));
        out.push(here.finding(here.place.at(&pointer), rule, message));
    }
}

/// `required` entries that name no declared property, with the pointer to the
/// entry.
fn required_undeclared(schema: &Value, pointer: String, out: &mut Vec<(String, String)>) {
    match schema {
        Value::Object(m) => {
            if let (Some(Value::Array(req)), Some(Value::Object(props))) =
                (m.get("required"), m.get("properties"))
            {
                for (i, r) in req.iter().enumerate() {
                    if let Some(r) = r.as_str().filter(|r| !props.contains_key(*r)) {
                        out.push((format!("{pointer}/required/{i}"), r.to_owned()));
                    }
                }
            }
            for (k, v) in m {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    required_undeclared(v, format!("{pointer}/{}", pointer_token(k)), out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                required_undeclared(v, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// `node` with its `$ref` followed, and the pointer to it while it is still in the
/// tool's own document (`None` once a `$ref` led elsewhere).
fn resolved(node: At<'_>, inside: Option<String>) -> (At<'_>, Option<String>) {
    match node.target() {
        Some(target) => (target, None),
        None => (node, inside),
    }
}

/// Properties without a `description` (their own or their `$ref` target's) under
/// `node` (already [`resolved`]): the property's path for people, and the pointer
/// to report it at: its key while the walk is still in the tool's own document
/// (`inside`), else `fallback`, the key of the property whose `$ref` led
/// elsewhere.
fn undescribed(
    node: At<'_>,
    path: &str,
    inside: Option<String>,
    fallback: &str,
    out: &mut Vec<(String, String)>,
    depth: usize,
) {
    if depth > 16 {
        return;
    }
    let pointer = |suffix: &str| inside.as_ref().map(|p| format!("{p}{suffix}"));
    if let Some(Value::Object(props)) = node.schema.get("properties") {
        for (k, prop) in props {
            let name = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            let key = pointer(&format!("/properties/{}", pointer_token(k)));
            let at = key.clone().unwrap_or_else(|| fallback.to_owned());
            let prop = node.child(prop);
            let own = prop.schema.get("description").is_some();
            let (target, inside) = resolved(prop, key);
            if !own && target.schema.get("description").is_none() {
                out.push((name.clone(), at.clone()));
            }
            undescribed(target, &name, inside, &at, out, depth + 1);
        }
    }
    if let Some(items) = node.schema.get("items").filter(|i| i.is_object()) {
        let key = pointer("/items");
        let at = key.clone().unwrap_or_else(|| fallback.to_owned());
        let (items, inside) = resolved(node.child(items), key);
        undescribed(items, &format!("{path}[]"), inside, &at, out, depth + 1);
    }
}
