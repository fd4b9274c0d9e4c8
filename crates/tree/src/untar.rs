//! The extraction syscall loop of `tar-extract`: headers parsed by the `tar` crate, files written
//! by hand with openat/mkdirat/symlinkat relative to directory fds, as GNU tar does. Written by
//! hand because it is the measured work (the crate's own unpack canonicalizes every parent and
//! makes separate chmod/utime calls), and because it makes escaping impossible by construction:
//! every path component is opened with O_NOFOLLOW, `..` components are refused (as GNU tar
//! does), and link targets are checked before a link is made. Every entry made is counted in the
//! sample's recorder as it is made, one clock read each (`op_done`: the entry's extraction
//! latency, from the end of the one before), which fills the sample's series.

use fsbench_io::{CancelToken, WorkloadError};
use rustix::fs::{AtFlags, Mode, OFlags, Timespec, Timestamps};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

/// What an extraction made.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Extracted {
    /// Regular files, links and symlinks.
    pub files: u64,
    /// Directories.
    pub dirs: u64,
    /// Bytes of file data.
    pub bytes: u64,
}

struct Extractor<'r> {
    root: OwnedFd,
    /// Where each entry made is counted, and when the last one was.
    rec: Option<(&'r mut dyn fsbench_io::Recorder, u64)>,
    /// The last parent directory opened: tar lists a directory's entries together.
    cached: Option<(PathBuf, OwnedFd)>,
    dir_times: Vec<(PathBuf, u64, u32)>,
    /// Symlinks this extraction made: a later link target may not pass through one, since
    /// `l0 -> .` then `l1 -> l0/..` looks inside lexically but points out.
    symlinks: std::collections::HashSet<PathBuf>,
    exact_modes: bool,
    buf: Vec<u8>,
    out: Extracted,
}

fn refused(path: &Path, why: &str) -> WorkloadError {
    WorkloadError::Invalid(format!(
        "archive entry '{}' refused: {why}; nothing is written outside the scratch",
        path.display()
    ))
}

/// The entry's path as plain components (`.` dropped); refuses absolute paths and `..`.
fn clean(path: &Path) -> Result<PathBuf, WorkloadError> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => return Err(refused(path, "its path leaves the destination")),
        }
    }
    Ok(out)
}

fn io<'a>(op: &'static str, path: &'a Path) -> impl Fn(rustix::io::Errno) -> WorkloadError + 'a {
    move |e| WorkloadError::io(op, path, e.into())
}

impl Extractor<'_> {
    /// The fd of directory `rel` (created when missing), opened component by component without
    /// following symlinks.
    /// One entry made, moving `bytes` of data.
    #[inline]
    fn made(&mut self, bytes: u64) {
        if let Some((rec, t)) = self.rec.as_mut() {
            *t = rec.op_done(*t, bytes);
        }
    }

    fn dir_fd(&mut self, rel: &Path) -> Result<&OwnedFd, WorkloadError> {
        if rel.as_os_str().is_empty() {
            return Ok(&self.root);
        }
        if self.cached.as_ref().is_none_or(|(p, _)| p != rel) {
            let mut fd = rustix::io::dup(&self.root).map_err(io("dup", rel))?;
            for c in rel.components() {
                let open = |fd: &OwnedFd| {
                    rustix::fs::openat(
                        fd,
                        c.as_os_str(),
                        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                        Mode::empty(),
                    )
                };
                fd = match open(&fd) {
                    Ok(f) => f,
                    Err(rustix::io::Errno::NOENT) => {
                        rustix::fs::mkdirat(&fd, c.as_os_str(), Mode::from_raw_mode(0o755))
                            .map_err(io("mkdir", rel))?;
                        open(&fd).map_err(io("open", rel))?
                    }
                    Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                        return Err(refused(rel, "its path goes through a symlink or a file"));
                    }
                    Err(e) => return Err(WorkloadError::io("open", rel, e.into())),
                };
            }
            self.cached = Some((rel.to_path_buf(), fd));
        }
        Ok(&self.cached.as_ref().expect("invariant: just cached").1)
    }

    fn times(mtime: u64) -> Timestamps {
        Timestamps {
            last_access: Timespec {
                tv_sec: 0,
                tv_nsec: rustix::fs::UTIME_OMIT,
            },
            last_modification: Timespec {
                tv_sec: mtime as i64,
                tv_nsec: 0,
            },
        }
    }

    fn file<R: Read>(
        &mut self,
        rel: &Path,
        mode: u32,
        mtime: u64,
        data: &mut R,
    ) -> Result<(), WorkloadError> {
        let (parent, name) = split(rel)?;
        let exact = self.exact_modes;
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let m = Mode::from_raw_mode(mode & 0o7777);
        let dir = self.dir_fd(&parent)?;
        let fd = match rustix::fs::openat(dir, name, flags, m) {
            Err(rustix::io::Errno::EXIST) => {
                // GNU tar replaces an existing file (never following a symlink in its place).
                rustix::fs::unlinkat(dir, name, AtFlags::empty()).map_err(io("unlink", rel))?;
                rustix::fs::openat(dir, name, flags, m)
            }
            other => other,
        }
        .map_err(io("create", rel))?;
        let mut f = std::fs::File::from(fd);
        let before = self.out.bytes;
        loop {
            let n = data
                .read(&mut self.buf)
                .map_err(|e| WorkloadError::io("read archive", rel, e))?;
            if n == 0 {
                break;
            }
            f.write_all(&self.buf[..n])
                .map_err(|e| WorkloadError::io("write", rel, e))?;
            self.out.bytes += n as u64;
        }
        if exact {
            rustix::fs::fchmod(&f, m).map_err(io("chmod", rel))?;
        }
        rustix::fs::futimens(&f, &Self::times(mtime)).map_err(io("utime", rel))?;
        drop(f);
        self.out.files += 1;
        self.made(self.out.bytes - before);
        Ok(())
    }

    fn dir(&mut self, rel: &Path, mode: u32, mtime: u64) -> Result<(), WorkloadError> {
        if rel.as_os_str().is_empty() {
            return Ok(());
        }
        let (parent, name) = split(rel)?;
        let dir = self.dir_fd(&parent)?;
        match rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(mode & 0o7777)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(WorkloadError::io("mkdir", rel, e.into())),
        }
        self.dir_times
            .push((rel.to_path_buf(), mtime, mode & 0o7777));
        self.out.dirs += 1;
        self.made(0);
        Ok(())
    }

    fn link(&mut self, rel: &Path, target: &Path, symbolic: bool) -> Result<(), WorkloadError> {
        let (parent, name) = split(rel)?;
        if symbolic {
            if target.is_absolute() || !self.target_inside(&parent, target) {
                return Err(refused(
                    rel,
                    &format!(
                        "its link to '{}' points outside the destination",
                        target.display()
                    ),
                ));
            }
            let dir = self.dir_fd(&parent)?;
            rustix::fs::symlinkat(target, dir, name).map_err(io("symlink", rel))?;
            self.symlinks.insert(rel.to_path_buf());
        } else {
            let target = clean(target)?;
            let (tparent, tname) = split(&target)?;
            let tdir = rustix::io::dup(self.dir_fd(&tparent)?).map_err(io("dup", rel))?;
            let dir = self.dir_fd(&parent)?;
            rustix::fs::linkat(&tdir, tname, dir, name, AtFlags::empty())
                .map_err(io("link", rel))?;
        }
        self.out.files += 1;
        self.made(0);
        Ok(())
    }

    /// Resolves `target` from directory `parent` lexically; false when it climbs above the
    /// destination or passes through a symlink this archive made (whose real target is elsewhere).
    fn target_inside(&self, parent: &Path, target: &Path) -> bool {
        let mut at = parent.to_path_buf();
        for c in target.components() {
            match c {
                Component::Normal(n) => {
                    at.push(n);
                    if self.symlinks.contains(&at) {
                        return false;
                    }
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if !at.pop() {
                        return false;
                    }
                }
                Component::RootDir | Component::Prefix(_) => return false,
            }
        }
        true
    }

    /// Directory modes and mtimes last, after their contents were written (as GNU tar does).
    fn finish(&mut self) -> Result<(), WorkloadError> {
        for (rel, mtime, mode) in std::mem::take(&mut self.dir_times).into_iter().rev() {
            if self.exact_modes {
                rustix::fs::chmodat(
                    &self.root,
                    &rel,
                    Mode::from_raw_mode(mode),
                    AtFlags::empty(),
                )
                .map_err(io("chmod", &rel))?;
            }
            rustix::fs::utimensat(
                &self.root,
                &rel,
                &Self::times(mtime),
                AtFlags::SYMLINK_NOFOLLOW,
            )
            .map_err(io("utime", &rel))?;
        }
        Ok(())
    }
}

fn split(rel: &Path) -> Result<(PathBuf, &std::ffi::OsStr), WorkloadError> {
    let name = rel
        .file_name()
        .ok_or_else(|| refused(rel, "it has no name"))?;
    Ok((
        rel.parent().map(Path::to_path_buf).unwrap_or_default(),
        name,
    ))
}

/// Extracts `archive` into the existing directory `dest`; with `rec`, every entry made counts
/// there as one timed operation as it goes.
pub fn extract(
    archive: &Path,
    dest: &Path,
    cancel: &CancelToken,
    mut rec: Option<&mut dyn fsbench_io::Recorder>,
) -> Result<Extracted, WorkloadError> {
    let root = rustix::fs::open(
        dest,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io("open", dest))?;
    let file = std::fs::File::open(archive).map_err(|e| WorkloadError::io("open", archive, e))?;
    let mut ar = tar::Archive::new(std::io::BufReader::with_capacity(1 << 20, file));
    let exact_modes = rustix::process::geteuid().is_root();
    let rec = rec.take().map(|r| {
        let t = r.now_ns();
        (r, t)
    });
    let mut x = Extractor {
        root,
        rec,
        cached: None,
        dir_times: Vec::new(),
        symlinks: Default::default(),
        exact_modes,
        buf: vec![0; 256 * 1024],
        out: Extracted::default(),
    };
    let bad = |e: std::io::Error| WorkloadError::io("read archive", archive, e);
    for (i, entry) in ar.entries().map_err(bad)?.enumerate() {
        if i % 256 == 0 {
            cancel.check()?;
        }
        let mut entry = entry.map_err(bad)?;
        let raw = entry.path().map_err(bad)?.into_owned();
        let rel = clean(&raw)?;
        let (mode, mtime) = (
            entry.header().mode().unwrap_or(0o644),
            entry.header().mtime().unwrap_or(0),
        );
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            x.dir(&rel, mode, mtime)?;
        } else if kind.is_symlink() || kind.is_hard_link() {
            let target = entry
                .link_name()
                .map_err(bad)?
                .map(|t| t.into_owned())
                .unwrap_or_default();
            x.link(&rel, &target, kind.is_symlink())?;
        } else if kind.is_file() || kind.is_contiguous() {
            x.file(&rel, mode, mtime, &mut entry)?;
        }
    }
    x.finish()?;
    Ok(x.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extractor(links: &[&str]) -> Extractor<'static> {
        let root =
            rustix::fs::open(".", OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
        Extractor {
            root,
            rec: None,
            cached: None,
            dir_times: Vec::new(),
            symlinks: links.iter().map(PathBuf::from).collect(),
            exact_modes: false,
            buf: Vec::new(),
            out: Extracted::default(),
        }
    }

    #[test]
    fn link_targets_stay_inside_and_never_pass_through_archive_symlinks() {
        let x = extractor(&["l0"]);
        assert!(x.target_inside(Path::new("a/b"), Path::new("../c")));
        assert!(x.target_inside(Path::new(""), Path::new("./a")));
        assert!(!x.target_inside(Path::new(""), Path::new("../a")));
        assert!(!x.target_inside(Path::new("a"), Path::new("../../b")));
        assert!(!x.target_inside(Path::new(""), Path::new("l0/..")));
        assert!(!x.target_inside(Path::new(""), Path::new("/etc")));
        assert!(clean(Path::new("a/../b")).is_err());
    }
}
