//! The settle step: what every surface does with a call once it is judged.
//!
//! A call is judged ([`Judge::judge`], pure: the filter runs it on worker
//! threads), then settled in order ([`Judge::settle`]): a rejection is counted
//! in its conversation's loop memory and, past the loop limit, told to stop;
//! its message is worded; the result is counted for `--stats`. The filter, the
//! MCP proxy, `callfix hook`, `Toolset` and its `Session` all take this one
//! step; they differ only in where repeats are kept ([`Tally`]).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use super::{Options, Summary, lone_surrogate};
use crate::message::{self, Style};
use crate::provider::{Args, Call};
use crate::registry::{AsSent, Registry};
use crate::repair::Policy;
use crate::verdict::{self, Status, Verdict};

/// How calls are judged and settled: the tools, the message style, the
/// repairs that run and the loop limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Judge<'a> {
    /// The tools calls are checked against.
    pub registry: &'a Registry,
    /// How messages are worded.
    pub style: &'a Style,
    /// Which repairs run.
    pub policy: Policy,
    /// The same rejected call this many times in one conversation is told to
    /// stop (0: never).
    pub loop_limit: u32,
}

/// Where the settle step counts a call.
pub(crate) enum Tally<'m> {
    /// Nowhere: no loop detection, no statistics (`Toolset::check`).
    Nothing,
    /// Repeats in a store of the caller's (a conversation of a run's
    /// [`Loops`], a `callfix hook` session's file); no statistics.
    Repeats(&'m mut dyn Repeats),
    /// A run's: repeats in the summary's loop memory under `conversation`, the
    /// result in its counts (the filter, the MCP proxy).
    Run(&'m mut Summary, &'m Conversation<'m>),
}

impl std::fmt::Debug for Tally<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Tally::Nothing => "Nothing",
            Tally::Repeats(_) => "Repeats",
            Tally::Run(..) => "Run",
        })
    }
}

/// A store of one conversation's rejected calls, for loop detection.
pub(crate) trait Repeats {
    /// Counts one more rejection of `verdict`'s call to `tool`: how many there
    /// have been in the conversation, this one included.
    fn count(&mut self, tool: &str, verdict: &Verdict) -> u32;
}

impl<'a> Judge<'a> {
    /// The judge a run's `options` describe, against `registry`.
    pub(crate) fn new(registry: &'a Registry, options: &'a Options) -> Self {
        Judge {
            registry,
            style: &options.style,
            policy: options.policy,
            loop_limit: options.loop_limit,
        }
    }

    /// Judges one call (pure). `masked`: the record's lone surrogate escapes
    /// were masked to parse it, and a call whose arguments hold one is
    /// rejected saying where.
    pub(crate) fn judge(&self, call: &mut Call, masked: bool) -> Verdict {
        if let Some(path) = masked.then(|| lone_surrogate(&call.args)).flatten() {
            return Verdict::invalid(None, vec![message::lone_surrogate(&path)]);
        }
        match self.as_sent(call) {
            Some(Ok(text)) => Verdict::as_sent(text),
            Some(Err(read)) => verdict::judge_read(self.registry, call, self.policy, read),
            None => verdict::judge(self.registry, call, self.policy),
        }
    }

    /// [`Judge::judge`] by the full path alone, without its shortcut (which
    /// the tests pin to this).
    #[cfg(test)]
    pub(crate) fn judge_fully(&self, call: &mut Call) -> Verdict {
        verdict::judge(self.registry, call, self.policy)
    }

    /// The shortcut to "valid as sent" (`crate::tape`): a call whose
    /// arguments came as JSON text its envelope may carry, to a tool by its
    /// exact name, neither read from the model's text nor read two ways: the
    /// compact text (taken out of `call`, as [`verdict::judge`] takes the
    /// arguments), when the validator finds the tape valid; the value it
    /// read, when not (`Err`: the full path takes it for the text's parse).
    /// `None`: the tape did not read it, and the full path decides alone. A
    /// verdict is the same either way (`tape/tests.rs` pins it).
    fn as_sent(&self, call: &mut Call) -> Option<Result<String, Value>> {
        let Args::Text(text) = &call.args else {
            return None;
        };
        if call.leaked.is_some() || call.read_two_ways.is_some() || !call.text_args_allowed() {
            return None;
        }
        let compact = match self.registry.tool(&call.name)?.as_sent(text)? {
            AsSent::Invalid(read) => return Some(Err(read)),
            AsSent::Valid(Cow::Borrowed(_)) => None,
            AsSent::Valid(Cow::Owned(compact)) => Some(compact),
        };
        match std::mem::replace(&mut call.args, Args::Missing) {
            Args::Text(text) => Some(Ok(compact.unwrap_or(text))),
            _ => compact.map(Ok),
        }
    }

    /// Settles a judged call to `tool`, in order: a rejection is counted in
    /// `tally`'s loop memory and, the `loop_limit`th time or later, marked
    /// looped; the message is worded; a run's result is counted.
    pub(crate) fn settle(&self, tool: &str, verdict: &mut Verdict, mut tally: Tally<'_>) {
        if self.loop_limit > 0 && verdict.status == Status::Rejected {
            let times = match tally {
                Tally::Nothing => None,
                Tally::Repeats(ref mut repeats) => Some(repeats.count(tool, verdict)),
                Tally::Run(ref mut summary, conversation) => {
                    Some(summary.loops.count(conversation, tool, verdict))
                }
            };
            if let Some(times) = times.filter(|n| *n >= self.loop_limit) {
                verdict.looped = Some(times);
            }
        }
        verdict.finish(self.style, tool);
        if let Tally::Run(summary, _) = tally {
            summary.count(tool, verdict);
        }
    }

    /// Judges and settles one call: [`Judge::judge`] then [`Judge::settle`].
    pub(crate) fn check(&self, call: &mut Call, tally: Tally<'_>) -> Verdict {
        let mut verdict = self.judge(call, false);
        self.settle(&call.name, &mut verdict, tally);
        verdict
    }
}

/// Counts rejections of identical calls within one conversation, to stop a model
/// that keeps sending the same invalid call. Each call is kept as a fixed-size
/// digest, so memory does not grow with the size of the calls.
#[derive(Debug, Default)]
pub(crate) struct Loops {
    seen: HashMap<u128, u32>,
}

impl Loops {
    /// Distinct rejected calls remembered before the memory is reset.
    const CAPACITY: usize = 100_000;

    /// Counts one more rejection of `verdict`'s call to `tool` in
    /// `conversation`: how many there have been, this one included.
    fn count(&mut self, conversation: &Conversation<'_>, tool: &str, verdict: &Verdict) -> u32 {
        let call = repeat_text(verdict);
        if self.seen.len() >= Self::CAPACITY {
            self.seen.clear();
        }
        let n = self
            .seen
            .entry(digest(&[
                conversation.kind(),
                conversation.id(),
                tool,
                &call,
            ]))
            .or_insert(0);
        *n += 1;
        *n
    }

    /// This memory seen from one conversation: where the settle step counts
    /// its repeats.
    pub(crate) fn within<'m>(&'m mut self, conversation: &'m Conversation<'m>) -> Within<'m> {
        Within {
            loops: self,
            conversation,
        }
    }
}

/// A run's loop memory ([`Loops`]) seen from one conversation.
#[derive(Debug)]
pub(crate) struct Within<'m> {
    loops: &'m mut Loops,
    conversation: &'m Conversation<'m>,
}

impl Repeats for Within<'_> {
    fn count(&mut self, tool: &str, verdict: &Verdict) -> u32 {
        self.loops.count(self.conversation, tool, verdict)
    }
}

/// What a rejected call is compared by to find repeats: its arguments with
/// object keys sorted (key order hides no repeat), else its argument text, else
/// its errors. The filter's loop detection and `callfix hook` count by it.
pub(crate) fn repeat_text(verdict: &Verdict) -> String {
    match (verdict.args(), &verdict.raw) {
        (Some(args), _) => canonical(args),
        (None, Some(raw)) => raw.trim().to_owned(),
        (None, None) => verdict
            .errors
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A 128-bit digest of the parts (two SipHash runs with different keys).
fn digest(parts: &[&str]) -> u128 {
    use std::hash::{Hash, Hasher};
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        salt.hash(&mut h);
        parts.hash(&mut h);
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// Which conversation a call belongs to, for loop detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Conversation<'a> {
    /// The value at `--session`'s pointer.
    Session(String),
    /// An input source (stdin, a file), without `--session` or a value there.
    Input(&'a str),
}

impl<'a> Conversation<'a> {
    /// The conversation id of `record` at `--session`'s pointer, if it has one.
    /// Nothing is allocated unless `--session` is set.
    pub(super) fn session(record: &Value, options: &Options) -> Option<String> {
        match options.session.as_deref().and_then(|p| record.pointer(p))? {
            Value::String(id) => Some(id.clone()),
            other => Some(other.to_string()),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Conversation::Session(_) => "session",
            Conversation::Input(_) => "input",
        }
    }

    fn id(&self) -> &str {
        match self {
            Conversation::Session(id) => id,
            Conversation::Input(source) => source,
        }
    }
}

/// JSON with object keys sorted, so that key order does not hide a repeat.
fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&m[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider;
    use serde_json::json;

    fn registry() -> Registry {
        Registry::from_schemas([(
            "read".to_owned(),
            json!({"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}),
        )])
    }

    fn call(args: Value) -> Call {
        let mut call = provider::bare_call("read", String::new());
        call.args = provider::Args::Value(args);
        call.args_as_text = false;
        call
    }

    /// A store that counts every rejection under one key, as the hook's file does.
    #[derive(Default)]
    struct Counter(u32);

    impl Repeats for Counter {
        fn count(&mut self, _: &str, _: &Verdict) -> u32 {
            self.0 += 1;
            self.0
        }
    }

    #[test]
    fn key_order_is_no_new_call() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"d":2,"c":[{"f":3,"e":4}]}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":{"c":[{"e":4,"f":3}],"d":2},"b":1}"#).unwrap();
        assert_eq!(canonical(&a), canonical(&b));
        assert_eq!(canonical(&a), r#"{"a":{"c":[{"e":4,"f":3}],"d":2},"b":1}"#);
    }

    #[test]
    fn a_rejection_is_counted_looped_at_the_limit_worded_and_counted() {
        let (registry, options) = (registry(), Options::default());
        let judge = Judge::new(&registry, &options);
        let mut summary = Summary::default();
        let conversation = Conversation::Input("stdin");
        let looped: Vec<Option<u32>> = (0..4)
            .map(|_| {
                let v = judge.check(
                    &mut call(json!({})),
                    Tally::Run(&mut summary, &conversation),
                );
                assert!(v.message.is_some());
                v.looped
            })
            .collect();
        assert_eq!(looped, [None, None, Some(3), Some(4)]);
        assert_eq!((summary.total.calls, summary.total.rejected), (4, 4));
        // Another conversation's repeats are its own.
        let other = Conversation::Session("s".into());
        let v = judge.check(&mut call(json!({})), Tally::Run(&mut summary, &other));
        assert_eq!(v.looped, None);
    }

    #[test]
    fn only_rejections_are_counted_as_repeats_and_a_limit_of_zero_counts_none() {
        let registry = registry();
        let options = Options::default();
        let judge = Judge::new(&registry, &options);
        let mut counter = Counter::default();
        for _ in 0..3 {
            let v = judge.check(
                &mut call(json!({"path": "/a"})),
                Tally::Repeats(&mut counter),
            );
            assert_eq!((v.status, v.message), (Status::Valid, None));
        }
        assert_eq!(counter.0, 0);
        let never = Judge {
            loop_limit: 0,
            ..judge
        };
        for _ in 0..3 {
            let v = never.check(&mut call(json!({})), Tally::Repeats(&mut counter));
            assert_eq!(v.looped, None);
        }
        assert_eq!(counter.0, 0);
        for _ in 0..3 {
            let v = judge.check(&mut call(json!({})), Tally::Nothing);
            assert_eq!(v.looped, None);
        }
    }

    #[test]
    fn a_masked_lone_surrogate_is_rejected_where_it_is() {
        let (registry, options) = (registry(), Options::default());
        let judge = Judge::new(&registry, &options);
        let masked = format!("a{}b", crate::surrogates::MARK);
        let v = judge.judge(&mut call(json!({"path": masked})), true);
        assert_eq!(v.status, Status::Rejected);
        let v = judge.judge(&mut call(json!({"path": "/a"})), true);
        assert_eq!(v.status, Status::Valid);
    }

    /// Every surface settles through [`Judge`]: no other file judges a call
    /// for a result, marks one looped or words its message (the linter in
    /// `check/` judges leaked calls for their errors only; a broken record's
    /// message is worded where it is made, with no call to settle).
    #[test]
    fn the_settle_step_is_written_once() {
        fn walk(dir: &std::path::Path, depth: u32, out: &mut Vec<std::path::PathBuf>) {
            assert!(depth < 8, "{}", dir.display());
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, depth + 1, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, 0, &mut files);
        let mut copies = Vec::new();
        for file in files {
            let name = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if name == "filter/settle.rs" || name == "verdict.rs" || name.starts_with("check/") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for needle in ["verdict::judge(", ".looped = Some", "loop_limit > 0"] {
                if text.contains(needle) {
                    copies.push(format!("{name}: {needle}"));
                }
            }
        }
        assert!(copies.is_empty(), "settle step copied: {copies:?}");
    }
}
