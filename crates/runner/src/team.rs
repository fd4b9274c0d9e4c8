//! The ranks of an MPI run as the runner sees them: one process alone (the usual case), or
//! `mpirun -n N` ranks taking every sample together. Every step that can fail on one rank is
//! followed by an exchange, so that all ranks take the same branch and meet at the same
//! barriers; rank 0 speaks for them.

use super::cell::{self, Cell, Prepared};
use crate::cache::ColdMethod;
use fsbench_cluster::Cluster;
use fsbench_cluster::wire::{Outcome, RankSample, Report};
use fsbench_model::Sample;
use fsbench_workload::{Ranks, WorkloadError};

/// The processes running this plan.
pub struct Team {
    /// The MPI job, or one process alone.
    pub cluster: Cluster,
    /// `--layout shared`: the ranks work in one directory.
    pub shared: bool,
    /// The clock samples are timed with (the real one, except in deterministic tests).
    pub clock: crate::ClockChoice,
    /// The process's cleanup registry: scratches and child processes are registered there.
    pub cleanup: fsbench_sys::cleanup::Cleanup,
    /// Where each sample's closed intervals are published for a progress display.
    pub live: fsbench_measure::LiveRate,
}

/// Why a sample gave no result.
pub enum Failure {
    /// A signal stopped the run.
    Interrupted,
    /// The workload failed; one line naming what, where (and which rank) and what to do.
    Failed(String),
}

impl Team {
    /// True under mpirun with more than one rank.
    pub fn parallel(&self) -> bool {
        self.cluster.is_parallel()
    }

    /// True when ranks share one directory per workload.
    pub fn sharing(&self) -> bool {
        self.shared && self.parallel()
    }

    /// True on the rank that creates shared things, prints and stores.
    pub fn root(&self) -> bool {
        self.cluster.is_root()
    }

    /// What workloads see of the ranks.
    pub fn ranks(&self) -> Ranks {
        Ranks {
            rank: self.cluster.rank(),
            size: self.cluster.size(),
            shared: self.sharing(),
            sync: self.cluster.sync(),
        }
    }

    /// How many copies of a workload's files share the filesystem of `dir` (a workload's
    /// directory in this rank's scratch): every rank's with the shared layout; with per-rank
    /// directories, those of the ranks whose scratch is in the same target directory as this
    /// rank's — all ranks on a filesystem every host mounts, this node's ranks on a local one
    /// (counting only this node's ranks, as before, let the ranks of several hosts on one
    /// network filesystem pass a check that their files together could not).
    pub fn copies_per_filesystem(&self, dir: &std::path::Path) -> u64 {
        if self.sharing() {
            return self.cluster.size() as u64;
        }
        if !self.parallel() {
            return 1;
        }
        let scratch = dir.parent();
        let seen = scratch
            .and_then(|s| Some((s.parent()?, s.file_name()?.to_str()?)))
            .map(|(target, own)| rank_scratches(target, own));
        seen.unwrap_or(0).max(self.cluster.ranks_on_node()) as u64
    }

    /// The name of this rank's scratch: the run id alone, or `<id>-r<rank>` for per-rank
    /// directories under MPI.
    pub fn scratch_id(&self, run_id: &str) -> String {
        if self.parallel() && !self.sharing() {
            format!("{run_id}-r{}", self.cluster.rank())
        } else {
            run_id.to_string()
        }
    }

    /// Every rank's error for one step: the first failing rank's (naming the rank), on all.
    pub fn agree(&self, mine: Option<String>) -> Option<String> {
        self.cluster.agree(mine.as_deref())
    }
}

/// How many per-rank scratches of the run whose rank scratch is named `own` (`.fsbench-<id>-rK`)
/// are in `target`: the ranks whose files share this rank's target directory.
fn rank_scratches(target: &std::path::Path, own: &str) -> usize {
    let Some((run, _)) = own.rsplit_once("-r") else {
        return 0;
    };
    let prefix = format!("{run}-r");
    std::fs::read_dir(target).map_or(0, |rd| {
        rd.flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.strip_prefix(&prefix)
                    .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
            })
            .count()
    })
}

/// One sample taken by every rank together: a barrier before it (after each rank prepared its
/// files and the node's caches were dropped), then every rank's report, merged.
pub fn take_sample(
    team: &Team,
    cell: &mut Cell,
    p: &mut Prepared,
    cold: Option<&ColdMethod>,
    explain: &dyn Fn(&WorkloadError) -> String,
) -> Result<Sample, Failure> {
    let dist = &team.cluster;
    let run_cancel = p.ctx.cancel.clone();
    let scope = dist.begin_sample(&run_cancel);
    p.ctx.cancel = scope.cancel.clone();
    let measured = cell::measure(cell, p, cold, dist);
    p.ctx.cancel = run_cancel.clone();
    let (outcome, sent) = match &measured {
        Ok(m) => {
            let rank = RankSample {
                host: dist.host_of(dist.rank()).to_string(),
                leader: dist.is_node_leader(),
                machine: crate::metrics::cpu_parts(&m.cpu).0,
                devices: m.devices.clone(),
                ..RankSample::new(&m.data, m.latency_hdr.clone(), m.resident)
            };
            (Outcome::Ok(Box::new(rank)), false)
        }
        Err(WorkloadError::Interrupted) if run_cancel.is_cancelled() => {
            (Outcome::Interrupted, false)
        }
        Err(WorkloadError::Interrupted) => (Outcome::Aborted, false),
        Err(e) => {
            let sent = dist.abort_others();
            (Outcome::Failed(explain(e)), sent)
        }
    };
    let reports = dist.end_sample(scope, outcome, sent);
    let flow = p.caps.flow;
    let mut sample = conclude(dist, reports, measured.as_ref().ok().map(|m| m.cpu))?;
    // The node's devices as this rank saw them (ranks on one node share them: never summed).
    if let Ok(m) = measured {
        crate::metrics::add_devices(&mut sample, m.devices, flow);
        crate::metrics::add_wire(&mut sample, m.wire);
        crate::metrics::add_servers(&mut sample, m.servers);
    }
    Ok(sample)
}

/// What every rank concludes from all the reports (the same on every rank).
fn conclude(
    dist: &fsbench_cluster::Cluster,
    reports: Vec<Report>,
    cpu: Option<fsbench_measure::CpuDelta>,
) -> Result<Sample, Failure> {
    if reports
        .iter()
        .any(|r| matches!(r.outcome, Outcome::Interrupted))
    {
        return Err(Failure::Interrupted);
    }
    let n = reports.len();
    if let Some((r, msg)) = reports
        .iter()
        .enumerate()
        .find_map(|(r, rep)| match &rep.outcome {
            Outcome::Failed(m) => Some((r, m)),
            _ => None,
        })
    {
        let on = match dist.host_of(r) {
            "" => String::new(),
            h => format!(" on {h}"),
        };
        return Err(Failure::Failed(format!("rank {r} of {n}{on}: {msg}")));
    }
    let samples: Vec<RankSample> = reports
        .into_iter()
        .filter_map(|r| match r.outcome {
            Outcome::Ok(s) => Some(*s),
            _ => None,
        })
        .collect();
    if samples.len() != n {
        return Err(Failure::Failed(format!(
            "{} of {n} ranks ended the sample without a result or an error — see their output",
            n - samples.len()
        )));
    }
    let merged = fsbench_cluster::merge::merge(&samples)
        .ok_or_else(|| Failure::Failed("no rank sent a sample".into()))?;
    let cpu = cpu.unwrap_or_default();
    let mut sample = crate::metrics::to_sample(merged.data, merged.resident_pct, &cpu);
    sample.latency_hdr = fsbench_measure::histo::encode(&merged.hist);
    sample.hosts = fsbench_cluster::merge::hosts(&samples);
    Ok(sample)
}

#[cfg(test)]
mod tests {
    use super::rank_scratches;

    #[test]
    fn rank_scratches_counts_this_runs_rank_directories_only() {
        let t = tempfile::tempdir().unwrap();
        for name in [
            ".fsbench-R1-r0",
            ".fsbench-R1-r1",
            ".fsbench-R1-r12",
            ".fsbench-R1",
            ".fsbench-R1-rx",
            ".fsbench-R2-r0",
        ] {
            std::fs::create_dir(t.path().join(name)).unwrap();
        }
        assert_eq!(rank_scratches(t.path(), ".fsbench-R1-r0"), 3);
        assert_eq!(rank_scratches(t.path(), ".fsbench-R2-r0"), 1);
        assert_eq!(rank_scratches(t.path(), "no-rank"), 0);
    }
}
