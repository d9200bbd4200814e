//! The other names a tool is called by, and which declared tools a name that
//! is none of them may mean.
//!
//! Models write a declared tool's name with another case or separators
//! (`ReadFile`, `read-file`), a namespace in front (`functions.read`,
//! `default_api.read`, `server__read`), a special token after it
//! (`read<|channel|>commentary`), or without the toolbox prefix it was
//! declared with (`execute_javascript` for `browser_execute_javascript`). Each
//! reading is a hash lookup in indexes built once per run, so an unknown name
//! costs a few lookups however many tools there are, never a pass over them.
//!
//! Only separated words count: a namespace ends in `.`, `:`, `::`, `/` or two
//! or more `_`; a dropped toolbox prefix is one whole word before `_` or `-`
//! that two declared tools or more start with (`browser_click` beside
//! `browser_execute_javascript`), no verb (`delete_all_files` is not
//! `all_files`), and what is left has two words or more, written as words
//! (`execute_javascript`, not `executejavascript`). So `unread` never means
//! `read`, nor `files` `search_files`, nor `all_instances` a lone
//! `terminate_all_instances`.
//!
//! One side is shortened, never both: a namespace dropped from the called
//! name leaves a declared name as it is (`svn__list`: `list`); a namespace or
//! toolbox dropped from a declared name is matched by the called name whole
//! (`github.create_issue`: `mcp__github__create_issue`). `gitlab.delete_repo`
//! is another toolbox's tool, never `github_delete_repo`.

use std::collections::HashMap;

use super::{FUZZY_TOOLS, Registry};
use crate::suggest::normalise;

/// The other names a tool is called by: lower case without separators (for
/// `rename-tool` and suggestions), sanitised for a provider's API (mapped
/// back), and with namespaces or a toolbox prefix dropped. Built on first
/// need, once per run, so an unknown name costs a lookup, not a pass over
/// every tool.
#[derive(Debug, Default)]
pub(super) struct Aliases {
    /// Each tool's normalised name, in index order.
    normalised: Vec<String>,
    by_normalised: HashMap<String, Vec<usize>>,
    by_sanitised: HashMap<String, Vec<usize>>,
    /// Each tool by the normalised names its namespaces dropped leave
    /// (`mcp__fs__read`: `fsread`, `read`).
    by_tail: HashMap<String, Vec<usize>>,
    /// Each tool by the words its toolbox prefix dropped leaves, in lower case
    /// and joined by `_` (`browser_execute_javascript`: `execute_javascript`).
    by_toolbox: HashMap<String, Vec<usize>>,
}

/// Words that say what a tool does, not which toolbox it is in: never dropped
/// as a prefix, since the name left would not say it (`delete_all_files` is
/// not what `all_files` asks for). Needed beside the rule that a toolbox is
/// shared by two tools: a verb is the prefix most often shared (`delete_user`
/// beside `delete_all_files`). A verb not listed here is dropped only where
/// two declared tools start with it.
const VERBS: [&str; 62] = [
    "add",
    "append",
    "apply",
    "approve",
    "archive",
    "call",
    "cancel",
    "check",
    "clear",
    "close",
    "copy",
    "create",
    "delete",
    "deploy",
    "destroy",
    "disable",
    "do",
    "download",
    "drop",
    "edit",
    "enable",
    "erase",
    "execute",
    "exec",
    "fetch",
    "find",
    "get",
    "insert",
    "install",
    "kill",
    "list",
    "load",
    "make",
    "merge",
    "move",
    "open",
    "patch",
    "post",
    "purge",
    "put",
    "query",
    "read",
    "reboot",
    "remove",
    "rename",
    "reset",
    "restart",
    "revoke",
    "run",
    "save",
    "search",
    "send",
    "set",
    "shutdown",
    "start",
    "stop",
    "terminate",
    "truncate",
    "update",
    "upload",
    "wipe",
    "write",
];

/// A name as words: lower case, `-` as `_`.
fn words(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// At most this many namespace levels are read off a name (declared or
/// called): `a.b.c.d.e.read` is a namespace too deep to be one.
const MAX_LEVELS: usize = 4;

/// The special tokens models write after a name are at most this long.
const MAX_TOKEN: usize = 32;

/// What follows each namespace in `name`, outermost first (`mcp__fs__read`:
/// `fs__read`, `read`). A name starts with a letter or digit; a namespace is
/// ended by `.`, `:`, `::`, `/` or two or more `_`. Any other run of these, or
/// a character no name has, ends the reading: `../schemas/read` is a path,
/// not a namespace.
fn namespace_tails(name: &str) -> Vec<&str> {
    let mut tails = Vec::new();
    let b = name.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphanumeric) {
        return tails;
    }
    let separator = |c: &u8| matches!(c, b'.' | b':' | b'/' | b'_');
    let mut i = 0;
    while let Some(c) = b.get(i) {
        if c.is_ascii_alphanumeric() || *c == b'-' {
            i += 1;
            continue;
        }
        if !separator(c) {
            break;
        }
        let start = i;
        while b.get(i).is_some_and(separator) {
            i += 1;
        }
        let run = name.get(start..i).unwrap_or_default();
        if run == "_" {
            continue;
        }
        let namespace = matches!(run, "." | ":" | "::" | "/") || run.bytes().all(|c| c == b'_');
        match name.get(i..) {
            Some(tail) if namespace && !tail.is_empty() => tails.push(tail),
            _ => break,
        }
        if tails.len() == MAX_LEVELS {
            break;
        }
    }
    tails
}

/// `name` split into one leading toolbox word and the rest
/// (`browser_execute_javascript`: `browser`, `execute_javascript`), when what
/// is left has two words or more and the word is no verb. The word is a
/// toolbox only where two declared tools start with it ([`first_word`]).
fn toolbox_tail(name: &str) -> Option<(&str, &str)> {
    let sep = name.find(['_', '-'])?;
    let (word, rest) = name.split_at(sep);
    let sep_char = rest.chars().next()?;
    let rest = rest.get(1..)?;
    let alnum = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric());
    if VERBS.contains(&word.to_ascii_lowercase().as_str()) {
        return None;
    }
    // Two words or more, joined by the same separator.
    let mut words = rest.split(sep_char);
    let two = words.clone().count() >= 2;
    (alnum(word) && two && words.all(|w| !w.is_empty() && !w.contains(['.', ':', '/'])))
        .then_some((word, rest))
}

/// The first word of `name` before `_` or `-`, in lower case: the toolbox it
/// may be in, when another declared tool starts with it too.
fn first_word(name: &str) -> Option<String> {
    let (word, _) = name.split_once(['_', '-'])?;
    (!word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric()))
        .then(|| word.to_ascii_lowercase())
}

/// `name` with the namespace separators `.`, `:` and `/` read as word
/// separators (`file.read`: `fileread`), normalised.
fn flat(name: &str) -> String {
    normalise(
        &name
            .chars()
            .filter(|c| !matches!(c, '.' | ':' | '/'))
            .collect::<String>(),
    )
}

/// `name` without a special token after it (`read<|channel|>commentary`:
/// `read`): the token is `<|`, letters, digits or `_`, then `|>`; what
/// follows it goes with it.
fn without_token(name: &str) -> Option<&str> {
    let at = name.find("<|")?;
    let (base, token) = name.split_at(at);
    let inner = token.get(2..)?;
    let end = inner.find("|>")?;
    let word = inner.get(..end)?;
    let word_ok = !word.is_empty()
        && word.len() <= MAX_TOKEN
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (!base.is_empty() && word_ok).then_some(base)
}

impl Registry {
    pub(super) fn aliases(&self) -> &Aliases {
        self.aliases.get_or_init(|| {
            let mut a = Aliases::default();
            // How many tools start with each word, under any namespace of
            // theirs: a toolbox is a word two tools or more share.
            let mut sharing: HashMap<String, usize> = HashMap::new();
            for &i in self.order() {
                let name = self.name(i);
                let mut firsts: Vec<String> = std::iter::once(name)
                    .chain(namespace_tails(name))
                    .filter_map(first_word)
                    .collect();
                firsts.sort_unstable();
                firsts.dedup();
                for word in firsts {
                    *sharing.entry(word).or_default() += 1;
                }
            }
            let shared = |word: &str| sharing.get(&word.to_ascii_lowercase()) >= Some(&2);
            for &i in self.order() {
                let name = self.name(i);
                let norm = normalise(name);
                a.by_normalised.entry(norm.clone()).or_default().push(i);
                a.normalised.push(norm);
                let sanitised = crate::provider::provider_name(name);
                if sanitised != name {
                    a.by_sanitised.entry(sanitised).or_default().push(i);
                }
                let tails = namespace_tails(name);
                let mut toolboxes: Vec<String> = std::iter::once(name)
                    .chain(tails.iter().copied())
                    .filter_map(toolbox_tail)
                    .filter(|(word, _)| shared(word))
                    .map(|(_, rest)| words(rest))
                    .collect();
                let mut tails: Vec<String> = tails.into_iter().map(normalise).collect();
                for (keys, map) in [
                    (&mut tails, &mut a.by_tail),
                    (&mut toolboxes, &mut a.by_toolbox),
                ] {
                    keys.sort_unstable();
                    keys.dedup();
                    for key in keys.drain(..) {
                        map.entry(key).or_default().push(i);
                    }
                }
            }
            a
        })
    }

    fn named(&self, hits: Option<&Vec<usize>>) -> Vec<&str> {
        hits.into_iter()
            .flatten()
            .filter_map(|&i| self.tools().entries.get(i))
            .map(|e| self.name_of(e))
            .collect()
    }

    /// The tools whose name normalises (case and separators dropped) to the
    /// same as `name`.
    pub(crate) fn same_normalised(&self, name: &str) -> Vec<&str> {
        self.named(self.aliases().by_normalised.get(&normalise(name)))
    }

    /// The tools whose provider-sanitised name is `name` (but not their own).
    pub(crate) fn sanitised_to(&self, name: &str) -> Vec<&str> {
        self.named(self.aliases().by_sanitised.get(name))
    }

    /// Every tool an unknown `name` may mean, each once, sorted: the same name
    /// but for case and separators once a special token after it
    /// (`read<|channel|>commentary`: `read`) is dropped; with its own
    /// namespaces dropped, the name of a declared tool as it is
    /// (`functions.read`: `read`); or, with nothing dropped from it, the
    /// declared name without namespaces or a toolbox prefix of its own
    /// (`execute_javascript`: `browser_execute_javascript`,
    /// `github.create_issue`: `mcp__github__create_issue`). A namespace dropped
    /// from the call is never combined with one dropped from the declared
    /// name: `mcp__jira__create_issue` is a tool of another server, not
    /// `mcp__github__create_issue`. One tool is one reading; two are none.
    pub(crate) fn meant(&self, name: &str) -> Vec<&str> {
        let a = self.aliases();
        let base = without_token(name).unwrap_or(name);
        let mut hits: Vec<usize> = Vec::new();
        // Nothing dropped from the call: the declared name as written, or
        // without its namespaces or toolbox (`.`, `:`, `/` read as word
        // separators too: `file.read` may be `file_read`).
        for key in [normalise(base), flat(base)] {
            hits.extend(a.by_normalised.get(&key).into_iter().flatten());
            hits.extend(a.by_tail.get(&key).into_iter().flatten());
        }
        hits.extend(a.by_toolbox.get(&words(base)).into_iter().flatten());
        if base != name
            && let Some(i) = self.find(base)
        {
            hits.push(i);
        }
        // The call's namespaces dropped: a declared name as it is.
        for form in namespace_tails(base) {
            hits.extend(self.find(form));
            for key in [normalise(form), flat(form)] {
                hits.extend(a.by_normalised.get(&key).into_iter().flatten());
            }
        }
        hits.sort_unstable();
        hits.dedup();
        let mut names = self.named(Some(&hits));
        names.sort_unstable();
        names
    }

    /// The tool `name` most likely meant ([`crate::suggest::closest`]). Past
    /// [`FUZZY_TOOLS`] tools only a unique normalised match is suggested, so an
    /// unknown name costs a lookup, not a pass over every tool.
    pub(crate) fn closest(&self, name: &str) -> Option<&str> {
        if self.len() > FUZZY_TOOLS {
            return match self.same_normalised(name)[..] {
                [only] => Some(only),
                _ => None,
            };
        }
        let a = self.aliases();
        let names = self.names().zip(&a.normalised);
        crate::suggest::closest_normalised(name, names.map(|(e, n)| (e, n.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn registry(names: &[&str]) -> Registry {
        Registry::from_schemas(names.iter().map(|n| ((*n).to_owned(), json!({}))))
    }

    #[test]
    fn namespaces_are_separated_runs() {
        assert_eq!(namespace_tails("mcp__fs__read"), ["fs__read", "read"]);
        assert_eq!(namespace_tails("functions.read"), ["read"]);
        assert_eq!(namespace_tails("a.b:c/d"), ["b:c/d", "c/d", "d"]);
        assert_eq!(namespace_tails("ns::read"), ["read"]);
        assert_eq!(
            namespace_tails("mcp___fs__read_file"),
            ["fs__read_file", "read_file"]
        );
        // Mixed runs are paths, not namespaces.
        assert!(namespace_tails("a._.b").is_empty());
        assert!(namespace_tails("a/../read").is_empty());
        assert!(namespace_tails("../schemas/read").is_empty());
        assert!(namespace_tails("/etc/passwd").is_empty());
        // One `_` is a word, not a namespace; nothing before or after is none.
        assert!(namespace_tails("read_file").is_empty());
        assert!(namespace_tails(".read").is_empty());
        assert!(namespace_tails("__read").is_empty());
        assert!(namespace_tails("functions.").is_empty());
        // Not a name: no namespace is read past the first odd character.
        assert!(namespace_tails("rm -rf /.read").is_empty());
        assert_eq!(namespace_tails("a.b.c.d.e.f.g").len(), MAX_LEVELS);
        // However long the name, a few tails: each a slice of it, no copy.
        let long = "a.".repeat(500_000);
        assert_eq!(namespace_tails(&long).len(), MAX_LEVELS);
    }

    #[test]
    fn a_toolbox_is_one_word_and_leaves_two() {
        assert_eq!(
            toolbox_tail("browser_execute_javascript"),
            Some(("browser", "execute_javascript"))
        );
        assert_eq!(toolbox_tail("git-list-files"), Some(("git", "list-files")));
        assert_eq!(toolbox_tail("search_files"), None);
        assert_eq!(toolbox_tail("read"), None);
        assert_eq!(toolbox_tail("a_b__c"), None);
        assert_eq!(toolbox_tail("a_b_"), None);
        // A verb is what the tool does, not its toolbox.
        assert_eq!(toolbox_tail("delete_all_files"), None);
        assert_eq!(toolbox_tail("Get-User-Name"), None);
    }

    #[test]
    fn a_token_is_a_word_between_bars() {
        assert_eq!(without_token("read<|channel|>commentary"), Some("read"));
        assert_eq!(without_token("read<|constrain|>json"), Some("read"));
        assert_eq!(without_token("read<|call|>"), Some("read"));
        assert_eq!(without_token("<|channel|>read"), None);
        assert_eq!(without_token("read<|channel"), None);
        assert_eq!(without_token("read<||>"), None);
        assert_eq!(without_token("read<|a b|>"), None);
    }

    #[test]
    fn a_name_means_the_tools_it_may_be() {
        let reg = registry(&[
            "read",
            "search_files",
            "browser_execute_javascript",
            "browser_click",
            "git_list_files",
            "git_status",
            "svn_list_files",
            "svn_status",
            "mcp__github__create_issue",
            "delete_all_files",
        ]);
        for (name, meant) in [
            ("Read", vec!["read"]),
            ("functions.read", vec!["read"]),
            ("default_api.read", vec!["read"]),
            ("server__read", vec!["read"]),
            ("read<|channel|>commentary", vec!["read"]),
            ("functions.Read<|constrain|>json", vec!["read"]),
            ("search__files", vec!["search_files"]),
            ("execute_javascript", vec!["browser_execute_javascript"]),
            ("create_issue", vec!["mcp__github__create_issue"]),
            ("github.create_issue", vec!["mcp__github__create_issue"]),
            ("list_files", vec!["git_list_files", "svn_list_files"]),
            ("unread", vec![]),
            ("files", vec![]),
            ("javascript", vec![]),
            ("issue", vec![]),
            // The toolbox's words, written as words.
            ("Execute-Javascript", vec!["browser_execute_javascript"]),
            ("executejavascript", vec![]),
            // No verb is dropped: `all_files` does not ask to delete.
            ("all_files", vec![]),
        ] {
            assert_eq!(reg.meant(name), meant, "{name}");
        }
        // A declared name and another that ends in it: two readings.
        let reg = registry(&["search_files", "files"]);
        assert_eq!(reg.meant("search__files"), ["files", "search_files"]);
        let reg = registry(&["read", "file_read"]);
        assert_eq!(reg.meant("file.read"), ["file_read", "read"]);
        let reg = registry(&["mcp__fs__read"]);
        assert_eq!(reg.meant("mcp.fs.read"), ["mcp__fs__read"]);
    }

    #[test]
    fn a_namespace_dropped_from_the_call_is_never_another_servers() {
        let reg = registry(&[
            "mcp__github__create_issue",
            "github_delete_repo",
            "github_create_pr",
            "fs__write",
            "list",
            "read",
        ]);
        for (name, meant) in [
            // Another server's or toolbox's tool, not declared here.
            ("gitlab.delete_repo", vec![]),
            ("gitlab__delete_repo", vec![]),
            ("mcp__jira__create_issue", vec![]),
            ("gitlab__create_issue", vec![]),
            ("jira__write", vec![]),
            ("mcp__github__write", vec![]),
            ("functions.delete_repo", vec![]),
            // The called namespace dropped, the rest a declared tool.
            ("svn__list", vec!["list"]),
            ("server__read", vec!["read"]),
            ("functions.read", vec!["read"]),
            ("mcp__fs__write", vec!["fs__write"]),
            ("mcp__github__delete_repo", vec!["github_delete_repo"]),
            // The called namespace is the declared tool's own.
            ("github.delete_repo", vec!["github_delete_repo"]),
            ("github.create_issue", vec!["mcp__github__create_issue"]),
            ("fs.write", vec!["fs__write"]),
            // Nothing dropped from the call: the declared one's dropped.
            ("create_issue", vec!["mcp__github__create_issue"]),
            ("delete_repo", vec!["github_delete_repo"]),
        ] {
            assert_eq!(reg.meant(name), meant, "{name}");
        }
    }

    #[test]
    fn a_toolbox_is_a_prefix_two_tools_share() {
        // Each prefix on one tool only: no toolbox (attack F10).
        let reg = registry(&[
            "terminate_all_instances",
            "purge_user_data",
            "truncate_audit_log",
            "shutdown_web_server",
            "describe_instance",
        ]);
        for name in [
            "all_instances",
            "user_data",
            "audit_log",
            "web_server",
            "ec2.all_instances",
        ] {
            assert!(reg.meant(name).is_empty(), "{name}");
        }
        let reg = registry(&["browser_execute_javascript"]);
        assert!(reg.meant("execute_javascript").is_empty());
        // Shared: a toolbox, also behind a namespace.
        let reg = registry(&["browser_execute_javascript", "browser_click"]);
        assert_eq!(
            reg.meant("execute_javascript"),
            ["browser_execute_javascript"]
        );
        let reg = registry(&[
            "mcp__pw__browser_execute_javascript",
            "mcp__pw__browser_click",
        ]);
        assert_eq!(
            reg.meant("execute_javascript"),
            ["mcp__pw__browser_execute_javascript"]
        );
        // A verb shared by two tools is still what they do, not a toolbox.
        let reg = registry(&[
            "delete_all_files",
            "delete_user",
            "terminate_all_instances",
            "terminate_instance",
        ]);
        assert!(reg.meant("all_files").is_empty());
        assert!(reg.meant("all_instances").is_empty());
    }

    #[test]
    fn a_big_registry_answers_by_lookups() {
        let names: Vec<String> = (0..FUZZY_TOOLS + 10)
            .map(|i| format!("box{}_do_thing{i}", i % 10))
            .collect();
        let reg = Registry::from_schemas(names.iter().map(|n| (n.clone(), json!({}))));
        assert_eq!(reg.meant("do_thing7"), ["box7_do_thing7"]);
        assert!(reg.meant("ns.do_thing7").is_empty());
        assert_eq!(reg.meant("ns__box7_do_thing7"), ["box7_do_thing7"]);
        // A name of a megabyte: a few forms, each one lookup.
        let long = format!("{}<|channel|>x", "ns.".repeat(300_000));
        assert!(reg.meant(&long).is_empty());
    }
}
