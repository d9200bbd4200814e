//! One tool: [`Loaded`] is its schema read, its references resolved and
//! their expansion bounded; [`Tool`] adds the validator, compiled once for
//! arguments of either kind (a `Value`, or a tape read from their text:
//! `crate::tape::instance`).

use std::borrow::Cow;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use jsonschema::{ErrorIterator, PatternOptions, ValidationError, Validator};
use referencing::Uri;
use serde_json::Value;

use crate::error::IoCause;
use crate::resolve::{At, RefMap, Sandbox, file_uri};
use crate::tape::{self, instance::Arg, instance::Args};

use super::{Origin, SchemaError, SchemaProblem};

/// A tool's schema, read and its references resolved: what checking a call
/// needs except the validator ([`Tool`] has it).
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The tool's name.
    pub name: String,
    /// The schema as written (for message details and repair).
    pub schema: Value,
    /// The schema and every document its references reach, as the validator
    /// resolves them.
    refs: referencing::Registry<'static>,
    /// The schema's base URI (its file's `file://` URI).
    base: Uri<String>,
    /// The tool's own description: beside the schema in a tool list, else the
    /// schema's `description`.
    pub description: Option<String>,
    /// What reads the documents references reach outside `refs` (the
    /// validators' retriever).
    sandbox: Option<Sandbox>,
    /// The file a schema error names, and whether the tool is one of a
    /// tool-list file's (then the error names the tool too).
    file: PathBuf,
    in_list: bool,
}

/// A compiled tool: its schema loaded, and the validator.
#[derive(Debug)]
pub(crate) struct Tool {
    loaded: Loaded,
    /// The compiled validator, for arguments of either kind.
    validator: Validator<Args>,
}

impl Deref for Tool {
    type Target = Loaded;

    fn deref(&self) -> &Loaded {
        &self.loaded
    }
}

impl Tool {
    /// `loaded` with its validator, compiled now; the error, if it will not
    /// compile, located in `text` (the schema file's) when given.
    fn compile(loaded: Loaded, text: Option<&str>) -> Result<Tool, SchemaError> {
        let validator = loaded.build().map_err(|e| loaded.error(&e, text))?;
        Ok(Tool { loaded, validator })
    }

    /// Whether the validator accepts `args`.
    pub(crate) fn is_valid(&self, args: &Value) -> bool {
        self.validator.is_valid(Arg::Value(args))
    }

    /// The validator's first error on `args`, if any.
    pub(crate) fn validate<'a>(&self, args: &'a Value) -> Result<(), ValidationError<'a>> {
        self.validator.validate(Arg::Value(args))
    }

    /// Every error the validator finds in `args`.
    pub(crate) fn iter_errors<'a>(&'a self, args: &'a Value) -> ErrorIterator<'a> {
        self.validator.iter_errors(Arg::Value(args))
    }

    /// `text` as this tool's arguments, when they are valid as sent and in
    /// the plain JSON `crate::tape` reads: their compact text (`text` itself
    /// when it is compact), what [`Spellings::to_text`](crate::Spellings::to_text)
    /// writes for them. `None` says nothing: the call goes the full way.
    pub(crate) fn valid_as_sent<'t>(&self, text: &'t str) -> Option<Cow<'t, str>> {
        match self.as_sent(text)? {
            AsSent::Valid(compact) => Some(compact),
            AsSent::Invalid(_) => None,
        }
    }

    /// What the tape makes of `text` as this tool's arguments: valid as sent
    /// ([`Tool::valid_as_sent`]'s answer), or read but not valid, and then
    /// its value (what `crate::json` parses the text to, no key named twice:
    /// the full path takes it instead of parsing the text again). `None`:
    /// not in the plain JSON the tape reads.
    pub(crate) fn as_sent<'t>(&self, text: &'t str) -> Option<AsSent<'t>> {
        let read = tape::read(text)?;
        if !self.validator.is_valid(Arg::Tape(&read.value)) {
            return Some(AsSent::Invalid(tape::to_value(&read.value)));
        }
        Some(AsSent::Valid(if read.compact {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(tape::compact(text))
        }))
    }
}

/// Arguments' text as the tape read it ([`Tool::as_sent`]).
#[derive(Debug)]
pub(crate) enum AsSent<'t> {
    /// Valid as sent: the compact text.
    Valid(Cow<'t, str>),
    /// Not valid: the value, for the full path.
    Invalid(Value),
}

impl Loaded {
    /// The root of the schema, to walk it resolving `$ref` as the validator does.
    pub(crate) fn root(&self) -> At<'_> {
        At::root(&self.schema, self.refs.resolver(self.base.clone()))
    }

    /// The schema compiled for arguments of either kind: the linear-time
    /// regex engine (no pattern can backtrack catastrophically), formats
    /// asserted in every draft, references resolved through `refs` and read
    /// by the sandbox.
    fn build(&self) -> Result<Validator<Args>, ValidationError<'static>> {
        let options = jsonschema::options_for::<Args>()
            .with_pattern_options(PatternOptions::regex())
            .should_validate_formats(true)
            .with_base_uri(self.base.as_str().to_owned())
            .with_registry(&self.refs);
        match &self.sandbox {
            Some(sandbox) => options.with_retriever(sandbox.clone()).build(&self.schema),
            None => options.build(&self.schema),
        }
    }

    /// A compile error `e` as the schema error of this tool, located in
    /// `text` (the schema file's) when given.
    fn error(&self, e: &ValidationError<'_>, text: Option<&str>) -> SchemaError {
        let at = e.instance_path().as_str();
        SchemaError {
            file: self.file.clone(),
            at: text.map(|t| crate::span::Spanned::parse(t).locate(at)),
            tool: self.in_list.then(|| self.name.clone()),
            problem: SchemaProblem::Invalid {
                message: e.to_string(),
                at: at.to_owned(),
            },
        }
    }
}

/// Loads the schema of the tool called `name`, from `origin`, read from
/// `path`; `root` keeps its directory's resolved path from one tool to the
/// next; and compiles its validator.
pub(super) fn load(
    origin: &Origin,
    name: &str,
    path: PathBuf,
    ref_map: &Arc<RefMap>,
    root: Option<&OnceLock<PathBuf>>,
) -> Result<Tool, SchemaError> {
    let (file, tool) = match origin {
        Origin::Listed | Origin::File(_) | Origin::Memory(_) => (path, None),
        Origin::Inline(held) => (held.file.clone(), Some(name.to_owned())),
    };
    let fail = |problem: SchemaProblem| SchemaError {
        file: file.clone(),
        at: None,
        tool: tool.clone(),
        problem,
    };
    let (root, base, schema, text) = match origin {
        Origin::Memory(held) => {
            let base = format!(
                "json-schema:///{}.json",
                file_uri(Path::new(name)).trim_start_matches("file://")
            );
            (None, base, held.schema.clone(), None)
        }
        Origin::Listed | Origin::File(_) | Origin::Inline(_) => {
            // Where the file really is, checked against the directory before
            // anything is opened: a symlink out of it (to /dev/zero, say) is
            // never read.
            let dir = file
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let root = match root.and_then(OnceLock::get) {
                Some(known) => known.clone(),
                None => {
                    let found = dir
                        .canonicalize()
                        .map_err(|e| fail(SchemaProblem::Directory(IoCause(e))))?;
                    if let Some(cache) = root {
                        // Another thread may have set it first: the same path.
                        let _ = cache.set(found.clone());
                    }
                    found
                }
            };
            // A file that is no symlink is where its name says, in the
            // resolved directory (one `lstat`, not one `readlink` per
            // component); a symlink is followed to where it leads.
            let canonical = match (file.file_name(), std::fs::symlink_metadata(&file)) {
                (Some(name), Ok(meta)) if !meta.file_type().is_symlink() => root.join(name),
                _ => file.canonicalize().map_err(|e| fail(IoCause(e).into()))?,
            };
            if !canonical.starts_with(&root) {
                return Err(fail(SchemaProblem::Outside(canonical)));
            }
            let (schema, text) = match origin {
                Origin::Listed | Origin::File(_) => {
                    let text = crate::source::read_text(&canonical)
                        .map_err(|e| fail(IoCause(e).into()))?;
                    let schema = crate::json::parse_str(&text).map_err(|e| SchemaError {
                        at: Some(crate::span::Loc::of_line_byte(&text, e.line(), e.column())),
                        ..fail(SchemaProblem::Json(e))
                    })?;
                    (schema, Some(text))
                }
                Origin::Inline(held) | Origin::Memory(held) => (held.schema.clone(), None),
            };
            (Some(root), file_uri(&canonical), schema, text)
        }
    };
    let sandbox = Sandbox {
        root,
        ref_map: Arc::clone(ref_map),
    };
    // Documents the references reach are read in the root's draft unless they
    // name their own, as the validator reads them.
    let draft = referencing::Draft::default().detect(&schema);
    let refs = referencing::Registry::new()
        .draft(draft)
        .retriever(sandbox.clone())
        .add(&base, draft.create_resource(schema.clone()))
        .and_then(referencing::RegistryBuilder::prepare)
        .map_err(|e| fail(e.into()))?;
    // References that multiply (each level naming the next twice) would make the
    // validator's work exponential: such a schema is broken, said at once.
    let base_uri = referencing::uri::from_str(&base).map_err(|e| fail(e.into()))?;
    let expanded = crate::resolve::expansion(
        At::root(&schema, refs.resolver(base_uri.clone())),
        MAX_EXPANSION,
    );
    if expanded > MAX_EXPANSION {
        return Err(fail(SchemaProblem::Expansion {
            limit: MAX_EXPANSION,
            depth: crate::resolve::MAX_REF_DEPTH,
        }));
    }
    let description = match origin {
        Origin::Inline(held) | Origin::Memory(held) if held.description.is_some() => {
            held.description.clone()
        }
        _ => schema
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    let loaded = Loaded {
        name: name.to_owned(),
        schema,
        refs,
        base: base_uri,
        description,
        sandbox: Some(sandbox),
        file,
        in_list: tool.is_some(),
    };
    Tool::compile(loaded, text.as_deref())
}

/// The most subschemas a schema may stand for once its `$ref`s are followed.
const MAX_EXPANSION: u64 = 100_000;

#[cfg(test)]
impl Tool {
    /// A tool from an inline schema, validated as the registry would (formats
    /// asserted), for tests.
    pub(crate) fn from_schema(schema: Value) -> Tool {
        Tool::named("t", schema)
    }

    /// [`Tool::from_schema`], called `name`.
    pub(crate) fn named(name: &str, schema: Value) -> Tool {
        let base = "json-schema:///t.json";
        let refs = referencing::Registry::new()
            .add(base, referencing::Resource::from_contents(schema.clone()))
            .unwrap()
            .prepare()
            .unwrap();
        let loaded = Loaded {
            name: name.into(),
            schema,
            refs,
            base: referencing::uri::from_str(base).unwrap(),
            description: None,
            sandbox: None,
            file: PathBuf::new(),
            in_list: false,
        };
        Tool::compile(loaded, None).unwrap()
    }
}
