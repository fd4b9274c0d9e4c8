//! `tree-create`: write a synthetic source tree (profile, scale, seed), then delete it. Creation
//! rate (files/s) is the headline; deletion is timed too. The tree's manifest is recorded.
//! Every directory made, file created (timed: its creation latency), stat-ed and removed counts
//! as one operation as it goes, so the sample's series shows the whole course; parallel jobs
//! count on their own recorders, merged at the end as data-path jobs are.

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::knobs::tree::{self as tree_knobs, tree_params};
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::pace;
use fsbench_measure::SampleRecorder;
use fsbench_model::param;
use fsbench_tree::{self as tree, TreeSpec};
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "tree-create",
    summary: "create a synthetic source tree (chromium, firefox, linux, csail, small, flat), then delete it",
    params: PARAMS,
    build,
    shared: true,
};

const PROFILE: Knob<String> = tree_knobs::PROFILE.default_to("small").help_as(
    "chromium (~250k files), firefox, linux, csail, small, flat (one directory of \
     equal 4163-byte files), mdtest-hard (3901-byte files, IO500) or mdtest-easy \
     (empty files, IO500)",
);
const SCALE: Knob<f64> = tree_knobs::SCALE
    .default_to("1")
    .help_as("multiply the profile's counts (0.01 .. 10)");

/// `stat`: an mdtest stat phase between create and delete.
pub(crate) const STAT: Knob<bool> = crate::knob::boolean(
    param::STAT,
    "false",
    "true: between create and delete, lstat every file by its name (mdtest's stat \
     phase), timed as its own phase: stat_files_per_s",
);

/// `delete`: how the tree is removed.
const DELETE: Knob<bool> = Knob::new(
    "delete",
    "walk",
    "walk: remove the tree as rm -rf does (readdir, unlink, rmdir); names: unlink each \
     file by its known name, then rmdir (mdtest's removal)",
    |p, k, d| Ok(p.choice(k, &["walk", "names"], d)? == "names"),
);

const JOBS: Knob<u64> = crate::knobs::queue::JOBS
    .help_as("threads creating, stat-ing and deleting at once, each its own copy of the tree");

/// `shared`: the jobs' files in one set of directories.
const SHARED: Knob<bool> = crate::knob::boolean(
    "shared",
    "false",
    "with jobs: true puts every job's files in one set of directories, named .jK \
     (mdtest's shared directory, IO500's mdtest-hard); false gives each job its own",
);

const PARAMS: &[ParamDoc] = &[
    PROFILE.doc(),
    SCALE.doc(),
    tree_knobs::SEED.help_as("seed of names, sizes and contents").doc(),
    STAT.doc(),
    DELETE.doc(),
    crate::knobs::pace::RATE
        .help_as("open loop while creating: N files/s, the run's total; each file's creation is a request whose latency counts from its scheduled start")
        .doc(),
    JOBS.doc(),
    SHARED.doc(),
    crate::knobs::pace::ARRIVALS.doc(),
    crate::knobs::pace::THINK.doc(),
];

struct TreeCreate {
    spec: TreeSpec,
    seed: u64,
    sample: u64,
    /// Delete by the manifest's names instead of walking the tree.
    by_name: bool,
    /// Time an lstat of every file between create and delete.
    stat: bool,
    /// `rate=` (files/s) or `think=` between files while creating.
    pace: pace::Pace,
    /// Threads working at once (`jobs=`).
    jobs: usize,
    /// All jobs in one set of directories (`shared=true`).
    shared_dirs: bool,
}

/// Where one job works: its tree's root, and the suffix of its files' names (when it shares
/// directories with other jobs or ranks).
struct Place {
    root: PathBuf,
    suffix: Option<String>,
}

/// Runs `f` for every place at once, one thread each with its own recorder (`jobs`, one per
/// place), or alone on the sample's `rec`; the first error wins.
fn in_parallel<T: Send>(
    places: &[Place],
    jobs: &mut [SampleRecorder],
    rec: &mut dyn Recorder,
    f: impl Fn(&Place, &mut dyn Recorder) -> Result<T, WorkloadError> + Sync,
) -> Result<Vec<T>, WorkloadError> {
    if let [one] = places {
        return Ok(vec![f(one, rec)?]);
    }
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = places
            .iter()
            .zip(jobs.iter_mut())
            .map(|(p, r)| s.spawn(move || f(p, r)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(WorkloadError::Invalid("a job panicked".into())))
            })
            .collect()
    })
}

/// One recorder per job when there are several, started together now at the sample's interval,
/// so that their series add up interval by interval at the end ([`merge_jobs`]).
pub(crate) fn job_recorders(jobs: usize, rec: &dyn Recorder) -> Vec<SampleRecorder> {
    if jobs < 2 {
        return Vec::new();
    }
    (0..jobs)
        .map(|_| {
            let mut r = SampleRecorder::new();
            if let Some(iv) = rec.interval_ns() {
                r.set_interval(iv);
            }
            r.start();
            r
        })
        .collect()
}

/// Adds each job's operations, latencies and series into the sample's recorder.
pub(crate) fn merge_jobs(jobs: Vec<SampleRecorder>, rec: &mut dyn Recorder) {
    for mut j in jobs {
        let d = j.finish();
        let series = Some(&d.series).filter(|s| !s.intervals.is_empty());
        rec.merge_ops(j.histogram(), d.ops, d.bytes, series);
    }
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let (spec, seed) = tree_params(p, PROFILE, SCALE)?;
    let by_name = DELETE.read(p)?;
    let stat = STAT.read(p)?;
    let pace = crate::knobs::pace::pace_param(p, 1)?;
    let jobs = JOBS.read(p)? as usize;
    let shared_dirs = SHARED.read(p)?;
    if jobs > 1 && !pace.full_speed() {
        return Err(JOBS.error("a paced tree is created by one job — drop rate/think or jobs"));
    }
    if matches!(pace.rate, pace::Rate::Curve(_)) {
        return Err(crate::knobs::pace::RATE
            .error("curve runs for a time per step; a tree has a size — give rate=N files/s"));
    }
    Ok(Box::new(TreeCreate {
        pace,
        spec,
        seed,
        sample: 0,
        by_name,
        stat,
        jobs: jobs.max(1),
        shared_dirs,
    }))
}

impl TreeCreate {
    /// Where each job works: alone, the root; with `jobs=N,shared=true` the root for all, each
    /// job's files named `.jK`; with `jobs=N` a subdirectory `jK` each. With `--layout shared`
    /// (MPI) every rank's files are also named `.rN`.
    fn places(&self, root: &std::path::Path, rank: Option<String>) -> Vec<Place> {
        (0..self.jobs)
            .map(|k| match (self.jobs, self.shared_dirs) {
                (1, _) => Place {
                    root: root.to_path_buf(),
                    suffix: rank.clone(),
                },
                (_, true) => Place {
                    root: root.to_path_buf(),
                    suffix: Some(format!("{}.j{k}", rank.as_deref().unwrap_or(""))),
                },
                (_, false) => Place {
                    root: root.join(format!("j{k}")),
                    suffix: rank.clone(),
                },
            })
            .collect()
    }

    /// One sample: create, [stat,] delete. Under MPI the ranks meet at a barrier after each
    /// phase, as mdtest's do, outside the timed phases (a no-op alone). With `--layout shared`
    /// every rank writes the whole tree into the same directories, its files named `.rN`
    /// (mdtest's shared-directory mode), and removes its own files by name.
    fn sample_in(
        &mut self,
        ctx: &Context,
        rec: &mut dyn Recorder,
        root: &std::path::Path,
    ) -> Result<(), WorkloadError> {
        let shared = ctx.ranks.sharing();
        let places = self.places(root, shared.then(|| format!(".r{}", ctx.ranks.rank)));
        match std::fs::create_dir(root) {
            Err(e) if shared && e.kind() == std::io::ErrorKind::AlreadyExists => {}
            r => r.map_err(|e| WorkloadError::io("mkdir", root, e))?,
        }
        let mut jobs = job_recorders(places.len(), rec);
        let t0 = rec.now_ns();
        let files = if self.pace.full_speed() {
            let created = in_parallel(&places, &mut jobs, rec, |p, r| {
                if p.root != root {
                    std::fs::create_dir(&p.root)
                        .map_err(|e| WorkloadError::io("mkdir", &p.root, e))?;
                }
                let suffix = p.suffix.as_deref();
                tree::write_tree_as(&self.spec, &p.root, self.seed, &ctx.cancel, suffix, Some(r))
            })?;
            created.iter().sum()
        } else {
            // Paced (one job): each file is a request on the schedule, its latency recorded.
            let pace = self.pace.share(ctx.ranks.size);
            let suffix = places[0].suffix.as_deref();
            pace::paced(pace, self.seed, &ctx.cancel, rec, |rec| {
                tree::write_tree_as(&self.spec, root, self.seed, &ctx.cancel, suffix, Some(rec))
            })?
        };
        let create_ns = rec.now_ns() - t0;
        ctx.ranks.barrier(&ctx.cancel)?;
        let stat_ns = if self.stat {
            let t = rec.now_ns();
            in_parallel(&places, &mut jobs, rec, |p, r| {
                let suffix = p.suffix.as_deref().unwrap_or("");
                tree::stat_files(&self.spec, &p.root, suffix, &ctx.cancel, r)
            })?;
            let ns = rec.now_ns() - t;
            ctx.ranks.barrier(&ctx.cancel)?;
            Some(ns)
        } else {
            None
        };
        let t = rec.now_ns();
        if shared || self.by_name || self.jobs > 1 {
            in_parallel(&places, &mut jobs, rec, |p, r| {
                let suffix = p.suffix.as_deref().unwrap_or("");
                tree::remove_shared_tree(&self.spec, &p.root, suffix, &ctx.cancel, r)
            })?;
            if root.exists() && !shared {
                std::fs::remove_dir(root).map_err(|e| WorkloadError::io("rmdir", root, e))?;
            }
        } else {
            tree::remove_tree(root, Some(rec))?;
        }
        let delete_ns = rec.now_ns() - t;
        merge_jobs(jobs, rec);
        if shared {
            ctx.ranks.barrier(&ctx.cancel)?;
        }
        self.report(rec, files, create_ns, delete_ns);
        if let Some(ns) = stat_ns {
            rec.phase(param::PHASE_STAT, ns);
            rec.metric(
                fsbench_model::metric::STAT_FILES_PER_S,
                files as f64 / (ns.max(1) as f64 / 1e9),
            );
        }
        Ok(())
    }

    /// The phases and rates; the operations (directories made, files created, stat-ed and
    /// removed) were counted as they went.
    fn report(&self, rec: &mut dyn Recorder, files: u64, create_ns: u64, delete_ns: u64) {
        rec.phase(param::PHASE_CREATE, create_ns);
        rec.phase(param::PHASE_DELETE, delete_ns);
        rec.metric(fsbench_model::metric::FILES, files as f64);
        rec.metric(
            "files_per_s",
            files as f64 / (create_ns.max(1) as f64 / 1e9),
        );
        rec.metric(
            "delete_files_per_s",
            files as f64 / (delete_ns.max(1) as f64 / 1e9),
        );
    }
}

impl Workload for TreeCreate {
    fn prepare(&mut self, _ctx: &Context) -> Result<(), WorkloadError> {
        Ok(())
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let dir = ctx.scratch().ok_or_else(|| {
            WorkloadError::Unsupported("tree-create needs a directory target".into())
        })?;
        self.sample += 1;
        let root = dir.join(format!("tree-{}", self.sample));
        self.sample_in(ctx, rec, &root)
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        Vec::new()
    }

    fn caps(&self) -> Caps {
        let m = self.spec.manifest();
        let jobs = self.jobs as u64;
        Caps {
            writes: true,
            space_needed: (m.bytes + (m.files + m.dirs) * 4096) * jobs,
            inodes_needed: (m.files + m.dirs) * jobs,
            size_knob: SCALE.key,
            cold_needs_global: true,
            // Its stat and delete phases follow in the same series: another operation, not a
            // fall of the creation rate.
            cliff_phase: Some(param::PHASE_CREATE),
            ..Caps::base(Headline::Metric {
                name: fsbench_model::metric::FILES_PER_S,
                unit: "files/s",
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
    fn a_paced_tree_creates_its_files_on_the_schedule() {
        let mut h = Harness::new(build, "profile=flat,scale=0.05,rate=1000");
        let d = h.sample();
        // 100 files at 1000/s: at least 0.1 s of creating, each file a recorded request.
        assert_eq!(d.latency.unwrap().count, 100);
        assert!(
            d.phases
                .iter()
                .any(|(n, ns)| n == "create" && *ns >= 99_000_000),
            "{:?}",
            d.phases
        );
        assert_eq!(Harness::metric(&d, "rate_iops"), 1000.0);
    }

    #[test]
    fn stat_phase_times_an_lstat_of_every_file() {
        let mut h = Harness::new(build, "profile=flat,scale=0.05,stat=true");
        let d = h.sample();
        assert_eq!(Harness::metric(&d, "files"), 100.0);
        assert!(Harness::metric(&d, "stat_files_per_s") > 0.0);
        assert!(d.phases.iter().any(|(n, _)| n == "stat"));
        // Counted as they went: 100 files created (each timed), stat-ed, removed.
        assert_eq!(d.ops, 300);
        assert_eq!(d.latency.unwrap().count, 100);
        assert_eq!(std::fs::read_dir(h.dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn jobs_create_and_delete_their_trees_shared_or_apart() {
        for params in [
            "profile=flat,scale=0.05,jobs=3,shared=true,stat=true",
            "profile=small,scale=0.05,jobs=2,shared=true",
            "profile=small,scale=0.05,jobs=2",
        ] {
            let mut h = Harness::new(build, params);
            let d = h.sample();
            let jobs: f64 = if params.contains("jobs=3") { 3.0 } else { 2.0 };
            assert_eq!(Harness::metric(&d, "files"), 100.0 * jobs, "{params}");
            // Every job's files, created (each timed) and removed, merged from its recorder.
            assert_eq!(d.latency.unwrap().count, 100 * jobs as u64, "{params}");
            assert!(d.ops >= 200 * jobs as u64, "{params}: {}", d.ops);
            assert_eq!(
                std::fs::read_dir(h.dir.path()).unwrap().count(),
                0,
                "{params}"
            );
        }
    }

    #[test]
    fn creates_and_deletes_the_whole_tree() {
        for params in [
            "profile=small,scale=0.05",
            "profile=small,scale=0.05,delete=names",
        ] {
            let mut h = Harness::new(build, params);
            let d = h.sample();
            assert_eq!(Harness::metric(&d, "files"), 100.0, "{params}");
            assert_eq!(
                std::fs::read_dir(h.dir.path()).unwrap().count(),
                0,
                "{params}"
            );
        }
    }
}
