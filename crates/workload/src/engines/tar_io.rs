//! `tar-extract` and `tar-delete`: extract a tarball into the scratch (the `tar` crate, streaming,
//! modes and mtimes kept), and remove an extracted tree without following symlinks (`rm -rf`).
//! The archive is `archive=FILE` or a synthetic one (`profile=csail`, `scale`, `seed`) made once
//! in `prepare` and identified by its tree's manifest hash. Between samples, unmeasured, the
//! extract workload removes its last tree and the delete workload extracts a fresh one.

use super::tarball::{ArchiveSource, extract};
use crate::info::WorkloadInfo;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Context, Headline, Recorder, Workload, WorkloadError};
use std::path::PathBuf;

/// Registry entry of `tar-extract`.
pub const EXTRACT_INFO: WorkloadInfo = WorkloadInfo {
    name: "tar-extract",
    summary: "extract a tarball (archive=FILE or a synthetic csail one) into the scratch",
    params: PARAMS,
    build: build_extract,
};

/// Registry entry of `tar-delete`.
pub const DELETE_INFO: WorkloadInfo = WorkloadInfo {
    name: "tar-delete",
    summary: "remove an extracted tarball's tree (rm -rf, never following symlinks)",
    params: PARAMS,
    build: build_delete,
};

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "archive",
        default: "",
        help: "a tar file to extract (only read); default: a synthetic one",
    },
    ParamDoc {
        key: "profile",
        default: "csail",
        help: "tree of the synthetic archive (csail ~76,000 files)",
    },
    ParamDoc {
        key: "scale",
        default: "0.01",
        help: "scale of the synthetic tree (1 = full size, ~1.8 GiB)",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of the synthetic tree",
    },
];

struct TarIo {
    delete: bool,
    source: ArchiveSource,
    archive: Option<PathBuf>,
}

fn build_extract(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    Ok(Box::new(TarIo {
        delete: false,
        source: ArchiveSource::from_params(p)?,
        archive: None,
    }))
}

fn build_delete(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    Ok(Box::new(TarIo {
        delete: true,
        source: ArchiveSource::from_params(p)?,
        archive: None,
    }))
}

impl TarIo {
    fn tree(&self, ctx: &Context) -> Result<PathBuf, WorkloadError> {
        ctx.scratch().map(|d| d.join("extracted")).ok_or_else(|| {
            WorkloadError::Unsupported("tar workloads need a directory target".into())
        })
    }

    fn archive(&self) -> Result<&PathBuf, WorkloadError> {
        self.archive
            .as_ref()
            .ok_or_else(|| WorkloadError::Invalid("archive not prepared".into()))
    }

    fn fresh_extract(&self, ctx: &Context) -> Result<(u64, u64, u64), WorkloadError> {
        let tree = self.tree(ctx)?;
        crate::fsops::remove_all(&tree)?;
        std::fs::create_dir(&tree).map_err(|e| WorkloadError::io("mkdir", &tree, e))?;
        extract(self.archive()?, &tree, &ctx.cancel)
    }
}

impl Workload for TarIo {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let dir = ctx.scratch().ok_or_else(|| {
            WorkloadError::Unsupported("tar workloads need a directory target".into())
        })?;
        self.archive = Some(self.source.prepare(dir, &ctx.cancel)?);
        Ok(())
    }

    fn before_sample(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        if self.delete {
            self.fresh_extract(ctx).map(|_| ())
        } else {
            crate::fsops::remove_all(&self.tree(ctx)?)
        }
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let tree = self.tree(ctx)?;
        if self.delete {
            let entries = crate::walker::walk(&tree, crate::walker::StatMode::None, &ctx.cancel)
                .map(|c| c.entries)
                .unwrap_or(0);
            let t0 = rec.now_ns();
            crate::fsops::remove_all(&tree)?;
            rec.op_done(t0, 0);
            rec.metric("entries", entries as f64);
        } else {
            let t0 = rec.now_ns();
            std::fs::create_dir(&tree).map_err(|e| WorkloadError::io("mkdir", &tree, e))?;
            let (files, dirs, bytes) = extract(self.archive()?, &tree, &ctx.cancel)?;
            rec.op_done(t0, bytes);
            rec.add_ops(files + dirs - 1, 0);
            rec.metric("files", files as f64);
            rec.metric("dirs", dirs as f64);
        }
        Ok(())
    }

    fn cleanup(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        crate::fsops::remove_all(&self.tree(ctx)?)
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        self.archive.iter().cloned().collect()
    }

    fn writes(&self) -> bool {
        true
    }

    fn space_needed(&self) -> u64 {
        self.source.space_needed()
    }

    fn inodes_needed(&self) -> u64 {
        self.source.inodes_needed()
    }

    fn size_knob(&self) -> &'static str {
        "scale"
    }

    fn headline(&self) -> Headline {
        Headline::Wall
    }

    fn cold_needs_global(&self) -> bool {
        self.delete
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn extract_then_delete_leave_the_same_files_and_nothing_behind() {
        let mut h = Harness::new(build_extract, "profile=small,scale=0.05");
        for _ in 0..2 {
            h.workload.before_sample(&h.ctx).unwrap();
            let d = h.sample();
            assert_eq!(Harness::metric(&d, "files"), 100.0);
        }
        let mut del = Harness::new(build_delete, "profile=small,scale=0.05");
        del.workload.before_sample(&del.ctx).unwrap();
        let d = del.sample();
        assert_eq!(Harness::metric(&d, "entries"), 109.0);
        assert!(!del.dir.path().join("extracted").exists());
    }
}
