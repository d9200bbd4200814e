//! `callfix check`: the CI step that keeps a tool set honest. Schemas parse,
//! compile and declare what they require; descriptions render; schemas and
//! descriptions match one to one; names and property descriptions suit the
//! providers; recorded calls are valid without repair. Findings are printed
//! linter-style, `path:line: error|warning: message`.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Chain, Error};
use crate::filter::{self, Options, StreamError, Summary};
use crate::output::{Position, Sink};
use crate::provider::{Call, Provider, keywords, provider_name};
use crate::registry::{Lookup, Registry, locate};
use crate::render::{self, Syntax};
use crate::repair::{Enabled, Policy};
use crate::resolve::At;
use crate::tools::description_files;
use crate::verdict::{Status, Verdict};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
/// How bad a finding is.
pub enum Severity {
    /// Fails the check.
    Error,
    /// Fails it with `--deny-warnings`.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
/// One thing `check` found, where it is (`--format json` writes it as it is).
pub struct Finding {
    /// The file.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
}

impl Finding {
    fn new(file: impl AsRef<Path>, line: usize, severity: Severity, message: String) -> Self {
        Finding {
            file: file.as_ref().display().to_string(),
            line,
            severity,
            message,
        }
    }
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
    /// The directory of `<tool>.txt` description templates.
    pub descriptions: &'a Path,
    /// Files of recorded calls, each of which must be valid as it is.
    pub calls: &'a [PathBuf],
    /// `--provider`: also what this provider's API would refuse (its schema
    /// keywords, [`crate::provider::keywords`]; names that collide once sanitised).
    pub provider: Option<&'static dyn Provider>,
    /// `--openai-strict`: the schemas must suit OpenAI strict mode.
    pub strict: bool,
}

/// Everything `check` finds, sorted by file and line.
pub fn findings(args: &Inputs<'_>) -> Result<Vec<Finding>, Error> {
    let registry = args.registry;
    let vars = args.vars;
    let mut out = Vec::new();
    for w in &registry.warnings {
        out.push(Finding::new(
            &args.sources[0],
            1,
            Severity::Warning,
            w.clone(),
        ));
    }
    let descriptions = description_files(args.descriptions)?;
    if !args.descriptions.is_dir() {
        out.push(Finding::new(
            args.descriptions,
            1,
            Severity::Error,
            "descriptions directory not found".into(),
        ));
    }
    let mut exposed: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for name in registry.names() {
        let file = registry.source(name).unwrap_or_default();
        let as_sent = args
            .provider
            .map_or_else(|| provider_name(name), |p| p.tool_name(name));
        exposed.entry(as_sent).or_default().push(name);
        if let Some(provider) = args.provider {
            check_provider(registry, name, &file, provider, args.strict, &mut out);
        }
        check_tool(
            registry,
            name,
            &file,
            &descriptions,
            args.descriptions,
            &mut out,
        );
    }
    for (as_sent, names) in exposed.iter().filter(|(_, n)| n.len() > 1) {
        let file = registry.source(names[1]).unwrap_or_default();
        out.push(Finding::new(
            &file,
            1,
            Severity::Error,
            format!(
                "tools {} all become \"{as_sent}\" for the providers (names are sanitised to \
                 [a-zA-Z0-9_-], at most 64); `callfix tools` would refuse them",
                names
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    for (tool, path) in &descriptions {
        if matches!(registry.lookup(tool), Lookup::Unknown) {
            out.push(Finding::new(
                path,
                1,
                Severity::Error,
                format!("description of \"{tool}\", which has no schema"),
            ));
        }
        let text = crate::source::read_text(path)
            .map_err(|error| Error::read(path.display().to_string(), error))?;
        if let Err(errors) = render::render(&text, &path.display().to_string(), vars, Syntax::Angle)
        {
            for e in errors {
                let mut message = format!("{} (column {})", e.what, e.column);
                if let Some(s) = &e.suggested {
                    message.push_str(&format!("; did you mean {s}?"));
                }
                out.push(Finding::new(path, e.line, Severity::Error, message));
            }
        }
    }
    for file in args.calls {
        check_calls(registry, file, &mut out)?;
    }
    out.sort();
    Ok(out)
}

fn check_tool(
    registry: &Registry,
    name: &str,
    file: &Path,
    descriptions: &BTreeMap<String, PathBuf>,
    dir: &Path,
    out: &mut Vec<Finding>,
) {
    let text = crate::source::read_text(file).unwrap_or_default();
    let exposed = provider_name(name);
    if exposed != name {
        out.push(Finding::new(
            file,
            1,
            Severity::Warning,
            format!(
                "tool name \"{name}\" is not accepted by OpenAI, Anthropic and Gemini \
                 ([a-zA-Z0-9_-], at most 64); `callfix tools` sends it as \"{exposed}\""
            ),
        ));
    }
    let tool = match registry.lookup(name) {
        Lookup::Found(t) => t,
        Lookup::Broken(e) => {
            let reason = Chain(&e.problem);
            let what = match &e.tool {
                Some(t) => format!("tool \"{t}\": {reason}"),
                None => reason.to_string(),
            };
            out.push(Finding::new(
                &e.file,
                e.line.unwrap_or(1),
                Severity::Error,
                what,
            ));
            return;
        }
        Lookup::Unknown => return,
    };
    let mut undeclared = Vec::new();
    required_undeclared(&tool.schema, String::new(), &mut undeclared);
    for (pointer, prop) in undeclared {
        out.push(Finding::new(
            file,
            locate(&text, &pointer),
            Severity::Error,
            format!("\"required\" names \"{prop}\", which is not a declared property"),
        ));
    }
    let mut bare = Vec::new();
    undescribed(tool.root(), "", &mut bare, 0);
    for path in bare {
        let last = path
            .rsplit(['.', ']'])
            .next()
            .unwrap_or(&path)
            .trim_start_matches('[');
        out.push(Finding::new(
            file,
            locate_key(&text, last),
            Severity::Warning,
            format!("property {path} has no description (the model learns the tool from them)"),
        ));
    }
    if !descriptions.contains_key(name) {
        let own = tool.description.is_some();
        let expected = dir.join(format!("{}.txt", provider_name(name)));
        out.push(if own {
            Finding::new(
                file,
                1,
                Severity::Warning,
                format!(
                    "no {}: the schema's own description is used",
                    expected.display()
                ),
            )
        } else {
            Finding::new(
                file,
                1,
                Severity::Error,
                format!(
                    "tool \"{name}\" has no description: add {}",
                    expected.display()
                ),
            )
        });
    }
}

/// What `provider`'s API would refuse in a tool's schema: a top level that is not
/// an object (every provider), keywords its dialect does not take (warnings:
/// `tools` strips them), and what it cannot express (errors).
fn check_provider(
    registry: &Registry,
    name: &str,
    file: &Path,
    provider: &dyn Provider,
    strict: bool,
    out: &mut Vec<Finding>,
) {
    let Lookup::Found(tool) = registry.lookup(name) else {
        return;
    };
    let text = crate::source::read_text(file).unwrap_or_default();
    let object = tool.schema.get("type").and_then(Value::as_str) == Some("object");
    if !object {
        out.push(Finding::new(
            file,
            1,
            Severity::Error,
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
        let (severity, message) = match &note.refused {
            Some(why) => (
                Severity::Error,
                format!("tool \"{name}\": {} at {at}: {why}", note.keyword),
            ),
            None => (
                Severity::Warning,
                format!(
                    "tool \"{name}\": {} at {at}: {} does not take it (`callfix tools` strips it)",
                    note.keyword,
                    dialect.name()
                ),
            ),
        };
        let line = locate(&text, &format!("{}/{}", note.pointer, note.keyword));
        out.push(Finding::new(file, line, severity, message));
    }
}

/// `required` entries that name no declared property, with the pointer to them.
fn required_undeclared(schema: &Value, pointer: String, out: &mut Vec<(String, String)>) {
    match schema {
        Value::Object(m) => {
            if let (Some(Value::Array(req)), Some(Value::Object(props))) =
                (m.get("required"), m.get("properties"))
            {
                for r in req.iter().filter_map(Value::as_str) {
                    if !props.contains_key(r) {
                        out.push((format!("{pointer}/required"), r.to_owned()));
                    }
                }
            }
            for (k, v) in m {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    required_undeclared(v, format!("{pointer}/{k}"), out);
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

/// Properties without a `description` (their own or their `$ref` target's).
fn undescribed(node: At<'_>, path: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    let node = node.deref();
    if let Some(Value::Object(props)) = node.schema.get("properties") {
        for (k, prop) in props {
            let here = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            let prop = node.child(prop);
            let target = prop.deref();
            if prop.schema.get("description").is_none()
                && target.schema.get("description").is_none()
            {
                out.push(here.clone());
            }
            undescribed(target, &here, out, depth + 1);
        }
    }
    if let Some(items) = node.schema.get("items").filter(|i| i.is_object()) {
        undescribed(node.child(items), &format!("{path}[]"), out, depth + 1);
    }
}

fn locate_key(text: &str, key: &str) -> usize {
    let quoted = format!("{}:", Value::String(key.to_owned()));
    text.find(&quoted[..quoted.len() - 1])
        .map_or(1, |i| text[..i].matches('\n').count() + 1)
}

/// Recorded calls: every one must be valid as it is.
fn check_calls(registry: &Registry, file: &Path, out: &mut Vec<Finding>) -> Result<(), Error> {
    let name = file.display().to_string();
    let reader = File::open(file).map_err(|error| Error::read(name.clone(), error))?;
    let options = Options {
        policy: Policy {
            enabled: Enabled::NONE,
            ..Policy::default()
        },
        loop_limit: 0,
        ..Options::default()
    };
    let mut sink = CallFindings {
        file: name.clone(),
        out,
    };
    let run = filter::Filter {
        registry,
        options: &options,
    };
    let input = filter::Input::new(BufReader::new(reader), &name);
    run.stream(input, &mut sink, &mut Summary::default())
        .map_err(|e| match e {
            StreamError::Read(error) | StreamError::Write(error) => Error::read(name, error),
        })?;
    Ok(())
}

struct CallFindings<'a> {
    file: String,
    out: &'a mut Vec<Finding>,
}

impl Sink for CallFindings<'_> {
    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        if verdict.status != Status::Valid {
            let errors: Vec<String> = verdict.errors.iter().map(|e| e.line()).collect();
            self.out.push(Finding::new(
                &self.file,
                at.line as usize,
                Severity::Error,
                format!(
                    "recorded call {}.{} to \"{}\" is not valid: {}",
                    at.index,
                    at.call,
                    call.name,
                    errors.join("; ")
                ),
            ));
        }
        Ok(())
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        self.out.push(Finding::new(
            &self.file,
            at.line as usize,
            Severity::Error,
            verdict.message.unwrap_or_default(),
        ));
        Ok(())
    }
}
