//! Reading a file the user named for input without hanging and without reading without bound:
//! its kind is checked before it is read (a FIFO would block `open` until a writer came, a
//! device like `/dev/zero` never ends), it is opened non-blocking and checked again on the open
//! descriptor (so a FIFO swapped in meanwhile cannot block either), and a file larger than the
//! caller's limit is refused from its size, before a byte is read.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why an input file was not read.
#[derive(Debug)]
pub enum InputError {
    /// It is not a regular file: what it is (`a FIFO`, `a directory`, `a character device`...).
    NotRegular(&'static str),
    /// It is larger than the limit (bytes).
    TooLarge(u64),
    /// The system said no.
    Io(std::io::Error),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotRegular(kind) => write!(f, "it is {kind}, not a regular file"),
            Self::TooLarge(limit) => write!(f, "it is larger than {limit} bytes"),
            Self::Io(e) => write!(f, "{e}"),
        }
    }
}

/// What a file type is, in words.
fn kind(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading when it is a regular file (a symlink to one is followed).
pub fn open_regular(path: &Path) -> Result<File, InputError> {
    let meta = std::fs::metadata(path).map_err(InputError::Io)?;
    if !meta.is_file() {
        return Err(InputError::NotRegular(kind(&meta.file_type())));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(InputError::Io)?;
    let meta = file.metadata().map_err(InputError::Io)?;
    if !meta.is_file() {
        return Err(InputError::NotRegular(kind(&meta.file_type())));
    }
    Ok(file)
}

/// The whole regular file at `path`, at most `limit` bytes (refused from its size before
/// reading, and by the read itself should it grow meanwhile).
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let file = open_regular(path)?;
    let size = file.metadata().map_err(InputError::Io)?.len();
    if size > limit {
        return Err(InputError::TooLarge(limit));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(InputError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge(limit));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_devices_and_directories_are_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(matches!(
            read_regular(&fifo, 10),
            Err(InputError::NotRegular("a FIFO"))
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 10),
            Err(InputError::NotRegular("a character device"))
        ));
        assert!(matches!(
            read_regular(d.path(), 10),
            Err(InputError::NotRegular("a directory"))
        ));
    }

    #[test]
    fn a_file_over_the_limit_is_refused_and_one_within_is_read() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, b"0123456789").unwrap();
        assert!(matches!(read_regular(&f, 9), Err(InputError::TooLarge(9))));
        assert_eq!(read_regular(&f, 10).unwrap(), b"0123456789");
    }
}
