//! The trace's start state rebuilt under the replay's root before each sample: the root
//! emptied (safe removal: no symlink followed, no mount crossed), then every directory, every
//! file at its exact size with `data=` content, every symlink confined to the root, and each
//! entry's permission bits set last (directories deepest first, so that none is closed before
//! what goes in it).

use crate::WorkloadError;
use fsbench_io::file::DataPattern;
use fsbench_sys::cancel::CancelToken;
use fsbench_trace::Trace;
use fsbench_trace::model::FileKind;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// What the last rebuild could not make as recorded, for the cell's notes.
#[derive(Debug, Default, Clone)]
pub struct Rebuilt {
    /// FIFOs, sockets and devices: not made.
    pub others: usize,
    /// Symlinks whose target was outside the recorded root: made dangling.
    pub outside_links: usize,
    /// Entries that could not be made where the recording found them (below a symlink that
    /// points elsewhere in the replay, or under a name another entry took).
    pub unmade: usize,
}

impl Rebuilt {
    /// One line per thing not made as recorded.
    pub fn notes(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.others > 0 {
            v.push(format!(
                "{} FIFOs, sockets or devices of the start state are not made (a replay makes only files, directories and symlinks)",
                self.others
            ));
        }
        if self.unmade > 0 {
            v.push(format!(
                "{} entries of the start state could not be made where they were found (below a symlink that points elsewhere here)",
                self.unmade
            ));
        }
        if self.outside_links > 0 {
            v.push(format!(
                "{} symlinks of the start state pointed outside the recorded root: they point nowhere in the replay (it never leaves its scratch)",
                self.outside_links
            ));
        }
        v
    }
}

/// Empties `root` and rebuilds `trace`'s start state in it.
pub fn rebuild(
    trace: &Trace,
    root: &Path,
    data: DataPattern,
    seed: u64,
    cancel: &CancelToken,
) -> Result<Rebuilt, WorkloadError> {
    if root.exists() {
        fsbench_sys::remove::remove_all_io(root)
            .map_err(|e| WorkloadError::io("remove", root, e))?;
    }
    std::fs::create_dir(root).map_err(|e| WorkloadError::io("mkdir", root, e))?;
    let mut entries: Vec<&fsbench_trace::model::Entry> = trace.start.iter().collect();
    // Parents before children: a path sorts after its prefix.
    entries.sort_by(|a, b| trace.paths[a.path as usize].cmp(&trace.paths[b.path as usize]));
    let mut block = vec![0u8; 1 << 20];
    data.fill(&mut block, seed);
    let mut made = Rebuilt::default();
    let mut modes = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if i % 256 == 0 {
            cancel.check()?;
        }
        let rel = &trace.paths[e.path as usize];
        let path = root.join(std::ffi::OsStr::from_bytes(rel));
        match make(e, rel, &path, trace, root, &block) {
            Ok(Made::Entry) => modes.push((path, e.mode)),
            Ok(Made::Link { inside }) => made.outside_links += usize::from(!inside),
            Ok(Made::Nothing) => made.others += 1,
            Err(err) if misplaced(&err) => made.unmade += 1,
            Err(err) => {
                let op = match e.kind {
                    FileKind::Dir => "mkdir",
                    FileKind::Symlink => "symlink",
                    _ => "create",
                };
                return Err(WorkloadError::io(op, &path, err));
            }
        }
    }
    // Deepest first: a directory closed to writing is closed after what goes in it was made.
    for (path, mode) in modes.into_iter().rev() {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .map_err(|err| WorkloadError::io("chmod", &path, err))?;
    }
    Ok(made)
}

/// What [`make`] made.
enum Made {
    /// A file or a directory (its mode is set at the end).
    Entry,
    /// A symlink; `inside` when its target stayed in the root.
    Link { inside: bool },
    /// Nothing: a FIFO, socket or device.
    Nothing,
}

/// An error that says the entry has no place here (a name taken, a parent that is a symlink
/// pointing elsewhere), not that the target failed.
fn misplaced(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EEXIST | libc::ENOENT | libc::ENOTDIR | libc::ELOOP)
    )
}

/// Makes one start-state entry at `path`.
fn make(
    e: &fsbench_trace::model::Entry,
    rel: &[u8],
    path: &Path,
    trace: &Trace,
    root: &Path,
    block: &[u8],
) -> std::io::Result<Made> {
    if let Some(parent) = path.parent() {
        if !parent.is_dir() {
            std::fs::create_dir_all(parent)?;
        }
    }
    match e.kind {
        FileKind::Dir => std::fs::create_dir(path)?,
        FileKind::File => {
            let mut f = std::fs::File::create_new(path)?;
            let mut left = e.size;
            while left > 0 {
                let n = left.min(block.len() as u64) as usize;
                f.write_all(&block[..n])?;
                left -= n as u64;
            }
        }
        FileKind::Symlink => {
            let target = e.target.as_deref().unwrap_or_default();
            let (to, inside) =
                fsbench_trace::confine::confined(rel, target, trace.root.as_bytes(), root);
            std::os::unix::fs::symlink(&to, path)?;
            return Ok(Made::Link { inside });
        }
        FileKind::Other => return Ok(Made::Nothing),
    }
    Ok(Made::Entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_trace::model::Entry;

    #[test]
    fn the_start_state_is_rebuilt_with_its_types_sizes_modes_and_confined_links() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("replay");
        let entry = |path, kind, size, mode, target: Option<&str>| Entry {
            path,
            kind,
            size,
            mode,
            target: target.map(|t| t.as_bytes().to_vec()),
        };
        let trace = Trace {
            root: "/home/u/p".into(),
            paths: ["a", "a/f", "a/in", "a/out", "a/ro", "fifo"]
                .iter()
                .map(|p| p.as_bytes().to_vec())
                .collect(),
            start: vec![
                entry(1, FileKind::File, 70_000, 0o640, None),
                entry(0, FileKind::Dir, 0, 0o755, None),
                entry(2, FileKind::Symlink, 0, 0o777, Some("f")),
                entry(3, FileKind::Symlink, 0, 0o777, Some("/etc/passwd")),
                entry(4, FileKind::Dir, 0, 0o500, None),
                entry(5, FileKind::Other, 0, 0o644, None),
            ],
            ..Trace::default()
        };
        let cancel = CancelToken::new();
        // Twice: the second rebuild starts from the first's leftovers.
        for _ in 0..2 {
            let made = rebuild(&trace, &root, DataPattern::Random, 1, &cancel).unwrap();
            assert_eq!((made.others, made.outside_links, made.unmade), (1, 1, 0));
        }
        let f = std::fs::metadata(root.join("a/f")).unwrap();
        assert_eq!((f.len(), f.permissions().mode() & 0o777), (70_000, 0o640));
        assert_eq!(
            std::fs::read_link(root.join("a/in")).unwrap(),
            root.join("a/f")
        );
        assert_eq!(std::fs::metadata(root.join("a/in")).unwrap().len(), 70_000);
        let out = std::fs::read_link(root.join("a/out")).unwrap();
        assert!(out.starts_with(&root), "{out:?}");
        assert!(std::fs::metadata(root.join("a/out")).is_err(), "dangling");
        let ro = std::fs::metadata(root.join("a/ro")).unwrap();
        assert!(ro.is_dir() && ro.permissions().mode() & 0o777 == 0o500);
        assert!(!root.join("fifo").exists());
    }
}
