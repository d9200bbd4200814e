//! Reading the operator's files (schemas, `$ref` targets, tool lists, description
//! templates): regular files only, and only up to a size.
//!
//! A schema directory can hold a symlink to `/dev/zero` or a FIFO by mistake or
//! by malice; neither is ever opened. The file's type and size are checked
//! before it is opened, and the read itself stops past the cap, so a file that
//! grows meanwhile is refused too.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

/// An I/O error as a short lower-case reason, without the `(os error N)` suffix.
pub(crate) fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        io::ErrorKind::IsADirectory => "is a directory".into(),
        _ => {
            let text = e.to_string();
            match text.split_once(" (os error") {
                Some((reason, _)) => reason.to_lowercase(),
                None => text,
            }
        }
    }
}

/// The largest schema, tool list or description file read: 16 MiB.
pub(crate) const MAX_FILE_BYTES: u64 = 16 << 20;

/// The bytes of the regular file at `path`, at most `cap` of them.
pub(crate) fn read_file(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (devices, FIFOs and sockets are never read)",
        ));
    }
    let too_big = |size: u64| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{size} bytes, over the limit of {cap} bytes"),
        )
    };
    if meta.len() > cap {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    fs::File::open(path)?
        .take(cap + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The text of the regular file at `path`, at most [`MAX_FILE_BYTES`] of it.
pub(crate) fn read_text(path: &Path) -> io::Result<String> {
    String::from_utf8(read_file(path, MAX_FILE_BYTES)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_up_to_the_cap_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_file(&file, 10).unwrap(), b"0123456789");
        let err = read_file(&file, 9).unwrap_err().to_string();
        assert_eq!(err, "10 bytes, over the limit of 9 bytes");
        let err = read_file(dir.path(), 100).unwrap_err().to_string();
        assert!(err.starts_with("not a regular file"), "{err}");
        #[cfg(unix)]
        {
            let zero = dir.path().join("zero.json");
            std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
            let err = read_file(&zero, 100).unwrap_err().to_string();
            assert!(err.starts_with("not a regular file"), "{err}");
        }
    }
}
