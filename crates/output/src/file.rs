//! Writing a file the user named for output (`--json FILE`, and every export to come) the way
//! careful tools do: a regular file (or a new one) is replaced atomically through a temporary file
//! with an unpredictable name made with `O_CREAT|O_EXCL` in the same directory, keeping the old
//! file's mode and owner; a device, FIFO or socket (`/dev/null`, `>(...)`) is written through
//! with a plain `open(O_WRONLY|O_TRUNC)` and never replaced; a symlink is never replaced, and is
//! followed only when it leads to such a non-regular file (`/dev/stdout` on a terminal or pipe).

use crate::Refused;
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// How an output path will be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputKind {
    /// A regular file or a new one: replaced atomically, may be rewritten many times.
    Replace,
    /// A device, FIFO or socket (possibly behind a symlink): written through once, at the end.
    Stream,
}

/// Decides how `path` can be written, or says in one line why it cannot (checked before a run
/// starts, so a bad output path costs nothing).
pub fn check(path: &Path, flag: &str) -> Result<OutputKind, Refused> {
    let shown = path.display();
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = parent_dir(path);
            match std::fs::metadata(&dir) {
                Ok(m) if m.is_dir() => Ok(OutputKind::Replace),
                _ => Err(Refused(format!(
                    "cannot write {flag} {shown}: directory {} does not exist — create it or give another path",
                    dir.display()
                ))),
            }
        }
        Err(e) => Err(Refused(format!(
            "cannot write {flag} {shown}: {e} — check the path"
        ))),
        Ok(m) if m.file_type().is_symlink() => match std::fs::metadata(path) {
            Ok(t) if is_stream(&t.file_type()) => Ok(OutputKind::Stream),
            Ok(t) if t.is_file() => Err(Refused(format!(
                "refusing to replace the symlink {flag} {shown} (it points to {}) — give the file's own path",
                std::fs::read_link(path)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ))),
            _ => Err(Refused(format!(
                "refusing to write through the symlink {flag} {shown} — give a regular file's path"
            ))),
        },
        Ok(m) if m.is_file() => Ok(OutputKind::Replace),
        Ok(m) if is_stream(&m.file_type()) => Ok(OutputKind::Stream),
        Ok(m) if m.is_dir() => Err(Refused(format!(
            "cannot write {flag} {shown}: it is a directory — give a file name"
        ))),
        Ok(_) => Err(Refused(format!(
            "refusing to write {flag} {shown}: it is a block device — give a regular file"
        ))),
    }
}

fn is_stream(t: &std::fs::FileType) -> bool {
    t.is_char_device() || t.is_fifo() || t.is_socket()
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes `bytes` to `path` as [`check`] decided; on failure nothing is left behind (the
/// temporary file is removed) and the old file is untouched.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match check(path, "output").map_err(|e| std::io::Error::other(e.0))? {
        OutputKind::Stream => write_through(path, bytes),
        OutputKind::Replace => replace(path, bytes),
    }
}

fn write_through(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .custom_flags(libc::O_NOCTTY)
        .open(path)?;
    f.write_all(bytes)?;
    f.flush()
}

fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    // tempfile: O_CREAT|O_EXCL, random name, mode 0600, removed on drop if not persisted.
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(&dir)?;
    match std::fs::symlink_metadata(path) {
        Ok(old) if old.is_file() => {
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))?;
            // Keep the owner when root rewrites someone's file; not possible otherwise.
            let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(old.uid()), Some(old.gid()));
        }
        _ => {
            let mode = 0o666 & !current_umask();
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
    }
    tmp.write_all(bytes)?;
    tmp.as_file().sync_data()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The process umask (read from /proc, which does not change it; 022 if unreadable).
fn current_umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_file_gets_umask_mode_and_existing_keeps_its_mode() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("out.json");
        write(&f, b"one").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"one");
        let mode = std::fs::metadata(&f).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o666 & !current_umask());
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        write(&f, b"two").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two");
        assert_eq!(std::fs::metadata(&f).unwrap().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1, "temp left");
    }

    #[test]
    fn symlink_to_a_file_is_refused_and_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        std::fs::write(&real, b"keep").unwrap();
        let link = d.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = check(&link, "--json").unwrap_err();
        assert!(e.0.contains("symlink"), "{e}");
        assert!(write(&link, b"x").is_err());
        assert_eq!(std::fs::read(&real).unwrap(), b"keep");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn dev_null_is_written_through_not_replaced() {
        assert_eq!(
            check(Path::new("/dev/null"), "--json"),
            Ok(OutputKind::Stream)
        );
        write(Path::new("/dev/null"), b"x").unwrap();
        assert!(
            std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }

    #[test]
    fn missing_directory_and_directories_are_explained() {
        let e = check(Path::new("/nonexistent-dir-xyz/out.json"), "--json").unwrap_err();
        assert!(e.0.contains("does not exist"), "{e}");
        let e = check(Path::new("/tmp"), "--json").unwrap_err();
        assert!(e.0.contains("directory"), "{e}");
    }
}
