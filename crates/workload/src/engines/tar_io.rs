//! The engine of `tar-extract` and `tar-delete`: extract a tarball into the scratch (the `tar` crate, streaming,
//! modes and mtimes kept), and remove an extracted tree without following symlinks (`rm -rf`).
//! The archive is `archive=FILE` or a synthetic one (`profile=csail`, `scale`, `seed`) made once
//! in `prepare` and identified by its tree's manifest hash; it is read from local disk outside
//! the target unless `archive_on=target`. Between samples, unmeasured, the extract workload
//! removes its last tree and the delete workload extracts a fresh one and counts it.

use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_tree::tarball::{Archive, ArchiveOn, extract};
use std::path::{Path, PathBuf};

/// The parameters of `tar-extract` and `tar-delete`.
pub(super) const PARAMS: &[ParamDoc] = crate::knobs::archive::DOCS;

struct TarIo {
    delete: bool,
    archive: Archive,
    /// The archive's path once prepared.
    path: Option<PathBuf>,
    /// Whether the workload's directory is on a FUSE filesystem (settled in `prepare`).
    fuse: bool,
    /// `tar-delete`: entries of the tree extracted for the next sample, counted before it.
    entries: u64,
    /// `tar-delete`: files of that tree whose residency stands for the tree's.
    probe: Vec<PathBuf>,
}

/// Files of an extracted tree whose page residency is measured for `tar-delete`: enough to tell
/// cached from dropped, few enough that opening them changes nothing measurable.
const PROBE_FILES: usize = 64;

/// Builds `tar-extract` (or with `delete`, `tar-delete`) from its parameters.
pub(super) fn build(p: &mut Params, delete: bool) -> Result<Box<dyn Workload>, ParamError> {
    Ok(Box::new(TarIo {
        delete,
        archive: crate::knobs::archive::archive_param(p)?,
        path: None,
        fuse: false,
        entries: 0,
        probe: Vec::new(),
    }))
}

impl TarIo {
    fn tree(&self, ctx: &Context) -> Result<PathBuf, WorkloadError> {
        ctx.scratch().map(|d| d.join("extracted")).ok_or_else(|| {
            WorkloadError::Unsupported("tar workloads need a directory target".into())
        })
    }

    fn archive(&self) -> Result<&PathBuf, WorkloadError> {
        self.path
            .as_ref()
            .ok_or_else(|| WorkloadError::Invalid("archive not prepared".into()))
    }

    fn fresh_extract(&self, ctx: &Context) -> Result<(u64, u64, u64), WorkloadError> {
        let tree = self.tree(ctx)?;
        fsbench_io::fsops::remove_all(&tree)?;
        std::fs::create_dir(&tree).map_err(|e| WorkloadError::io("mkdir", &tree, e))?;
        extract(self.archive()?, &tree, &ctx.cancel, None)
    }
}

impl Workload for TarIo {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let dir = ctx.scratch().ok_or_else(|| {
            WorkloadError::Unsupported("tar workloads need a directory target".into())
        })?;
        self.fuse = on_fuse(dir);
        self.path = Some(self.archive.prepare(dir, ctx)?);
        Ok(())
    }

    fn before_sample(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        if self.delete {
            // Extracted and surveyed here, before the cache is made cold: a walk inside the
            // sample would bring the tree's directories back into the cache before the timer.
            self.fresh_extract(ctx)?;
            let tree = self.tree(ctx)?;
            let (entries, probe) = survey(&tree, PROBE_FILES)
                .map_err(|e| WorkloadError::io("read directory", &tree, e))?;
            self.entries = entries;
            self.probe = probe;
            Ok(())
        } else {
            fsbench_io::fsops::remove_all(&self.tree(ctx)?)
        }
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let tree = self.tree(ctx)?;
        // Each entry removed or made counts as it goes: the sample's series.
        if self.delete {
            fsbench_io::fsops::remove_all_counted(&tree, rec)?;
            rec.metric(fsbench_model::metric::ENTRIES, self.entries as f64);
        } else {
            std::fs::create_dir(&tree).map_err(|e| WorkloadError::io("mkdir", &tree, e))?;
            let (files, dirs, _) = extract(self.archive()?, &tree, &ctx.cancel, Some(rec))?;
            rec.metric(fsbench_model::metric::FILES, files as f64);
            rec.metric(fsbench_model::metric::DIRS, dirs as f64);
        }
        Ok(())
    }

    fn cleanup(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        fsbench_io::fsops::remove_all(&self.tree(ctx)?)
    }

    /// Extract: the archive (what the sample reads; on local disk by default, so the same file
    /// for every target). Delete: a spread of the extracted tree's files, except on FUSE, where
    /// opening a file to measure its residency drops its pages.
    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        if !self.delete {
            self.path.iter().cloned().collect()
        } else if self.fuse {
            Vec::new()
        } else {
            self.probe.clone()
        }
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.delete && self.fuse {
            notes.push(
                "residency of the extracted tree is not measured on FUSE: opening a file through FUSE drops its cached pages"
                    .to_string(),
            );
        }
        if !self.delete && self.fuse && self.archive.on == ArchiveOn::Target {
            notes.push(
                "archive_on=target on FUSE: the archive is read through the FUSE daemon in every sample (each open drops its cached pages), warm or cold"
                    .to_string(),
            );
        }
        notes
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: true,
            space_needed: self.archive.space_needed(),
            inodes_needed: self.archive.inodes_needed(),
            size_knob: crate::knobs::archive::SCALE.key,
            cold_needs_global: self.delete,
            reads_tree: self.delete,
            ..Caps::base(Headline::Wall)
        }
    }
}

/// Whether `dir` is on a FUSE filesystem.
fn on_fuse(dir: &Path) -> bool {
    const FUSE_SUPER_MAGIC: i64 = 0x6573_5546;
    // f_type is i64 here but narrower on other platforms.
    #[allow(clippy::unnecessary_cast)]
    rustix::fs::statfs(dir).is_ok_and(|s| s.f_type as i64 == FUSE_SUPER_MAGIC)
}

/// Counts the entries under `root` (symlinks not followed) and picks up to `max` regular files
/// spread evenly over the walk.
fn survey(root: &Path, max: usize) -> std::io::Result<(u64, Vec<PathBuf>)> {
    let (mut entries, mut files, mut dirs) = (0u64, Vec::new(), vec![root.to_path_buf()]);
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            entries += 1;
            let t = e.file_type()?;
            if t.is_dir() {
                dirs.push(e.path());
            } else if t.is_file() {
                files.push(e.path());
            }
        }
    }
    let step = files.len().div_ceil(max.max(1)).max(1);
    Ok((entries, files.into_iter().step_by(step).collect()))
}

#[cfg(test)]
mod tests {
    use crate::engines::tar_delete::build_delete;
    use crate::engines::tar_extract::build_extract;
    use crate::testutil::Harness;

    #[test]
    fn extract_then_delete_leave_the_same_files_and_nothing_behind() {
        let mut h = Harness::new(build_extract, "profile=small,scale=0.05,archive_on=target");
        for _ in 0..2 {
            h.workload.before_sample(&h.ctx).unwrap();
            let d = h.sample();
            assert_eq!(Harness::metric(&d, "files"), 100.0);
            // Every entry made counted (and timed) as it went: 100 files, 9 directories.
            assert_eq!((d.ops, d.latency.unwrap().count), (109, 109));
        }
        let mut del = Harness::new(build_delete, "profile=small,scale=0.05,archive_on=target");
        del.workload.before_sample(&del.ctx).unwrap();
        let d = del.sample();
        assert_eq!(Harness::metric(&d, "entries"), 109.0);
        assert_eq!(d.ops, 109, "every entry removed, counted as it went");
        assert!(!del.dir.path().join("extracted").exists());
    }
}
