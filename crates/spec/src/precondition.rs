//! `--precondition`: the SNIA preconditioning sequence before a device is measured: the device
//! (or a lab target's whole free space) written sequentially twice, then every workload sampled
//! until steady state. The two fill passes are a cell of their own (`seq-write` swept as
//! `precondition=fill`), so their progress and their time series are kept with the run.
//!
//! It writes everything it can reach, so it runs only where that is fsbench's to write: a raw
//! device named by `--allow-destroy` (and not mounted), or a throwaway `--lab` target.

use crate::plan::{Plan, Runs, TargetKind, parse_workload};
use fsbench_model::{EngineResult, Failure};

/// Share of a lab target's free space the fill writes (the rest for the workloads' own files
/// and the filesystem's metadata).
const FILL_SHARE: f64 = 0.9;

/// Fill passes, as the SNIA sequence asks.
const PASSES: u32 = 2;

/// `--precondition` when `spec` asks for it (after the lab is built: its targets, `lab`, are the
/// ones it may fill).
pub fn when_asked(spec: &crate::RunSpec, plan: &mut Plan, lab: &[String]) -> EngineResult<()> {
    match spec.precondition {
        true => apply(plan, lab),
        false => Ok(()),
    }
}

/// Inserts the fill cell first and makes every workload sample until steady; `lab` lists the
/// labels of the lab targets. Refuses targets that are not fsbench's to fill.
pub fn apply(plan: &mut Plan, lab: &[String]) -> EngineResult<()> {
    let mut fill = u64::MAX;
    for t in &plan.targets {
        let bytes = match t.kind {
            TargetKind::Device {
                size,
                writable: true,
            } => size,
            TargetKind::Device { .. } => {
                return Err(Failure::input(format!(
                    "--precondition writes the whole of {} — name it with --allow-destroy={} (unmounted), or drop --precondition",
                    t.path.display(),
                    t.path.display()
                )));
            }
            TargetKind::Dir if lab.contains(&t.label) => {
                let free = fsbench_envinfo::target("", &t.path).free_bytes;
                (free as f64 * FILL_SHARE) as u64
            }
            TargetKind::Dir => {
                return Err(Failure::input(format!(
                    "--precondition fills its target, so it runs only on raw devices (--allow-destroy) and --lab targets, not on {} — drop it, or measure a --lab target",
                    t.path.display()
                )));
            }
        };
        fill = fill.min(bytes);
    }
    let mib = fill / (1 << 20);
    if mib == 0 {
        return Err(Failure::input(
            "--precondition needs a target with at least 1 MiB to fill",
        ));
    }
    let mut w = parse_workload(&format!("seq-write:size={mib}m,bs=128k,fsync=end"))?;
    w.sweep.insert("precondition".into(), "fill".into());
    // Written, never read: one cache state is enough (warm when planned: no cache drop needed).
    w.warm_only = plan.caches.contains(&fsbench_model::CacheState::Warm);
    w.runs = Some(Runs::Fixed(PASSES));
    for other in &mut plan.workloads {
        other.until_steady = true;
    }
    plan.workloads.insert(0, w);
    Ok(())
}
