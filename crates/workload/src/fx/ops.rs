//! The loops of FxMark's 19 operations, one job's side: its files and directories under the
//! workload's root, what one operation is, and the untimed recycling that keeps a create,
//! unlink, append or truncate loop within bounds (a job that has created [`BATCH`] files removes
//! them with its clock paused, then goes on).
//!
//! Written by hand on raw syscalls (rustix) rather than `std::fs`: one operation is a few hundred
//! nanoseconds for the page-cache reads, and a loop that allocated a path or a `DirEntry` per
//! call would measure the allocator. Paths are built once per job; names into one reused buffer.

use fsbench_model::card::{CardOp, OpKind as K};
use rustix::fd::OwnedFd;
use rustix::fs::{self as rfs, AtFlags, Mode, OFlags};
use std::ffi::CString;
use std::io;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};

/// Files a create or unlink job goes through before it recycles them (clock paused).
pub const BATCH: u64 = 1000;
/// Entries of a directory read by `MRDL` and `MRDM`.
pub const DIR_ENTRIES: u64 = 256;
/// Files of the shared directory that `MRPM` opens.
pub const SHARED_NAMES: u64 = 1024;
/// Size an append (`DWAL`) grows its file to before it is truncated (clock paused), and the
/// size a truncate (`DWTL`) file is allocated to when it has been truncated to nothing.
pub const GROW_CAP: u64 = 16 << 20;

/// The layout under the workload's root, shared by every job.
pub struct Layout {
    root: PathBuf,
}

impl Layout {
    /// The layout of `root` (the workload's scratch directory).
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
        }
    }

    /// Job `j`'s own directory.
    pub fn private(&self, j: u64) -> PathBuf {
        self.root.join(format!("p{j}"))
    }

    /// The directory every job shares.
    pub fn shared(&self) -> PathBuf {
        self.root.join("common")
    }

    /// Makes what every job of `op` reads (`jobs` of them) before any sample: files with their
    /// blocks written, the directories read or opened. Untimed.
    pub fn prepare(&self, op: &CardOp, jobs: u64, bs: u64) -> io::Result<()> {
        let shared = self.shared();
        std::fs::create_dir_all(&shared)?;
        let block = vec![0x5a_u8; bs as usize];
        let write_file = |path: &Path, blocks: u64| -> io::Result<()> {
            use std::io::Write;
            let mut f = std::fs::File::create(path)?;
            for _ in 0..blocks {
                f.write_all(&block)?;
            }
            f.sync_all()
        };
        for j in 0..jobs {
            let own = self.private(j);
            std::fs::create_dir_all(&own)?;
            match op.kind {
                K::Drbl | K::Dwol | K::Dwsl => write_file(&own.join("block.dat"), 1)?,
                K::Mrpl => {
                    let deep = own.join("a/b/c/d");
                    std::fs::create_dir_all(&deep)?;
                    write_file(&deep.join("block.dat"), 0)?;
                }
                K::Mrdl => fill_dir(&own.join("dir"), DIR_ENTRIES)?,
                _ => {}
            }
        }
        match op.kind {
            K::Drbm | K::Dwom => write_file(&shared.join("block.dat"), jobs.max(1))?,
            K::Drbh => write_file(&shared.join("block.dat"), 1)?,
            K::Mrpm => fill_dir(&shared.join("names"), SHARED_NAMES)?,
            K::Mrph => fill_dir(&shared.join("names"), 1)?,
            K::Mrdm => fill_dir(&shared.join("dir"), DIR_ENTRIES)?,
            _ => {}
        }
        Ok(())
    }
}

/// `dir` holding `n` empty files `f0`…
fn fill_dir(dir: &Path, n: u64) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for i in 0..n {
        let p = dir.join(format!("f{i}"));
        if std::fs::symlink_metadata(&p).is_err() {
            std::fs::File::create(&p)?;
        }
    }
    Ok(())
}

/// What one job needs for its loop, opened before the clock starts.
pub struct Job {
    kind: K,
    job: u64,
    bs: u64,
    buf: Vec<u8>,
    fd: Option<OwnedFd>,
    /// The directory the job's names live in (create, unlink, rename, readdir).
    dir: Option<OwnedFd>,
    /// A second directory (MWRM: the shared one).
    other: Option<OwnedFd>,
    /// The path opened by the resolve operations.
    path: CString,
    /// Names done in the current batch, or the append / truncate position.
    at: u64,
    /// The batch's generation: every batch has names of its own (`j{job}-{generation}-{i}`), so a create
    /// never finds the negative dentry an earlier batch's unlink left (FxMark's names are new).
    generation: u64,
    name: String,
    dents: Vec<MaybeUninit<u8>>,
}

impl Job {
    /// Opens job `job`'s files for `op` under `layout` and makes its per-sample state (the
    /// files an unlink loop removes, an empty create directory). Untimed.
    pub fn open(op: &CardOp, layout: &Layout, job: u64, bs: u64) -> io::Result<Self> {
        let own = layout.private(job);
        let shared = layout.shared();
        let mut j = Job {
            kind: op.kind,
            job,
            bs,
            buf: vec![0x6b_u8; bs as usize],
            fd: None,
            dir: None,
            other: None,
            path: CString::default(),
            at: 0,
            generation: 0,
            name: String::with_capacity(32),
            dents: vec![MaybeUninit::uninit(); 64 << 10],
        };
        let open_rw = |p: &Path, extra: OFlags| -> io::Result<OwnedFd> {
            Ok(rfs::open(
                p,
                OFlags::RDWR | OFlags::CLOEXEC | extra,
                Mode::from_raw_mode(0o644),
            )?)
        };
        let open_dir = |p: &Path| -> io::Result<OwnedFd> {
            std::fs::create_dir_all(p)?;
            Ok(rfs::open(
                p,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?)
        };
        let cpath = |p: PathBuf| -> io::Result<CString> {
            use std::os::unix::ffi::OsStringExt;
            CString::new(p.into_os_string().into_vec()).map_err(io::Error::other)
        };
        match op.kind {
            K::Drbl | K::Dwol | K::Dwsl => {
                j.fd = Some(open_rw(&own.join("block.dat"), OFlags::empty())?)
            }
            K::Drbm | K::Dwom | K::Drbh => {
                j.fd = Some(open_rw(&shared.join("block.dat"), OFlags::empty())?)
            }
            K::Dwal => {
                j.fd = Some(open_rw(
                    &own.join("append"),
                    OFlags::CREATE | OFlags::TRUNC | OFlags::APPEND,
                )?)
            }
            K::Dwtl => {
                let fd = open_rw(&own.join("trunc"), OFlags::CREATE)?;
                allocate(&fd, GROW_CAP)?;
                j.at = GROW_CAP;
                j.fd = Some(fd);
            }
            K::Mrpl => j.path = cpath(own.join("a/b/c/d/block.dat"))?,
            K::Mrph => j.path = cpath(shared.join("names/f0"))?,
            K::Mrpm => j.dir = Some(open_dir(&shared.join("names"))?),
            K::Mrdl => j.path = cpath(own.join("dir"))?,
            K::Mrdm => j.path = cpath(shared.join("dir"))?,
            K::Mwcl | K::Mwul => j.dir = Some(open_dir(&own.join("names"))?),
            K::Mwcm | K::Mwum => j.dir = Some(open_dir(&shared.join("names"))?),
            K::Mwrl => {
                let d = open_dir(&own.join("rename"))?;
                if rfs::statat(&d, "a", AtFlags::SYMLINK_NOFOLLOW).is_err() {
                    drop(rfs::openat(
                        &d,
                        "a",
                        OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC,
                        Mode::from_raw_mode(0o644),
                    )?);
                }
                j.dir = Some(d);
            }
            K::Mwrm => {
                let d = open_dir(&own.join("move"))?;
                let s = open_dir(&shared.join("moved"))?;
                j.name = format!("m{job}");
                if rfs::statat(&d, j.name.as_str(), AtFlags::SYMLINK_NOFOLLOW).is_err()
                    && rfs::statat(&s, j.name.as_str(), AtFlags::SYMLINK_NOFOLLOW).is_err()
                {
                    drop(rfs::openat(
                        &d,
                        j.name.as_str(),
                        OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC,
                        Mode::from_raw_mode(0o644),
                    )?);
                }
                j.at =
                    u64::from(rfs::statat(&s, j.name.as_str(), AtFlags::SYMLINK_NOFOLLOW).is_ok());
                j.dir = Some(d);
                j.other = Some(s);
            }
        }
        // A create loop starts on an empty batch; an unlink loop on a full one.
        match op.kind {
            K::Mwcl | K::Mwcm => j.clear_batch()?,
            K::Mwul | K::Mwum => j.fill_batch()?,
            _ => {}
        }
        Ok(j)
    }

    fn set_name(&mut self, i: u64) {
        use std::fmt::Write;
        self.name.clear();
        let _ = write!(self.name, "j{}-{}-{i}", self.job, self.generation);
    }

    /// Removes what is left of this job's names (the created part of a create job's batch, the
    /// rest of an unlink job's), so that the next sample starts with none. Untimed.
    pub fn tidy(&mut self) -> io::Result<()> {
        match self.kind {
            K::Mwcl | K::Mwcm => self.clear_batch(),
            K::Mwul | K::Mwum => {
                let dir = self
                    .dir
                    .take()
                    .expect("invariant: an unlink job has its directory");
                let mut failed = None;
                for i in self.at..BATCH {
                    self.set_name(i);
                    if let Err(e) = rfs::unlinkat(&dir, self.name.as_str(), AtFlags::empty()) {
                        failed.get_or_insert(e);
                    }
                }
                self.dir = Some(dir);
                self.at = BATCH;
                failed.map_or(Ok(()), |e| Err(e.into()))
            }
            _ => Ok(()),
        }
    }

    /// Removes this job's names of the current batch (after a create loop's batch) and starts
    /// the next batch's names.
    fn clear_batch(&mut self) -> io::Result<()> {
        let dir = self
            .dir
            .take()
            .expect("invariant: a create job has its directory");
        for i in 0..self.at {
            self.set_name(i);
            match rfs::unlinkat(&dir, self.name.as_str(), AtFlags::empty()) {
                Ok(()) | Err(rustix::io::Errno::NOENT) => {}
                Err(e) => {
                    self.dir = Some(dir);
                    return Err(e.into());
                }
            }
        }
        self.dir = Some(dir);
        self.at = 0;
        self.generation += 1;
        Ok(())
    }

    /// Creates the names of this job's next batch (before an unlink loop's batch).
    fn fill_batch(&mut self) -> io::Result<()> {
        self.generation += 1;
        let dir = self
            .dir
            .take()
            .expect("invariant: an unlink job has its directory");
        for i in 0..BATCH {
            self.set_name(i);
            let made = rfs::openat(
                &dir,
                self.name.as_str(),
                OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o644),
            );
            if let Err(e) = made {
                self.dir = Some(dir);
                return Err(e.into());
            }
        }
        self.dir = Some(dir);
        self.at = 0;
        Ok(())
    }

    /// Whether the next step must be [`Job::recycle`]: a batch used up, a file at its cap.
    pub fn due(&self) -> bool {
        match self.kind {
            K::Dwal => self.at + self.bs > GROW_CAP,
            K::Dwtl => self.at < self.bs,
            K::Mwcl | K::Mwcm | K::Mwul | K::Mwum => self.at >= BATCH,
            _ => false,
        }
    }

    /// Makes room for the next operations (not an operation: the caller pauses its clock).
    pub fn recycle(&mut self) -> io::Result<()> {
        match self.kind {
            K::Dwal => {
                rfs::ftruncate(self.fd(), 0)?;
                self.at = 0;
            }
            K::Dwtl => {
                allocate(self.fd(), GROW_CAP)?;
                self.at = GROW_CAP;
            }
            K::Mwcl | K::Mwcm => self.clear_batch()?,
            K::Mwul | K::Mwum => self.fill_batch()?,
            _ => {}
        }
        Ok(())
    }

    /// Starts a fresh batch or file when the current one is partly used (before the window).
    pub fn fresh(&mut self) -> io::Result<()> {
        let used = match self.kind {
            K::Dwal => self.at > 0,
            K::Dwtl => self.at < GROW_CAP,
            K::Mwcl | K::Mwcm | K::Mwul | K::Mwum => self.at > 0,
            _ => false,
        };
        if used { self.recycle() } else { Ok(()) }
    }

    /// One operation (call [`Job::recycle`] first when [`Job::due`]).
    pub fn step(&mut self) -> io::Result<()> {
        let bs = self.bs;
        match self.kind {
            K::Drbl | K::Drbh => {
                let fd = self.fd.as_ref().expect("invariant: opened");
                rustix::io::pread(fd, &mut self.buf, 0)?;
            }
            K::Drbm => {
                let off = self.job * bs;
                let fd = self.fd.as_ref().expect("invariant: opened");
                rustix::io::pread(fd, &mut self.buf, off)?;
            }
            K::Dwol => {
                rustix::io::pwrite(self.fd(), &self.buf, 0)?;
            }
            K::Dwom => {
                let fd = self.fd.as_ref().expect("invariant: opened");
                rustix::io::pwrite(fd, &self.buf, self.job * bs)?;
            }
            K::Dwsl => {
                let fd = self.fd.as_ref().expect("invariant: opened");
                rustix::io::pwrite(fd, &self.buf, 0)?;
                rfs::fsync(fd)?;
            }
            K::Dwal => {
                let fd = self.fd.as_ref().expect("invariant: opened");
                rustix::io::write(fd, &self.buf)?;
                self.at += bs;
            }
            K::Dwtl => {
                let fd = self.fd.as_ref().expect("invariant: opened");
                self.at -= bs;
                rfs::ftruncate(fd, self.at)?;
            }
            K::Mrpl | K::Mrph => {
                drop(rfs::open(
                    self.path.as_c_str(),
                    OFlags::RDONLY | OFlags::CLOEXEC,
                    Mode::empty(),
                )?);
            }
            K::Mrpm => {
                // The job's own walk through the shared names (a stride co-prime with 1024).
                let k = (self.job * 131 + self.at * 7) % SHARED_NAMES;
                self.at += 1;
                self.set_path_name(k);
                // By name in the open shared directory: the lookup in it is what is shared.
                let dir = self.dir.as_ref().expect("invariant: opened");
                drop(rfs::openat(
                    dir,
                    self.name.as_str(),
                    OFlags::RDONLY | OFlags::CLOEXEC,
                    Mode::empty(),
                )?);
            }
            K::Mrdl | K::Mrdm => {
                let fd = rfs::open(
                    self.path.as_c_str(),
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )?;
                read_to_end(&fd, &mut self.dents)?;
            }
            K::Mwcl | K::Mwcm => {
                self.set_name(self.at);
                let dir = self.dir.as_ref().expect("invariant: opened");
                drop(rfs::openat(
                    dir,
                    self.name.as_str(),
                    OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::CLOEXEC,
                    Mode::from_raw_mode(0o644),
                )?);
                self.at += 1;
            }
            K::Mwul | K::Mwum => {
                self.set_name(self.at);
                let dir = self.dir.as_ref().expect("invariant: opened");
                rfs::unlinkat(dir, self.name.as_str(), AtFlags::empty())?;
                self.at += 1;
            }
            K::Mwrl => self.rename(false)?,
            K::Mwrm => self.rename(true)?,
        }
        Ok(())
    }

    /// `MWRL` (within the job's directory) and `MWRM` (`across` to the shared one): a rename
    /// there, then back on the next call.
    fn rename(&mut self, across: bool) -> io::Result<()> {
        let own = self.dir.as_ref().expect("invariant: opened");
        let there = match across {
            true => (
                self.other.as_ref().expect("invariant: opened"),
                self.name.as_str(),
            ),
            false => (own, "b"),
        };
        let here = (own, if across { self.name.as_str() } else { "a" });
        let (from, to) = if self.at % 2 == 0 {
            (here, there)
        } else {
            (there, here)
        };
        rfs::renameat(from.0, from.1, to.0, to.1)?;
        self.at += 1;
        Ok(())
    }

    fn fd(&self) -> &OwnedFd {
        self.fd.as_ref().expect("invariant: opened")
    }

    fn set_path_name(&mut self, k: u64) {
        use std::fmt::Write;
        self.name.clear();
        let _ = write!(self.name, "f{k}");
    }
}

/// Gives `fd` `size` bytes of allocated blocks: `fallocate`, or where the filesystem has none
/// (FUSE daemons such as bindfs answer EOPNOTSUPP) zeros written in 1 MiB pieces.
fn allocate(fd: &OwnedFd, size: u64) -> io::Result<()> {
    match rfs::fallocate(fd, rfs::FallocateFlags::empty(), 0, size) {
        Err(rustix::io::Errno::OPNOTSUPP) => {
            let zeros = vec![0_u8; 1 << 20];
            let mut at = 0;
            while at < size {
                let n = zeros.len().min((size - at) as usize);
                at += rustix::io::pwrite(fd, &zeros[..n], at)? as u64;
            }
            Ok(())
        }
        r => Ok(r?),
    }
}

/// Reads the directory `fd` to its end with `getdents64` into `buf` (rustix's `RawDir`: no
/// allocation per entry); returns the entries.
fn read_to_end(fd: &OwnedFd, buf: &mut [MaybeUninit<u8>]) -> io::Result<u64> {
    let mut raw = rfs::RawDir::new(fd, buf);
    let mut n = 0;
    while let Some(e) = raw.next() {
        e?;
        n += 1;
    }
    Ok(n)
}
