//! `callfix render`: templates in, text out.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::error::{Error, IoCause};
use crate::render::{Syntax, read, render, stem, templates_in};

use super::cli::{RenderArgs, RenderFormat};

/// `callfix render`: templates in, text out; every error in every file reported,
/// and nothing written when any template fails.
pub(crate) fn command(args: &RenderArgs, ctx: &super::Ctx) -> anyhow::Result<super::Ended> {
    let vars = super::load_vars(&args.vars, ctx)?;
    let syntax = Syntax::from(args.syntax);
    let mut templates: Vec<(String, PathBuf)> = Vec::new();
    let mut from_dir = false;
    for path in &args.paths {
        if path.is_dir() {
            from_dir = true;
            templates.extend(templates_in(path)?);
        } else {
            templates.push((stem(path), path.clone()));
        }
    }
    if templates.is_empty() {
        bail!("no .txt templates found");
    }
    let single = templates.len() == 1 && !from_dir;
    if !single && args.out.is_none() && args.format == RenderFormat::Text {
        bail!("several templates: write them with --out DIR or --format json");
    }
    let mut seen = BTreeMap::new();
    for (tool, path) in &templates {
        if let Some(first) = seen.insert(tool.clone(), path.clone()) {
            bail!(
                "two templates for \"{tool}\": {} and {}",
                first.display(),
                path.display()
            );
        }
    }
    let mut rendered = Vec::new();
    let mut errors = Vec::new();
    let mut used: Vec<String> = Vec::new();
    for (tool, path) in &templates {
        let text = read(path)?;
        match render(&text, &path.display().to_string(), &vars, syntax) {
            Ok(r) => {
                used.extend(r.used);
                rendered.push((tool.clone(), r.text));
            }
            Err(e) => errors.extend(e),
        }
    }
    for (name, _) in &args.vars.vars {
        if !used.contains(name) {
            ctx.report(
                "warning:",
                &format!("--var {name} is not used by any template"),
            );
        }
    }
    if !errors.is_empty() {
        for e in &errors {
            ctx.report("error:", &e.to_string());
        }
        return Ok(super::Ended::Findings);
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(IoCause)
            .with_context(|| format!("cannot write {}", dir.display()))?;
        for (tool, text) in &rendered {
            let path = dir.join(format!("{tool}.txt"));
            std::fs::write(&path, text)
                .map_err(IoCause)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        return Ok(super::Ended::Clean);
    }
    let mut out = std::io::stdout().lock();
    let written = match args.format {
        RenderFormat::Json => {
            let map: serde_json::Map<String, serde_json::Value> = rendered
                .into_iter()
                .map(|(tool, text)| (tool, serde_json::Value::String(text)))
                .collect();
            serde_json::to_writer_pretty(&mut out, &map)
                .map_err(std::io::Error::from)
                .and_then(|()| out.write_all(b"\n"))
        }
        RenderFormat::Text => rendered
            .first()
            .map_or(Ok(()), |(_, text)| out.write_all(text.as_bytes())),
    };
    written.and_then(|()| out.flush()).map_err(Error::write)?;
    Ok(super::Ended::Clean)
}
