//! Listing a schema directory: the tool names it holds, in the order the
//! system lists them, and a warning for each file name that is not UTF-8.
//!
//! A one-call process against a directory of thousands of schemas spends most
//! of what it adds to the floor here (the kernel's part, reading the
//! directory, stays), so on Linux the directory is read with `getdents64`
//! into a buffer on the stack and the tool names are copied straight into one
//! text: no allocation per file (std's `read_dir` makes two), and the names
//! checked as UTF-8 together. Any file name that is not UTF-8 sends the whole
//! directory down the general path (`std::fs::read_dir`), which words the
//! warnings; both paths give the same names in the same order (a test
//! compares them).

use std::fs;
use std::io;
use std::ops::Range;
use std::path::Path;

/// A directory's tool names: one text, and where each name is in it (the
/// text may hold other file names too).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Listed {
    pub(super) text: String,
    pub(super) names: Vec<Range<usize>>,
}

impl Listed {
    /// The tool names, as listed.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        (self.names.iter()).map(|r| self.text.get(r.clone()).unwrap_or_default())
    }
}

/// The tool a directory's file name holds: `<tool>.json`, but `_name.json`
/// holds shared definitions for `$ref`, not a tool.
fn tool_name(file_name: &str) -> Option<&str> {
    let tool = file_name.strip_suffix(".json")?;
    (!tool.is_empty() && !tool.starts_with('_')).then_some(tool)
}

/// The tool names in `dir`, as listed, with a warning pushed for each file
/// name that is not UTF-8 (skipped).
pub(super) fn tool_names(dir: &Path, warnings: &mut Vec<String>) -> io::Result<Listed> {
    #[cfg(target_os = "linux")]
    if let Some(listed) = fast::tool_names(dir)? {
        return Ok(listed);
    }
    general(dir, warnings)
}

/// Through `std::fs::read_dir`: any platform, any file name.
fn general(dir: &Path, warnings: &mut Vec<String>) -> io::Result<Listed> {
    let mut listed = Listed::default();
    for item in fs::read_dir(dir)? {
        let file_name = item?.file_name();
        match file_name.to_str() {
            Some(name) => {
                if let Some(tool) = tool_name(name) {
                    let start = listed.text.len();
                    listed.text.push_str(tool);
                    listed.names.push(start..listed.text.len());
                }
            }
            None => warnings.push(format!(
                "{}: file name is not UTF-8; skipped",
                dir.join(&file_name).display()
            )),
        }
    }
    Ok(listed)
}

#[cfg(target_os = "linux")]
mod fast {
    use std::io;
    use std::mem::MaybeUninit;
    use std::path::Path;

    use rustix::fs::{Mode, OFlags, RawDir};

    use super::Listed;

    /// Bytes read from the directory per `getdents64` call: on the stack, as
    /// a heap block this size would take the allocator a page of its own.
    const BUFFER: usize = 1 << 14;

    /// The tool names in `dir`, or `None` when a file name is not UTF-8 (the
    /// general path lists the directory again and words the warnings).
    pub(super) fn tool_names(dir: &Path) -> io::Result<Option<Listed>> {
        // Opened as `opendir` opens it: a file that is not a directory fails here.
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let file = rustix::fs::open(dir, flags, Mode::empty())?;
        let mut buf = [MaybeUninit::<u8>::uninit(); BUFFER];
        // The tool names, back to back, checked as UTF-8 at the end.
        let mut text: Vec<u8> = Vec::new();
        let mut names = Vec::new();
        let mut entries = RawDir::new(&file, &mut buf);
        while let Some(entry) = entries.next() {
            let entry = entry.map_err(io::Error::from)?;
            let name = entry.file_name().to_bytes();
            // `tool_name`, on bytes: `.json` and `_` are ASCII.
            match name.strip_suffix(b".json") {
                Some(tool @ [first, ..]) if *first != b'_' => {
                    // Text that is UTF-8 as a whole is UTF-8 in each name when
                    // no name starts inside a character.
                    if is_continuation(*first) {
                        return Ok(None);
                    }
                    names.push(text.len()..text.len() + tool.len());
                    text.extend_from_slice(tool);
                }
                _ => {
                    if std::str::from_utf8(name).is_err() {
                        return Ok(None);
                    }
                }
            }
        }
        let Ok(text) = String::from_utf8(text) else {
            return Ok(None);
        };
        Ok(Some(Listed { text, names }))
    }

    /// Whether `byte` continues a UTF-8 character.
    fn is_continuation(byte: u8) -> bool {
        byte & 0b1100_0000 == 0b1000_0000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path gives what `read_dir` gives: the same names in the same
    /// order, and for a name that is not UTF-8 the same warning.
    #[test]
    fn both_paths_list_alike() {
        let dir = tempfile::tempdir().unwrap();
        let mut files: Vec<String> = (0..3000).map(|i| format!("t{i}_é.json")).collect();
        files.extend(
            ["_defs.json", ".json", "x.JSON", "notes.txt", "a.json.json"].map(String::from),
        );
        for f in &files {
            fs::write(dir.path().join(f), "{}").unwrap();
        }
        fs::create_dir(dir.path().join("sub.json")).unwrap();
        let mut warnings = Vec::new();
        let listed = tool_names(dir.path(), &mut warnings).unwrap();
        let listed: Vec<&str> = listed.names().collect();
        let mut general_warnings = Vec::new();
        let slow = general(dir.path(), &mut general_warnings).unwrap();
        assert_eq!(listed, slow.names().collect::<Vec<_>>());
        assert!(warnings.is_empty() && general_warnings.is_empty());
        assert_eq!(listed.len(), 3000 + 2);
        assert!(listed.contains(&"a.json") && listed.contains(&"sub"));

        // Names that are not UTF-8 can be made on Linux (not on macOS's APFS).
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::ffi::OsStrExt;
            let bad = std::ffi::OsStr::from_bytes(b"bad\xff.json");
            fs::write(dir.path().join(bad), "{}").unwrap();
            let mut warnings = Vec::new();
            let listed = tool_names(dir.path(), &mut warnings).unwrap();
            let mut general_warnings = Vec::new();
            let slow = general(dir.path(), &mut general_warnings).unwrap();
            assert_eq!(
                listed.names().collect::<Vec<_>>(),
                slow.names().collect::<Vec<_>>()
            );
            assert_eq!(warnings, general_warnings);
            assert_eq!(warnings.len(), 1);
            assert!(warnings[0].ends_with(": file name is not UTF-8; skipped"));
            // Two names that are UTF-8 only together (`é` split across them),
            // whichever order the system lists them in.
            let split = tempfile::tempdir().unwrap();
            for name in [&b"a\xc3.json"[..], b"\xa9b.json", b"c\xc3", b"\xa9d"] {
                fs::write(split.path().join(std::ffi::OsStr::from_bytes(name)), "{}").unwrap();
            }
            let mut warnings = Vec::new();
            let listed = tool_names(split.path(), &mut warnings).unwrap();
            assert!(listed.names.is_empty());
            assert_eq!(warnings.len(), 4);
        }
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no");
        let err = tool_names(&missing, &mut Vec::new()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let file = dir.path().join("f.json");
        fs::write(&file, "{}").unwrap();
        assert!(tool_names(&file, &mut Vec::new()).is_err());
    }
}
