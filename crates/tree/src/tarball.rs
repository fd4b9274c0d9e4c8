//! Tarballs for `tar-extract` and `tar-delete`: a deterministic synthetic archive generated from
//! a tree profile (`profile=csail`: ~76,000 files in ~7,000 directories) or the user's
//! `archive=FILE`, where it is read from (`archive_on`: local disk outside the target, as the
//! seed kept it, or the target itself), and a streaming extraction that refuses any entry that
//! would land outside the destination (`..`, absolute paths, links pointing out) before writing
//! it.

use crate::TreeSpec;
use fsbench_io::{CancelToken, Context, WorkloadError};
use std::path::{Path, PathBuf};

/// Where the archive comes from.
pub enum ArchiveSource {
    /// Generated during `prepare`, once per run.
    Generated {
        /// The tree packed into it.
        spec: Box<TreeSpec>,
        /// Seed of the contents.
        seed: u64,
    },
    /// The user's archive, only read.
    File(PathBuf),
}

/// Where the extraction reads the archive from (`archive_on=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveOn {
    /// Local disk outside every target: a generated archive in a scratch under `$TMPDIR`, a
    /// user's archive where it is. The default, as in the seed.
    Local,
    /// The target itself, beside the extracted tree (a user's archive is copied there).
    Target,
}

/// An archive and where it is read from.
pub struct Archive {
    /// What it holds.
    pub source: ArchiveSource,
    /// Where it is read from.
    pub on: ArchiveOn,
}

/// Name of the archive file in the directory that holds it.
const FILE_NAME: &str = "archive.tar";

impl Archive {
    /// Makes the archive where `archive_on` says (generated: write the tree, pack it, remove the
    /// tree; a user's: checked, and copied onto the target with `archive_on=target`), and returns
    /// its path. `dir` is the workload's directory on the target.
    pub fn prepare(&self, dir: &Path, ctx: &Context) -> Result<PathBuf, WorkloadError> {
        match (&self.source, self.on) {
            (ArchiveSource::File(p), _) if !p.is_file() => Err(WorkloadError::Invalid(format!(
                "archive={} is not a file",
                p.display()
            ))),
            (ArchiveSource::File(p), ArchiveOn::Local) => Ok(p.clone()),
            (ArchiveSource::File(p), ArchiveOn::Target) => copy_in(p, dir),
            (ArchiveSource::Generated { spec, seed }, ArchiveOn::Target) => {
                generate(spec, *seed, dir, &ctx.cancel)
            }
            (ArchiveSource::Generated { spec, seed }, ArchiveOn::Local) => {
                let m = spec.manifest();
                let key = format!("{:016x}-{seed}", m.hash);
                let need = tree_bytes(spec) + archive_bytes(spec);
                crate::local_archive::get_or_make(&key, need, &ctx.cleanup, |d| {
                    generate(spec, *seed, d, &ctx.cancel)
                })
            }
        }
    }

    /// Inodes one extraction (and a generated archive's source tree) need on the target.
    pub fn inodes_needed(&self) -> u64 {
        match &self.source {
            ArchiveSource::Generated { spec, .. } => {
                let m = spec.manifest();
                m.files + m.dirs + 1
            }
            // Unknown without reading the archive; the extraction reports ENOSPC if short.
            ArchiveSource::File(_) => 0,
        }
    }

    /// Bytes needed on the target: one extraction, and the archive too when it is kept there.
    pub fn space_needed(&self) -> u64 {
        let copies = match self.on {
            ArchiveOn::Local => 1,
            ArchiveOn::Target => 2,
        };
        match &self.source {
            ArchiveSource::Generated { spec, .. } => copies * tree_bytes(spec),
            ArchiveSource::File(p) => std::fs::metadata(p).map(|m| copies * m.len()).unwrap_or(0),
        }
    }
}

/// Room a generated tree takes on disk (data, and a block per file and directory).
fn tree_bytes(spec: &TreeSpec) -> u64 {
    let m = spec.manifest();
    m.bytes + (m.files + m.dirs) * 4096
}

/// Size of a generated archive: data, and a header and padding per entry.
fn archive_bytes(spec: &TreeSpec) -> u64 {
    let m = spec.manifest();
    m.bytes + (m.files + m.dirs) * 1024 + 10240
}

/// Writes the tree of `spec` under `dir`, packs it into `dir/archive.tar` and removes the tree.
fn generate(
    spec: &TreeSpec,
    seed: u64,
    dir: &Path,
    cancel: &CancelToken,
) -> Result<PathBuf, WorkloadError> {
    let path = dir.join(FILE_NAME);
    let src = dir.join("archive-src");
    std::fs::create_dir(&src).map_err(|e| WorkloadError::io("mkdir", &src, e))?;
    crate::write_tree(spec, &src, seed, cancel)?;
    let file = create_beneath(dir, &path)?;
    let mut b = tar::Builder::new(std::io::BufWriter::new(file));
    b.follow_symlinks(false);
    b.append_dir_all(".", &src)
        .map_err(|e| WorkloadError::io("pack", &path, e))?;
    b.into_inner()
        .and_then(|mut w| std::io::Write::flush(&mut w))
        .map_err(|e| WorkloadError::io("pack", &path, e))?;
    fsbench_io::fsops::remove_all(&src)?;
    Ok(path)
}

/// Copies the user's archive `from` to `dir/archive.tar` (`archive_on=target`).
fn copy_in(from: &Path, dir: &Path) -> Result<PathBuf, WorkloadError> {
    let path = dir.join(FILE_NAME);
    let mut src = std::fs::File::open(from).map_err(|e| WorkloadError::io("open", from, e))?;
    let mut dst = create_beneath(dir, &path)?;
    std::io::copy(&mut src, &mut dst).map_err(|e| WorkloadError::io("copy", &path, e))?;
    Ok(path)
}

fn create_beneath(dir: &Path, path: &Path) -> Result<std::fs::File, WorkloadError> {
    fsbench_io::file::open_beneath(
        dir,
        Path::new(FILE_NAME),
        libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
    )
    .map_err(|e| WorkloadError::io("create", path, e))
}

/// Extracts `archive` into `dest` (which exists), preserving modes and mtimes as GNU tar does.
/// Returns (files, directories, bytes). An escaping entry stops the extraction with an error
/// before anything is written for it. With `rec`, every entry made counts there as one timed
/// operation as it goes (the sample's series).
pub fn extract(
    archive: &Path,
    dest: &Path,
    cancel: &CancelToken,
    rec: Option<&mut dyn fsbench_io::Recorder>,
) -> Result<(u64, u64, u64), WorkloadError> {
    let x = crate::untar::extract(archive, dest, cancel, rec)?;
    Ok((x.files, x.dirs, x.bytes))
}
