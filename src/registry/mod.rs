//! Stage 3: the schema registry.
//!
//! Maps tool names to compiled validators. A schema directory is indexed by
//! listing it (`<tool>.json`, tool name = file stem); a schema is read and compiled
//! the first time a call needs it, then cached. A tool name is looked up in that
//! listing; it becomes part of a path only as one plain file name that the
//! listing would hold (`listing::Lone::holds`), never with a `/`.
//!
//! What a listing costs is paid only where it is needed. With one directory as
//! the only source, it is listed on first need: until then a call's tool is
//! found by its own file's name (where the file system compares names byte for
//! byte), so a one-call process against thousands of schemas opens one file
//! and never reads the directory. Once listed, its names are kept as listed:
//! the first few lookups compare names one by one, the hash index is built
//! after that (a stream), and the sorted order only for what shows it (names,
//! suggestions, aliases). The listing is one text (`listing.rs`: on Linux
//! straight from `getdents64`, with no allocation per file).
//!
//! `$ref` may point at sibling files of the same directory (read through a
//! retriever that refuses anything outside it, symlinks included) and at documents
//! that `--ref-map` serves from local directories; any other remote `$ref` is a
//! schema error. callfix never touches the network. How references resolve is in
//! `crate::resolve`, one resolver for the validator and everything else.

use std::collections::HashMap;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use crate::error::IoCause;
use crate::fnv::FnvBuild;
use crate::provider::tool_list::{self, ListedTool};
use crate::resolve::{RefMap, read_json};
use serde_json::Value;

use self::names::Aliases;

mod listing;
mod names;
mod tool;

pub(crate) use self::tool::{AsSent, Tool};

/// A schema that could not be loaded or compiled.
pub use crate::error::{SchemaError, SchemaProblem, SourceError, SourceProblem};

/// Where a tool's schema comes from. Two words: a directory of thousands of
/// tools is listed into an entry each, so what only lists and tool lists hold
/// is boxed.
#[derive(Debug)]
enum Origin {
    /// `<dir>/<tool>.json` in the registry's lone directory
    /// ([`Registry::listed`]); the path is built only when the schema is needed.
    Listed,
    /// `<dir>/<tool>.json`; the path is built only when the schema is needed.
    File(Arc<PathBuf>),
    /// One tool of a tool-list file; its schema was read with the file.
    Inline(Box<Held>),
    /// A schema given in memory: no file, and no file reference allowed.
    Memory(Box<Held>),
}

/// A schema read with its tool list (or given in memory), and the tool's own
/// description there.
#[derive(Debug)]
struct Held {
    /// The tool-list file (`Origin::Inline`); empty for `Origin::Memory`.
    file: PathBuf,
    schema: Value,
    description: Option<String>,
}

/// A tool's schema once a call needs it: loaded and compiled. Boxed: a
/// directory of thousands of tools is listed into entries of a few words each.
type Compiled = OnceLock<Box<Result<Tool, SchemaError>>>;

#[derive(Debug)]
struct Entry {
    /// Where the tool's name is in the registry's `text`.
    name: Range<usize>,
    origin: Origin,
    /// Boxed: a directory of thousands of tools is listed into entries of a few
    /// words each, and only the tools called grow to a compiled validator.
    compiled: Compiled,
}

/// Every tool once, with its name in one text.
#[derive(Debug, Default)]
struct Tools {
    /// In the registry's order, except for a lone directory (`lone`), whose
    /// tools are in the order the system listed them.
    entries: Vec<Entry>,
    /// Every tool's name, end to end (`Entry::name` says where), so that a
    /// listing of thousands of files is one allocation, not one per file.
    text: String,
    /// A lone directory's listing's warnings (file names that are not UTF-8).
    warnings: Vec<String>,
}

/// A lone directory's tool found by its file's name before the directory was
/// listed: its compiled schema, kept for the listing's entry of that name.
#[derive(Debug)]
struct Named {
    name: Box<str>,
    compiled: Compiled,
}

/// The result of looking up a tool by name.
#[derive(Debug)]
pub(crate) enum Lookup<'a> {
    /// The tool, compiled.
    Found(&'a Tool),
    /// The tool exists but its schema is broken.
    Broken(&'a SchemaError),
    /// No tool of that name.
    Unknown,
}

/// The file the schema of the tool called `name` from `origin` is read from;
/// `listed` is the registry's lone directory.
fn file(origin: &Origin, listed: Option<&Path>, name: &str) -> PathBuf {
    match origin {
        Origin::Listed => listed.unwrap_or(Path::new("")).join(format!("{name}.json")),
        Origin::File(dir) => dir.join(format!("{name}.json")),
        Origin::Inline(held) => held.file.clone(),
        Origin::Memory(_) => PathBuf::from(format!("<memory>/{name}")),
    }
}

/// Up to this many tools, a misspelt tool name gets a suggestion within a small
/// edit distance; above it, only case and separators are forgiven.
pub(crate) const FUZZY_TOOLS: usize = 2_000;

/// All tools from all `--schemas` sources, in source order.
#[derive(Debug, Default)]
pub struct Registry {
    /// Every tool once: set while loading, or for a lone directory (`lone`)
    /// when a lookup first needs more than one tool's own file.
    tools: OnceLock<Tools>,
    /// The directory, when the registry is one directory: listed into `tools`
    /// on first need, unsorted and not yet indexed (its entries are
    /// `Origin::Listed`).
    lone: Option<listing::Lone>,
    /// The one tool of `lone` found by its file's name before it was listed;
    /// `None` once the listing began without one (then none can be).
    named: OnceLock<Option<Named>>,
    /// Name to entry; built while loading, or (`lone`) on first need.
    by_name: OnceLock<HashMap<Box<str>, usize, FnvBuild>>,
    /// Lookups made by comparing names one by one, before `by_name` is built.
    scans: AtomicU32,
    /// Entries in the registry's order: sources in order, a directory's tools
    /// sorted by name, a list's in its order. Built on first need.
    order: OnceLock<Vec<usize>>,
    /// Problems found while loading that do not stop the run (duplicate
    /// names, skipped files); a lone directory's are in its `tools`.
    warnings: Vec<String>,
    /// `--ref-map`: remote references served from local directories.
    ref_map: Arc<RefMap>,
    aliases: OnceLock<Aliases>,
    /// `lone`, its symlinks resolved: found when its first tool is compiled.
    listed_root: OnceLock<PathBuf>,
}

impl Registry {
    /// Indexes every source: a directory of `<tool>.json` files, or one file that
    /// lists tools in a provider's shape (or holds one schema, named by its stem).
    pub fn load(sources: &[PathBuf]) -> Result<Self, SourceError> {
        let mut reg = Registry::default();
        for source in sources {
            let meta = fs::metadata(source).map_err(|e| SourceError {
                path: source.clone(),
                problem: IoCause(e).into(),
            })?;
            if meta.is_dir() {
                // A lone directory holds each name once: nothing to check against.
                reg.index_dir(source, sources.len() == 1)?;
            } else {
                reg.index_list_file(source)?;
            }
        }
        Ok(reg)
    }

    /// A registry of schemas given in memory, by tool name: nothing is read from
    /// the filesystem, and a schema's `$ref` may point only inside itself (or,
    /// with `Registry::with_ref_map`, under a mapped prefix).
    pub fn from_schemas(schemas: impl IntoIterator<Item = (String, Value)>) -> Self {
        let mut reg = Registry::default();
        for (name, schema) in schemas {
            reg.add(
                &name,
                Origin::Memory(Box::new(Held {
                    file: PathBuf::new(),
                    schema,
                    description: None,
                })),
            );
        }
        reg
    }

    /// A registry of the tools in a provider's tool list, given as a value: an
    /// OpenAI `tools` array (or a request body holding one), an Anthropic list,
    /// Gemini `functionDeclarations`, or an MCP `tools/list` result. `None` if
    /// `value` is none of them. Nothing is read from the filesystem.
    pub fn from_tool_list(value: Value) -> Option<Self> {
        let mut tools = Vec::new();
        if !tool_list::read(value, &mut tools) {
            return None;
        }
        let mut reg = Registry::default();
        for (name, schema, description) in tools {
            reg.add(
                &name,
                Origin::Memory(Box::new(Held {
                    file: PathBuf::new(),
                    schema,
                    description,
                })),
            );
        }
        Some(reg)
    }

    /// Serves references under the map's prefixes from local directories.
    pub(crate) fn with_ref_map(mut self, ref_map: RefMap) -> Self {
        self.ref_map = Arc::new(ref_map);
        self
    }

    /// The `--ref-map` prefixes references are served from.
    pub(crate) fn ref_map(&self) -> &Arc<RefMap> {
        &self.ref_map
    }

    /// Tool names in the registry's order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.order().iter().map(|&i| self.name(i))
    }

    /// Problems that do not stop the run: a tool defined twice, a file name
    /// that is not UTF-8 (skipped). A lone directory's are known once it is
    /// listed, which [`Registry::names`] and [`Registry::len`] do and a
    /// lookup does only when it needs more than the tool's own file (an
    /// unknown or misspelt name): ask again after the calls.
    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        let listed = self.tools.get().into_iter().flat_map(|t| &t.warnings);
        self.warnings.iter().chain(listed).map(String::as_str)
    }

    /// The registry's lone directory, if it is one.
    fn listed(&self) -> Option<&Path> {
        self.lone.as_ref().map(listing::Lone::dir)
    }

    /// Every tool, listing a lone directory the first time.
    fn tools(&self) -> &Tools {
        self.tools.get_or_init(|| {
            let Some(lone) = &self.lone else {
                return Tools::default();
            };
            // No tool is found by its file's name from here on: a lookup
            // racing this listing either named its tool first (then that
            // name is looked up there, before the listing) or is answered by
            // the listing. One compiled tool per name either way.
            self.named.get_or_init(|| None);
            let mut warnings = Vec::new();
            match lone.list(&mut warnings) {
                Ok(listed) => Tools {
                    entries: (listed.names.into_iter())
                        .map(|name| Entry {
                            name,
                            origin: Origin::Listed,
                            compiled: OnceLock::new(),
                        })
                        .collect(),
                    text: listed.text,
                    warnings,
                },
                // It was opened when the registry loaded: a disk failing.
                Err(e) => Tools {
                    warnings: vec![format!(
                        "{}: could not be listed ({}); no tool in it is known",
                        lone.dir().display(),
                        crate::error::Chain(&IoCause(e))
                    )],
                    ..Tools::default()
                },
            }
        })
    }

    /// The name of the entry at `i` ([`Registry::entry`]).
    fn name(&self, i: usize) -> &str {
        self.name_of(self.entry(i))
    }

    /// The name of one of `entries`.
    fn name_of(&self, entry: &Entry) -> &str {
        self.tools()
            .text
            .get(entry.name.clone())
            .unwrap_or_default()
    }

    /// The entry at `i`, one of `entries`' own indexes (from `order`, `by_name`
    /// or the aliases, all built over it).
    #[allow(clippy::indexing_slicing)] // Cannot fail: an entry is never removed.
    fn entry(&self, i: usize) -> &Entry {
        &self.tools().entries[i]
    }

    /// Entry indexes in the registry's order (see [`Registry::order`]).
    fn order(&self) -> &[usize] {
        self.order.get_or_init(|| {
            let entries = &self.tools().entries;
            let mut order: Vec<usize> = (0..entries.len()).collect();
            if self.lone.is_some() {
                order.sort_unstable_by_key(|&i| entries.get(i).map(|e| self.name_of(e)));
            }
            order
        })
    }

    /// The entry of the tool called `name`.
    fn find(&self, name: &str) -> Option<usize> {
        /// Lookups answered by comparing names before the index is built.
        const SCANS: u32 = 8;
        if let Some(by_name) = self.by_name.get() {
            return by_name.get(name).copied();
        }
        let entries = &self.tools().entries;
        if self.scans.fetch_add(1, Ordering::Relaxed) < SCANS {
            return entries.iter().position(|e| self.name_of(e) == name);
        }
        let by_name = self.by_name.get_or_init(|| {
            let names = entries.iter().enumerate();
            names.map(|(i, e)| (self.name_of(e).into(), i)).collect()
        });
        by_name.get(name).copied()
    }

    /// The lone directory's tool called `name`, found by its file's name
    /// before the directory was listed. One such tool at most: a second name
    /// is looked up in the listing.
    fn by_file_name(&self, name: &str) -> Option<&Named> {
        fn is<'a>(named: &'a Option<Named>, name: &str) -> Option<&'a Named> {
            named.as_ref().filter(|n| *n.name == *name)
        }
        if let Some(named) = self.named.get() {
            return is(named, name);
        }
        if !self.lone.as_ref()?.holds(name) {
            return None;
        }
        // Another thread may have named another tool, or begun the listing.
        let named = self.named.get_or_init(|| {
            Some(Named {
                name: name.into(),
                compiled: OnceLock::new(),
            })
        });
        is(named, name)
    }

    /// Where the tool called `name` comes from, and its compiled schema.
    fn slot(&self, name: &str) -> Option<(&Origin, &Compiled)> {
        /// A `named` tool's origin.
        const LISTED: &Origin = &Origin::Listed;
        if let Some(named) = self.by_file_name(name) {
            return Some((LISTED, &named.compiled));
        }
        let entry = self.tools().entries.get(self.find(name)?)?;
        Some((&entry.origin, &entry.compiled))
    }

    /// Whether a tool of this name is declared (nothing is compiled).
    pub fn contains(&self, name: &str) -> bool {
        self.slot(name).is_some()
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.tools().entries.len()
    }

    /// Whether there is no tool.
    pub fn is_empty(&self) -> bool {
        self.tools().entries.is_empty()
    }

    /// The file a tool's schema comes from.
    pub(crate) fn source(&self, name: &str) -> Option<PathBuf> {
        let (origin, _) = self.slot(name)?;
        Some(file(origin, self.listed(), name))
    }

    /// Looks a tool up, compiling its schema on first use.
    pub(crate) fn lookup(&self, name: &str) -> Lookup<'_> {
        let Some((origin, compiled)) = self.slot(name) else {
            return Lookup::Unknown;
        };
        let tool = compiled.get_or_init(|| {
            let root = matches!(origin, Origin::Listed).then_some(&self.listed_root);
            let path = file(origin, self.listed(), name);
            Box::new(tool::load(origin, name, path, &self.ref_map, root))
        });
        match &**tool {
            Ok(tool) => Lookup::Found(tool),
            Err(e) => Lookup::Broken(e),
        }
    }

    /// The tool called `name`, compiled on first use; `None` if there is no
    /// such tool or its schema is broken.
    pub(crate) fn tool(&self, name: &str) -> Option<&Tool> {
        match self.lookup(name) {
            Lookup::Found(tool) => Some(tool),
            Lookup::Unknown | Lookup::Broken(_) => None,
        }
    }

    /// Adds a tool unless an earlier one has its name (then warns). Not for a
    /// `lone` registry.
    fn add(&mut self, name: &str, origin: Origin) {
        let mut by_name = self.by_name.take().unwrap_or_default();
        let mut tools = self.tools.take().unwrap_or_default();
        let known = by_name.contains_key(name);
        if !known {
            by_name.insert(name.into(), tools.entries.len());
        }
        self.by_name = OnceLock::from(by_name);
        let start = tools.text.len();
        let entry = Entry {
            name: start..start + name.len(),
            origin,
            compiled: OnceLock::new(),
        };
        if known {
            self.warnings.push(format!(
                "tool \"{name}\" in {} is already defined by an earlier source; ignored",
                file(&entry.origin, None, name).display()
            ));
        } else {
            tools.text.push_str(name);
            tools.entries.push(entry);
        }
        self.tools = OnceLock::from(tools);
    }

    /// Lists a directory's tools. `alone`: it is the only source, so its names
    /// are kept as listed (see the module's notes).
    fn index_dir(&mut self, dir: &Path, alone: bool) -> Result<(), SourceError> {
        let err = |e: std::io::Error| SourceError {
            path: dir.to_owned(),
            problem: IoCause(e).into(),
        };
        if alone {
            // Listed on first need (`Registry::tools`).
            self.lone = Some(listing::Lone::open(dir).map_err(err)?);
            return Ok(());
        }
        // Names only: no path is built and no file is read until a call needs it.
        let listed = listing::tool_names(dir, &mut self.warnings).map_err(err)?;
        let dir = Arc::new(dir.to_owned());
        let mut names: Vec<&str> = listed.names().collect();
        names.sort_unstable();
        for name in names {
            self.add(name, Origin::File(Arc::clone(&dir)));
        }
        Ok(())
    }

    fn index_list_file(&mut self, file: &Path) -> Result<(), SourceError> {
        let value = read_json(file).map_err(|e| SourceError {
            path: file.to_owned(),
            problem: e.into(),
        })?;
        let mut tools: Vec<ListedTool> = Vec::new();
        if !tool_list::read(value.clone(), &mut tools) {
            // Not a list of tools: one schema, named by the file's stem.
            if tool_list::is_schema_like(&value) {
                let name = file
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_owned();
                tools.push((name, value, None));
            } else {
                return Err(SourceError {
                    path: file.to_owned(),
                    problem: SourceProblem::Unrecognised,
                });
            }
        }
        for (name, schema, description) in tools {
            self.add(
                &name,
                Origin::Inline(Box::new(Held {
                    file: file.to_owned(),
                    schema,
                    description,
                })),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
