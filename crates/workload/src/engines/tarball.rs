//! Tarballs for `tar-extract` and `tar-delete`: a deterministic synthetic archive generated from
//! a tree profile (`profile=csail`: ~76,000 files in ~7,000 directories) or the user's
//! `archive=FILE`, and a streaming extraction that refuses any entry that would land outside the
//! destination (`..`, absolute paths, links pointing out) before writing it.

use crate::params::{ParamError, Params};
use crate::tree::{TreeSpec, tree_params};
use crate::{CancelToken, WorkloadError};
use std::path::{Path, PathBuf};

/// Where the archive comes from.
pub enum ArchiveSource {
    /// Generated into the scratch during `prepare`, once per run.
    Generated {
        /// The tree packed into it.
        spec: Box<TreeSpec>,
        /// Seed of the contents.
        seed: u64,
    },
    /// The user's archive, only read.
    File(PathBuf),
}

impl ArchiveSource {
    /// Reads `archive`, or `profile`, `scale`, `seed` for a generated one.
    pub fn from_params(p: &mut Params) -> Result<Self, ParamError> {
        match p.existing_path("archive", crate::PathKind::File)? {
            Some(a) => Ok(Self::File(a)),
            None => {
                let (spec, seed) = tree_params(p, "csail", "0.01")?;
                Ok(Self::Generated {
                    spec: Box::new(spec),
                    seed,
                })
            }
        }
    }

    /// The archive path for a scratch directory `dir`.
    pub fn path(&self, dir: Option<&Path>) -> Result<PathBuf, WorkloadError> {
        match self {
            Self::File(p) => Ok(p.clone()),
            Self::Generated { .. } => dir.map(|d| d.join("archive.tar")).ok_or_else(|| {
                WorkloadError::Unsupported("tar workloads need a directory target".into())
            }),
        }
    }

    /// Makes the archive (generated: write the tree, pack it, remove the tree); checks a user's one.
    pub fn prepare(&self, dir: &Path, cancel: &CancelToken) -> Result<PathBuf, WorkloadError> {
        let path = self.path(Some(dir))?;
        match self {
            Self::File(p) if p.is_file() => {}
            Self::File(p) => {
                return Err(WorkloadError::Invalid(format!(
                    "archive={} is not a file",
                    p.display()
                )));
            }
            Self::Generated { spec, seed } => {
                let src = dir.join("archive-src");
                std::fs::create_dir(&src).map_err(|e| WorkloadError::io("mkdir", &src, e))?;
                crate::tree::write_tree(spec, &src, *seed, cancel)?;
                let file = crate::io::open_beneath(
                    dir,
                    Path::new(path.file_name().unwrap_or_default()),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
                )
                .map_err(|e| WorkloadError::io("create", &path, e))?;
                let mut b = tar::Builder::new(std::io::BufWriter::new(file));
                b.follow_symlinks(false);
                b.append_dir_all(".", &src)
                    .map_err(|e| WorkloadError::io("pack", &path, e))?;
                b.into_inner()
                    .and_then(|mut w| std::io::Write::flush(&mut w))
                    .map_err(|e| WorkloadError::io("pack", &path, e))?;
                crate::fsops::remove_all(&src)?;
            }
        }
        Ok(path)
    }

    /// Inodes one extraction (and a generated archive's source tree) need.
    pub fn inodes_needed(&self) -> u64 {
        match self {
            Self::Generated { spec, .. } => {
                let m = spec.manifest();
                m.files + m.dirs + 1
            }
            // Unknown without reading the archive; the extraction reports ENOSPC if short.
            Self::File(_) => 0,
        }
    }

    /// Bytes the generated archive and one extraction need.
    pub fn space_needed(&self) -> u64 {
        match self {
            Self::Generated { spec, .. } => {
                let m = spec.manifest();
                2 * (m.bytes + (m.files + m.dirs) * 4096)
            }
            Self::File(p) => std::fs::metadata(p).map(|m| 2 * m.len()).unwrap_or(0),
        }
    }
}

/// Extracts `archive` into `dest` (which exists), preserving modes and mtimes as GNU tar does.
/// Returns (files, directories, bytes). An escaping entry stops the extraction with an error
/// before anything is written for it.
pub fn extract(
    archive: &Path,
    dest: &Path,
    cancel: &CancelToken,
) -> Result<(u64, u64, u64), WorkloadError> {
    let x = super::untar::extract(archive, dest, cancel)?;
    Ok((x.files, x.dirs, x.bytes))
}
