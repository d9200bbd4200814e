use super::*;
use serde_json::json;

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn found<'a>(reg: &'a Registry, name: &str) -> &'a Tool {
    match reg.lookup(name) {
        Lookup::Found(t) => t,
        other => panic!("{name}: {other:?}"),
    }
}

fn broken(reg: &Registry, name: &str) -> String {
    match reg.lookup(name) {
        Lookup::Broken(e) => crate::error::Chain(e).to_string(),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn directory_is_indexed_by_stem_and_compiled_lazily() {
    let dir = dir_with(&[
        ("read.json", r#"{"type":"object","required":["p"]}"#),
        ("broken.json", "{nope"),
        ("_defs.json", r#"{"$defs":{}}"#),
        ("notes.txt", "x"),
    ]);
    let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
    assert_eq!(reg.names().collect::<Vec<_>>(), ["broken", "read"]);
    assert!(!found(&reg, "read").is_valid(&json!({})));
    assert!(broken(&reg, "broken").contains("broken.json: not valid JSON"));
    assert!(matches!(reg.lookup("../read"), Lookup::Unknown));
    assert!(matches!(reg.lookup("notes"), Lookup::Unknown));
}

/// A lone directory is kept as listed: its names come out sorted all the same,
/// and lookups answer alike before the index is built (the first few, by
/// comparing names) and after, for every name, as two sources (indexed while
/// loading) answer.
#[test]
fn a_lone_directory_answers_as_an_indexed_one() {
    let names: Vec<String> = (0..40)
        .map(|i| format!("t{}_{}", (i * 7919) % 97, i))
        .collect();
    let files: Vec<(String, &str)> = names
        .iter()
        .map(|n| (format!("{n}.json"), r#"{"type":"object"}"#))
        .collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(f, t)| (f.as_str(), *t)).collect();
    let dir = dir_with(&refs);
    let empty = tempfile::tempdir().unwrap();
    let lone = Registry::load(&[dir.path().to_owned()]).unwrap();
    let indexed = Registry::load(&[empty.path().to_owned(), dir.path().to_owned()]).unwrap();
    assert!(lone.lone.is_some() && indexed.lone.is_none());
    let mut sorted = names.clone();
    sorted.sort();
    // Lookups before the names are sorted, across the switch to the index.
    for name in ["T0_0", "nope"]
        .into_iter()
        .chain(names.iter().map(String::as_str))
    {
        assert_eq!(lone.contains(name), indexed.contains(name), "{name}");
        assert_eq!(lone.source(name), indexed.source(name), "{name}");
    }
    assert!(
        lone.by_name.get().is_some(),
        "a stream of lookups builds the index"
    );
    assert_eq!(lone.names().collect::<Vec<_>>(), sorted);
    assert_eq!(indexed.names().collect::<Vec<_>>(), sorted);
    assert_eq!(lone.closest("t0_O"), indexed.closest("t0_O"));
    assert_eq!(
        lone.same_normalised("T0-0"),
        indexed.same_normalised("T0-0")
    );
    assert!(matches!(lone.lookup("t0_0"), Lookup::Found(_)));
}

#[test]
fn sibling_ref_works_and_escaping_ref_is_refused() {
    let dir = dir_with(&[
        (
            "_defs.json",
            r#"{"$defs":{"path":{"type":"string","minLength":1}}}"#,
        ),
        (
            "read.json",
            r#"{"type":"object","properties":{"p":{"$ref":"_defs.json#/$defs/path"}}}"#,
        ),
        (
            "evil.json",
            r#"{"type":"object","properties":{"p":{"$ref":"../../../../etc/hostname"}}}"#,
        ),
        (
            "remote.json",
            r#"{"properties":{"p":{"$ref":"https://example.com/s.json"}}}"#,
        ),
    ]);
    let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
    let read = found(&reg, "read");
    assert!(read.is_valid(&json!({"p": "a"})));
    assert!(!read.is_valid(&json!({"p": ""})));
    let evil = broken(&reg, "evil");
    assert!(evil.starts_with(&format!("{}", dir.path().join("evil.json").display())));
    let remote = broken(&reg, "remote");
    assert!(remote.contains("https://example.com/s.json"), "{remote}");
    assert!(remote.contains("never fetches"), "{remote}");
}

#[test]
fn tool_list_files_in_every_provider_shape() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let shapes = [
        json!([{"type": "function", "function": {"name": "a", "parameters": schema}}]),
        json!({"model": "m", "tools": [{"type": "function", "function": {"name": "a", "parameters": schema}}]}),
        json!([{"type": "function", "name": "a", "parameters": schema}]),
        json!([{"name": "a", "input_schema": schema}]),
        json!({"tools": [{"name": "a", "inputSchema": schema}]}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a", "inputSchema": schema}]}}),
        json!({"functionDeclarations": [{"name": "a", "parameters": schema}]}),
        json!({"tools": [{"functionDeclarations": [{"name": "a", "parameters": schema}]}]}),
    ];
    for shape in shapes {
        let dir = dir_with(&[("tools.json", &shape.to_string())]);
        let reg = Registry::load(&[dir.path().join("tools.json")]).unwrap();
        assert_eq!(reg.names().collect::<Vec<_>>(), ["a"], "{shape}");
        let a = found(&reg, "a");
        assert!(a.is_valid(&json!({"q": "x"})));
        assert!(!a.is_valid(&json!({"q": 1})));
    }
}

#[test]
fn single_schema_file_is_named_by_stem() {
    let dir = dir_with(&[("grep.json", r#"{"type":"object"}"#)]);
    let reg = Registry::load(&[dir.path().join("grep.json")]).unwrap();
    assert_eq!(reg.names().collect::<Vec<_>>(), ["grep"]);
}

#[test]
fn missing_source_and_unrecognised_file_are_source_errors() {
    let err = Registry::load(&[PathBuf::from("/no/such/dir")]).unwrap_err();
    assert_eq!(
        crate::error::Chain(&err).to_string(),
        "schema source /no/such/dir: no such file or directory"
    );
    assert!(matches!(err.problem, SourceProblem::Io(_)));
    let dir = dir_with(&[("x.json", "[1,2]")]);
    let err = Registry::load(&[dir.path().join("x.json")]).unwrap_err();
    assert!(matches!(err.problem, SourceProblem::Unrecognised));
}

#[test]
fn duplicate_names_keep_the_first_and_warn() {
    let a = dir_with(&[("read.json", r#"{"type":"object"}"#)]);
    let b = dir_with(&[("read.json", r#"{"type":"string"}"#)]);
    let reg = Registry::load(&[a.path().to_owned(), b.path().to_owned()]).unwrap();
    assert_eq!(reg.len(), 1);
    assert_eq!(reg.warnings().count(), 1);
    assert!(found(&reg, "read").is_valid(&json!({})));
}

#[test]
fn drafts_are_chosen_by_schema_keyword() {
    // Draft 4 exclusiveMinimum is a boolean; 2020-12 would reject it.
    let dir = dir_with(&[(
        "d4.json",
        r#"{"$schema":"http://json-schema.org/draft-04/schema#","type":"object",
            "properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}"#,
    )]);
    let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
    let t = found(&reg, "d4");
    assert!(!t.is_valid(&json!({"n": 0})));
    assert!(t.is_valid(&json!({"n": 1})));
}

/// A lone directory answers a call for one of its tools from that tool's own
/// file (where the file system compares names exactly), and is listed only
/// when a lookup needs more; the tool found first is the listing's tool too.
#[test]
fn a_lone_directory_is_listed_only_when_a_lookup_needs_it() {
    let root = dir_with(&[("outside.json", r#"{"type":"object"}"#)]);
    let dir = root.path().join("schemas");
    fs::create_dir_all(dir.join("sub")).unwrap();
    for (name, text) in [
        ("read.json", r#"{"type":"object","required":["p"]}"#),
        ("write.json", r#"{"type":"object"}"#),
        ("broken.json", "{nope"),
        ("_defs.json", r#"{"$defs":{}}"#),
        ("sub/inner.json", r#"{"type":"object"}"#),
    ] {
        fs::write(dir.join(name), text).unwrap();
    }
    let reg = Registry::load(std::slice::from_ref(&dir)).unwrap();
    let by_file = reg.lone.as_ref().unwrap().by_file_name();
    let first: *const Tool = found(&reg, "read");
    assert!(reg.contains("read"));
    assert_eq!(reg.source("read"), Some(dir.join("read.json")));
    assert_eq!(
        reg.tools.get().is_none(),
        by_file,
        "listed for its own file"
    );
    assert_eq!(reg.warnings().count(), 0);
    // Names that are no one file of the directory are looked up in the listing.
    for name in [
        "../outside",
        "sub/inner",
        "_defs",
        "",
        "read\0",
        "READ",
        "read.json",
    ] {
        assert!(matches!(reg.lookup(name), Lookup::Unknown), "{name:?}");
    }
    assert!(reg.tools.get().is_some());
    assert!(std::ptr::eq(first, found(&reg, "read")), "compiled once");
    assert!(found(&reg, "write").is_valid(&json!({})));
    assert!(broken(&reg, "broken").contains("broken.json: not valid JSON"));
    assert_eq!(reg.names().collect::<Vec<_>>(), ["broken", "read", "write"]);
}

/// A file name that is not UTF-8 is told once the lone directory is listed:
/// not by a lookup its own file answers, by one that needs the listing.
#[cfg(target_os = "linux")]
#[test]
fn a_lone_directory_tells_its_warnings_when_listed() {
    use std::os::unix::ffi::OsStrExt;
    let dir = dir_with(&[("read.json", r#"{"type":"object"}"#)]);
    let bad = std::ffi::OsStr::from_bytes(b"bad\xff.json");
    fs::write(dir.path().join(bad), "{}").unwrap();
    let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
    found(&reg, "read");
    let by_file = reg.lone.as_ref().unwrap().by_file_name();
    assert_eq!(reg.warnings().count(), usize::from(!by_file));
    assert!(!reg.contains("nope"));
    let warnings: Vec<&str> = reg.warnings().collect();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].ends_with(": file name is not UTF-8; skipped"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Whatever a lone directory holds and whatever names are asked in
    /// whatever order, it answers as the same directory indexed while
    /// loading (beside an empty one): found, broken or unknown, from the same
    /// file, with the same names and warnings in the end.
    #[test]
    fn a_lone_directory_answers_as_one_listed_at_once(
        files in proptest::collection::btree_map("[a-cA-C_. é\\\\]{0,3}|x{248,252}", 0..3u8, 0..8),
        asked in proptest::collection::vec("[a-cA-C_./ é\\\\\0]{0,4}|\\.\\./x|x{248,252}", 0..8),
    ) {
        let root = dir_with(&[("x.json", "{}")]);
        let dir = root.path().join("d");
        fs::create_dir(&dir).unwrap();
        for (stem, kind) in &files {
            let path = dir.join(format!("{stem}.json"));
            // Two stems that one case-folding file system takes as one file;
            // a name too long for one.
            if path.exists() || stem.len() > 250 {
                continue;
            }
            match kind {
                0 => fs::write(&path, r#"{"type":"object"}"#).unwrap(),
                1 => fs::write(&path, "{nope").unwrap(),
                _ => fs::create_dir(&path).unwrap(),
            }
        }
        let empty = tempfile::tempdir().unwrap();
        let lone = Registry::load(std::slice::from_ref(&dir)).unwrap();
        let indexed = Registry::load(&[empty.path().to_owned(), dir.clone()]).unwrap();
        let kind = |reg: &Registry, name: &str| match reg.lookup(name) {
            Lookup::Found(t) => format!("found {}", t.name),
            Lookup::Broken(e) => format!("broken {}", crate::error::Chain(e)),
            Lookup::Unknown => "unknown".to_owned(),
        };
        for name in &asked {
            proptest::prop_assert_eq!(kind(&lone, name), kind(&indexed, name), "{:?}", name);
            proptest::prop_assert_eq!(lone.source(name), indexed.source(name));
        }
        proptest::prop_assert_eq!(lone.names().collect::<Vec<_>>(), indexed.names().collect::<Vec<_>>());
        proptest::prop_assert_eq!(lone.warnings().collect::<Vec<_>>(), indexed.warnings().collect::<Vec<_>>());
    }
}

/// On Linux, a directory on ext4 or tmpfs (where tests make theirs) is asked
/// for a tool's file by name: the file system's kind and the directory's
/// flags are read as they should be.
#[cfg(target_os = "linux")]
#[test]
fn a_directory_on_ext4_or_tmpfs_is_asked_by_file_name() {
    let dir = dir_with(&[("read.json", "{}")]);
    let kind = rustix::fs::statfs(dir.path()).unwrap().f_type as u32;
    let lone = Registry::load(&[dir.path().to_owned()]).unwrap();
    if matches!(kind, 0xEF53 | 0x0102_1994) {
        assert!(lone.lone.as_ref().unwrap().by_file_name());
    }
}

/// A lone directory removed after the registry loaded: the tool found by its
/// file before is still known; the listing then says why it holds nothing.
#[test]
fn a_lone_directory_removed_after_loading_warns_when_listed() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("d");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("read.json"), r#"{"type":"object"}"#).unwrap();
    let reg = Registry::load(std::slice::from_ref(&dir)).unwrap();
    let by_file = reg.lone.as_ref().unwrap().by_file_name();
    if by_file {
        found(&reg, "read");
    }
    fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(reg.lookup("write"), Lookup::Unknown));
    assert_eq!(reg.contains("read"), by_file);
    assert_eq!(reg.len(), 0);
    let warnings: Vec<&str> = reg.warnings().collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .ends_with("could not be listed (no such file or directory); no tool in it is known"),
        "{warnings:?}"
    );
}

/// Once the listing began, no tool is found by its file's name any more: a
/// thread that checked the file before the listing and names the tool after
/// it (`by_file_name` is that second step) gets the listing's entry, so a
/// name has one compiled tool whichever thread wins.
#[test]
fn no_tool_is_named_once_the_listing_began() {
    let dir = dir_with(&[("read.json", r#"{"type":"object"}"#), ("write.json", "{}")]);
    let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
    assert!(!reg.contains("nope"));
    assert!(reg.by_file_name("read").is_none());
    let first: *const Tool = found(&reg, "read");
    assert!(std::ptr::eq(first, found(&reg, "read")));
    // Named first, then listed: the name keeps its one tool.
    let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
    if reg.lone.as_ref().unwrap().by_file_name() {
        let named: *const Tool = found(&reg, "read");
        assert_eq!(reg.len(), 2);
        assert!(std::ptr::eq(named, found(&reg, "read")));
    }
}

/// A tool has one validator: arguments read as a tape and as a value get
/// the same answers from it. A schema that will not compile is found either
/// way, and said the same way, located in its file.
#[test]
fn one_validator_answers_the_tape_and_the_value_alike() {
    let dir = dir_with(&[
        (
            "read.json",
            r#"{"type":"object","properties":{"p":{"type":"integer"}}}"#,
        ),
        (
            "broken.json",
            "{\n  \"type\": \"object\",\n  \"minProperties\": \"two\"\n}",
        ),
    ]);
    let reg = Registry::load(&[dir.path().to_owned()]).unwrap();
    let read = reg.tool("read").unwrap();
    assert_eq!(
        read.valid_as_sent(r#"{"p": 1}"#).as_deref(),
        Some(r#"{"p":1}"#)
    );
    assert_eq!(read.valid_as_sent(r#"{"p": "1"}"#), None);
    assert!(read.is_valid(&json!({"p": 1})));
    assert!(!read.is_valid(&json!({"p": "1"})));
    assert!(std::ptr::eq(read, found(&reg, "read")));

    assert!(reg.tool("broken").is_none());
    let first = broken(&reg, "broken");
    let fresh = Registry::load(&[dir.path().to_owned()]).unwrap();
    assert_eq!(first, broken(&fresh, "broken"));
    assert!(first.contains("(at /minProperties)"), "{first}");
    let Lookup::Broken(e) = reg.lookup("broken") else {
        panic!("not broken")
    };
    assert_eq!(e.at.map(|at| at.line), Some(3));
    assert!(reg.tool("nothing").is_none());
}
