//! `status-scan`: what `git status` does to a filesystem. lstat every tracked file and compare it
//! with the index (mtime, size, inode), then look for untracked files: read every directory, or
//! with `untracked-cache=on` only the directories whose mtime changed (git's untracked cache).
//! Paths are full paths, resolved by the kernel on every call, as git does. The files checked
//! and directories read are added to the context's progress counter as they go (in batches of
//! [`BATCH`] files, one relaxed atomic add each), which the runner's ticker turns into the
//! sample's series.

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::knobs::tree;
use crate::knobs::tree_source::{TREE, TreeSource};
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_tree::index::{Index, stat_mtime_ns};
use rustix::fs::{FileType, Mode, OFlags, RawDir};
use std::mem::MaybeUninit;
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "status-scan",
    summary: "git status's filesystem work: lstat every tracked file, read directories for untracked files",
    params: PARAMS,
    build,
    shared: false,
};

/// `untracked-cache`: read only the directories whose mtime changed (git's untracked cache).
const UNTRACKED_CACHE: Knob<bool> = Knob::new(
    "untracked-cache",
    "off",
    "on: read only directories whose mtime changed",
    |p, k, d| Ok(p.choice(k, &["on", "off"], d)? == "on"),
);

/// `threads`: the threads that lstat the tracked files (git's preloaded index).
const THREADS: Knob<Option<u64>> = Knob::new(
    "threads",
    "auto",
    "threads that lstat the tracked files: auto (one per 500 files, at most one per CPU) or a number",
    |p, k, d| match p.string(k, d).as_str() {
        "auto" => Ok(None),
        t => t
            .parse::<u64>()
            .ok()
            .filter(|&n| n >= 1)
            .map(Some)
            .ok_or_else(|| ParamError {
                key: k.into(),
                message: format!("invalid value '{t}': use auto or a number >= 1"),
            }),
    },
)
.counts_workers();

const PARAMS: &[ParamDoc] = &[
    TREE.doc(),
    UNTRACKED_CACHE.doc(),
    THREADS.doc(),
    tree::PROFILE.doc(),
    tree::SCALE.doc(),
    tree::SEED.doc(),
];

struct StatusScan {
    source: TreeSource,
    untracked_cache: bool,
    threads: Option<u64>,
    index: Index,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let source = TreeSource::from_params(p, tree::PROFILE, tree::SCALE)?;
    let untracked_cache = UNTRACKED_CACHE.read(p)?;
    let threads = THREADS.read(p)?;
    Ok(Box::new(StatusScan {
        source,
        untracked_cache,
        threads,
        index: Index::default(),
    }))
}

/// Counts of one scan.
#[derive(Debug, Default)]
struct Scan {
    checked: u64,
    modified: u64,
    dirs_read: u64,
    untracked: u64,
}

impl StatusScan {
    /// Threads for the lstat pass: as git's preload-index, one per 500 files up to the CPUs.
    fn thread_count(&self) -> usize {
        let cpus = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        match self.threads {
            Some(t) => t as usize,
            None => (self.index.files.len() / 500).clamp(1, cpus),
        }
    }

    /// lstat every tracked file (split across threads) and count those that differ.
    fn check_tracked(&self, scan: &mut Scan, ctx: &Context) -> Result<(), WorkloadError> {
        let files = &self.index.files;
        let chunk = files.len().div_ceil(self.thread_count()).max(1);
        let modified: Vec<Result<u64, WorkloadError>> = std::thread::scope(|s| {
            let handles: Vec<_> = files
                .chunks(chunk)
                .map(|part| {
                    std::thread::Builder::new().spawn_scoped(s, move || check_part(part, ctx))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h {
                    Ok(h) => h
                        .join()
                        .unwrap_or(Err(WorkloadError::Invalid("lstat thread panicked".into()))),
                    Err(e) => Err(WorkloadError::Invalid(format!(
                        "cannot start an lstat thread: {e} — use fewer threads"
                    ))),
                })
                .collect()
        });
        for m in modified {
            scan.modified += m?;
        }
        scan.checked += files.len() as u64;
        Ok(())
    }

    fn find_untracked(&self, scan: &mut Scan, ctx: &Context) -> Result<(), WorkloadError> {
        let mut buf = vec![MaybeUninit::<u8>::uninit(); 32 * 1024];
        let mut path = Vec::with_capacity(4096);
        for (dir, mtime) in &self.index.dirs {
            if self.untracked_cache {
                let st = rustix::fs::lstat(dir.as_c_str()).ok();
                let now = st.map(|s| stat_mtime_ns(&s));
                if now == Some(*mtime) {
                    continue;
                }
            }
            let Ok(fd) = rustix::fs::open(
                dir.as_c_str(),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            ) else {
                continue;
            };
            scan.dirs_read += 1;
            ctx.progress.add(1, 0);
            let mut raw = RawDir::new(&fd, &mut buf);
            while let Some(Ok(e)) = raw.next() {
                let name = e.file_name().to_bytes();
                if name == b"." || name == b".." || e.file_type() == FileType::Directory {
                    continue;
                }
                path.clear();
                path.extend_from_slice(dir.as_bytes());
                path.push(b'/');
                path.extend_from_slice(name);
                if !self.index.known.contains(&path) {
                    scan.untracked += 1;
                }
            }
        }
        Ok(())
    }
}

/// Files checked between adds to the progress counter: the threads share its cache line, so
/// an add per lstat would cost a cache miss per lstat.
const BATCH: usize = 64;

/// lstat each file of `part`; returns how many differ from the index.
fn check_part(part: &[fsbench_tree::index::Tracked], ctx: &Context) -> Result<u64, WorkloadError> {
    let mut modified = 0;
    for (i, f) in part.iter().enumerate() {
        if i % 4096 == 0 {
            ctx.cancel.check()?;
        }
        if i % BATCH == 0 && i > 0 {
            ctx.progress.add(BATCH as u64, 0);
        }
        match rustix::fs::lstat(f.path.as_c_str()) {
            Ok(st) => {
                let mtime = stat_mtime_ns(&st);
                if mtime != f.mtime_ns || st.st_size as u64 != f.size || st.st_ino != f.ino {
                    modified += 1;
                }
            }
            Err(_) => modified += 1,
        }
    }
    let counted = part.len().saturating_sub(1) / BATCH * BATCH;
    ctx.progress.add((part.len() - counted) as u64, 0);
    Ok(modified)
}

impl Workload for StatusScan {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let root = self.source.prepare(ctx)?;
        self.index = Index::build(&root)?;
        Ok(())
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let mut scan = Scan::default();
        let t0 = rec.now_ns();
        self.check_tracked(&mut scan, ctx)?;
        let t1 = rec.now_ns();
        self.find_untracked(&mut scan, ctx)?;
        let t2 = rec.now_ns();
        rec.phase("tracked", t1 - t0);
        rec.phase("untracked", t2 - t1);
        rec.add_ops(scan.checked + scan.dirs_read, 0);
        rec.metric(fsbench_model::metric::FILES_CHECKED, scan.checked as f64);
        rec.metric(fsbench_model::metric::MODIFIED, scan.modified as f64);
        rec.metric(fsbench_model::metric::DIRS_READ, scan.dirs_read as f64);
        rec.metric(fsbench_model::metric::UNTRACKED, scan.untracked as f64);
        Ok(())
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        Vec::new()
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: self.source.writes(),
            space_needed: self.source.space_needed(),
            inodes_needed: self.source.inodes_needed(),
            size_knob: tree::SCALE.key,
            cold_needs_global: true,
            reads_tree: true,
            counts_progress: true,
            ..Caps::base(Headline::Wall)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn clean_tree_has_nothing_modified_or_untracked() {
        let mut h = Harness::new(build, "profile=small,scale=0.05");
        let progress = h.ctx.progress.clone();
        let d = h.sample();
        assert_eq!(
            progress.read().0,
            110,
            "every file and directory, as they went"
        );
        assert_eq!(Harness::metric(&d, "files_checked"), 100.0);
        assert_eq!(Harness::metric(&d, "modified"), 0.0);
        assert_eq!(Harness::metric(&d, "untracked"), 0.0);
        assert_eq!(Harness::metric(&d, "dirs_read"), 10.0);
    }

    #[test]
    fn changes_are_seen_and_the_untracked_cache_skips_unchanged_dirs() {
        let mut h = Harness::new(build, "profile=small,scale=0.05,untracked-cache=on");
        let d = h.sample();
        assert_eq!(Harness::metric(&d, "dirs_read"), 0.0);
        let tree = h.dir.path().join("tree");
        std::fs::write(tree.join("new-file"), b"x").unwrap();
        let d = h.sample();
        assert_eq!(Harness::metric(&d, "dirs_read"), 1.0);
        assert_eq!(Harness::metric(&d, "untracked"), 1.0);
    }
}
