//! The schema at an instance path: every subschema that applies there, and what
//! they accept.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use super::engine::get;
use super::text;
use crate::registry::Tool;
use crate::resolve::At;
use crate::suggest::{self, normalise};

/// What the schemas that apply at one path accept.
#[derive(Default)]
pub(super) struct Wanted<'a> {
    pub(super) types: Vec<&'a str>,
    pub(super) enums: Vec<&'a Value>,
    pub(super) required: Vec<&'a str>,
    pub(super) properties: Vec<&'a str>,
    pub(super) formats: Vec<&'a str>,
    pub(super) patterns: Vec<&'a str>,
}

impl Wanted<'_> {
    pub(super) fn has(&self, t: &str) -> bool {
        self.types.contains(&t) || (t == "number" && self.types.contains(&"integer"))
    }

    pub(super) fn wants_exactly_integer(&self) -> bool {
        self.types.contains(&"integer") && !self.types.contains(&"number")
    }
}

/// The keywords of one schema that [`Schemas::wanted`] reads.
#[derive(Default)]
struct Keywords<'a> {
    type_: Option<&'a Value>,
    properties: Option<&'a Value>,
    items: Option<&'a Value>,
    prefix_items: Option<&'a Value>,
    enum_: Option<&'a Value>,
    const_: Option<&'a Value>,
    required: Option<&'a Value>,
    format: Option<&'a Value>,
    pattern: Option<&'a Value>,
}

pub(super) struct Schemas<'a> {
    pub(super) tool: &'a Tool,
    /// The declared properties and keys of each object looked at, for the
    /// document as it stands ([`Schemas::forget`] when it changes): built once
    /// per object, not once per key.
    pub(super) objects: RefCell<HashMap<Vec<String>, Rc<Object<'a>>>>,
    /// What the string at each path reads as ([`Schemas::reading`]), for the
    /// document as it stands: the coercing rules ask for it in turn.
    readings: RefCell<HashMap<Vec<String>, Option<Value>>>,
}

/// One object of the document and its declared properties, indexed.
pub(super) struct Object<'a> {
    /// The declared properties (in schema order, as [`Wanted::properties`]).
    pub(super) declared: HashSet<&'a str>,
    /// The declared properties by normalised spelling, in schema order.
    pub(super) declared_by_norm: HashMap<String, Vec<&'a str>>,
    /// The object's keys by normalised spelling, in document order.
    pub(super) keys_by_norm: HashMap<String, Vec<String>>,
    /// Near-miss matching against the declared properties.
    pub(super) near: suggest::NearMisses<'a>,
}

impl<'a> Schemas<'a> {
    pub(super) fn new(tool: &'a Tool) -> Self {
        Schemas {
            tool,
            objects: RefCell::default(),
            readings: RefCell::default(),
        }
    }

    /// The document changed: what was indexed of it no longer holds.
    pub(super) fn forget(&self) {
        self.objects.borrow_mut().clear();
        self.readings.borrow_mut().clear();
    }

    /// The reading of `text`, the JSON string at `path` of `doc`, that the
    /// schemas there want ([`text::reading`]), when it is of the kind asked
    /// for: worked out once per path and document state.
    pub(super) fn reading(
        &self,
        doc: &Value,
        path: &[String],
        text: &str,
        kind: fn(&Value) -> bool,
    ) -> Option<Value> {
        if let Some(read) = self.readings.borrow().get(path) {
            return read.as_ref().filter(|v| kind(v)).cloned();
        }
        let read = text::reading(text, &self.wanted(doc, path), text::Source::Json);
        let wanted = read.as_ref().filter(|v| kind(v)).cloned();
        self.readings.borrow_mut().insert(path.to_vec(), read);
        wanted
    }

    /// The object at `path` of `doc` and what is declared for it, indexed once
    /// per document state.
    pub(super) fn object(&self, doc: &Value, path: &[String]) -> Rc<Object<'a>> {
        if let Some(found) = self.objects.borrow().get(path) {
            return Rc::clone(found);
        }
        let properties = self.wanted(doc, path).properties;
        let mut declared_by_norm: HashMap<String, Vec<&'a str>> = HashMap::new();
        for p in &properties {
            declared_by_norm.entry(normalise(p)).or_default().push(p);
        }
        let mut keys_by_norm: HashMap<String, Vec<String>> = HashMap::new();
        if let Some(object) = get(doc, path).and_then(Value::as_object) {
            for k in object.keys() {
                keys_by_norm
                    .entry(normalise(k))
                    .or_default()
                    .push(k.clone());
            }
        }
        let built = Rc::new(Object {
            declared: properties.iter().copied().collect(),
            declared_by_norm,
            keys_by_norm,
            near: suggest::NearMisses::new(&properties),
        });
        self.objects
            .borrow_mut()
            .insert(path.to_vec(), Rc::clone(&built));
        built
    }

    /// Follows `$ref` (as the validator resolves it) and the branches of
    /// allOf/anyOf/oneOf: every schema that may apply to the same value.
    pub(super) fn expand(&self, node: At<'a>, out: &mut Vec<At<'a>>, depth: usize) {
        if depth > 32 {
            return;
        }
        out.push(node.clone());
        let Value::Object(map) = node.schema else {
            return;
        };
        // The keywords followed, found in one pass over the schema's keys (a
        // schema has few; a lookup each would hash every name).
        let mut reference = None;
        let mut branches: [Option<&'a Vec<Value>>; 3] = [None; 3];
        for (key, value) in map {
            match key.as_str() {
                "$ref" => reference = value.as_str(),
                "allOf" => branches[0] = value.as_array(),
                "anyOf" => branches[1] = value.as_array(),
                "oneOf" => branches[2] = value.as_array(),
                _ => {}
            }
        }
        if let Some(target) = reference.and_then(|r| node.target_of(r)) {
            self.expand(target, out, depth + 1);
        }
        for b in branches.into_iter().flatten().flatten() {
            self.expand(node.child(b), out, depth + 1);
        }
    }

    /// All schemas that apply at `path` of `instance`.
    pub(super) fn at(&self, instance: &Value, path: &[String]) -> Vec<At<'a>> {
        let mut current = Vec::new();
        self.expand(self.tool.root(), &mut current, 0);
        let mut value = Some(instance);
        for seg in path {
            let mut next = Vec::new();
            let index = match value {
                Some(Value::Array(_)) => seg.parse::<usize>().ok(),
                _ => None,
            };
            for node in &current {
                for child in step(node.schema, seg, index) {
                    self.expand(node.child(child), &mut next, 0);
                }
            }
            value = value.and_then(|v| match (v, index) {
                (Value::Array(items), Some(i)) => items.get(i),
                (Value::Object(m), _) => m.get(seg.as_str()),
                _ => None,
            });
            current = next;
        }
        current
    }

    pub(super) fn wanted(&self, instance: &Value, path: &[String]) -> Wanted<'a> {
        let mut w = Wanted::default();
        for node in self.at(instance, path) {
            let Value::Object(m) = node.schema else {
                continue;
            };
            // The keywords looked at, found in one pass over the schema's keys
            // (a schema has few; a lookup each would hash every name).
            let mut k = Keywords::default();
            for (key, value) in m {
                let slot = match key.as_str() {
                    "type" => &mut k.type_,
                    "properties" => &mut k.properties,
                    "items" => &mut k.items,
                    "prefixItems" => &mut k.prefix_items,
                    "enum" => &mut k.enum_,
                    "const" => &mut k.const_,
                    "required" => &mut k.required,
                    "format" => &mut k.format,
                    "pattern" => &mut k.pattern,
                    _ => continue,
                };
                *slot = Some(value);
            }
            match k.type_ {
                Some(Value::String(t)) => w.types.push(t),
                Some(Value::Array(ts)) => w.types.extend(ts.iter().filter_map(Value::as_str)),
                _ => {
                    if k.properties.is_some() {
                        w.types.push("object");
                    }
                    if k.items.is_some() || k.prefix_items.is_some() {
                        w.types.push("array");
                    }
                }
            }
            if let Some(Value::Array(opts)) = k.enum_ {
                w.enums.extend(opts.iter());
            }
            if let Some(c) = k.const_ {
                w.enums.push(c);
            }
            if let Some(Value::Array(req)) = k.required {
                w.required.extend(req.iter().filter_map(Value::as_str));
            }
            if let Some(Value::Object(props)) = k.properties {
                w.properties.extend(props.keys().map(String::as_str));
            }
            if let Some(Value::String(f)) = k.format {
                w.formats.push(f);
            }
            if let Some(Value::String(p)) = k.pattern {
                w.patterns.push(p);
            }
        }
        w
    }
}

/// The subschemas for one step into an object key or array index.
pub(super) fn step<'a>(schema: &'a Value, seg: &str, index: Option<usize>) -> Vec<&'a Value> {
    let Value::Object(m) = schema else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match index {
        Some(i) => {
            if let Some(Value::Array(prefix)) = m.get("prefixItems") {
                match prefix.get(i) {
                    Some(s) => out.push(s),
                    None => out.extend(m.get("items")),
                }
            } else {
                match m.get("items") {
                    // Draft 4-7 tuple form.
                    Some(Value::Array(tuple)) => match tuple.get(i) {
                        Some(s) => out.push(s),
                        None => out.extend(m.get("additionalItems")),
                    },
                    Some(s) => out.push(s),
                    None => {}
                }
            }
        }
        None => match m.get("properties").and_then(|p| p.get(seg)) {
            Some(s) => out.push(s),
            None => out.extend(m.get("additionalProperties").filter(|s| s.is_object())),
        },
    }
    out
}
