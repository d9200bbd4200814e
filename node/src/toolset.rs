//! The native `Toolset` and `Session` classes (wrapped by `node/index.js`):
//! tools by name and how calls to them are checked, the library's
//! `callfix::Toolset`. Arguments and records arrive as JSON text (the
//! JavaScript side serialises objects with `JSON.stringify`) and results leave
//! as JSON text ([`crate::result`]).

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use napi::Env;
use napi::bindgen_prelude::{FnArgs, Function, Utf16String};
use napi_derive::napi;
use serde_json::Value;

use callfix::error::Chain;
use callfix::registry::Registry;
use callfix::toolset::BareCheck;
use callfix::{Input, Options, Position, Summary};

use crate::boundary::{catch, error, nesting, shield, shield_at, utf8};
use crate::options::Opts;
use crate::result::{Collect, Line, write_all};

/// Tools by name, and how calls to them are checked.
#[napi]
pub struct NativeToolset {
    pub(crate) inner: Arc<callfix::Toolset>,
    opts: Opts,
}

fn parse(text: &str, what: &str) -> napi::Result<Value> {
    shield(text.as_bytes(), || {
        serde_json::from_str(text).map_err(|e| error(format!("{what}: not JSON ({e})")))
    })
}

impl NativeToolset {
    fn build(registry: Registry, opts: Opts) -> Self {
        let inner = callfix::Toolset::new(registry).with_options(opts.options(0));
        NativeToolset {
            inner: Arc::new(inner),
            opts,
        }
    }

    /// Compiles every schema now, so that a broken one throws here, naming
    /// its tool (for toolsets built in memory; a directory's schemas are
    /// compiled when first needed).
    fn compiled(self) -> napi::Result<Self> {
        let options = self.inner.options();
        for name in self.inner.names() {
            let BareCheck { verdict, .. } = catch(|| {
                Ok(self
                    .inner
                    .check_bare(options, name, b"{}".to_vec(), "<schema>", None))
            })?;
            if verdict.fault() == callfix::verdict::Fault::Schema {
                return Err(error(
                    verdict.message().unwrap_or("a tool's schema is broken"),
                ));
            }
        }
        Ok(self)
    }
}

/// One call to `toolset`'s tool `name`, its arguments' JSON text `args` (both
/// as JavaScript holds them, UTF-16), no loop detection: [`one`], `fast` or
/// not.
fn alone(
    toolset: &callfix::Toolset,
    name: &[u16],
    args: &[u16],
    fast: bool,
) -> napi::Result<String> {
    let options = toolset.options();
    let mut fresh = (options.loop_limit > 0).then(|| Summary::default().without_per_tool());
    let name = utf8(name);
    one(toolset, options, fresh.as_mut(), utf8(args), &name, 0, fast)
}

/// One call to `tool` whose arguments are `text`, checked by the library's
/// one-call check: the result as JSON text.
fn one(
    toolset: &callfix::Toolset,
    options: &Options,
    summary: Option<&mut Summary>,
    text: String,
    tool: &str,
    index: u64,
    fast: bool,
) -> napi::Result<String> {
    // A call valid as sent in plain JSON is answered without the filter: the
    // short form `write_fast` would give (`Toolset::valid_as_sent` says when).
    if fast && tool.is_ascii() {
        let short = catch(|| {
            Ok(toolset
                .valid_as_sent(options, tool, &text)
                .map(|args| match args {
                    Cow::Borrowed(_) => "v".to_owned(),
                    Cow::Owned(args) => format!("V{args}"),
                }))
        })?;
        if let Some(short) = short {
            return Ok(short);
        }
    }
    let bytes = text.into_bytes();
    // What was sent, to answer `v` when the arguments' text is that (a copy of
    // a few hundred bytes costs less than a string made in JavaScript).
    let sent = if fast { bytes.clone() } else { Vec::new() };
    shield_at(nesting(&bytes), move || {
        let BareCheck {
            spellings,
            call,
            verdict,
        } = toolset.check_bare(options, tool, bytes, "<arguments>", summary);
        let at = Position {
            index,
            call: 0,
            line: 1,
            offset: 0,
        };
        let mut out = String::with_capacity(256);
        let line = Line::new(at, call, verdict, spellings);
        if fast {
            line.write_fast(tool, &sent, &mut out)?;
        } else {
            line.write(&mut out)?;
        }
        Ok(out)
    })
}

/// Every call in one record (any envelope the CLI reads), through the filter:
/// the results as the JSON text of an array.
fn record(
    toolset: &callfix::Toolset,
    options: &Options,
    summary: &mut Summary,
    text: &str,
    index: u64,
    source: &str,
) -> napi::Result<String> {
    shield(text.as_bytes(), || {
        let filter = toolset.filter_with(options);
        let input = Input {
            first_index: index,
            first_line: index + 1,
            ..Input::from_bytes(text.as_bytes(), source)
        };
        let mut sink = Collect::default();
        filter
            .stream(input, &mut sink, summary)
            .map_err(|e| error(e.to_string()))?;
        write_all(&sink.lines)
    })
}

#[napi]
impl NativeToolset {
    /// Tools from schemas in memory: the JSON text of an object of tool name
    /// to JSON Schema.
    #[napi(factory)]
    pub fn from_schemas(schemas: String, options: Option<String>) -> napi::Result<Self> {
        let opts = Opts::parse(options.as_deref())?;
        let Value::Object(map) = parse(&schemas, "schemas")? else {
            return Err(error(
                "schemas: expected an object of tool name to JSON Schema",
            ));
        };
        let registry = catch(|| Ok(Registry::from_schemas(map)))?;
        NativeToolset::build(registry, opts).compiled()
    }

    /// Tools from a directory of `<tool>.json` schemas (or one tool-list file).
    #[napi(factory)]
    pub fn from_dir(path: String, options: Option<String>) -> napi::Result<Self> {
        let opts = Opts::parse(options.as_deref())?;
        let path = PathBuf::from(path);
        let registry = catch(|| {
            Registry::load(std::slice::from_ref(&path)).map_err(|e| error(Chain(&e).to_string()))
        })?;
        Ok(NativeToolset::build(registry, opts))
    }

    /// Tools from a provider's tool list (OpenAI, Anthropic, Gemini, MCP), as
    /// JSON text.
    #[napi(factory)]
    pub fn from_tools(tools: String, options: Option<String>) -> napi::Result<Self> {
        let opts = Opts::parse(options.as_deref())?;
        let list = parse(&tools, "tools")?;
        let registry = catch(|| {
            Registry::from_tool_list(list).ok_or_else(|| {
                error(
                    "not a tool list (OpenAI tools, Anthropic tools, Gemini \
                     functionDeclarations, MCP tools/list)",
                )
            })
        })?;
        NativeToolset::build(registry, opts).compiled()
    }

    /// The tool names, sorted.
    #[napi]
    pub fn names(&self) -> Vec<String> {
        self.inner.names().map(str::to_owned).collect()
    }

    /// Whether `name` is a tool of the set.
    #[napi]
    pub fn has(&self, name: String) -> bool {
        self.inner.contains(&name)
    }

    /// The function that checks one call, `(name, args) => string`: `args`
    /// the arguments' JSON text; no loop detection; a call valid as sent
    /// comes back in short ([`Line::write_fast`]). A function of its own that
    /// holds this toolset, not a method: a call to it skips what napi-rs does
    /// for a method (find the native object behind `this`, check its class,
    /// record the borrow in a process-wide table): a check's native call
    /// takes 9,500 instructions, not 12,400 (docs/speed.md). It keeps the
    /// toolset alive as long as it lives.
    #[napi(ts_return_type = "(name: string, args: string) => string")]
    pub fn checker<'env>(
        &self,
        env: &'env Env,
    ) -> napi::Result<Function<'env, FnArgs<(Utf16String, Utf16String)>, String>> {
        let toolset = Arc::clone(&self.inner);
        env.create_function_from_closure("check", move |call| {
            let name: Utf16String = call.get(0)?;
            let args: Utf16String = call.get(1)?;
            alone(&toolset, &name, &args, true)
        })
    }

    /// `check`, always as the whole `--format json` object (for the test that
    /// pins the short form to it).
    #[napi]
    pub fn check_full(&self, name: Utf16String, args: Utf16String) -> napi::Result<String> {
        alone(&self.inner, &name, &args, false)
    }

    /// Every call in one record (its JSON text). `source` names it in
    /// messages about a broken one, and `index` numbers it (it is on line
    /// `index + 1` of `source`), as when it is part of a JSON Lines file.
    #[napi]
    pub fn check_record(
        &self,
        record: String,
        source: Option<String>,
        index: Option<i64>,
    ) -> napi::Result<String> {
        let summary = &mut Summary::default().without_per_tool();
        let index = u64::try_from(index.unwrap_or(0))
            .map_err(|_| error("index: expected an integer from 0"))?;
        let source = source.as_deref().unwrap_or("<record>");
        self::record(
            &self.inner,
            self.inner.options(),
            summary,
            &record,
            index,
            source,
        )
    }

    /// A conversation: the same checks plus repeated-failure escalation.
    #[napi]
    pub fn session(&self, loop_limit: u32) -> NativeSession {
        NativeSession {
            toolset: Arc::clone(&self.inner),
            options: self.opts.options(loop_limit),
            state: Mutex::new((Summary::default().without_per_tool(), 0)),
        }
    }
}

/// One conversation's checks: a toolset's, plus repeated-failure escalation.
#[napi]
pub struct NativeSession {
    toolset: Arc<callfix::Toolset>,
    options: Options,
    /// The loop counts, and the next record number.
    state: Mutex<(Summary, u64)>,
}

#[napi]
impl NativeSession {
    /// As `NativeToolset::check`, counting repeated rejections.
    #[napi]
    pub fn check(&self, name: Utf16String, args: Utf16String) -> napi::Result<String> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (summary, next) = &mut *state;
        let out = one(
            &self.toolset,
            &self.options,
            Some(summary),
            utf8(&args),
            &utf8(&name),
            *next,
            false,
        )?;
        *next += 1;
        Ok(out)
    }

    /// As `NativeToolset::check_record`, counting repeated rejections.
    #[napi]
    pub fn check_record(&self, record: String) -> napi::Result<String> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (summary, next) = &mut *state;
        let out = self::record(
            &self.toolset,
            &self.options,
            summary,
            &record,
            *next,
            "<session>",
        )?;
        *next += 1;
        Ok(out)
    }
}
