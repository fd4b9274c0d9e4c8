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
}

/// Where a cell's estimate comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A stored cell of this run id.
    History(String),
    /// The model at the probed speed.
    Probe,
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

/// Samples a cell takes, warm-ups included.
fn samples(plan: &Plan, runs: Runs, cache: CacheState) -> f64 {
    let warmup = plan.warmup.unwrap_or(u32::from(cache == CacheState::Warm));
    measured(runs) + f64::from(warmup)
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

/// A fixed duration the workload's parameters give a sample (`duration=`, `ops` × `sleep`).
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
    dur("duration") + ops * dur("sleep")
}

/// Estimates `plan`: `past(target, workload, cache)` gives a stored cell like a planned one,
/// `speeds` the probed speed of each target.
pub fn estimate(
    plan: &Plan,
    past: &dyn Fn(usize, usize, CacheState) -> Option<PastCell>,
    speeds: Vec<Option<Speed>>,
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
                let n = samples(plan, plan.runs_for(w), cache);
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
                            (n * sample * MODEL_OVERHEAD + once, Source::Probe)
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
    let speed = measure(scratch.path());
    let _ = scratch.remove();
    speed
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
    estimate(plan, &past, speeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_measures_a_directory_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let s = measure(dir.path()).unwrap();
        assert!(s.write_bytes_per_s > 0.0 && s.files_per_s > 0.0, "{s:?}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the emptied files directory: {left:?}");
    }
}
