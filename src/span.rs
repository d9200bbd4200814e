//! Where a JSON Pointer is in a file's text: line and column of the key (or
//! array element) it names, from a span-aware parse of the text
//! ([`jsonc_parser`], strict JSON). Findings and schema errors point at the
//! offending key itself, not at the first text that looks like it.

use jsonc_parser::ast::{self, ObjectPropName};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions};

use crate::provider::tool_list;

/// A 1-based line and column; the column counts characters (Unicode scalar
/// values), as editors and SARIF's `unicodeCodePoints` do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub col: usize,
}

impl Loc {
    /// The start of a file.
    pub(crate) const START: Loc = Loc { line: 1, col: 1 };

    /// Where byte `offset` of `text` is (clamped to the text, and to a character
    /// boundary).
    pub(crate) fn of(text: &str, offset: usize) -> Loc {
        let offset = offset.min(text.len());
        // The text before the last character boundary at or before `offset`
        // (`..0` is always one).
        let before = (0..=offset)
            .rev()
            .find_map(|at| text.get(..at))
            .unwrap_or_default();
        let last_line = before.rsplit_once('\n').map_or(before, |(_, line)| line);
        Loc {
            line: before.matches('\n').count() + 1,
            col: last_line.chars().count() + 1,
        }
    }
}

impl Loc {
    /// Where column `byte_col` (1-based, in bytes, as `serde_json` counts) of
    /// `line` is; column 0 (the end of the previous line) is taken as column 1.
    pub(crate) fn of_line_byte(text: &str, line: usize, byte_col: usize) -> Loc {
        let start: usize = text
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum();
        let at = Loc::of(text, start + byte_col.saturating_sub(1));
        Loc { line, ..at }
    }
}

/// A JSON text and its syntax tree, parsed once for many lookups.
pub(crate) struct Spanned<'t> {
    text: &'t str,
    root: Option<ast::Value<'t>>,
}

impl std::fmt::Debug for Spanned<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spanned")
            .field("parsed", &self.root.is_some())
            .finish()
    }
}

/// A JSON value inside a [`Spanned`] text (a tool's schema inside a tool list).
#[derive(Clone, Copy)]
pub(crate) struct Node<'a, 't>(&'a ast::Value<'t>);

impl<'t> Spanned<'t> {
    /// Parses `text` as strict JSON; text that does not parse locates everything
    /// at its start.
    pub(crate) fn parse(text: &'t str) -> Self {
        let strict = ParseOptions {
            allow_comments: false,
            allow_loose_object_property_names: false,
            allow_trailing_commas: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            ..ParseOptions::default()
        };
        let root = jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &strict)
            .ok()
            .and_then(|r| r.value);
        Spanned { text, root }
    }

    /// Where the first object that names a key twice does so: the dotted path
    /// of the repeated key (`options.limit`, `items.0.name`). `None` when no key
    /// is repeated, or the text did not parse. The text has been read by
    /// serde_json first, so it nests at most 128 levels. (Argument text is
    /// told its repeated key by `json::parse_str_unrepeated`; tests hold the
    /// two to the same answer.)
    #[cfg(test)]
    pub(crate) fn repeated_key(&self) -> Option<String> {
        self.repeated_keys(1).first().map(|path| path.join("."))
    }

    /// The paths of the keys named twice in one object (each a list of
    /// segments), in document order, at most `most` of them.
    pub(crate) fn repeated_keys(&self, most: usize) -> Vec<Vec<String>> {
        fn walk(
            v: &ast::Value<'_>,
            path: &mut Vec<String>,
            found: &mut Vec<Vec<String>>,
            most: usize,
        ) {
            match v {
                ast::Value::Object(o) => {
                    let mut seen = std::collections::HashSet::new();
                    for p in &o.properties {
                        if found.len() >= most {
                            return;
                        }
                        let name = p.name.as_str();
                        path.push(name.to_owned());
                        if !seen.insert(name) {
                            found.push(path.clone());
                        }
                        walk(&p.value, path, found, most);
                        path.pop();
                    }
                }
                ast::Value::Array(a) => {
                    for (i, item) in a.elements.iter().enumerate() {
                        path.push(i.to_string());
                        walk(item, path, found, most);
                        path.pop();
                    }
                }
                _ => {}
            }
        }
        let mut found = Vec::new();
        if let Some(root) = &self.root {
            walk(root, &mut Vec::new(), &mut found, most);
        }
        found
    }

    /// The whole document.
    pub(crate) fn root(&self) -> Option<Node<'_, 't>> {
        self.root.as_ref().map(Node)
    }

    /// Where `pointer` is in the document: see [`Spanned::within`].
    pub(crate) fn locate(&self, pointer: &str) -> Loc {
        match self.root() {
            Some(root) => self.within(root, pointer),
            None => Loc::START,
        }
    }

    /// Where `pointer`, taken from `node`, is: the key of the member it names (the
    /// element, in an array). A pointer that goes past what the document holds
    /// stops at the deepest part found.
    pub(crate) fn within(&self, node: Node<'_, 't>, pointer: &str) -> Loc {
        let mut here = node.0;
        let mut at = here.range().start;
        for segment in crate::json::pointer_segments(pointer) {
            let next = match here {
                ast::Value::Object(o) => o
                    .properties
                    .iter()
                    .find(|p| prop_name(&p.name) == segment)
                    .map(|p| (p.name.range().start, &p.value)),
                ast::Value::Array(a) => segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.elements.get(i))
                    .map(|v| (v.range().start, v)),
                _ => None,
            };
            let Some((start, value)) = next else { break };
            at = start;
            here = value;
        }
        Loc::of(self.text, at)
    }

    /// The value `node` holds, parsed as JSON.
    pub(crate) fn value(&self, node: Node<'_, 't>) -> Option<serde_json::Value> {
        let range = node.0.range();
        serde_json::from_str(self.text.get(range.start..range.end)?).ok()
    }

    /// The tool named `name` in a tool-list document (an object whose `name` is
    /// that string): where its name is, and its schema (`input_schema`,
    /// `inputSchema`, `parameters` or `parametersJsonSchema`).
    pub(crate) fn tool(&self, name: &str) -> Option<(Loc, Option<Node<'_, 't>>)> {
        let found = find_tool(self.root.as_ref()?, name, 0)?;
        let name_at = prop(found, "name").map_or(found.range().start, |v| v.range().start);
        let schema = tool_list::SCHEMA_KEYS
            .into_iter()
            .find_map(|k| prop(found, k))
            .map(Node);
        Some((Loc::of(self.text, name_at), schema))
    }
}

fn prop_name<'a>(name: &'a ObjectPropName<'_>) -> &'a str {
    match name {
        ObjectPropName::String(s) => &s.value,
        ObjectPropName::Word(w) => w.value,
    }
}

fn prop<'a, 't>(value: &'a ast::Value<'t>, key: &str) -> Option<&'a ast::Value<'t>> {
    match value {
        ast::Value::Object(o) => o
            .properties
            .iter()
            .find(|p| prop_name(&p.name) == key)
            .map(|p| &p.value),
        _ => None,
    }
}

/// The object, in the shapes tool lists nest tools in, whose `name` is `name`.
fn find_tool<'a, 't>(
    value: &'a ast::Value<'t>,
    name: &str,
    depth: usize,
) -> Option<&'a ast::Value<'t>> {
    if depth > 4 {
        return None;
    }
    match value {
        ast::Value::Array(a) => a
            .elements
            .iter()
            .find_map(|v| find_tool(v, name, depth + 1)),
        ast::Value::Object(o) => {
            if matches!(prop(value, "name"), Some(ast::Value::StringLit(s)) if s.value == name) {
                return Some(value);
            }
            o.properties
                .iter()
                .filter(|p| tool_list::NESTING_KEYS.contains(&prop_name(&p.name)))
                .find_map(|p| find_tool(&p.value, name, depth + 1))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_repeated_key_is_named_by_its_path() {
        let repeated = |t: &str| Spanned::parse(t).repeated_key();
        assert_eq!(repeated(r#"{"a":1,"b":2,"a":3}"#).as_deref(), Some("a"));
        assert_eq!(
            repeated(r#"{"x":[1,{"c":{"d":1,"d":1}}]}"#).as_deref(),
            Some("x.1.c.d")
        );
        assert_eq!(repeated(r#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#), None);
        assert_eq!(repeated(r#"{"a\u0062":1,"ab":2}"#).as_deref(), Some("ab"));
        assert_eq!(repeated("not json"), None);
    }

    const SCHEMA: &str = "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"a\": {\"type\": \"string\"},\n    \"é\": {\"type\": \"string\"}, \"b\": {}\n  },\n  \"required\": [\"a\", \"c\"]\n}\n";

    #[test]
    fn a_pointer_is_located_at_its_key_or_element() {
        let s = Spanned::parse(SCHEMA);
        assert_eq!(s.locate(""), Loc::START);
        assert_eq!(s.locate("/properties/a"), Loc { line: 4, col: 5 });
        assert_eq!(s.locate("/properties/a/type"), Loc { line: 4, col: 11 });
        // Columns count characters, not bytes.
        assert_eq!(s.locate("/properties/b"), Loc { line: 5, col: 30 });
        assert_eq!(s.locate("/required/1"), Loc { line: 7, col: 21 });
    }

    #[test]
    fn a_serde_json_position_becomes_a_character_column() {
        let text = "{\n  \"é\": tru\n";
        // serde_json: line 2, byte column 9 (the `u` of `tru`, after two-byte é).
        assert_eq!(Loc::of_line_byte(text, 2, 9), Loc { line: 2, col: 8 });
        assert_eq!(Loc::of_line_byte(text, 3, 0), Loc { line: 3, col: 1 });
    }

    #[test]
    fn a_key_is_found_where_it_is_not_where_its_text_first_appears() {
        // "type" first appears as a value, then as the key the pointer names.
        let text = "{\"description\": \"type\",\n \"properties\": {\"x\": {\"type\": 1}}}";
        let s = Spanned::parse(text);
        assert_eq!(s.locate("/properties/x/type"), Loc { line: 2, col: 23 });
    }

    #[test]
    fn a_pointer_past_the_document_stops_at_the_deepest_part_found() {
        let s = Spanned::parse(SCHEMA);
        assert_eq!(s.locate("/properties/a/nope/x"), Loc { line: 4, col: 5 });
        assert_eq!(Spanned::parse("{not json").locate("/a"), Loc::START);
    }

    #[test]
    fn a_tool_in_a_list_is_found_by_name_with_its_schema() {
        let text = r#"[
  {"type": "function", "function": {"name": "a", "parameters": {}}},
  {"type": "function", "function": {
    "name": "b",
    "parameters": {"type": "object", "required": ["x"]}}}
]"#;
        let s = Spanned::parse(text);
        let (at, schema) = s.tool("b").unwrap();
        assert_eq!(at, Loc { line: 4, col: 13 });
        assert_eq!(
            s.within(schema.unwrap(), "/required/0"),
            Loc { line: 5, col: 51 }
        );
        assert!(s.tool("c").is_none());
    }
}
