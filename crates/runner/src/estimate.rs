//! How long a plan will take, estimated before it starts. Each cell's time comes from the
//! newest stored cell like it when there is one (its mean sample time times the samples planned,
//! times that run's overhead: preparation, warm-ups, cold drops), and otherwise from a model:
//! the workload's known size (bytes and files it writes, a fixed duration) at the speed a small
//! probe measured on the target (a file written and fsynced, small files created and removed).
//! Cells with neither (a `command`, a walk of an existing tree) are counted as unknown.

use fsbench_model::{CacheState, TargetInfo};
use fsbench_scratch::Scratch;
use fsbench_spec::plan::{Plan, PlanWorkload, Runs, TargetKind};
use fsbench_store::timing::CellKey;
use fsbench_sys::cleanup::Cleanup;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// A target's speed as the probe measured it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speed {
    /// Bytes per second written and fsynced.
    pub write_bytes_per_s: f64,
    /// Small files (4 KiB) created and removed per second (a pair counts once).
    pub files_per_s: f64,
    /// Other processes' share of the machine's CPUs while the probe ran, % of wall × CPUs
    /// (`None` when `/proc/stat` could not be read).
    pub others_pct: Option<f64>,
}

impl Speed {
    /// Whether other processes took a share of the CPUs from which a run counts as loaded
    /// ([`fsbench_analysis::load::LOADED_PCT`]) while the probe ran.
    pub fn loaded(&self) -> bool {
        self.others_pct
            .is_some_and(|p| p >= fsbench_analysis::load::LOADED_PCT)
    }
}

/// Where a cell's estimate comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A stored cell of this run id.
    History(String),
    /// The model at the probed speed.
    Probe,
    /// The workload's fixed duration alone (`duration=`, `ops` × `sleep`): no speed enters it.
    Fixed,
    /// Neither: counted as zero.
    Unknown,
}

/// The estimate of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellEstimate {
    /// Index of the target in the plan.
    pub target: usize,
    /// Index of the workload in the plan.
    pub workload: usize,
    /// Cache state.
    pub cache: CacheState,
    /// Seconds.
    pub seconds: f64,
    /// Where it comes from.
    pub source: Source,
}

/// A stored cell's timing, as the estimate uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct PastCell {
    /// The run it comes from.
    pub run_id: String,
    /// Mean wall time of its samples, ns.
    pub mean_wall_ns: f64,
    /// Its run's duration over its samples' time.
    pub overhead_factor: f64,
}

/// The estimate of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Every cell's.
    pub cells: Vec<CellEstimate>,
    /// Per target, the probe's speed (when it was probed).
    pub speeds: Vec<Option<Speed>>,
    /// At least (`--runs auto` is counted at its minimum).
    pub at_least: bool,
}

impl Estimate {
    /// The one line printed before the run.
    pub fn line(&self, plan: &Plan) -> String {
        let e = self;
        let total = e.cells.len();
        let mut from = Vec::new();
        if e.from_history() > 0 {
            from.push(format!(
                "{} of {total} cells from earlier runs",
                e.from_history()
            ));
        }
        let probed: Vec<String> = plan
            .targets
            .iter()
            .zip(&e.speeds)
            .filter_map(|(t, s)| {
                s.map(|s| {
                    format!(
                        "{} {:.0} MiB/s, {:.0} files/s",
                        t.label,
                        s.write_bytes_per_s / (1 << 20) as f64,
                        s.files_per_s
                    )
                })
            })
            .collect();
        if !probed.is_empty() {
            from.push(format!("probe: {}", probed.join("; ")));
        }
        if e.unknown() > 0 {
            from.push(format!("{} cells of unknown size not counted", e.unknown()));
        }
        if let Some(pct) = e.probe_load() {
            from.push(format!(
                "probed while other processes took {pct:.0}% of the CPUs: a guess, not a promise"
            ));
        }
        format!(
            "estimated time: {}{} ({})",
            if e.at_least || e.unknown() > 0 {
                "at least "
            } else {
                "about "
            },
            fsbench_model::units::format_seconds(e.seconds()),
            from.join("; ")
        )
    }

    /// Total seconds.
    pub fn seconds(&self) -> f64 {
        self.cells.iter().map(|c| c.seconds).sum()
    }

    /// Cells whose time is unknown.
    pub fn unknown(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| c.source == Source::Unknown)
            .count()
    }

    /// Other processes' highest share of the CPUs (%) during a probe this estimate uses, when
    /// it was high enough to call the probe loaded ([`Speed::loaded`]): the probe's speeds are
    /// then the busy machine's of that moment, which the run may or may not share.
    pub fn probe_load(&self) -> Option<f64> {
        let used = |ti: usize| {
            self.cells
                .iter()
                .any(|c| c.target == ti && c.source == Source::Probe)
        };
        self.speeds
            .iter()
            .enumerate()
            .filter_map(|(ti, s)| s.filter(|s| s.loaded() && used(ti))?.others_pct)
            .max_by(f64::total_cmp)
    }

    /// Cells estimated from stored history.
    pub fn from_history(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| matches!(c.source, Source::History(_)))
            .count()
    }
}

/// What the model adds to the samples' time for set-up between them (cold drops, the workload's
/// own restoring step), when no stored run says better.
const MODEL_OVERHEAD: f64 = 1.3;

/// Bytes the probe writes and fsyncs.
const PROBE_BYTES: usize = 8 << 20;
/// Small files (4 KiB) the probe creates and removes.
const PROBE_FILES: usize = 256;

/// Measured samples a cell takes (`--runs auto`: its minimum; steady state: its window).
fn measured(runs: Runs) -> f64 {
    f64::from(match runs {
        Runs::Fixed(n) => n,
        Runs::Auto { min, .. } => min,
        Runs::Steady { window, .. } => window,
    })
}

/// Samples a cell takes, warm-ups included (a re-warmed cell's, [`crate::cell::rewarms`], one
/// before every measured sample; `expiring`: its target's caches expire).
fn samples(plan: &Plan, runs: Runs, cache: CacheState, expiring: bool) -> f64 {
    let warmup = plan.warmup.unwrap_or(u32::from(cache == CacheState::Warm));
    let rewarms = if crate::cell::rewarms(plan, expiring, cache) {
        measured(runs)
    } else {
        0.0
    };
    measured(runs) + f64::from(warmup) + rewarms
}

/// Seconds one sample of `w` takes at speed `s` by the model, and seconds its preparation
/// takes; `None` when the workload's size is not known in advance.
pub fn model(w: &PlanWorkload, s: &Speed) -> Option<(f64, f64)> {
    let fixed = fixed_seconds(w);
    let (bytes, files) = (w.caps.space_needed as f64, w.caps.inodes_needed as f64);
    if bytes == 0.0 && files == 0.0 && fixed == 0.0 {
        return None;
    }
    let work = bytes / s.write_bytes_per_s.max(1.0) + files / s.files_per_s.max(1.0);
    Some((work + fixed, work))
}

/// A fixed duration the workload's parameters give a sample (`duration=` and `warmup=`, `ops`
/// × `sleep`).
fn fixed_seconds(w: &PlanWorkload) -> f64 {
    let dur = |k: &str| {
        w.params
            .get(k)
            .and_then(|v| fsbench_model::units::parse_duration(v).ok())
            .map_or(0.0, |ns| ns as f64 / 1e9)
    };
    let ops = w
        .params
        .get(fsbench_model::param::OPS)
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(1.0);
    dur(fsbench_model::param::DURATION)
        + dur(fsbench_model::param::WARMUP)
        + ops * dur(fsbench_model::param::SLEEP)
}

/// Estimates `plan`: `past(target, workload, cache)` gives a stored cell like a planned one,
/// `speeds` the probed speed of each target.
pub fn estimate(
    plan: &Plan,
    past: &dyn Fn(usize, usize, CacheState) -> Option<PastCell>,
    speeds: Vec<Option<Speed>>,
    expiring: &[bool],
) -> Estimate {
    let mut cells = Vec::new();
    for (wi, w) in plan.workloads.iter().enumerate() {
        for (ti, _) in plan.targets.iter().enumerate() {
            let mut prepared = false;
            for &cache in plan
                .caches
                .iter()
                .filter(|&&c| !w.warm_only || c == CacheState::Warm)
            {
                let n = samples(
                    plan,
                    plan.runs_for(w),
                    cache,
                    expiring.get(ti).copied().unwrap_or(false),
                );
                let (seconds, source) = match past(ti, wi, cache) {
                    // The stored run's overhead factor already counts its warm-ups (they are
                    // not stored): only the measured samples are multiplied here.
                    Some(p) => (
                        measured(plan.runs_for(w)) * p.mean_wall_ns / 1e9 * p.overhead_factor,
                        Source::History(p.run_id),
                    ),
                    None => match speeds[ti].as_ref().and_then(|s| model(w, s)) {
                        Some((sample, prepare)) => {
                            let once = if prepared { 0.0 } else { prepare };
                            prepared = true;
                            let source = if prepare > 0.0 {
                                Source::Probe
                            } else {
                                Source::Fixed
                            };
                            (n * sample * MODEL_OVERHEAD + once, source)
                        }
                        None => (0.0, Source::Unknown),
                    },
                };
                cells.push(CellEstimate {
                    target: ti,
                    workload: wi,
                    cache,
                    seconds,
                    source,
                });
            }
        }
    }
    Estimate {
        cells,
        speeds,
        at_least: matches!(plan.runs, Runs::Auto { .. })
            || plan.workloads.iter().any(|w| w.until_steady),
    }
}

/// Targets whose cells need the probe: directory targets with a cell that history lacks and
/// whose workload's size is known in advance (the model has nothing to go on otherwise).
pub fn needs_probe(
    plan: &Plan,
    past: &dyn Fn(usize, usize, CacheState) -> Option<PastCell>,
) -> Vec<bool> {
    let unit = Speed {
        write_bytes_per_s: 1.0,
        files_per_s: 1.0,
        others_pct: None,
    };
    plan.targets
        .iter()
        .enumerate()
        .map(|(ti, t)| {
            t.kind == TargetKind::Dir
                && plan.workloads.iter().enumerate().any(|(wi, w)| {
                    model(w, &unit).is_some()
                        && plan.caches.iter().any(|&c| past(ti, wi, c).is_none())
                })
        })
        .collect()
}

/// Measures `target`'s speed in a scratch of its own (`.fsbench-<run_id>-probe`, removed after):
/// 8 MiB written and fsynced, then 256 files of 4 KiB created (mode and times set, as an
/// extraction does), their directory fsynced, and removed. `None` when the target cannot be written (the run itself will say why).
pub fn probe(target: &Path, run_id: &str, cleanup: &Cleanup) -> Option<Speed> {
    let scratch = Scratch::create_guarded(target, &format!("{run_id}-probe"), cleanup).ok()?;
    let load = LoadWatch::start();
    let speed = measure(scratch.path());
    let others_pct = load.others_pct();
    let _ = scratch.remove();
    speed.map(|s| Speed { others_pct, ..s })
}

/// Shortest window over which the probe's load is read: the machine's counters advance in
/// clock ticks (10 ms per CPU), so a shorter window's share would be mostly tick noise. A probe
/// that ends sooner waits out the rest (idle, so its own share stays what it was).
const LOAD_WINDOW: std::time::Duration = std::time::Duration::from_millis(200);

/// Other processes' share of the machine's CPUs over an interval: the machine's busy time
/// (user, system, interrupts) less this process's own CPU time.
struct LoadWatch {
    started: Instant,
    machine: fsbench_measure::CpuSnapshot,
    own: fsbench_measure::CpuTimes,
}

impl LoadWatch {
    fn start() -> Self {
        Self {
            started: Instant::now(),
            machine: fsbench_measure::CpuSnapshot::take(&[]),
            own: fsbench_measure::CpuTimes::process(),
        }
    }

    /// Others' share since [`LoadWatch::start`], % of wall × CPUs, waiting out [`LOAD_WINDOW`].
    fn others_pct(self) -> Option<f64> {
        if let Some(rest) = LOAD_WINDOW.checked_sub(self.started.elapsed()) {
            std::thread::sleep(rest);
        }
        let own = fsbench_measure::CpuTimes::process().since(self.own);
        let wall_ns = self.started.elapsed().as_nanos() as f64;
        let ticks = fsbench_measure::clock_ticks_per_s();
        let m = fsbench_measure::CpuSnapshot::take(&[])
            .since(&self.machine, ticks)
            .machine
            .filter(|m| m.cpus > 0)?;
        let busy = (m.user_ns + m.sys_ns + m.irq_ns) as f64;
        let ours = (own.user_ns + own.sys_ns) as f64;
        let pct = (busy - ours) / (wall_ns * f64::from(m.cpus)) * 100.0;
        Some(pct.clamp(0.0, 100.0))
    }
}

fn measure(dir: &Path) -> Option<Speed> {
    let file = dir.join("probe");
    let t = Instant::now();
    let mut f = std::fs::File::create_new(&file).ok()?;
    let chunk = vec![0x5au8; 1 << 20];
    for _ in 0..PROBE_BYTES / chunk.len() {
        f.write_all(&chunk).ok()?;
    }
    f.sync_all().ok()?;
    let write_s = t.elapsed().as_secs_f64();
    // Its pages leave the cache with the file: the run starts as it would have.
    drop(f);
    std::fs::remove_file(&file).ok()?;
    let files = dir.join("files");
    std::fs::create_dir(&files).ok()?;
    let t = Instant::now();
    // Each file as an extraction makes one: created, written, its mode and times set, closed.
    let page = [0x5au8; 4096];
    let times = std::fs::FileTimes::new().set_modified(std::time::SystemTime::UNIX_EPOCH);
    for i in 0..PROBE_FILES {
        std::fs::File::create_new(files.join(i.to_string()))
            .and_then(|mut f| {
                f.write_all(&page)?;
                f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
                f.set_times(times)
            })
            .ok()?;
    }
    std::fs::File::open(&files)
        .and_then(|d| d.sync_all())
        .ok()?;
    for i in 0..PROBE_FILES {
        std::fs::remove_file(files.join(i.to_string())).ok()?;
    }
    let files_s = t.elapsed().as_secs_f64();
    Some(Speed {
        write_bytes_per_s: PROBE_BYTES as f64 / write_s.max(1e-6),
        files_per_s: PROBE_FILES as f64 / files_s.max(1e-6),
        others_pct: None,
    })
}

/// Estimates `plan` on `targets` (the record's environment, in plan order) from the runs in
/// `store` and a probe of the targets its history does not cover (its scratch registered in
/// `cleanup`).
pub fn from_history(
    plan: &Plan,
    targets: &[TargetInfo],
    store: Option<&fsbench_store::Store>,
    run_id: &str,
    cleanup: &Cleanup,
) -> Estimate {
    let past = |ti: usize, wi: usize, cache: CacheState| -> Option<PastCell> {
        let (store, t, w) = (store?, targets.get(ti)?, plan.workloads.get(wi)?);
        let key = CellKey {
            workload: w.info.name,
            params: &w.params,
            sweep: &w.sweep,
            cache_state: cache,
            label: &t.label,
            path: &t.path,
            fs_type: &t.fs_type,
        };
        let c = store.cell_timing(&key).ok()??;
        Some(PastCell {
            run_id: c.run_id,
            mean_wall_ns: c.mean_wall_ns,
            overhead_factor: c.overhead_factor,
        })
    };
    let to_probe = needs_probe(plan, &past);
    let speeds = plan
        .targets
        .iter()
        .zip(to_probe)
        .map(|(t, p)| p.then(|| probe(&t.path, run_id, cleanup)).flatten())
        .collect();
    let expiring: Vec<bool> = targets
        .iter()
        .map(|t| fsbench_model::fstype::names_expire(&t.fs_type))
        .collect();
    estimate(plan, &past, speeds, &expiring)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan of `targets` directories under `dir` running `workloads`, warm, 5 samples a cell.
    fn warm_plan(
        dir: &std::path::Path,
        targets: usize,
        workloads: &[&str],
        order: Option<fsbench_spec::Order>,
    ) -> Plan {
        let spec = fsbench_spec::RunSpec {
            targets: (0..targets)
                .map(|i| {
                    let d = dir.join(format!("t{i}"));
                    std::fs::create_dir_all(&d).unwrap();
                    fsbench_spec::TargetSpec {
                        label: None,
                        dir: d,
                    }
                })
                .collect(),
            workloads: workloads
                .iter()
                .map(|w| fsbench_spec::WorkloadRequest::parse(w).unwrap())
                .collect(),
            runs: Some("5".into()),
            cache: Some(fsbench_spec::CacheChoice::Warm),
            order,
            ..fsbench_spec::RunSpec::default()
        };
        fsbench_spec::plan::build(&spec).expect("plan")
    }

    #[test]
    fn a_re_warmed_cell_is_estimated_with_a_run_before_every_sample() {
        use fsbench_spec::Order;
        let dir = tempfile::tempdir().unwrap();
        let two = warm_plan(dir.path(), 2, &["null"], None);
        let runs = two.runs;
        // A FUSE or network target among others: its warm-up and a run before every sample.
        assert_eq!(samples(&two, runs, CacheState::Warm, true), 5.0 + 1.0 + 5.0);
        assert_eq!(samples(&two, runs, CacheState::Warm, false), 6.0);
        assert_eq!(samples(&two, runs, CacheState::Cold, true), 5.0);
        // Alone, nothing runs between two of its samples.
        let one = warm_plan(dir.path(), 1, &["null", "null:ops=5"], None);
        assert!(!crate::cell::rewarms(&one, true, CacheState::Warm));
        // Unless the workloads are interleaved too.
        let mixed = warm_plan(
            dir.path(),
            1,
            &["null", "null:ops=5"],
            Some(Order::Workloads),
        );
        assert!(crate::cell::rewarms(&mixed, true, CacheState::Warm));
        let sequential = warm_plan(dir.path(), 2, &["null"], Some(Order::Sequential));
        assert!(!crate::cell::rewarms(&sequential, true, CacheState::Warm));
    }

    #[test]
    fn the_probe_measures_a_directory_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let s = measure(dir.path()).unwrap();
        assert!(s.write_bytes_per_s > 0.0 && s.files_per_s > 0.0, "{s:?}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the emptied files directory: {left:?}");
    }

    fn cell(target: usize, source: Source) -> CellEstimate {
        CellEstimate {
            target,
            workload: 0,
            cache: CacheState::Warm,
            seconds: 1.0,
            source,
        }
    }

    fn speed(others_pct: Option<f64>) -> Option<Speed> {
        Some(Speed {
            write_bytes_per_s: 1e8,
            files_per_s: 1e3,
            others_pct,
        })
    }

    #[test]
    fn a_probe_taken_under_load_flags_the_estimate_only_when_its_cells_use_it() {
        let e = Estimate {
            cells: vec![cell(0, Source::Probe), cell(1, Source::History("r".into()))],
            speeds: vec![speed(Some(10.0)), speed(Some(90.0))],
            at_least: false,
        };
        assert_eq!(e.probe_load(), None, "target 1's cells come from history");
        let e = Estimate {
            cells: vec![cell(0, Source::Probe), cell(1, Source::Probe)],
            ..e
        };
        assert_eq!(e.probe_load(), Some(90.0));
        let quiet = Estimate {
            speeds: vec![speed(Some(10.0)), speed(None)],
            ..e
        };
        assert_eq!(quiet.probe_load(), None);
        let fixed = Estimate {
            cells: vec![cell(1, Source::Fixed)],
            ..quiet
        };
        assert_eq!(
            fixed.probe_load(),
            None,
            "a fixed duration owes nothing to the probe"
        );
    }

    #[test]
    fn the_load_beside_the_probe_counts_other_processes_not_this_one() {
        let hog = || {
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .unwrap()
        };
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let mut hogs: Vec<_> = (0..cpus).map(|_| hog()).collect();
        let watch = LoadWatch::start();
        let pct = watch.others_pct();
        for h in &mut hogs {
            let _ = h.kill();
            let _ = h.wait();
        }
        // One hog per CPU keeps every CPU busy for other processes; this one only slept.
        let pct = pct.expect("/proc/stat is readable");
        assert!(pct >= fsbench_analysis::load::LOADED_PCT, "{pct}");
    }
}
