//! `walk`: L recursive directory walks (readdir + lstat per entry) shared across J workers,
//! threads or processes, over a generated tree or an existing one (read only). The readdir
//! global-lock study: sys time that grows with J while wall time stops falling.

use crate::info::WorkloadInfo;
use crate::knobs::tree_source::TreeSource;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
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

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "tree",
        default: "generated",
        help: "generated, or an existing directory walked read-only",
    },
    ParamDoc {
        key: "workers",
        default: "1",
        help: "J: parallel workers (a list sweeps: workers=1,2,4)",
    },
    ParamDoc {
        key: "walks",
        default: "workers",
        help: "L: total walks, shared across the workers",
    },
    ParamDoc {
        key: "mode",
        default: "threads",
        help: "threads or procs (separate processes, as in the study)",
    },
    ParamDoc {
        key: "stat",
        default: "lstat",
        help: "lstat, statx or none (d_type only)",
    },
    ParamDoc {
        key: "profile",
        default: "chromium",
        help: "profile of the generated tree",
    },
    ParamDoc {
        key: "scale",
        default: "0.1",
        help: "scale of the generated tree",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of the generated tree",
    },
];

struct Walk {
    source: TreeSource,
    workers: u64,
    walks: u64,
    procs: bool,
    stat: StatMode,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let workers = p.count("workers", "1")?;
    let walks = p.count("walks", &workers.to_string())?;
    let procs = p.choice("mode", &["threads", "procs"], "threads")? == "procs";
    let stat = match p.choice("stat", &["lstat", "statx", "none"], "lstat")? {
        "statx" => StatMode::Statx,
        "none" => StatMode::None,
        _ => StatMode::Lstat,
    };
    let source = TreeSource::from_params(p, "chromium", "0.1")?;
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
            size_knob: "scale",
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
