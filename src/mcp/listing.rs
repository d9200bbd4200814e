//! Learning the server's tools: the proxy's own `tools/list` requests, page
//! by page, read without what the proxy does not use, capped at
//! [`MAX_TOOLS`], [`MAX_LIST_BYTES`] and [`MAX_LIST_PAGES`]; held calls are
//! judged once the list is in.

use std::collections::HashMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use super::{FromClient, MAX_LIST_BYTES, MAX_LIST_PAGES, MAX_TOOLS, Out, Proxy, key};
use crate::registry::Registry;

/// The proxy's own `tools/list`, page by page.
#[derive(Debug)]
pub(super) struct Fetch {
    /// The id (as JSON text) of the page asked for.
    pub(super) id: String,
    gathered: Gathered,
    pages: usize,
    bytes: usize,
    /// A `list_changed` came while this listing was on its way: start again.
    stale: bool,
    /// Calls waited [`LIST_WAIT`](super::LIST_WAIT) for this listing: no more
    /// are held for it.
    pub(super) late: bool,
}

#[derive(Debug)]
pub(super) enum Listing {
    /// The client has not initialised the session yet.
    Idle,
    Fetching(Fetch),
    Done,
}

/// A `tools/list` answer, read without what the proxy does not use (tool
/// descriptions, annotations, output schemas, tools past [`MAX_TOOLS`]).
#[derive(Deserialize)]
pub(super) struct Page {
    #[serde(default)]
    pub(super) result: Option<PageResult>,
    #[serde(default)]
    pub(super) error: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct PageResult {
    #[serde(default)]
    pub(super) tools: Tools,
    #[serde(default, rename = "nextCursor")]
    pub(super) next_cursor: Option<Value>,
}

/// The tools of a listing's pages: the first [`MAX_TOOLS`] names, in order; a
/// name listed again keeps its first place and takes its later schema.
#[derive(Debug, Default)]
pub(super) struct Gathered {
    pub(super) tools: Vec<(String, Value)>,
    index: HashMap<String, usize>,
    /// Entries of the lists that are not a tool with a name and an `inputSchema`.
    pub(super) unusable: usize,
}

impl Gathered {
    /// Adds one page's tools; whether any were left out, past [`MAX_TOOLS`].
    pub(super) fn add(&mut self, page: &Tools) -> bool {
        self.unusable = self.unusable.saturating_add(page.unusable);
        for (name, schema) in &page.kept {
            if let Some(&i) = self.index.get(name) {
                if let Some(slot) = self.tools.get_mut(i) {
                    slot.1 = schema.clone();
                }
                continue;
            }
            if self.tools.len() >= MAX_TOOLS {
                return true;
            }
            self.index.insert(name.clone(), self.tools.len());
            self.tools.push((name.clone(), schema.clone()));
        }
        page.more
    }
}

/// A page's tools: the first [`MAX_TOOLS`] names that have an `inputSchema`
/// (a name listed twice: its later schema, in its first place), and whether
/// more came.
#[derive(Default)]
pub(super) struct Tools {
    kept: Vec<(String, Value)>,
    more: bool,
    /// Entries that are not a tool with a name and an `inputSchema`.
    unusable: usize,
}

impl<'de> Deserialize<'de> for Tools {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Tools;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of tools")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Tools, A::Error> {
                let mut tools = Tools::default();
                let mut index = HashMap::new();
                while tools.kept.len() < MAX_TOOLS {
                    match seq.next_element::<Tool>()? {
                        Some(Tool(Some((name, schema)))) => match index.get(&name) {
                            Some(&i) => {
                                if let Some(slot) = tools.kept.get_mut(i) {
                                    *slot = (name, schema);
                                }
                            }
                            None => {
                                index.insert(name.clone(), tools.kept.len());
                                tools.kept.push((name, schema));
                            }
                        },
                        Some(Tool(None)) => tools.unusable = tools.unusable.saturating_add(1),
                        None => return Ok(tools),
                    }
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    tools.more = true;
                }
                Ok(tools)
            }
        }
        d.deserialize_any(Visit)
    }
}

/// One tool's name and `inputSchema`, if it is an object that has both.
struct Tool(Option<(String, Value)>);

impl<'de> Deserialize<'de> for Tool {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Tool;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tool")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Tool, A::Error> {
                let (mut name, mut schema) = (None, None);
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*k {
                        "name" => name = map.next_value::<Value>()?.as_str().map(str::to_owned),
                        "inputSchema" => schema = Some(map.next_value::<Value>()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Tool(name.zip(schema)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Tool, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Tool(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Tool, E> {
                Ok(Tool(None))
            }
            fn visit_unit<E>(self) -> Result<Tool, E> {
                Ok(Tool(None))
            }
        }
        d.deserialize_any(Visit)
    }
}

impl Proxy {
    /// The tools changed: forget them and list them again.
    pub(super) fn forget(&mut self) {
        self.registry = Registry::default();
        match &mut self.listing {
            Listing::Idle => {}
            Listing::Fetching(fetch) => fetch.stale = true,
            Listing::Done => self.start_listing(),
        }
    }

    /// Asks the server for the first page of its tools.
    pub(super) fn start_listing(&mut self) {
        let id = self.own_id();
        self.listing = Listing::Fetching(Fetch {
            id: key(&id),
            gathered: Gathered::default(),
            pages: 0,
            bytes: 0,
            stale: false,
            late: false,
        });
        self.request_page(&id, None);
    }

    fn request_page(&mut self, id: &Value, cursor: Option<&Value>) {
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        if let (Some(cursor), Some(map)) = (cursor, request.as_object_mut()) {
            map.insert("params".into(), json!({ "cursor": cursor }));
        }
        self.own.insert(key(id));
        self.out.push(Out::Server(request.to_string().into_bytes()));
    }

    /// An id for the proxy's own request: a string no pending client request
    /// uses (and a client request that uses one later is refused).
    fn own_id(&mut self) -> Value {
        loop {
            self.next_own += 1;
            let id = Value::String(format!("callfix-tools-list-{}", self.next_own));
            if !self.pending.contains_key(&key(&id)) {
                return id;
            }
        }
    }

    /// The answer to the proxy's own `tools/list` request `id`.
    pub(super) fn list_page(&mut self, id: &str, line: &[u8]) {
        let Listing::Fetching(fetch) = &mut self.listing else {
            return;
        };
        if fetch.id != id {
            return; // an answer to a listing started over
        }
        if fetch.stale {
            self.start_listing();
            return;
        }
        let page = serde_json::from_slice::<Page>(line).ok();
        let Some(result) = page.as_ref().and_then(|p| p.result.as_ref()) else {
            let error = page.and_then(|p| p.error).unwrap_or(Value::Null);
            if error.get("code").and_then(Value::as_i64) != Some(-32601) {
                let why = error.get("message").and_then(Value::as_str);
                self.warn(format!(
                    "the MCP server did not list its tools ({}): calls are forwarded unjudged",
                    why.unwrap_or("no result")
                ));
            }
            self.finish_listing();
            return;
        };
        fetch.pages += 1;
        fetch.bytes = fetch.bytes.saturating_add(line.len());
        let mut warning = None;
        if fetch.bytes > MAX_LIST_BYTES {
            warning = Some(format!(
                "the MCP server's tool list is larger than {MAX_LIST_BYTES} bytes: the tools past it are not learned, and calls to them are forwarded unjudged"
            ));
        } else {
            if fetch.gathered.add(&result.tools) {
                warning = Some(format!(
                    "the MCP server lists more than {MAX_TOOLS} tools: only the first {MAX_TOOLS} are learned, and calls to the others are forwarded unjudged"
                ));
            }
        }
        let cursor = result.next_cursor.as_ref().filter(|c| !c.is_null());
        if warning.is_none()
            && let Some(cursor) = cursor
        {
            if fetch.pages < MAX_LIST_PAGES {
                let next = cursor.clone();
                let id = self.own_id();
                if let Listing::Fetching(fetch) = &mut self.listing {
                    fetch.id = key(&id);
                }
                self.request_page(&id, Some(&next));
                return;
            }
            warning = Some(format!(
                "the MCP server's tool list has more than {MAX_LIST_PAGES} pages: the tools past them are not learned, and calls to them are forwarded unjudged"
            ));
        }
        if let Some(warning) = warning {
            self.warn(warning);
        }
        self.finish_listing();
    }

    /// The listing is over: learn what it gathered and release the held calls.
    pub(super) fn finish_listing(&mut self) {
        let listing = std::mem::replace(&mut self.listing, Listing::Done);
        if let Listing::Fetching(fetch) = listing {
            self.registry = Registry::from_schemas(fetch.gathered.tools);
        }
        let held = std::mem::take(&mut self.held);
        for h in held {
            let Ok((message, repeated)) = crate::json::parse_once(&h.line) else {
                continue; // it was read as JSON when it was held
            };
            let (action, judged) = self.judge(message, &h.line, repeated);
            if let Some(judged) = judged {
                self.out.push(Out::Log(Box::new(judged)));
            }
            match action {
                FromClient::Forward | FromClient::Hold | FromClient::Drop => {
                    self.pending.insert(h.key, h.id);
                    self.out.push(Out::Server(h.line));
                }
                FromClient::Rewrite(out) => {
                    self.pending.insert(h.key, h.id);
                    self.out.push(Out::Server(out));
                }
                FromClient::Answer(out) => self.out.push(Out::Client(out)),
            }
        }
    }
}
