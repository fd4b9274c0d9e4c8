//! `walk`: L recursive directory walks (readdir + lstat per entry) shared across J workers,
//! threads or processes, over a generated tree or an existing one (read only). The readdir
//! global-lock study: sys time that grows with J while wall time stops falling.

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::knobs::tree;
use crate::knobs::tree_source::{TREE, TreeSource};
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_model::param;
use fsbench_tree::walk_procs;
use fsbench_tree::walker::{self, StatMode, WalkCounts};
use std::path::{Path, PathBuf};

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "walk",
    summary: "L recursive walks (readdir + lstat) across J workers over a generated tree or tree=PATH",
    params: PARAMS,
    build,
    shared: false,
};

/// `workers`: J, the parallel walkers.
const WORKERS: Knob<u64> = crate::knob::count(
    param::WORKERS,
    "1",
    "J: parallel workers (a list sweeps: workers=1,2,4)",
)
.counts_workers();

/// `walks`: L, the walks shared across the workers.
const WALKS: Knob<u64> = crate::knob::count(
    param::WALKS,
    "workers",
    "L: total walks, shared across the workers",
);

/// `mode`'s values: the workers as threads, or as processes.
const MODES: [&str; 2] = [param::MODE_THREADS, param::MODE_PROCS];

/// `mode`: workers as threads or processes.
const MODE: Knob<bool> = Knob::new(
    param::MODE,
    MODES[0],
    "threads or procs (separate processes, as in the study)",
    |p, k, d| Ok(p.choice(k, &MODES, d)? == MODES[1]),
);

/// `stat`: what is done to each entry.
const STAT: Knob<StatMode> = Knob::new(
    param::STAT,
    "lstat",
    "lstat, statx or none (d_type only)",
    |p, k, d| {
        Ok(match p.choice(k, &["lstat", "statx", "none"], d)? {
            "statx" => StatMode::Statx,
            "none" => StatMode::None,
            _ => StatMode::Lstat,
        })
    },
);

const PARAMS: &[ParamDoc] = &[
    TREE.help_as("generated, or an existing directory walked read-only")
        .doc(),
    WORKERS.doc(),
    WALKS.doc(),
    MODE.doc(),
    STAT.doc(),
    tree::PROFILE.doc(),
    tree::SCALE.doc(),
    tree::SEED.doc(),
];

struct Walk {
    source: TreeSource,
    workers: u64,
    walks: u64,
    procs: bool,
    stat: StatMode,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let workers = WORKERS.read(p)?;
    let walks = WALKS.read_or(p, &workers.to_string())?;
    let procs = MODE.read(p)?;
    let stat = STAT.read(p)?;
    let source = TreeSource::from_params(p, tree::PROFILE, tree::SCALE)?;
    Ok(Box::new(Walk {
        source,
        workers,
        walks,
        procs,
        stat,
    }))
}

impl Walk {
    /// Walks assigned to worker `k` of `workers`.
    fn share(&self, k: u64) -> u64 {
        self.walks / self.workers + u64::from(k < self.walks % self.workers)
    }

    fn run_threads(&self, root: &Path, ctx: &Context) -> Result<WalkCounts, WorkloadError> {
        let results: Vec<std::io::Result<WalkCounts>> = std::thread::scope(|s| {
            let mut handles = Vec::new();
            let mut failed = None;
            for k in 0..self.workers {
                let n = self.share(k);
                let cancel = ctx.cancel.clone();
                let progress = &ctx.progress;
                // Builder, not `s.spawn`: a thread that cannot start is an error, not a panic.
                match std::thread::Builder::new().spawn_scoped(s, move || {
                    walker::walk_n(root, n, self.stat, &cancel, Some(progress))
                }) {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        failed = Some(std::io::Error::other(format!(
                            "cannot start walker thread {} of {}: {e} — use fewer workers",
                            k + 1,
                            self.workers
                        )));
                        break;
                    }
                }
            }
            let mut out: Vec<_> = handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(std::io::Error::other("walker thread panicked")))
                })
                .collect();
            out.extend(failed.map(Err));
            out
        });
        let mut total = WalkCounts::default();
        for r in results {
            total.add(r.map_err(|e| walk_error(e, root, ctx))?);
        }
        Ok(total)
    }
}

impl Walk {
    /// `mode=procs`: the workers add their entries to a counter in shared memory, read by a
    /// ticker at every interval's end: the sample's series, merged as a parallel part's (when
    /// it holds every entry; else the entries are counted at the end, with no series).
    fn run_procs(
        &self,
        root: &Path,
        ctx: &Context,
        rec: &mut dyn Recorder,
    ) -> Result<(), WorkloadError> {
        let counter = fsbench_measure::Counter::shared();
        let interval = rec
            .interval_ns()
            .unwrap_or(fsbench_measure::series::DEFAULT_INTERVAL_NS);
        let ticker = counter
            .as_ref()
            .and_then(|c| fsbench_measure::Ticker::start(c, interval));
        let share = |k| self.share(k);
        let ran = walk_procs::run(root, self.workers, share, self.stat, ctx, counter.as_ref());
        let series = ticker.map(fsbench_measure::Ticker::finish);
        let counts = ran?;
        let whole = |s: &fsbench_measure::RawSeries| {
            s.intervals.iter().map(|i| i.ops).sum::<u64>() == counts.entries
        };
        match series.filter(whole) {
            Some(s) => fsbench_measure::merge_ticked(rec, &s),
            None => rec.add_ops(counts.entries, 0),
        }
        self.report(rec, counts);
        Ok(())
    }

    fn report(&self, rec: &mut dyn Recorder, counts: WalkCounts) {
        rec.metric(fsbench_model::metric::ENTRIES, counts.entries as f64);
        rec.metric(fsbench_model::metric::DIRS, counts.dirs as f64);
        rec.metric(fsbench_model::metric::ERRORS, counts.errors as f64);
        rec.metric(fsbench_model::metric::WORKERS, self.workers as f64);
        rec.metric(fsbench_model::metric::WALKS, self.walks as f64);
    }
}

fn walk_error(e: std::io::Error, root: &Path, ctx: &Context) -> WorkloadError {
    if ctx.cancel.is_cancelled() {
        WorkloadError::Interrupted
    } else {
        WorkloadError::io("walk", root, e)
    }
}

impl Workload for Walk {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        self.source.prepare(ctx).map(|_| ())
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let root = self.source.root(ctx)?;
        if self.procs {
            self.run_procs(&root, ctx, rec)
        } else {
            let counts = self.run_threads(&root, ctx)?;
            rec.add_ops(counts.entries, 0);
            self.report(rec, counts);
            Ok(())
        }
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
            // Threads share the runner's counter; mode=procs shares its own with its processes.
            counts_progress: !self.procs,
            ..Caps::base(Headline::Metric {
                name: fsbench_model::metric::ENTRIES_PER_S,
                unit: "entries/s",
                higher_is_better: true,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn walks_are_shared_across_workers_and_entries_add_up() {
        let d = Harness::new(build, "profile=small,scale=0.05,workers=2,walks=3").sample();
        // 100 files + 9 directories below the root, three walks.
        assert_eq!(Harness::metric(&d, "entries"), 3.0 * 109.0);
    }
}
