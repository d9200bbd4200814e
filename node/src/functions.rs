//! The module's functions: `render` (a description template), `tools` (a
//! provider's tool definitions for a toolset), as `callfix render` and
//! `callfix tools` give them, and `heal` (a conversation made acceptable
//! again, as `callfix heal`). Values cross as JSON text.

use std::collections::BTreeMap;
use std::path::PathBuf;

use napi_derive::napi;
use serde_json::Value;

use callfix::error::Chain;
use callfix::heal::Healer;
use callfix::output::Position;
use callfix::provider::Provider;

use crate::boundary::{catch, error, shield};
use crate::result::Line;
use crate::toolset::NativeToolset;

/// Variable values as `--vars FILE` takes them (the JSON text of an object):
/// strings, and numbers as written; anything else is an error naming the
/// variable.
fn var_texts(vars: Option<&str>) -> napi::Result<Vec<(String, String)>> {
    let Some(vars) = vars else {
        return Ok(Vec::new());
    };
    let map = match serde_json::from_str(vars) {
        Ok(Value::Object(map)) => map,
        Ok(Value::Null) => return Ok(Vec::new()),
        _ => {
            return Err(error(
                "vars: expected an object of name to string or number",
            ));
        }
    };
    let mut out = Vec::new();
    for (name, value) in map {
        let text = callfix::render::var_text(value).map_err(|kind| {
            error(format!(
                "vars: \"{name}\" is {kind}, not a string or number"
            ))
        })?;
        out.push((name, text));
    }
    Ok(out)
}

/// Renders a description template: `<NAME>` placeholders from `vars` (over
/// the built-ins `PLATFORM`, `DATE`, …). Every unknown placeholder is
/// reported at once.
#[napi]
pub fn native_render(template: String, vars: Option<String>) -> napi::Result<String> {
    let mut all = callfix::render::builtins();
    all.extend(var_texts(vars.as_deref())?);
    catch(|| {
        callfix::render::render(
            &template,
            "<template>",
            &all,
            callfix::render::Syntax::Angle,
        )
        .map(|r| r.text)
        .map_err(|errors| {
            let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
            error(all.join("; "))
        })
    })
}

/// The tool definitions a provider's API expects for every tool of
/// `toolset` (JSON text): `callfix tools --provider PROVIDER [--openai-strict]`.
#[napi]
pub fn native_tools(
    toolset: &NativeToolset,
    provider: String,
    descriptions: Option<String>,
    vars: Option<String>,
    openai_strict: bool,
) -> napi::Result<String> {
    let provider = Provider::from_name(&provider).ok_or_else(|| {
        let names: Vec<&str> = callfix::provider::PROVIDERS
            .iter()
            .map(|p| p.name())
            .collect();
        error(format!(
            "unknown provider \"{provider}\" (known: {})",
            names.join(", ")
        ))
    })?;
    let files = match descriptions {
        Some(dir) => callfix::tools::description_files(&PathBuf::from(dir))
            .map_err(|e| error(Chain(&e).to_string()))?,
        None => BTreeMap::new(),
    };
    let mut all = callfix::render::builtins();
    all.extend(var_texts(vars.as_deref())?);
    if openai_strict && !provider.has_strict_mode() {
        return Err(error(format!(
            "openaiStrict applies to provider \"openai\" or \"openai-responses\", not \"{}\"",
            provider.name()
        )));
    }
    catch(|| {
        let payload = callfix::tools::payload(
            toolset.inner.registry(),
            provider,
            &files,
            &all,
            openai_strict,
        )
        .map_err(|problems| {
            let all: Vec<String> = problems.iter().map(|p| Chain(p).to_string()).collect();
            error(all.join("; "))
        })?;
        serde_json::to_string(&payload.value).map_err(|e| error(e.to_string()))
    })
}

/// Heals `request` (an OpenAI chat or Anthropic messages request body, as
/// JSON text) against `toolset`, or its own `tools` when none is given; `to`
/// ("openai" or "anthropic") writes it as that provider's request body. The
/// JSON text of `{requestJson, results, neutralised, notCarried}`: the healed
/// body (numbers as sent), one result per assistant tool call of the history,
/// how many calls were neutralised, and (with `to`) what content the other
/// provider has no place for and what became of it.
#[napi]
pub fn native_heal(
    request: String,
    toolset: Option<&NativeToolset>,
    to: Option<String>,
) -> napi::Result<String> {
    let to = match to {
        None => None,
        Some(name) => Some(Provider::from_name(&name).ok_or_else(|| {
            error(format!(
                "to: \"{name}\": heal writes \"openai\" or \"anthropic\""
            ))
        })?),
    };
    let tools = toolset.map(|t| &*t.inner);
    shield(request.as_bytes(), || {
        let mut healer = Healer::new(tools);
        if let Some(to) = to {
            healer = healer.to(to).map_err(|e| error(e.to_string()))?;
        }
        let healed = healer
            .heal(request.as_bytes())
            .map_err(|e| error(e.to_string()))?;
        let request_json =
            serde_json::to_string(&healed.to_text()).map_err(|e| error(e.to_string()))?;
        let spellings = healed.spellings().clone();
        let neutralised = healed.neutralised();
        let not_carried =
            serde_json::to_string(healed.not_carried()).map_err(|e| error(e.to_string()))?;
        let mut out = format!(
            "{{\"requestJson\":{request_json},\"neutralised\":{neutralised},\"notCarried\":{not_carried},\"results\":["
        );
        for (i, one) in healed.into_calls().into_iter().enumerate() {
            let at = Position {
                index: 0,
                call: i,
                line: 1,
                offset: 0,
            };
            let line = match one.into_parts() {
                (Some(call), verdict) => Line::new(at, call, verdict, spellings.clone()),
                (None, verdict) => Line::record(at, verdict, spellings.clone()),
            };
            if i > 0 {
                out.push(',');
            }
            line.write(&mut out)?;
        }
        out.push_str("]}");
        Ok(out)
    })
}
