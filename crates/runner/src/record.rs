//! The run's record: begun with the host, its targets, fsbench's own overhead and what the user
//! asked for (suite, scale, seed layout); finished with the run's status, the storage stack's
//! warnings and the analyses (sweeps, bounds, comparisons). The binary and the whole-pipeline
//! test build it the same way.

use crate::Outcome;
use fsbench_model::{
    CacheState, DeviceCeiling, RunInfo, RunRecord, RunStatus, SCHEMA_VERSION, SeedLayout, Warning,
    WarningKind,
};
use fsbench_spec::plan::Plan;

/// What the record says of how fsbench was started.
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    /// The command line, for people to read.
    pub argv: Vec<String>,
    /// fsbench's version.
    pub version: String,
    /// The suite measured (a built-in's name or the file as given), if any.
    pub suite: Option<String>,
    /// The suite's scale, when not 1.
    pub scale: Option<f64>,
    /// The seed layout the suite asks for.
    pub report: Option<SeedLayout>,
}

/// A new record for `plan`, status `running`: the host and every target's storage stack, and
/// fsbench's own overhead when `measure_overhead` (false on MPI ranks other than 0, whose
/// record is never shown, so that rank 0 measures without the others competing).
pub fn begin(plan: &Plan, invocation: Invocation, measure_overhead: bool) -> RunRecord {
    complete(provisional(invocation), plan, measure_overhead)
}

/// The record as it is before anything is measured: its id, start and what was asked, with no
/// environment yet. Cheap, so that an interrupted run has a record to write from its first
/// moment; [`complete`] adds the rest.
pub fn provisional(invocation: Invocation) -> RunRecord {
    let stamp = now_rfc3339();
    let compact: String = stamp
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    RunRecord {
        schema_version: SCHEMA_VERSION,
        run: RunInfo {
            id: format!("{compact}-{}", std::process::id()),
            started_at: stamp,
            fsbench_version: invocation.version,
            argv: invocation.argv,
            status: RunStatus::Running,
            suite: invocation.suite,
            scale: invocation.scale.filter(|&s| s != 1.0),
            report: invocation.report,
            kind: fsbench_model::RunKind::of(invocation.report),
        },
        environment: Default::default(),
        overhead: Default::default(),
        results: Vec::new(),
        comparisons: Vec::new(),
        scaling: Vec::new(),
        cards: Vec::new(),
    }
}

/// `record` (from [`provisional`]) with the host, `plan`'s targets and, when
/// `measure_overhead`, fsbench's own overhead.
pub fn complete(mut record: RunRecord, plan: &Plan, measure_overhead: bool) -> RunRecord {
    record.environment = fsbench_envinfo::host();
    record.environment.targets = plan
        .targets
        .iter()
        .map(|t| fsbench_envinfo::target(&t.label, &t.path))
        .collect();
    if measure_overhead {
        record.overhead = crate::overhead::measure();
    }
    record
}

/// The status a run ended with: failed when a scratch could not be removed or a cell failed,
/// interrupted when a signal stopped it (`interrupted`: the runner's or the process's own
/// flag), else ok.
pub fn status(outcome: &Outcome, interrupted: bool) -> RunStatus {
    if outcome.cleanup_failure.is_some() {
        RunStatus::Failed
    } else if outcome.interrupted || interrupted {
        RunStatus::Interrupted
    } else if outcome.failures.is_empty() {
        RunStatus::Ok
    } else {
        RunStatus::Failed
    }
}

/// Finishes `record` with the cells of `outcome`: its status, the storage stack's warnings, the
/// sweeps' scaling, each cell's bound (against the devices' measured `ceilings`) and the
/// comparisons at `confidence` percent.
pub fn finish(
    record: &mut RunRecord,
    outcome: &mut Outcome,
    interrupted: bool,
    ceilings: &[DeviceCeiling],
    confidence: f64,
) {
    record.results = std::mem::take(&mut outcome.results);
    record.run.status = status(outcome, interrupted);
    attach_stack_warnings(record);
    fsbench_analysis::sweeps::attach(record);
    fsbench_analysis::explain::attach(record, ceilings);
    fsbench_analysis::cells::attach(record, confidence);
    fsbench_analysis::card::attach(record);
}

/// What the storage stack under each target means for its cold cells (a loop device without
/// direct I/O, tmpfs, FUSE, a network filesystem), added to those cells' warnings.
pub fn attach_stack_warnings(record: &mut RunRecord) {
    for entry in &mut record.results {
        if entry.cache.state != CacheState::Cold {
            continue;
        }
        let Some(t) = record
            .environment
            .targets
            .iter()
            .find(|t| t.label == entry.target)
        else {
            continue;
        };
        for w in fsbench_envinfo::stack_warnings(t) {
            let w = Warning::new(WarningKind::Stack, w.to_string());
            if !entry.warnings.contains(&w) {
                entry.warnings.push(w);
            }
        }
    }
}

/// The current time, RFC 3339 UTC to the second, as records and the store write it.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
