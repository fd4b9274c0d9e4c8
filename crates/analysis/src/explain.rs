//! After a run: explain every cell. Flags results faster than their device ([`crate::plausible`]),
//! says what direct I/O means on FUSE, flags samples taken under outside load ([`crate::load`]),
//! and attaches the bound ([`crate::bound`]) to each cell.

use crate::bound::{self, Facts};
use crate::plausible::{self, Ceiling};
use fsbench_model::{RunRecord, ScalingVerdict, TargetInfo, Warning, WarningKind};

fn push(w: &mut Vec<Warning>, kind: WarningKind, text: String) {
    let w2 = Warning::new(kind, text);
    if !w.contains(&w2) {
        w.push(w2);
    }
}

/// Explains every cell of `record`, with the devices' measured `ceilings`.
pub fn attach(record: &mut RunRecord, ceilings: &[Ceiling]) {
    let cpus = record.environment.cpus;
    let per_op = record.overhead.per_op_ns;
    let targets: Vec<TargetInfo> = record.environment.targets.clone();
    let scaling: Vec<(String, String, String, ScalingVerdict)> = record
        .scaling
        .iter()
        .map(|s| {
            (
                s.target.clone(),
                s.workload.clone(),
                s.cache.clone(),
                s.verdict,
            )
        })
        .collect();
    for e in &mut record.results {
        let target = targets.iter().find(|t| t.label == e.target);
        let deepest = e
            .samples
            .iter()
            .find_map(|s| s.devices.last().map(|d| d.name.clone()));
        let ceiling = deepest.and_then(|d| ceilings.iter().find(|c| c.device == d));
        let implausible = ceiling.and_then(|c| plausible::check(e, c));
        if let Some(why) = &implausible {
            push(&mut e.warnings, WarningKind::Implausible, why.clone());
        }
        if let Some(t) = target.filter(|t| t.stack.fuse.is_some()) {
            let direct = e
                .params
                .get(fsbench_model::param::DIRECT)
                .is_some_and(|d| d == "true")
                || e.summary
                    .get(fsbench_model::metric::DIRECT_USED)
                    .is_some_and(|s| s.mean == 1.0);
            if direct {
                let daemon = t.stack.fuse.as_ref().map_or("FUSE", |f| f.subtype.as_str());
                push(
                    &mut e.warnings,
                    WarningKind::Stack,
                    format!(
                        "direct I/O on {daemon} is direct to the FUSE layer only: the daemon's own I/O below it is its choice (it may cache)"
                    ),
                );
            }
        }
        crate::load::flag_loaded_samples(e, cpus);
        let verdict = scaling
            .iter()
            .find(|(t, w, c, _)| {
                *t == e.target && *w == e.workload && *c == e.cache.state.to_string()
            })
            .map(|s| s.3);
        e.bound = bound::classify(&Facts {
            entry: e,
            target,
            cpus,
            overhead_per_op_ns: per_op,
            scaling: verdict,
            implausible: implausible.as_deref(),
        });
    }
}
