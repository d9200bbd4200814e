//! Stage 5: schema-guided repair.
//!
//! Runs only when validation fails, only at the instance paths the validator named,
//! with rules tried in one fixed order (`rules::RULES`; the order is load-bearing:
//! a stringified array must be parsed before anything wraps a scalar). A rule's
//! change is kept only when re-validation shows it resolved the error at its path,
//! so a repair is exact or absent. The loop validate → repair → validate runs at
//! most `max_rounds` rounds; the result is used only if it validates.
//!
//! - `site`: where the validator says something is wrong;
//! - `schemas`: what the schemas that apply at a path accept;
//! - `rules`: the rules, in the order they are tried (`RULES`);
//! - `unwrap`: the arguments one level down (`unwrap-arguments`), first of them;
//! - `engine`: applying fixes in batches and keeping the ones that resolve;
//! - `positional`: which parameter a value given by position means;
//! - `text`: how text becomes a typed value, for the rules and for the untyped
//!   values of the XML-parameter families (`type_untyped`).

mod engine;
mod positional;
mod rules;
mod schemas;
mod site;
#[cfg(test)]
mod tests;
mod text;
mod unwrap;

pub(crate) use self::engine::repair;
pub(crate) use self::positional::Parameters;
pub(crate) use self::text::type_untyped;
pub(crate) use crate::kinds::{Enabled, Kind, Policy, Repair};
