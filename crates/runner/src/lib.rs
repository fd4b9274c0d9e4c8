//! Executes a plan: scratch per target, then per workload: prepare on every target, sample the
//! cells (interleaved across targets round by round, or sequentially), clean up. Results are
//! handed to a sink as they arrive, so the JSON file is rewritten during the run.

#![warn(missing_docs)]

pub mod background;
pub mod cache;
pub mod ceiling;
mod cell;
pub mod cliff;
mod cliff_scope;
mod daemons;
mod decide;
pub mod estimate;
pub mod gauge;
pub mod metrics;
pub mod order;
pub mod overhead;
mod profiling;
pub mod progress;
pub mod record;
mod setup;
pub mod store_sink;
mod team;
pub mod verify;

pub use team::Team;

use cell::{Cell, Prepared};
use fsbench_model::EngineResult;
use fsbench_model::{CacheInfo, ResultEntry};
use fsbench_spec::plan::{CacheState, Plan, PlanWorkload};
use fsbench_workload::{CancelToken, WorkloadError};

/// What the runner reports while it works: typed, never preformatted, so that each sink (the
/// terminal lines, the progress bar, the store, the exports) renders or persists it its own way.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A scratch directory of a run that is gone was found in a target.
    Leftover {
        /// The leftover scratch.
        scratch: &'a std::path::Path,
        /// The target directory holding it.
        target: &'a std::path::Path,
    },
    /// `workload` is about to be prepared on `target` (trees and archives can take a while).
    Preparing {
        /// Workload name.
        workload: &'a str,
        /// Target label.
        target: &'a str,
    },
    /// `workload` is prepared on `target`.
    Prepared {
        /// Workload name.
        workload: &'a str,
        /// Target label.
        target: &'a str,
    },
    /// A measured sample of `entry` (its `n`-th; `of` when the number of samples is fixed).
    Sample {
        /// The cell, with the sample already appended.
        entry: &'a ResultEntry,
        /// 1-based sample number.
        n: usize,
        /// Samples planned for the cell (`None` with `--runs auto`).
        of: Option<u32>,
    },
    /// The results so far changed (a sample or a failure arrived): persisting sinks write now.
    Results(&'a [ResultEntry]),
}

/// Which clock samples are timed with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ClockChoice {
    /// The real monotonic clock.
    #[default]
    Real,
    /// A fake clock for deterministic tests: target `i` advances `step_ns[i % len]` per reading,
    /// plus the sample's number modulo 3, so samples differ from one another reproducibly.
    Fake {
        /// Step per reading, ns, per target index.
        step_ns: Vec<u64>,
    },
}

impl ClockChoice {
    /// The fake clock's step for sample `sample` (0-based) of target `target`; `None` for the
    /// real clock.
    pub fn fake_step(&self, target: usize, sample: usize) -> Option<u64> {
        match self {
            Self::Real => None,
            Self::Fake { step_ns } => {
                let base = step_ns
                    .get(target % step_ns.len().max(1))
                    .copied()
                    .unwrap_or(1);
                Some(base + (sample % 3) as u64)
            }
        }
    }
}

/// A receiver of the runner's events.
pub trait Sink {
    /// Handles one event.
    fn event(&mut self, e: Event<'_>);
}

/// Several sinks as one, each with one job (progress, the store, the exports): every event
/// goes to each, in order.
pub struct Fanout<'a>(pub Vec<&'a mut dyn Sink>);

impl Sink for Fanout<'_> {
    fn event(&mut self, e: Event<'_>) {
        for s in &mut self.0 {
            s.event(e);
        }
    }
}

/// How a plan's execution ended.
pub struct Outcome {
    /// One entry per cell, in plan order.
    pub results: Vec<ResultEntry>,
    /// One-line messages of cells that failed.
    pub failures: Vec<String>,
    /// True when a signal stopped the run.
    pub interrupted: bool,
    /// A scratch that could not be removed (a mount in it): the run failed, whatever else.
    pub cleanup_failure: Option<String>,
}

/// Runs `plan` with scratch directories named after `run_id`, on every rank of `team`.
pub fn execute(
    plan: &Plan,
    run_id: &str,
    cancel: &CancelToken,
    sink: &mut dyn Sink,
    team: &Team,
) -> EngineResult<Outcome> {
    let scratches = setup::scratches(plan, run_id, sink, team)?;
    let mut out = Outcome {
        results: Vec::new(),
        failures: Vec::new(),
        interrupted: false,
        cleanup_failure: None,
    };
    // Each workload's cells sampled in turn, or, with `--order workloads`, all at once.
    let chunks: Vec<Vec<usize>> = if plan.interleave_workloads {
        vec![(0..plan.workloads.len()).collect()]
    } else {
        (0..plan.workloads.len()).map(|wi| vec![wi]).collect()
    };
    for chunk in chunks {
        let mut groups: Vec<Group> = chunk
            .into_iter()
            .map(|wi| {
                let w = &plan.workloads[wi];
                let prepared = setup::prepare_all(plan, wi, w, &scratches, cancel, sink, team);
                let cells = make_cells(plan, w, &prepared);
                let base = out.results.len();
                out.results.extend(
                    cells
                        .iter()
                        .map(|c| empty_entry(plan, wi, &prepared[c.prepared], c, team)),
                );
                Group {
                    prepared,
                    cells,
                    base,
                }
            })
            .collect();
        let interrupted = sample_cells(plan, &mut groups, &mut out, sink, team);
        for g in &mut groups {
            for p in &mut g.prepared {
                setup::cleanup(p, team);
            }
            for (i, c) in g.cells.iter().enumerate() {
                setup::finish_entry(&mut out.results[g.base + i], c, &g.prepared[c.prepared]);
            }
            for p in &g.prepared {
                if let Some(e) = &p.error {
                    out.failures.push(e.clone());
                }
            }
        }
        sink.event(Event::Results(&out.results));
        if interrupted {
            out.interrupted = true;
            break;
        }
    }
    // Archives kept on local disk for the tar workloads are this run's: removed with its scratches.
    fsbench_tree::local_archive::release();
    // Shared layout: rank 0 removes the one scratch once every rank is done with it.
    team.cluster.barrier();
    // A removal that fails is the run's failure, recorded in the outcome so that the record is
    // still finished (status, exports, store) before fsbench exits 3.
    for s in scratches.into_iter().flatten() {
        if let Err(e) = s.remove() {
            out.cleanup_failure.get_or_insert(e.message);
        }
    }
    Ok(out)
}

fn make_cells(plan: &Plan, w: &PlanWorkload, prepared: &[Prepared]) -> Vec<Cell> {
    let warm_only = w.warm_only;
    let mut cells = Vec::new();
    for &cache in plan
        .caches
        .iter()
        .filter(|&&c| !warm_only || c == CacheState::Warm)
    {
        for (pi, p) in prepared.iter().enumerate() {
            let default_warmup = if cache == CacheState::Warm { 1 } else { 0 };
            cells.push(Cell {
                prepared: pi,
                cache,
                samples: Vec::new(),
                warmup_left: plan.warmup.unwrap_or(default_warmup),
                rewarm: cell::rewarms(plan, p.expiring, cache),
                elapsed_ns: 0,
                done: false,
                precision_reached: None,
                steady: None,
                runs: plan.runs_for(w),
                primed: false,
                last_wall_ns: None,
            });
        }
    }
    cells
}

/// The note on a re-warmed cell ([`cell::rewarms`]).
const REWARMED: &str = "warm on a FUSE or network filesystem among other targets: each sample \
     follows an untimed run of its own, as the kernel keeps the target's names and attributes \
     only for the daemon's or the client's timeouts (otherwise a sample's cost depends on how \
     long the other targets' samples took)";

fn empty_entry(plan: &Plan, wi: usize, p: &Prepared, c: &Cell, team: &Team) -> ResultEntry {
    let cache = c.cache;
    let w = &plan.workloads[wi];
    let mut params = w.params.clone();
    if let Some((_, spec)) = &plan.background {
        // Measured under another load: comparisons must see it.
        params.insert(fsbench_model::param::BACKGROUND.into(), spec.clone());
    }
    if team.parallel() {
        // Ranks and layout change what is measured: comparisons must see them.
        params.insert(
            fsbench_model::param::RANKS.into(),
            team.cluster.size().to_string(),
        );
        let layout = if team.sharing() { "shared" } else { "per-rank" };
        params.insert(fsbench_model::param::LAYOUT.into(), layout.into());
    }
    let method = match cache {
        CacheState::Cold => plan.cold.as_ref().map(|m| m.name()).unwrap_or("none"),
        CacheState::Warm => "none",
    };
    ResultEntry {
        target: plan.targets[p.target].label.clone(),
        workload: w.info.name.to_string(),
        params,
        sweep: w.sweep.clone(),
        cache: CacheInfo {
            state: cache,
            method: method.into(),
            resident_pct: None,
        },
        headline: crate::metrics::headline_name(p.caps.headline),
        also_shown: p.caps.also_shown.iter().map(|s| s.to_string()).collect(),
        samples: Vec::new(),
        summary: Default::default(),
        precision_reached: None,
        steady: None,
        warnings: c
            .rewarm
            .then(|| fsbench_model::Warning::new(fsbench_model::WarningKind::Other, REWARMED))
            .into_iter()
            .collect(),
        error: None,
        bound: None,
        profile: None,
    }
}

/// One workload's prepared instances (one per target) and cells, whose entries start at `base`
/// in the outcome's results.
struct Group {
    prepared: Vec<Prepared>,
    cells: Vec<Cell>,
    base: usize,
}

/// Samples every cell of `groups` until its policy is met. Interleaved: per cache state, round
/// by round, one sample per target of each group's workload in turn. Returns true when
/// interrupted.
fn sample_cells(
    plan: &Plan,
    groups: &mut [Group],
    out: &mut Outcome,
    sink: &mut dyn Sink,
    team: &Team,
) -> bool {
    // Sequential decisions need both sides of a comparison sampled round by round.
    let sequential = plan.sequential.filter(|_| plan.interleave);
    for &cache in &plan.caches {
        let idx: Vec<Vec<usize>> = groups
            .iter()
            .map(|g| {
                (0..g.cells.len())
                    .filter(|&i| g.cells[i].cache == cache)
                    .collect()
            })
            .collect();
        let pairs: Vec<Vec<(usize, usize)>> = groups
            .iter()
            .zip(&idx)
            .map(|(g, idx)| match sequential {
                Some(_) => {
                    let targets: Vec<usize> = g
                        .cells
                        .iter()
                        .map(|c| g.prepared[c.prepared].target)
                        .collect();
                    decide::pairs(&targets, &g.cells, idx)
                }
                None => Vec::new(),
            })
            .collect();
        loop {
            let mut any = false;
            for (gi, g) in groups.iter_mut().enumerate() {
                let pending: Vec<usize> = idx[gi]
                    .iter()
                    .copied()
                    .filter(|&i| !g.cells[i].done)
                    .collect();
                if pending.is_empty() {
                    continue;
                }
                any = true;
                let batch = if plan.interleave {
                    pending
                } else {
                    pending[..1].to_vec()
                };
                for i in batch {
                    if step(
                        plan,
                        &mut g.prepared,
                        &mut g.cells[i],
                        &mut out.results[g.base + i],
                        sink,
                        team,
                    ) {
                        return true;
                    }
                    sink.event(Event::Results(&out.results));
                }
                if let Some(seq) = &sequential {
                    let entries = &out.results[g.base..g.base + g.cells.len()];
                    let failed: Vec<bool> = g
                        .cells
                        .iter()
                        .map(|c| g.prepared[c.prepared].error.is_some())
                        .collect();
                    decide::settle(
                        seq,
                        &failed,
                        &mut g.cells,
                        &pairs[gi],
                        (entries, &plan.against),
                    );
                }
            }
            if !any {
                break;
            }
        }
    }
    false
}

/// Takes one sample of a cell; returns true when interrupted.
fn step(
    plan: &Plan,
    prepared: &mut [Prepared],
    cell: &mut Cell,
    entry: &mut ResultEntry,
    sink: &mut dyn Sink,
    team: &Team,
) -> bool {
    let p = &mut prepared[cell.prepared];
    if p.error.is_some() {
        cell.done = true;
        return false;
    }
    let t = &plan.targets[p.target];
    let knob = p.caps.size_knob;
    let explain =
        |e: &WorkloadError| setup::explain_failure(e, &entry.workload, knob, &t.label, &t.path);
    // The warm-ups are taken right before the measured sample, so that it finds what they left.
    let taken = loop {
        let taken = if team.parallel() {
            team::take_sample(team, cell, p, plan.cold.as_ref(), &explain)
        } else {
            cell::take_sample(cell, p, plan.cold.as_ref()).map_err(|e| match e {
                WorkloadError::Interrupted => team::Failure::Interrupted,
                e => team::Failure::Failed(explain(&e)),
            })
        };
        match taken {
            Ok(sample) if cell.warmup_left > 0 => {
                cell.elapsed_ns += sample.wall_ns;
                cell.warmup_left -= 1;
                p.last_profile = None;
            }
            taken => break taken,
        }
    };
    match taken {
        Ok(mut sample) => {
            cell.elapsed_ns += sample.wall_ns;
            let profile = p.last_profile.take();
            if cell.rewarm {
                cell.warmup_left = 1;
            }
            profiling::keep(profile, &mut sample, entry);
            cell.samples.push(sample.clone());
            entry.samples.push(sample);
            let of = match cell.runs {
                fsbench_spec::plan::Runs::Fixed(n) => Some(n),
                fsbench_spec::plan::Runs::Auto { .. } | fsbench_spec::plan::Runs::Steady { .. } => {
                    None
                }
            };
            sink.event(Event::Sample {
                entry,
                n: cell.samples.len(),
                of,
            });
            cell.done = cell.policy_met(cell.runs, &entry.headline);
            false
        }
        Err(team::Failure::Interrupted) => true,
        Err(team::Failure::Failed(message)) => {
            p.error = Some(message);
            cell.done = true;
            setup::cleanup(p, team);
            false
        }
    }
}
