//! Listing a schema directory: the tool names it holds, in the order the
//! system lists them, and a warning for each file name that is not UTF-8.
//!
//! A one-call process against a directory of thousands of schemas would
//! spend most of what it adds to the floor here, nearly all of it in the
//! kernel (reading the directory), so a lone directory ([`Lone`]) is opened
//! when the registry loads and listed only when a lookup needs more than one
//! tool's own file: until then, where the file system compares names byte for
//! byte, a tool is found by its file's name, as the floor opens it.
//!
//! When it is listed, on Linux the directory is read with `getdents64` into a
//! buffer on the stack and the tool names are copied straight into one text:
//! no allocation per file (std's `read_dir` makes two), and the names checked
//! as UTF-8 together. Any file name that is not UTF-8 sends the whole
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
    if let Some(listed) = fast::tool_names(&fast::open(dir)?)? {
        return Ok(listed);
    }
    general(dir, warnings)
}

/// A registry's lone directory: opened when the registry loads (a directory
/// that cannot be read is an error then, as a listing's would be) and closed
/// again (a registry holds no descriptor: a forked child, thousands of
/// registries), listed on first need, and until then asked for one tool's
/// file by name where that answers as the listing would.
#[derive(Debug)]
pub(super) struct Lone {
    /// The directory.
    dir: std::path::PathBuf,
    /// Whether its file system compares names byte for byte (no case
    /// folding, no normalisation), so that a file found by name is the file
    /// the listing would name.
    exact: bool,
}

impl Lone {
    /// Opens `dir` to see that it can be listed and how it compares names.
    pub(super) fn open(dir: &Path) -> io::Result<Lone> {
        #[cfg(target_os = "linux")]
        let exact = fast::compares_names_exactly(&fast::open(dir)?);
        #[cfg(not(target_os = "linux"))]
        let exact = {
            fs::read_dir(dir)?;
            false
        };
        Ok(Lone {
            dir: dir.to_owned(),
            exact,
        })
    }

    /// The directory.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the listing would hold the tool `name`, told without listing:
    /// `true` only when it surely would (its `<name>.json` is there, found by
    /// that one file name); `false` says only "list to know".
    ///
    /// The name reaches the file system only when it is one plain file name
    /// that the listing could hold (no `/`, no NUL, not `_`-prefixed, short
    /// enough), and only as an `lstat` beside the directory's other files.
    pub(super) fn holds(&self, name: &str) -> bool {
        self.exact
            && one_file(name).is_some_and(|file| fs::symlink_metadata(self.dir.join(file)).is_ok())
    }

    /// Whether [`Lone::holds`] may answer `true` here (tests tell the
    /// lookups made by file name from those made in the listing).
    #[cfg(test)]
    pub(super) fn by_file_name(&self) -> bool {
        self.exact
    }

    /// The tool names in the directory, as [`tool_names`] lists them.
    pub(super) fn list(&self, warnings: &mut Vec<String>) -> io::Result<Listed> {
        tool_names(&self.dir, warnings)
    }
}

/// The file, `<name>.json`, when `name` is a tool name that one file of a
/// directory can hold and the listing would name so.
fn one_file(name: &str) -> Option<String> {
    /// The longest file name Linux's file systems take.
    const NAME_MAX: usize = 255;
    let file = format!("{name}.json");
    (!name.contains(['/', '\0']) && file.len() <= NAME_MAX && tool_name(&file) == Some(name))
        .then_some(file)
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

    use std::os::fd::OwnedFd;

    use rustix::fs::{Mode, OFlags, RawDir};

    use super::Listed;

    /// Bytes read from the directory per `getdents64` call: on the stack, as
    /// a heap block this size would take the allocator a page of its own.
    const BUFFER: usize = 1 << 14;

    /// `dir`, opened as `opendir` opens it: a file that is not a directory
    /// fails here.
    pub(super) fn open(dir: &Path) -> io::Result<OwnedFd> {
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Ok(rustix::fs::open(dir, flags, Mode::empty())?)
    }

    /// Whether the directory's file system compares names byte for byte:
    /// one known to (ext4, tmpfs, btrfs, overlayfs), in a directory that is
    /// not case-folded (ext4's and tmpfs's `+F`, which also normalises).
    /// Anything else (FAT, NTFS, XFS's ASCII-CI, network and FUSE file
    /// systems, a flag that cannot be read) is listed to be sure.
    pub(super) fn compares_names_exactly(dir: &OwnedFd) -> bool {
        const EXT4: u32 = 0xEF53;
        const TMPFS: u32 = 0x0102_1994;
        const BTRFS: u32 = 0x9123_683E;
        const OVERLAYFS: u32 = 0x794C_7630;
        /// `FS_CASEFOLD_FL`.
        const CASEFOLD: u32 = 0x4000_0000;
        let Ok(fs) = rustix::fs::fstatfs(dir) else {
            return false;
        };
        // The magic numbers are 32 bits, in a word as wide as a `long`.
        let kind = fs.f_type as u32;
        matches!(kind, EXT4 | TMPFS | BTRFS | OVERLAYFS)
            && rustix::fs::ioctl_getflags(dir).is_ok_and(|f| f.bits() & CASEFOLD == 0)
    }

    /// The tool names in the open directory `dir`, or `None` when a file name
    /// is not UTF-8 (the general path lists the directory again and words the
    /// warnings).
    pub(super) fn tool_names(dir: &OwnedFd) -> io::Result<Option<Listed>> {
        let mut buf = [MaybeUninit::<u8>::uninit(); BUFFER];
        // The tool names, back to back, checked as UTF-8 at the end.
        let mut text: Vec<u8> = Vec::new();
        let mut names = Vec::new();
        let mut entries = RawDir::new(dir, &mut buf);
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

    /// Only a name that is one file name of the directory, and one the
    /// listing would hold, is ever looked up as a file.
    #[test]
    fn only_one_plain_file_name_is_looked_up_by_name() {
        for name in [
            "read",
            "a.b",
            "..",
            ".",
            "é",
            "a b",
            "a\\b",
            &"x".repeat(250),
        ] {
            assert_eq!(one_file(name), Some(format!("{name}.json")), "{name:?}");
        }
        let long = "x".repeat(251);
        for name in ["", "_defs", "../read", "a/b", "/", "a\0", &long] {
            assert_eq!(one_file(name), None, "{name:?}");
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
