//! Stage 3: the schema registry.
//!
//! Maps tool names to compiled validators. A schema directory is indexed by
//! listing it (`<tool>.json`, tool name = file stem); a schema is read and compiled
//! the first time a call needs it, then cached. A tool name is only ever looked up
//! in that index: it never becomes part of a filesystem path.
//!
//! `$ref` may point at sibling files of the same directory (read through a
//! retriever that refuses anything outside it, symlinks included); a remote `$ref`
//! is a schema error. callfix never touches the network.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use jsonschema::{PatternOptions, Retrieve, Uri, Validator};

use crate::error::io_reason;
use crate::fnv::FnvBuild;
use serde_json::Value;

/// A schema that could not be loaded or compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The file the schema lives in.
    pub file: PathBuf,
    /// The line the problem is on, when known.
    pub line: Option<usize>,
    /// For a tool inside a tool-list file, the tool's name.
    pub tool: Option<String>,
    pub reason: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(tool) = &self.tool {
            write!(f, " (tool \"{tool}\")")?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for SchemaError {}

/// A schema source that cannot be used at all (missing directory, unreadable or
/// unrecognised tool-list file).
#[derive(Debug)]
pub struct SourceError {
    pub path: PathBuf,
    pub reason: String,
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "schema source {}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for SourceError {}

/// A compiled tool schema.
#[derive(Debug)]
pub struct Tool {
    pub name: String,
    /// The schema as written (for message details and repair).
    pub schema: Value,
    /// Sibling files the schema's `$ref`s name, by the name used in the ref.
    pub siblings: HashMap<String, Value>,
    /// The tool's own description: beside the schema in a tool list, else the
    /// schema's `description`.
    pub description: Option<String>,
    pub validator: Validator,
}

impl Tool {
    /// What a `$ref` found in `doc` points at (local, or in a sibling file), and
    /// the document it lies in.
    pub fn resolve_ref<'a>(
        &'a self,
        doc: &'a Value,
        reference: &str,
    ) -> Option<(&'a Value, &'a Value)> {
        let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let doc = if file.is_empty() {
            doc
        } else {
            self.siblings.get(file)?
        };
        let target = if fragment.is_empty() {
            doc
        } else {
            doc.pointer(fragment)?
        };
        Some((target, doc))
    }
}

#[cfg(test)]
impl Tool {
    /// A tool from an inline schema, validated as the registry would (formats
    /// asserted), for tests.
    pub(crate) fn from_schema(schema: Value) -> Tool {
        Tool {
            name: "t".into(),
            validator: validator_options().build(&schema).unwrap(),
            siblings: HashMap::new(),
            description: None,
            schema,
        }
    }
}

#[derive(Debug)]
enum Origin {
    /// `<dir>/<tool>.json`; the path is built only when the schema is needed.
    File(Arc<Path>),
    /// One tool of a tool-list file; its schema was read with the file.
    Inline {
        file: PathBuf,
        schema: Value,
        description: Option<String>,
    },
}

#[derive(Debug)]
struct Entry {
    name: String,
    origin: Origin,
    compiled: OnceLock<Result<Tool, SchemaError>>,
}

/// The result of looking up a tool by name.
#[derive(Debug)]
pub enum Lookup<'a> {
    Found(&'a Tool),
    /// The tool exists but its schema is broken.
    Broken(&'a SchemaError),
    Unknown,
}

impl Entry {
    /// The file the schema is read from.
    fn file(&self) -> PathBuf {
        match &self.origin {
            Origin::File(dir) => dir.join(format!("{}.json", self.name)),
            Origin::Inline { file, .. } => file.clone(),
        }
    }
}

/// All tools from all `--schemas` sources, in source order.
#[derive(Debug, Default)]
pub struct Registry {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize, FnvBuild>,
    /// Problems that do not stop the run (duplicate names, skipped files).
    pub warnings: Vec<String>,
}

impl Registry {
    /// Indexes every source: a directory of `<tool>.json` files, or one file that
    /// lists tools in a provider's shape (or holds one schema, named by its stem).
    pub fn load(sources: &[PathBuf]) -> Result<Self, SourceError> {
        let mut reg = Registry::default();
        for source in sources {
            let meta = fs::metadata(source).map_err(|e| SourceError {
                path: source.clone(),
                reason: io_reason(&e),
            })?;
            if meta.is_dir() {
                reg.index_dir(source)?;
            } else {
                reg.index_list_file(source)?;
            }
        }
        Ok(reg)
    }

    /// Tool names in index order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The file a tool's schema comes from.
    pub fn source(&self, name: &str) -> Option<PathBuf> {
        Some(self.entries[*self.by_name.get(name)?].file())
    }

    /// Looks a tool up, compiling its schema on first use.
    pub fn lookup(&self, name: &str) -> Lookup<'_> {
        let Some(&i) = self.by_name.get(name) else {
            return Lookup::Unknown;
        };
        let entry = &self.entries[i];
        match entry.compiled.get_or_init(|| compile(entry)) {
            Ok(tool) => Lookup::Found(tool),
            Err(e) => Lookup::Broken(e),
        }
    }

    fn add(&mut self, name: String, origin: Origin) {
        if self.by_name.contains_key(&name) {
            let entry = Entry {
                name,
                origin,
                compiled: OnceLock::new(),
            };
            self.warnings.push(format!(
                "tool \"{}\" in {} is already defined by an earlier source; ignored",
                entry.name,
                entry.file().display()
            ));
            return;
        }
        self.by_name.insert(name.clone(), self.entries.len());
        self.entries.push(Entry {
            name,
            origin,
            compiled: OnceLock::new(),
        });
    }

    fn index_dir(&mut self, dir: &Path) -> Result<(), SourceError> {
        let err = |e: std::io::Error| SourceError {
            path: dir.to_owned(),
            reason: io_reason(&e),
        };
        // Names only: no path is built and no file is read until a call needs it.
        let mut names = Vec::new();
        for item in fs::read_dir(dir).map_err(err)? {
            let file_name = item.map_err(err)?.file_name();
            let Some(file_name) = file_name.to_str() else {
                self.warnings.push(format!(
                    "{}: file name is not UTF-8; skipped",
                    dir.join(&file_name).display()
                ));
                continue;
            };
            match file_name.strip_suffix(".json") {
                // `_name.json` holds shared definitions for `$ref`, not a tool.
                Some(stem) if !stem.is_empty() && !stem.starts_with('_') => {
                    names.push(stem.to_owned());
                }
                _ => {}
            }
        }
        names.sort_unstable();
        let dir: Arc<Path> = Arc::from(dir);
        for name in names {
            self.add(name, Origin::File(Arc::clone(&dir)));
        }
        Ok(())
    }

    fn index_list_file(&mut self, file: &Path) -> Result<(), SourceError> {
        let value = read_json(file).map_err(|reason| SourceError {
            path: file.to_owned(),
            reason,
        })?;
        let mut tools: Vec<ListedTool> = Vec::new();
        if !tool_list(value.clone(), &mut tools) {
            // Not a list of tools: one schema, named by the file's stem.
            if is_schema_like(&value) {
                let name = file
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_owned();
                tools.push((name, value, None));
            } else {
                return Err(SourceError {
                    path: file.to_owned(),
                    reason: "not a directory, a tool list (OpenAI tools, Anthropic tools, \
                             Gemini functionDeclarations, MCP tools/list) or a JSON Schema"
                        .into(),
                });
            }
        }
        for (name, schema, description) in tools {
            self.add(
                name,
                Origin::Inline {
                    file: file.to_owned(),
                    schema,
                    description,
                },
            );
        }
        Ok(())
    }
}

/// A tool read from a list: name, schema, description.
type ListedTool = (String, Value, Option<String>);

/// Collects the tools from the tool-list shapes providers use. Returns false when
/// `value` is not a tool list.
fn tool_list(value: Value, out: &mut Vec<ListedTool>) -> bool {
    match value {
        Value::Array(items) => {
            let before = out.len();
            for item in items {
                if !tool_list_item(item, out) {
                    return false;
                }
            }
            out.len() > before || before == 0
        }
        Value::Object(mut map) => {
            for key in ["tools", "functionDeclarations", "function_declarations"] {
                if let Some(Value::Array(_)) = map.get(key) {
                    return tool_list(map.remove(key).unwrap_or_default(), out);
                }
            }
            // An MCP `tools/list` JSON-RPC response.
            if let Some(Value::Object(result)) = map.remove("result") {
                return tool_list(Value::Object(result), out);
            }
            false
        }
        _ => false,
    }
}

fn tool_list_item(item: Value, out: &mut Vec<ListedTool>) -> bool {
    let Value::Object(mut map) = item else {
        return false;
    };
    // OpenAI Chat: {"type":"function","function":{name, parameters}}.
    if let Some(Value::Object(function)) = map.remove("function") {
        return tool_list_item(Value::Object(function), out);
    }
    // Gemini: {"functionDeclarations":[...]} inside a tools array.
    for key in ["functionDeclarations", "function_declarations"] {
        if let Some(Value::Array(decls)) = map.remove(key) {
            return decls.into_iter().all(|d| tool_list_item(d, out));
        }
    }
    let Some(Value::String(name)) = map.remove("name") else {
        return false;
    };
    // Anthropic input_schema, MCP inputSchema, OpenAI/Gemini parameters.
    let schema = [
        "input_schema",
        "inputSchema",
        "parameters",
        "parametersJsonSchema",
    ]
    .into_iter()
    .find_map(|k| map.remove(k))
    .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    let description = match map.remove("description") {
        Some(Value::String(d)) => Some(d),
        _ => None,
    };
    out.push((name, schema, description));
    true
}

fn is_schema_like(v: &Value) -> bool {
    match v {
        Value::Bool(_) => true,
        Value::Object(m) => [
            "type",
            "properties",
            "$schema",
            "$ref",
            "anyOf",
            "oneOf",
            "allOf",
        ]
        .iter()
        .any(|k| m.contains_key(*k)),
        _ => false,
    }
}

fn compile(entry: &Entry) -> Result<Tool, SchemaError> {
    let path = entry.file();
    let (file, schema, tool, text) = match &entry.origin {
        Origin::File(_) => {
            let text = fs::read_to_string(&path).map_err(|e| SchemaError {
                file: path.clone(),
                line: None,
                tool: None,
                reason: io_reason(&e),
            })?;
            let schema = serde_json::from_str(&text).map_err(|e| SchemaError {
                file: path.clone(),
                line: Some(e.line()),
                tool: None,
                reason: format!("not valid JSON: {e}"),
            })?;
            (&path, schema, None, Some(text))
        }
        Origin::Inline { file, schema, .. } => {
            (file, schema.clone(), Some(entry.name.clone()), None)
        }
    };
    let fail = |reason: String| SchemaError {
        file: file.clone(),
        line: None,
        tool: tool.clone(),
        reason,
    };
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let root = dir
        .canonicalize()
        .map_err(|e| fail(format!("cannot resolve its directory: {}", io_reason(&e))))?;
    let canonical = file.canonicalize().map_err(|e| fail(io_reason(&e)))?;
    if !canonical.starts_with(&root) {
        return Err(fail(format!(
            "resolves to {}, outside the schema directory",
            canonical.display()
        )));
    }
    let validator = validator_options()
        .with_base_uri(file_uri(&canonical))
        .with_retriever(DirRetriever { root: root.clone() })
        .build(&schema)
        .map_err(|e| SchemaError {
            line: text
                .as_deref()
                .map(|t| locate(t, e.instance_path().as_str())),
            ..fail(build_reason(&e))
        })?;
    let siblings = load_siblings(&root, &schema);
    let description = match &entry.origin {
        Origin::Inline {
            description: Some(d),
            ..
        } => Some(d.clone()),
        _ => schema
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    Ok(Tool {
        name: entry.name.clone(),
        schema,
        siblings,
        description,
        validator,
    })
}

/// How every schema is compiled: the linear-time regex engine (no pattern can
/// backtrack catastrophically) and formats asserted in every draft.
fn validator_options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_pattern_options(PatternOptions::regex())
        .should_validate_formats(true)
}

/// Reads the sibling files that `$ref`s name (transitively), for repair to look
/// into. The validator has already checked that each lies inside `root`.
fn load_siblings(root: &Path, schema: &Value) -> HashMap<String, Value> {
    let mut docs: HashMap<String, Value> = HashMap::new();
    let mut pending = Vec::new();
    collect_file_refs(schema, &mut pending);
    while let Some(name) = pending.pop() {
        if docs.contains_key(&name) {
            continue;
        }
        let Ok(path) = root.join(&name).canonicalize() else {
            continue;
        };
        if !path.starts_with(root) {
            continue;
        }
        if let Ok(doc) = read_json(&path) {
            collect_file_refs(&doc, &mut pending);
            docs.insert(name, doc);
        }
    }
    docs
}

/// The file parts of relative `$ref`s (`_defs.json#/$defs/x` → `_defs.json`).
fn collect_file_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                let file = r.split('#').next().unwrap_or_default();
                if !file.is_empty() && !file.contains(':') {
                    out.push(file.to_owned());
                }
            }
            m.values().for_each(|x| collect_file_refs(x, out));
        }
        Value::Array(items) => items.iter().for_each(|x| collect_file_refs(x, out)),
        _ => {}
    }
}

/// The line of the value a JSON pointer names, found by searching the text for
/// each key in turn (good enough to point a person at the place).
pub fn locate(text: &str, pointer: &str) -> usize {
    let mut pos = 0;
    for seg in crate::message::pointer_segments(pointer) {
        if seg.parse::<usize>().is_ok() {
            continue;
        }
        let key = format!("{}:", Value::String(seg));
        let quoted = &key[..key.len() - 1];
        match text[pos..].find(quoted) {
            Some(i) => pos += i,
            None => break,
        }
    }
    text[..pos].matches('\n').count() + 1
}

/// The reason a schema did not compile, naming the keyword location.
fn build_reason(e: &jsonschema::ValidationError<'_>) -> String {
    let at = e.instance_path().as_str();
    if at.is_empty() {
        e.to_string()
    } else {
        format!("{e} (at {at})")
    }
}

/// Reads `$ref` targets, but only `file:` URIs inside the schema directory.
struct DirRetriever {
    root: PathBuf,
}

impl Retrieve for DirRetriever {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let scheme = uri.scheme().as_str();
        if scheme != "file" {
            return Err(format!(
                "remote $ref \"{}\" refused: callfix never fetches schemas over the network",
                uri.as_str()
            )
            .into());
        }
        let path = PathBuf::from(percent_decode(uri.path().as_str()));
        let canonical = path
            .canonicalize()
            .map_err(|e| format!("$ref \"{}\": {}", uri.as_str(), io_reason(&e)))?;
        if !canonical.starts_with(&self.root) {
            return Err(format!(
                "$ref \"{}\" points outside the schema directory {}",
                uri.as_str(),
                self.root.display()
            )
            .into());
        }
        Ok(read_json(&canonical).map_err(|e| format!("$ref \"{}\": {e}", uri.as_str()))?)
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let bytes = fs::read(path).map_err(|e| io_reason(&e))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("not valid JSON: {e}"))
}

/// `file://` URI for an absolute path, percent-encoding everything but unreserved
/// characters and `/`.
fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    fn found<'a>(reg: &'a Registry, name: &str) -> &'a Tool {
        match reg.lookup(name) {
            Lookup::Found(t) => t,
            other => panic!("{name}: {other:?}"),
        }
    }

    fn broken(reg: &Registry, name: &str) -> String {
        match reg.lookup(name) {
            Lookup::Broken(e) => e.to_string(),
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn directory_is_indexed_by_stem_and_compiled_lazily() {
        let dir = dir_with(&[
            ("read.json", r#"{"type":"object","required":["p"]}"#),
            ("broken.json", "{nope"),
            ("_defs.json", r#"{"$defs":{}}"#),
            ("notes.txt", "x"),
        ]);
        let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
        assert_eq!(reg.names().collect::<Vec<_>>(), ["broken", "read"]);
        assert!(!found(&reg, "read").validator.is_valid(&json!({})));
        assert!(broken(&reg, "broken").contains("broken.json: not valid JSON"));
        assert!(matches!(reg.lookup("../read"), Lookup::Unknown));
        assert!(matches!(reg.lookup("notes"), Lookup::Unknown));
    }

    #[test]
    fn sibling_ref_works_and_escaping_ref_is_refused() {
        let dir = dir_with(&[
            (
                "_defs.json",
                r#"{"$defs":{"path":{"type":"string","minLength":1}}}"#,
            ),
            (
                "read.json",
                r#"{"type":"object","properties":{"p":{"$ref":"_defs.json#/$defs/path"}}}"#,
            ),
            (
                "evil.json",
                r#"{"type":"object","properties":{"p":{"$ref":"../../../../etc/hostname"}}}"#,
            ),
            (
                "remote.json",
                r#"{"properties":{"p":{"$ref":"https://example.com/s.json"}}}"#,
            ),
        ]);
        let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
        let read = found(&reg, "read");
        assert!(read.validator.is_valid(&json!({"p": "a"})));
        assert!(!read.validator.is_valid(&json!({"p": ""})));
        let evil = broken(&reg, "evil");
        assert!(evil.starts_with(&format!("{}", dir.path().join("evil.json").display())));
        let remote = broken(&reg, "remote");
        assert!(remote.contains("https://example.com/s.json"), "{remote}");
        assert!(remote.contains("never fetches"), "{remote}");
    }

    #[test]
    fn tool_list_files_in_every_provider_shape() {
        let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let shapes = [
            json!([{"type": "function", "function": {"name": "a", "parameters": schema}}]),
            json!({"model": "m", "tools": [{"type": "function", "function": {"name": "a", "parameters": schema}}]}),
            json!([{"type": "function", "name": "a", "parameters": schema}]),
            json!([{"name": "a", "input_schema": schema}]),
            json!({"tools": [{"name": "a", "inputSchema": schema}]}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a", "inputSchema": schema}]}}),
            json!({"functionDeclarations": [{"name": "a", "parameters": schema}]}),
            json!({"tools": [{"functionDeclarations": [{"name": "a", "parameters": schema}]}]}),
        ];
        for shape in shapes {
            let dir = dir_with(&[("tools.json", &shape.to_string())]);
            let reg = Registry::load(&[dir.path().join("tools.json")]).unwrap();
            assert_eq!(reg.names().collect::<Vec<_>>(), ["a"], "{shape}");
            let a = found(&reg, "a");
            assert!(a.validator.is_valid(&json!({"q": "x"})));
            assert!(!a.validator.is_valid(&json!({"q": 1})));
        }
    }

    #[test]
    fn single_schema_file_is_named_by_stem() {
        let dir = dir_with(&[("grep.json", r#"{"type":"object"}"#)]);
        let reg = Registry::load(&[dir.path().join("grep.json")]).unwrap();
        assert_eq!(reg.names().collect::<Vec<_>>(), ["grep"]);
    }

    #[test]
    fn missing_source_and_unrecognised_file_are_source_errors() {
        let err = Registry::load(&[PathBuf::from("/no/such/dir")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "schema source /no/such/dir: no such file or directory"
        );
        let dir = dir_with(&[("x.json", "[1,2]")]);
        assert!(Registry::load(&[dir.path().join("x.json")]).is_err());
    }

    #[test]
    fn duplicate_names_keep_the_first_and_warn() {
        let a = dir_with(&[("read.json", r#"{"type":"object"}"#)]);
        let b = dir_with(&[("read.json", r#"{"type":"string"}"#)]);
        let reg = Registry::load(&[a.path().to_owned(), b.path().to_owned()]).unwrap();
        assert_eq!(reg.len(), 1);
        assert_eq!(reg.warnings.len(), 1);
        assert!(found(&reg, "read").validator.is_valid(&json!({})));
    }

    #[test]
    fn drafts_are_chosen_by_schema_keyword() {
        // Draft 4 exclusiveMinimum is a boolean; 2020-12 would reject it.
        let dir = dir_with(&[(
            "d4.json",
            r#"{"$schema":"http://json-schema.org/draft-04/schema#","type":"object",
                "properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}"#,
        )]);
        let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
        let t = found(&reg, "d4");
        assert!(!t.validator.is_valid(&json!({"n": 0})));
        assert!(t.validator.is_valid(&json!({"n": 1})));
    }

    #[test]
    fn file_uris_are_percent_encoded() {
        assert_eq!(
            file_uri(Path::new("/a b/#c%.json")),
            "file:///a%20b/%23c%25.json"
        );
        assert_eq!(percent_decode("/a%20b/%23c%25.json"), "/a b/#c%.json");
    }
}
