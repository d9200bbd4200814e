//! `callfix.toml`: the settings a team shares between its hook, CI step and
//! renderer. Found upward from the working directory, or named by `--config FILE`
//! (or `CALLFIX_CONFIG`); `--no-config` ignores it.
//!
//! Each setting becomes the default of the flag of the same name, so clap's own
//! order gives the precedence: flag > environment variable > config > built-in
//! default. Paths are relative to the config file. `[vars]` sit under `--vars`
//! and `--var`, over the built-ins.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::span::Loc;
use serde::Deserialize;
use toml::Spanned;

/// The file name searched for.
pub(crate) const FILE_NAME: &str = "callfix.toml";

/// A config that cannot be used: where, and why.
#[derive(Debug, Clone)]
pub(crate) struct ConfigError {
    pub file: PathBuf,
    pub at: Loc,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.at.line,
            self.at.col,
            self.message
        )
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Integer(i64),
    Float(f64),
}

/// What `callfix.toml` may hold: the flags' long names.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    schemas: Option<Spanned<OneOrMany>>,
    descriptions: Option<Spanned<String>>,
    prefix: Option<Spanned<String>>,
    repair: Option<Spanned<OneOrMany>>,
    max_errors: Option<Spanned<i64>>,
    max_chars: Option<Spanned<i64>>,
    max_rounds: Option<Spanned<i64>>,
    loop_limit: Option<Spanned<i64>>,
    jobs: Option<Spanned<i64>>,
    vars: Option<BTreeMap<String, Spanned<Scalar>>>,
}

/// One setting as the defaults of a flag: the flag's id, its values, and where
/// the setting is in the file.
struct Setting {
    id: &'static str,
    values: Vec<String>,
    span: std::ops::Range<usize>,
    /// A path (relative to the config file).
    path: bool,
}

/// A config read and checked.
#[derive(Debug, Default)]
pub(crate) struct Config {
    vars: Vec<(String, String)>,
}

/// The config of one run: its `[vars]`, or why it cannot be used. Read by
/// [`apply`] for each command line and passed down; nothing is kept between runs
/// (the Python package runs many command lines in one process).
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    config: Config,
    failed: Option<ConfigError>,
}

impl Loaded {
    /// The `[vars]` of the config in use (none without one).
    pub(crate) fn vars(&self) -> &[(String, String)] {
        &self.config.vars
    }

    /// Why the config could not be used, if it could not.
    pub(crate) fn failed(&self) -> Option<&ConfigError> {
        self.failed.as_ref()
    }
}

/// The command line with the config's settings as its flags' defaults, and the
/// config read. A config that cannot be used is returned as
/// [`Loaded::failed`] with the command as it is: `check` reports it as a
/// finding, every other command stops.
pub(crate) fn apply(args: &[OsString], cmd: clap::Command) -> (clap::Command, Loaded) {
    match find(args).and_then(|found| found.map(|path| load(&path, cmd.clone())).transpose()) {
        Ok(Some((cmd, config))) => (
            cmd,
            Loaded {
                config,
                failed: None,
            },
        ),
        Ok(None) => (cmd, Loaded::default()),
        Err(e) => (
            cmd,
            Loaded {
                config: Config::default(),
                failed: Some(e),
            },
        ),
    }
}

/// `args` without `--config FILE`, `--config=FILE` and `--no-config`, which
/// [`apply`] has read: clap declares them (for `--help`, in every command) but
/// would take one before a subcommand for the filter's and not see the
/// subcommand.
pub(crate) fn without_config_flags(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut it = args.iter();
    out.extend(it.next().cloned());
    while let Some(arg) = it.next() {
        if arg == "--" {
            out.push(arg.clone());
            out.extend(it.cloned());
            break;
        }
        if arg == "--config" {
            it.next();
        } else if arg != "--no-config" && !arg.to_str().is_some_and(|a| a.starts_with("--config="))
        {
            out.push(arg.clone());
        }
    }
    out
}

/// The config file to read: `--config FILE` or `CALLFIX_CONFIG`, else the
/// nearest `callfix.toml` from the working directory up; none with `--no-config`.
fn find(args: &[OsString]) -> Result<Option<PathBuf>, ConfigError> {
    let mut named = None;
    let mut it = args.iter().skip(1);
    while let Some(arg) = it.next() {
        if arg == "--" {
            break;
        }
        if arg == "--no-config" {
            return Ok(None);
        }
        if arg == "--config" {
            named = it.next().map(PathBuf::from);
        } else if let Some(path) = arg.to_str().and_then(|a| a.strip_prefix("--config=")) {
            named = Some(PathBuf::from(path));
        }
    }
    let named = named.or_else(|| {
        std::env::var_os("CALLFIX_CONFIG")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    if let Some(path) = named {
        if !path.is_file() {
            return Err(ConfigError {
                file: path,
                at: Loc::START,
                message: "config file not found".into(),
            });
        }
        return Ok(Some(path));
    }
    let Ok(cwd) = std::env::current_dir() else {
        return Ok(None);
    };
    let mut up = PathBuf::new();
    for dir in cwd.ancestors() {
        if dir.join(FILE_NAME).is_file() {
            return Ok(Some(up.join(FILE_NAME)));
        }
        up.push("..");
    }
    Ok(None)
}

/// Reads `path` and sets its settings as the defaults of `cmd`'s flags.
fn load(path: &Path, cmd: clap::Command) -> Result<(clap::Command, Config), ConfigError> {
    let fail = |text: &str, span: Option<std::ops::Range<usize>>, message: String| ConfigError {
        file: path.to_owned(),
        at: span.map_or(Loc::START, |s| Loc::of(text, s.start)),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| {
        fail(
            "",
            None,
            format!("cannot read: {}", crate::error::IoCause(e)),
        )
    })?;
    let file: File =
        toml::from_str(&text).map_err(|e| fail(&text, e.span(), e.message().to_owned()))?;
    let base = path.parent().unwrap_or(Path::new(""));
    let mut settings = Vec::new();
    let mut add = |id, value: Option<Spanned<Vec<String>>>, path| {
        if let Some(v) = value {
            let span = v.span();
            settings.push(Setting {
                id,
                values: v.into_inner(),
                span,
                path,
            });
        }
    };
    let many = |v: Option<Spanned<OneOrMany>>| {
        v.map(|v| {
            let span = v.span();
            Spanned::new(span, v.into_inner().into_vec())
        })
    };
    let one = |v: Option<Spanned<String>>| {
        v.map(|v| {
            let span = v.span();
            Spanned::new(span, vec![v.into_inner()])
        })
    };
    let number = |v: Option<Spanned<i64>>| {
        v.map(|v| {
            let span = v.span();
            Spanned::new(span, vec![v.into_inner().to_string()])
        })
    };
    add("schemas", many(file.schemas), true);
    add("descriptions", one(file.descriptions), true);
    add("prefix", one(file.prefix), false);
    add("repair", many(file.repair), false);
    add("max_errors", number(file.max_errors), false);
    add("max_chars", number(file.max_chars), false);
    add("max_rounds", number(file.max_rounds), false);
    add("loop_limit", number(file.loop_limit), false);
    add("jobs", number(file.jobs), false);
    let mut vars = Vec::new();
    for (name, value) in file.vars.unwrap_or_default() {
        let span = value.span();
        let value = match value.into_inner() {
            Scalar::Text(s) => s,
            Scalar::Integer(n) => n.to_string(),
            Scalar::Float(x) => x.to_string(),
        };
        if name.is_empty() {
            return Err(fail(
                &text,
                Some(span),
                "vars: a variable needs a name".into(),
            ));
        }
        vars.push((name, value));
    }
    let mut cmd = cmd;
    for mut setting in settings {
        if setting.path {
            setting.values = setting
                .values
                .iter()
                .map(|v| base.join(v).display().to_string())
                .collect();
        }
        cmd = set_default(cmd, &setting)
            .map_err(|message| fail(&text, Some(setting.span.clone()), message))?;
    }
    Ok((cmd, Config { vars }))
}

/// Makes `setting` the default of its flag in `cmd` and every subcommand that
/// has that flag (not `mcp --schemas`: those override what the server lists). A
/// value the flag would refuse is an error, said as clap says it.
fn set_default(mut cmd: clap::Command, setting: &Setting) -> Result<clap::Command, String> {
    let own = cmd
        .get_arguments()
        .find(|a| a.get_id() == setting.id)
        .cloned();
    if let Some(arg) = own {
        // What the flag would say of the value, had it been given on the command line.
        let long = arg.get_long().unwrap_or(setting.id);
        let alone = arg
            .clone()
            .required(false)
            .default_values(Vec::<&str>::new());
        for v in &setting.values {
            clap::Command::new("callfix.toml")
                .no_binary_name(true)
                .arg(alone.clone())
                .try_get_matches_from([format!("--{long}"), v.clone()])
                .map_err(|e| {
                    let said = e.to_string();
                    let first = said.lines().next().unwrap_or_default();
                    format!("{long}: {}", first.trim_start_matches("error: "))
                })?;
        }
        let values: Vec<clap::builder::OsStr> = setting
            .values
            .iter()
            .map(clap::builder::OsStr::from)
            .collect();
        cmd = cmd.mut_arg(setting.id, |a| a.default_values(values));
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        if name == "mcp" && setting.id == "schemas" {
            continue;
        }
        let mut failed = None;
        cmd = cmd.mut_subcommand(&name, |sub| match set_default(sub.clone(), setting) {
            Ok(sub) => sub,
            Err(e) => {
                failed = Some(e);
                sub
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
    }
    Ok(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn config_flags_are_taken_out_before_clap_parses() {
        assert_eq!(
            without_config_flags(&args(&[
                "callfix",
                "--config",
                "a.toml",
                "check",
                "--no-config",
                "--config=b.toml",
                "-f",
                "json"
            ])),
            args(&["callfix", "check", "-f", "json"])
        );
        // After `--` everything is the MCP server's.
        assert_eq!(
            without_config_flags(&args(&["callfix", "mcp", "--", "srv", "--config", "x"])),
            args(&["callfix", "mcp", "--", "srv", "--config", "x"])
        );
    }
}
