//! Following `$ref` exactly as the validator does.
//!
//! Every tool's schema is put in a [`referencing`] registry (the crate the
//! validator itself resolves with), together with every document its references
//! reach: sibling files of the schema directory and documents served from local
//! directories by `--ref-map`. The validator is built from that registry, and
//! repair, `tools` and `check` walk the schema through [`At`], which resolves
//! `$ref` against the same registry: `$id`, `$anchor`, relative references and
//! sibling files mean one thing everywhere.
//!
//! Nothing is fetched: a reference outside the schema directory and the mapped
//! prefixes is an error, and so is any `http(s)` reference that no prefix maps.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use referencing::{Draft, Resolver, ResourceRef, Retrieve, Uri};
use serde_json::Value;

use crate::error::{IoCause, JsonFileError, RefError};
use crate::source::io_reason;

/// `--ref-map URI_PREFIX=DIR`: documents under a URI prefix are read from a
/// local directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RefMap(Vec<(String, PathBuf)>);

impl RefMap {
    /// A map from `(prefix, directory)` pairs, tried in order.
    pub(crate) fn new(pairs: Vec<(String, PathBuf)>) -> Self {
        RefMap(pairs)
    }

    /// Parses one `URI_PREFIX=DIR`.
    #[cfg(feature = "cli")]
    pub(crate) fn parse_pair(spec: &str) -> Result<(String, PathBuf), String> {
        match spec.split_once('=') {
            Some((prefix, dir)) if !prefix.is_empty() && !dir.is_empty() => {
                Ok((prefix.to_owned(), PathBuf::from(dir)))
            }
            _ => Err(format!("expected URI_PREFIX=DIR, got {spec:?}")),
        }
    }

    /// The local file for `uri`, if a prefix maps it (not yet checked to stay
    /// inside the directory).
    fn file_for(&self, uri: &str) -> Option<(&Path, PathBuf)> {
        self.0.iter().find_map(|(prefix, dir)| {
            let rest = uri.strip_prefix(prefix.as_str())?;
            let rest = rest.split('#').next().unwrap_or_default();
            Some((
                dir.as_path(),
                dir.join(percent_decode(rest.trim_start_matches('/'))),
            ))
        })
    }
}

/// Reads referenced documents: `file:` URIs inside the schema directory, and
/// URIs under a `--ref-map` prefix from its directory. Nothing else.
#[derive(Debug, Clone)]
pub(crate) struct Sandbox {
    /// The schema directory, canonical; `None` for schemas given in memory,
    /// which may refer to no file.
    pub(crate) root: Option<PathBuf>,
    pub(crate) ref_map: Arc<RefMap>,
}

impl Retrieve for Sandbox {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let text = uri.as_str();
        let (root, path) = if let Some((dir, file)) = self.ref_map.file_for(text) {
            let root = dir.canonicalize().map_err(|e| RefError::MapDirectory {
                dir: dir.to_owned(),
                reason: io_reason(&e),
            })?;
            (root, file)
        } else if let (Some(root), "file") = (&self.root, uri.scheme().as_str()) {
            (
                root.clone(),
                PathBuf::from(percent_decode(uri.path().as_str())),
            )
        } else {
            return Err(RefError::Remote(text.to_owned()).into());
        };
        let unreadable = |reason: String| RefError::Unreadable {
            uri: text.to_owned(),
            reason,
        };
        let canonical = path.canonicalize().map_err(|e| unreadable(io_reason(&e)))?;
        if !canonical.starts_with(&root) {
            return Err(RefError::Outside {
                uri: text.to_owned(),
                root,
            }
            .into());
        }
        Ok(read_json(&canonical).map_err(|e| unreadable(crate::error::Chain(&e).to_string()))?)
    }
}

/// A JSON file, parsed.
pub(crate) fn read_json(path: &Path) -> Result<Value, JsonFileError> {
    let bytes = crate::source::read_file(path, crate::source::MAX_FILE_BYTES).map_err(IoCause)?;
    serde_json::from_slice(&bytes).map_err(JsonFileError::Json)
}

/// A place in a tool's schema: a subschema, and the resolver that knows the base
/// URI in force there.
#[derive(Clone)]
pub(crate) struct At<'a> {
    /// The subschema.
    pub schema: &'a Value,
    resolver: Resolver<'a>,
    draft: Draft,
}

impl std::fmt::Debug for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("At")
            .field("schema", self.schema)
            .field("base", &self.resolver.base_uri().as_str())
            .finish()
    }
}

impl<'a> At<'a> {
    /// The root of a schema, whose base URI is `resolver`'s.
    pub(crate) fn root(schema: &'a Value, resolver: Resolver<'a>) -> Self {
        let draft = Draft::default().detect(schema);
        At {
            schema,
            resolver,
            draft,
        }
        .child(schema)
    }

    /// A subschema of this one (`properties/x`, `items`, a branch), entering its
    /// `$id` scope if it has one.
    pub(crate) fn child(&self, schema: &'a Value) -> Self {
        let draft = self.draft.detect(schema);
        let resolver = self
            .resolver
            .in_subresource(ResourceRef::new(schema, draft))
            .unwrap_or_else(|_| self.resolver.clone());
        At {
            schema,
            resolver,
            draft,
        }
    }

    /// What this schema's `$ref` points at, resolved as the validator does; `None`
    /// without a `$ref` or when it does not resolve.
    pub(crate) fn target(&self) -> Option<Self> {
        let Value::String(reference) = self.schema.get("$ref")? else {
            return None;
        };
        self.target_of(reference)
    }

    /// What `reference`, this schema's `$ref`, points at ([`At::target`] for a
    /// caller that has already found the keyword).
    pub(crate) fn target_of(&self, reference: &str) -> Option<Self> {
        let resolved = self.resolver.lookup(reference).ok()?;
        let (schema, resolver, draft) = resolved.into_inner();
        Some(At {
            schema,
            resolver,
            draft,
        })
    }
}

/// How deep a chain of `$ref`s is followed when measuring a schema.
pub(crate) const MAX_REF_DEPTH: usize = 256;

/// How many subschemas `root` stands for once every `$ref` is followed (a
/// recursive reference counts once: the validator follows it per value, not in
/// advance), counting up to just past `limit`. A chain deeper than
/// [`MAX_REF_DEPTH`] counts as past the limit. Linear in the schema: each
/// subschema's count is computed once.
pub(crate) fn expansion(root: At<'_>, limit: u64) -> u64 {
    // Most tool schemas have no `$ref`: counted as a tree, without resolving
    // anything or remembering nodes (a fifth of compiling such a schema).
    tree_size(root.schema, 0, limit).unwrap_or_else(|| walked(root, limit))
}

/// [`expansion`], every `$ref` followed.
fn walked(root: At<'_>, limit: u64) -> u64 {
    fn walk(
        node: &At<'_>,
        depth: usize,
        limit: u64,
        done: &mut HashMap<*const Value, u64>,
        open: &mut HashSet<*const Value>,
    ) -> u64 {
        let key = std::ptr::from_ref(node.schema);
        if let Some(&n) = done.get(&key) {
            return n;
        }
        if open.contains(&key) {
            return 1;
        }
        if depth > MAX_REF_DEPTH {
            return limit + 1;
        }
        open.insert(key);
        let mut total: u64 = 1;
        if let Some(target) = node.target() {
            total = total.saturating_add(walk(&target, depth + 1, limit, done, open));
        }
        if let Value::Object(m) = node.schema {
            for (k, v) in m {
                // Values, not subschemas.
                if matches!(
                    k.as_str(),
                    "enum" | "const" | "default" | "examples" | "$ref"
                ) {
                    continue;
                }
                let children: Vec<&Value> = match v {
                    Value::Object(_) => vec![v],
                    Value::Array(items) => items.iter().collect(),
                    _ => Vec::new(),
                };
                for child in children {
                    total = total.saturating_add(walk(
                        &node.child(child),
                        depth + 1,
                        limit,
                        done,
                        open,
                    ));
                    if total > limit {
                        break;
                    }
                }
                if total > limit {
                    break;
                }
            }
        }
        open.remove(&key);
        done.insert(key, total);
        total
    }
    walk(&root, 0, limit, &mut HashMap::new(), &mut HashSet::new())
}

/// What [`expansion`] counts for `schema` when nothing in it is a `$ref`
/// (`None` when something may be): the same count, the same limits, walked as
/// the tree it then is.
fn tree_size(schema: &Value, depth: usize, limit: u64) -> Option<u64> {
    if depth > MAX_REF_DEPTH {
        return Some(limit + 1);
    }
    let mut total: u64 = 1;
    if let Value::Object(m) = schema {
        if m.contains_key("$ref") {
            return None;
        }
        for (k, v) in m {
            if matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                continue;
            }
            let children: &[Value] = match v {
                Value::Object(_) => std::slice::from_ref(v),
                Value::Array(items) => items,
                _ => &[],
            };
            for child in children {
                total = total.saturating_add(tree_size(child, depth + 1, limit)?);
                if total > limit {
                    return Some(total);
                }
            }
        }
    }
    Some(total)
}

/// A `$ref` in a schema's own document that does not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unresolved {
    /// Where the `$ref` keyword is, as a JSON Pointer into the schema.
    pub(crate) pointer: String,
    /// The reference as written.
    pub(crate) reference: String,
    /// Why it does not resolve.
    pub(crate) problem: RefProblem,
}

/// Why a `$ref` does not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefProblem {
    /// The document it names cannot be had ([`RefError::reason`]).
    Document(String),
    /// The document is there; nothing in it answers to this fragment (a JSON
    /// Pointer or an anchor).
    NoTarget(String),
    /// The reference itself cannot be read (a malformed URI, say).
    Other(String),
}

/// How deep the walk for `$ref`s goes into a schema.
const MAX_WALK_DEPTH: usize = 128;

/// Every `$ref` in `schema`'s own document that does not resolve, as the
/// validator would read it (`base` is the document's URI, `root` the schema
/// directory, `ref_map` the `--ref-map` prefixes). Unlike the registry the
/// validator is built from, a document that cannot be had does not stop the
/// walk: each reference is answered on its own. Linear in the schema (each
/// subschema once), plus one read per document the references name.
pub(crate) fn unresolved(
    schema: &Value,
    root: Option<PathBuf>,
    base: &str,
    ref_map: Arc<RefMap>,
) -> Vec<Unresolved> {
    let failed: Arc<std::sync::Mutex<HashMap<String, String>>> = Arc::default();
    let recording = Recording {
        sandbox: Sandbox { root, ref_map },
        failed: Arc::clone(&failed),
    };
    let draft = Draft::default().detect(schema);
    let Ok(refs) = referencing::Registry::new()
        .draft(draft)
        .retriever(recording)
        .add(base, draft.create_resource(schema.clone()))
        .and_then(referencing::RegistryBuilder::prepare)
    else {
        return Vec::new();
    };
    let Ok(base_uri) = referencing::uri::from_str(base) else {
        return Vec::new();
    };
    let failed = failed.lock().map(|f| f.clone()).unwrap_or_default();
    let mut out = Vec::new();
    walk_refs(
        &At::root(schema, refs.resolver(base_uri)),
        String::new(),
        &failed,
        &mut out,
        0,
    );
    out
}

fn walk_refs(
    node: &At<'_>,
    pointer: String,
    failed: &HashMap<String, String>,
    out: &mut Vec<Unresolved>,
    depth: usize,
) {
    let Value::Object(m) = node.schema else {
        return;
    };
    if depth > MAX_WALK_DEPTH {
        return;
    }
    if let Some(Value::String(reference)) = m.get("$ref") {
        // A document the sandbox could not read stands in as `{}`: its
        // failure is the answer, whatever the lookup says.
        let document =
            referencing::uri::resolve_against(&node.resolver.base_uri().borrow(), reference)
                .ok()
                .map(|u| u.as_str().split('#').next().unwrap_or_default().to_owned());
        let problem = match document.and_then(|d| failed.get(&d)) {
            Some(reason) => Some(RefProblem::Document(reason.clone())),
            None => match node.resolver.lookup(reference) {
                Ok(_) => None,
                Err(referencing::Error::PointerToNowhere { pointer }) => Some(
                    RefProblem::NoTarget(pointer.trim_start_matches('/').to_owned()),
                ),
                Err(referencing::Error::NoSuchAnchor { anchor }) => {
                    Some(RefProblem::NoTarget(anchor))
                }
                Err(e) => Some(RefProblem::Other(e.to_string())),
            },
        };
        if let Some(problem) = problem {
            out.push(Unresolved {
                pointer: format!("{pointer}/$ref"),
                reference: reference.clone(),
                problem,
            });
        }
    }
    for (k, v) in m {
        // Values, not subschemas.
        if matches!(
            k.as_str(),
            "enum" | "const" | "default" | "examples" | "$ref"
        ) {
            continue;
        }
        let here = format!("{pointer}/{}", crate::json::pointer_token(k));
        match v {
            Value::Object(_) => walk_refs(&node.child(v), here, failed, out, depth + 1),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk_refs(
                        &node.child(item),
                        format!("{here}/{i}"),
                        failed,
                        out,
                        depth + 1,
                    );
                }
            }
            _ => {}
        }
    }
}

/// The sandbox, remembering what it could not read (by document URI) and
/// answering an empty schema instead, so that one missing document does not
/// hide the other references.
struct Recording {
    sandbox: Sandbox,
    failed: Arc<std::sync::Mutex<HashMap<String, String>>>,
}

impl Retrieve for Recording {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        match self.sandbox.retrieve(uri) {
            Ok(v) => Ok(v),
            Err(e) => {
                let reason = match e.downcast_ref::<RefError>() {
                    Some(r) => r.reason(),
                    None => e.to_string(),
                };
                if let Ok(mut failed) = self.failed.lock() {
                    failed.insert(uri.as_str().to_owned(), reason);
                }
                Ok(Value::Object(serde_json::Map::new()))
            }
        }
    }
}

/// Everything but unreserved characters and `/` is percent-encoded in a path.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// `file://` URI for an absolute path (spaces, `#`, `?` and `%` encoded).
pub(crate) fn file_uri(path: &Path) -> String {
    format!(
        "file://{}",
        utf8_percent_encode(&path.to_string_lossy(), PATH)
    )
}

fn percent_decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_are_percent_encoded() {
        assert_eq!(
            file_uri(Path::new("/a b/#c%.json")),
            "file:///a%20b/%23c%25.json"
        );
        assert_eq!(percent_decode("/a%20b/%23c%25.json"), "/a b/#c%.json");
    }

    fn unresolved_in(schema: &Value) -> Vec<(String, RefProblem)> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("_defs.json"), r#"{"$defs": {"p": {}}}"#).unwrap();
        let root = dir.path().canonicalize().unwrap();
        let base = file_uri(&root.join("t.json"));
        unresolved(schema, Some(root), &base, Arc::default())
            .into_iter()
            .map(|u| (u.pointer, u.problem))
            .collect()
    }

    #[test]
    fn every_ref_that_does_not_resolve_is_found_at_its_place() {
        let schema = serde_json::json!({
            "$defs": {"ok": {}, "anchored": {"$anchor": "here"}},
            "properties": {
                "a": {"$ref": "#/$defs/ok"},
                "b": {"$ref": "#/$defs/missing"},
                "c": {"$ref": "_defs.json#/$defs/p"},
                "d": {"$ref": "_defs.json#/$defs/nope"},
                "e": {"$ref": "absent.json"},
                "f": {"$ref": "#here"},
                "g": {"$ref": "#nowhere"},
                "h": {"$ref": "http://x/y.json"},
                "i": {"enum": [{"$ref": "#/not/a/schema"}]}
            }
        });
        let found = unresolved_in(&schema);
        let pointers: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/properties/b/$ref",
                "/properties/d/$ref",
                "/properties/e/$ref",
                "/properties/g/$ref",
                "/properties/h/$ref"
            ]
        );
        assert_eq!(found[0].1, RefProblem::NoTarget("$defs/missing".into()));
        assert_eq!(found[1].1, RefProblem::NoTarget("$defs/nope".into()));
        assert!(matches!(&found[2].1, RefProblem::Document(r) if r.contains("no such file")));
        assert_eq!(found[3].1, RefProblem::NoTarget("nowhere".into()));
        assert!(matches!(&found[4].1, RefProblem::Document(r) if r.contains("never fetches")));
    }

    #[test]
    fn a_ref_resolves_against_the_id_in_force() {
        // Relative to the `$id` of its scope, `p.json` is `sub/p.json`, which
        // does not exist; `#/$defs/x` is the scope's own.
        let schema = serde_json::json!({
            "properties": {
                "a": {"$id": "sub/", "$defs": {"x": {}}, "properties": {
                    "b": {"$ref": "#/$defs/x"},
                    "c": {"$ref": "p.json"}
                }}
            }
        });
        let found = unresolved_in(&schema);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "/properties/a/properties/c/$ref");
    }

    #[test]
    fn the_walk_is_bounded_in_depth() {
        let mut schema = serde_json::json!({"$ref": "#/nope"});
        for _ in 0..200 {
            schema = serde_json::json!({"items": schema});
        }
        assert!(unresolved_in(&schema).is_empty());
    }

    #[test]
    fn a_schema_without_refs_is_counted_as_the_walk_counts_it() {
        let deep = |n: usize| {
            let mut s = serde_json::json!({"type": "integer"});
            for _ in 0..n {
                s = serde_json::json!({"items": s, "enum": [{"x": {}}]});
            }
            s
        };
        let wide = serde_json::json!({
            "properties": {"a": {"anyOf": [{}, {"type": "string"}, true, 3]}},
            "default": {"a": {"b": {}}}, "examples": [{}], "const": {"c": {}},
            "prefixItems": [{}, {}], "x-vendor": {"nested": {"deeper": {}}}
        });
        let many = serde_json::json!({"anyOf": vec![serde_json::json!({}); 1_000]});
        for (schema, limit) in [
            (wide, 100),
            (deep(200), 100_000),
            (deep(300), 100_000),
            (many.clone(), 100_000),
            (many, 500),
        ] {
            let refs = referencing::Registry::new()
                .add(
                    "json-schema:///t.json",
                    referencing::Resource::from_contents(schema.clone()),
                )
                .unwrap()
                .prepare()
                .unwrap();
            let root = || {
                At::root(
                    &schema,
                    refs.resolver(referencing::uri::from_str("json-schema:///t.json").unwrap()),
                )
            };
            let fast = tree_size(&schema, 0, limit).unwrap();
            let walk = walked(root(), limit);
            assert_eq!(fast > limit, walk > limit, "{fast} {walk}");
            if walk <= limit {
                assert_eq!(fast, walk);
            }
            assert_eq!(expansion(root(), limit), fast);
        }
        assert_eq!(
            tree_size(&serde_json::json!({"items": {"$ref": "#"}}), 0, 10),
            None
        );
    }

    #[test]
    fn ref_map_pairs() {
        assert_eq!(
            RefMap::parse_pair("http://localhost:1234/=remotes"),
            Ok((
                "http://localhost:1234/".to_owned(),
                PathBuf::from("remotes")
            ))
        );
        assert!(RefMap::parse_pair("nodir=").is_err());
        assert!(RefMap::parse_pair("plain").is_err());
        let map = RefMap::new(vec![("http://x/".into(), PathBuf::from("/r"))]);
        assert_eq!(
            map.file_for("http://x/a/b%20c.json#/d").map(|(_, f)| f),
            Some(PathBuf::from("/r/a/b c.json"))
        );
        assert_eq!(map.file_for("http://y/a.json"), None);
    }
}
