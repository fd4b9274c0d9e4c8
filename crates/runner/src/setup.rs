//! Setting up and tearing down: scratch directories per target, each workload's own
//! subdirectory, free-space checks, `prepare`, cleanup, and the final per-cell summaries.

use super::Sink;
use super::cell::{Cell, Prepared};
use super::team::Team;
use fsbench_model::{EngineResult, Failure};
use fsbench_model::{ResultEntry, Warning, WarningKind};
use fsbench_scratch::{self as scratch, Scratch};
use fsbench_spec::plan::{CacheState, Plan, PlanWorkload, TargetKind};
use fsbench_workload::{CancelToken, Context, Params, Target, WorkloadError};
use std::path::Path;

/// Creates one scratch per directory target (none for devices), reporting leftovers of killed
/// runs found there. Under MPI each rank makes its own (`<id>-r<rank>`), or, with the shared
/// layout, rank 0 makes one that the others use; a failure on any rank fails every rank.
pub fn scratches(
    plan: &Plan,
    run_id: &str,
    sink: &mut dyn Sink,
    team: &Team,
) -> EngineResult<Vec<Option<Scratch>>> {
    let mut out = Vec::new();
    for (ti, t) in plan.targets.iter().enumerate() {
        if t.kind != TargetKind::Dir {
            out.push(None);
            continue;
        }
        if let Ok(found) = scratch::find_scratches(&t.path) {
            let ours = format!("{}{run_id}", scratch::PREFIX);
            let leftovers = found.iter().filter(|f| {
                // Other ranks' scratches of this very run are not leftovers.
                f.stale
                    && !f
                        .path
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(&ours))
            });
            for f in leftovers {
                sink.event(super::Event::Leftover {
                    scratch: &f.path,
                    target: &t.path,
                });
            }
        }
        let mut id = team.scratch_id(run_id);
        if plan.targets[..ti].iter().any(|o| o.path == t.path) {
            // The same directory twice (an A/A comparison): a scratch of its own for each.
            id = format!("{id}-t{ti}");
        }
        let attach = team.sharing() && !team.root();
        let made = if attach {
            Err(None)
        } else {
            Scratch::create_guarded(&t.path, &id, &team.cleanup).map_err(Some)
        };
        let (made, errno) = match made {
            Ok(s) => (Some(s), None),
            Err(Some(e)) => (None, Some((e.errno, e.message))),
            Err(None) => (None, None),
        };
        let failed = team.agree(errno.as_ref().map(|(_, m)| m.clone()));
        let made = match failed {
            Some(m) => Err(m),
            None if !team.sharing() => Ok(made),
            None => {
                // Every rank takes part in this second exchange; rank 0 has nothing to check.
                let seen = if attach {
                    Scratch::attach(&t.path, &id)
                        .map(Some)
                        .map_err(|e| e.message)
                } else {
                    Ok(made)
                };
                match team.agree(seen.as_ref().err().cloned()) {
                    Some(m) => Err(m),
                    None => seen,
                }
            }
        };
        let s = made.map_err(|m| match errno.and_then(|(e, _)| e) {
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => Failure::run(m),
            _ => Failure::input(m),
        })?;
        out.push(s);
    }
    Ok(out)
}

/// Builds and prepares workload `wi` on every target; failures are kept in `Prepared::error`.
pub fn prepare_all(
    plan: &Plan,
    wi: usize,
    w: &PlanWorkload,
    scratches: &[Option<Scratch>],
    cancel: &CancelToken,
    sink: &mut dyn Sink,
    team: &Team,
) -> Vec<Prepared> {
    let mut out = Vec::new();
    for (ti, t) in plan.targets.iter().enumerate() {
        // The one build of this cell's workload: its instance; its fixed facts came with the plan.
        let workload = fsbench_workload::build(w.info, Params::new(w.raw.clone()))
            .expect("invariant: parameters were validated by the plan")
            .workload;
        let target = match (&t.kind, &scratches[ti]) {
            (TargetKind::Device { size, writable }, _) => Target::Device {
                path: t.path.clone(),
                size: *size,
                writable: *writable,
            },
            (TargetKind::Dir, Some(s)) => {
                Target::Dir(s.path().join(format!("{wi:02}-{}", w.info.name)))
            }
            (TargetKind::Dir, None) => {
                unreachable!("invariant: every directory target has a scratch")
            }
        };
        let ctx = Context {
            target,
            cancel: cancel.clone(),
            ranks: team.ranks(),
            cleanup: team.cleanup.clone(),
            progress: Default::default(),
        };
        let info = fsbench_envinfo::target("", &t.path);
        let mut p = Prepared {
            target: ti,
            workload,
            ctx,
            error: None,
            daemon_pids: super::daemons::lookup(&t.path, &w.params),
            clock: team.clock.clone(),
            caps: w.caps,
            devices: fsbench_measure::diskstats::Devices::named(&fsbench_envinfo::io_devices(
                &info,
            )),
            wire: wire_source(&info),
            servers: fsbench_measure::servers::find(std::path::Path::new(&info.mount_point)),
            interval_ns: plan.interval_ns,
            live: team.live.clone(),
            background: None,
            profile: plan.profile,
            last_profile: None,
            // Under MPI every rank must take as many samples as the others: a target's type
            // could differ from host to host, so no rank re-warms.
            expiring: !team.parallel() && fsbench_model::fstype::names_expire(&info.fs_type),
        };
        sink.event(super::Event::Preparing {
            workload: w.info.name,
            target: &t.label,
        });
        let knob = p.caps.size_knob;
        let explain = |e: WorkloadError| explain_failure(&e, w.info.name, knob, &t.label, &t.path);
        // The workload's directory first (rank 0's alone with the shared layout), then the
        // workload's own preparation; each step agreed by every rank.
        let mut failed = team.agree(make_dir(&p, team).err().map(explain));
        if failed.is_none() {
            failed = team.agree(p.workload.prepare(&p.ctx).err().map(explain));
        }
        if let (None, Some((bg, _)), Some(dir)) = (&failed, &plan.background, p.ctx.scratch()) {
            let dir = dir.with_file_name(format!("{wi:02}-background-{}", bg.info.name));
            match crate::background::Background::prepare(bg, &dir, &p.ctx) {
                Ok(b) => p.background = Some(b),
                Err(e) => failed = team.agree(Some(explain(e))),
            }
        }
        if let Some(message) = failed {
            p.error = Some(message);
            cleanup(&mut p, team);
        } else {
            sink.event(super::Event::Prepared {
                workload: w.info.name,
                target: &t.label,
            });
        }
        out.push(p);
    }
    out
}

/// Makes the workload's directory and checks there is room for it (with the shared layout,
/// rank 0 alone, for every rank's files).
fn make_dir(p: &Prepared, team: &Team) -> Result<(), WorkloadError> {
    let Some(dir) = p.ctx.scratch() else {
        return Ok(());
    };
    if team.sharing() && !team.root() {
        return Ok(());
    }
    std::fs::create_dir(dir).map_err(|e| WorkloadError::io("mkdir", dir, e))?;
    check_room(&p.caps, dir, team.copies_per_filesystem(dir))
}

/// Refuses a workload that needs more free bytes or inodes than the target has (for `copies`
/// ranks' files on one filesystem), naming the parameter that makes it smaller.
fn check_room(w: &fsbench_workload::Caps, dir: &Path, copies: u64) -> Result<(), WorkloadError> {
    let knob = w.size_knob;
    let Ok(st) = rustix::fs::statvfs(dir) else {
        return Ok(());
    };
    let free = st.f_bavail * st.f_frsize;
    let need = w.space_needed.saturating_mul(copies);
    if need > free {
        return Err(WorkloadError::Unsupported(format!(
            "needs {} free but only {} is available — use a smaller {knob}= or another target",
            fsbench_model::units::format_bytes(need),
            fsbench_model::units::format_bytes(free)
        )));
    }
    // Filesystems without a fixed inode table (btrfs) report no inode counts.
    let inodes = w.inodes_needed.saturating_mul(copies);
    if st.f_files > 0 && inodes > st.f_favail {
        return Err(WorkloadError::Unsupported(format!(
            "needs {inodes} free inodes but only {} are available — use a smaller {knob}= or another target",
            st.f_favail
        )));
    }
    Ok(())
}

/// Runs the workload's cleanup and removes its directory (never following symlinks); with the
/// shared layout, rank 0 removes it once every rank is done.
pub fn cleanup(p: &mut Prepared, team: &Team) {
    let _ = p.workload.cleanup(&p.ctx);
    if let Some(bg) = p.background.as_mut() {
        bg.cleanup();
    }
    if team.sharing() {
        team.cluster.barrier();
        if !team.root() {
            return;
        }
    }
    if let Some(dir) = p.ctx.scratch() {
        let _ = scratch::remove_tree(dir);
    }
}

/// One line for a failed workload on a target: what, where, how to fix.
pub fn explain_failure(
    e: &WorkloadError,
    workload: &str,
    knob: &str,
    label: &str,
    path: &Path,
) -> String {
    let at = format!("{workload} on target {label} ({})", path.display());
    match e {
        WorkloadError::NoSpace { .. } => {
            format!(
                "no space left on device: {at} — free space on the target or use a smaller {knob}="
            )
        }
        WorkloadError::Io { source, .. } if source.raw_os_error() == Some(libc::EROFS) => {
            format!("read-only filesystem: {at} — remount it read-write or pick another target")
        }
        WorkloadError::Io { .. } => format!("{e}: {at} — check the filesystem and the kernel log"),
        _ => format!("{e}: {at}"),
    }
}

/// Flags outlier samples of the headline (never dropping them) and warns when the first sample
/// stands apart from the rest, the usual sign of a cache or device still warming up.
fn flag_outliers(entry: &mut ResultEntry) {
    // A sample without the headline (never NaN in its place) leaves the cell unflagged.
    let Some(values) = entry
        .samples
        .iter()
        .map(|s| s.metrics.get(&entry.headline).copied())
        .collect::<Option<Vec<f64>>>()
    else {
        return;
    };
    let flags = fsbench_stats::modified_z_outliers(&values);
    for (s, f) in entry.samples.iter_mut().zip(&flags) {
        s.outlier = *f;
    }
    let outliers = flags.iter().filter(|f| **f).count();
    if outliers > 0 {
        entry.warnings.push(Warning::new(WarningKind::Outlier, format!(
            "{outliers} of {} samples flagged as outliers (modified z-score > {}); kept in every statistic",
            values.len(),
            fsbench_stats::OUTLIER_THRESHOLD
        )));
    }
    if values.len() >= 3 {
        let rest = fsbench_stats::summarize(&values[1..]);
        if let Some(r) = rest.filter(|r| r.median != 0.0) {
            let dev = (values[0] - r.median) / r.median;
            let spread = (r.max - r.min) / r.median.abs();
            if dev.abs() > 0.25 && dev.abs() > 2.0 * spread {
                entry.warnings.push(Warning::new(WarningKind::FirstSample, format!(
                    "the first sample differs from the others' median by {:+.0}% — a warm-up effect? (--warmup 1 discards one)",
                    dev * 100.0
                )));
            }
        }
    }
}

/// With `until=steady`: a steady cell's summary is its window's (every sample is kept); a cell
/// that never got steady says so, with the last window's figures.
fn steady_window(entry: &mut ResultEntry, cell: &Cell) {
    if !matches!(cell.runs, fsbench_spec::plan::Runs::Steady { .. }) {
        return;
    }
    entry.steady = cell.steady;
    match cell.steady {
        Some(s) if s.steady => {
            let from = s.window_first.saturating_sub(1);
            if let Some(window) = entry.samples.get(from..from + s.window_len) {
                entry.summary = crate::metrics::summarize(window);
            }
        }
        Some(s) => entry.warnings.push(Warning::new(
            WarningKind::NotSteady,
            format!(
                "never reached steady state in {} samples: the last {} ranged {:.0}% and trended {:.0}% of their average (steady needs within 20% and 10%) — the summary is of all samples",
                entry.samples.len(),
                s.window_len,
                s.range_pct,
                s.slope_excursion_pct
            ),
        )),
        None => entry.warnings.push(Warning::new(
            WarningKind::NotSteady,
            format!(
                "not judged steady: {} samples, fewer than the window of {} (sampling stopped early)",
                entry.samples.len(),
                fsbench_stats::steady::WINDOW
            ),
        )),
    }
}

/// How far below the asked rate an open-loop sample may fall before the cell says so, percent.
const RATE_TOLERANCE_PCT: f64 = 2.0;

/// An open-loop cell whose samples did not reach the rate they were asked for says by how much:
/// the stack could not keep up, and its latency includes the queue that built.
fn rate_short(entry: &mut ResultEntry) {
    use fsbench_model::metric as k;
    let achieved: Vec<f64> = entry
        .samples
        .iter()
        .filter_map(|s| s.metrics.get(k::RATE_ACHIEVED_PCT).copied())
        .collect();
    let short = achieved
        .iter()
        .filter(|&&a| a < 100.0 - RATE_TOLERANCE_PCT)
        .count();
    let Some(worst) = achieved
        .iter()
        .copied()
        .reduce(f64::min)
        .filter(|_| short > 0)
    else {
        return;
    };
    let asked = entry.summary.get(k::RATE_IOPS).map_or(0.0, |s| s.mean);
    entry.warnings.push(Warning::new(
        WarningKind::RateShort,
        format!(
            "fell short of the asked {asked:.0} requests/s in {short} of {} samples (worst {worst:.0}%): the target could not keep up, so requests queued and their latency from scheduled start includes the wait — ask a lower rate=, or read it as the saturation point",
            achieved.len()
        ),
    ));
}

/// Fills a cell's summary, residency, warnings and error once its samples are in.
pub fn finish_entry(entry: &mut ResultEntry, cell: &Cell, p: &Prepared) {
    crate::verify::check(entry, &p.caps, cell.cache, !p.devices.list.is_empty());
    entry.summary = crate::metrics::summarize(&entry.samples);
    steady_window(entry, cell);
    if !p.caps.mixed_rate {
        crate::cliff_scope::check(
            entry,
            p.caps.cliff_phase,
            p.caps.flow,
            fsbench_sys::vm::DirtyLimits::read(),
        );
    }
    rate_short(entry);
    flag_outliers(entry);
    let res: Vec<f64> = entry
        .samples
        .iter()
        .filter_map(|s| s.resident_pct)
        .collect();
    if !res.is_empty() {
        let mean = res.iter().sum::<f64>() / res.len() as f64;
        entry.cache.resident_pct = Some(mean);
        if cell.cache == CacheState::Cold && mean > 50.0 {
            entry.warnings.push(Warning::new(WarningKind::NotCold, format!(
                "not cold: {mean:.0}% of the workload's pages were still cached after {} — the numbers are warm",
                entry.cache.method
            )));
        }
        let direct = entry
            .samples
            .iter()
            .all(|s| s.metrics.get(fsbench_model::metric::DIRECT_USED) == Some(&1.0));
        if cell.cache == CacheState::Warm && mean < 50.0 && !direct {
            entry.warnings.push(Warning::new(
                WarningKind::WarmNotCached,
                format!("warm samples started with only {mean:.0}% of the pages cached"),
            ));
        }
    }
    for note in p.workload.notes() {
        let w = Warning::new(WarningKind::Workload, note);
        if !entry.warnings.contains(&w) {
            entry.warnings.push(w);
        }
    }
    let leaked: Vec<f64> = entry
        .samples
        .iter()
        .filter_map(|s| {
            s.metrics
                .get(fsbench_model::metric::DIRECT_CACHE_GROWTH_PCT)
                .copied()
        })
        .collect();
    if let Some(max) = leaked.iter().copied().reduce(f64::max) {
        entry.warnings.push(Warning::new(WarningKind::DirectNotHonoured, format!(
            "{} sample(s) asked for direct I/O but the page cache grew by up to {max:.0} points: recorded as not direct",
            leaked.len()
        )));
    }
    entry.precision_reached = cell.precision_reached;
    if let Some(reached) = cell.precision_reached {
        if !reached {
            entry.warnings.push(Warning::new(
                WarningKind::PrecisionNotReached,
                "requested precision not reached",
            ));
        }
    }
    entry.error = p.error.clone();
}

/// Where the wire bytes of `t` are read, when it is a network filesystem: NFS's own per-mount
/// counters, else the machine's interfaces.
fn wire_source(t: &fsbench_model::TargetInfo) -> Option<fsbench_measure::netstats::WireSource> {
    use fsbench_measure::netstats::WireSource;
    if fsbench_model::fstype::is_nfs(&t.fs_type) {
        return Some(WireSource::NfsMount(t.mount_point.clone()));
    }
    fsbench_envinfo::is_network(&t.fs_type).then_some(WireSource::Interfaces)
}
