//! `fsbench run`: validate the plan, record the environment and fsbench's own overhead, execute,
//! print the tables, write JSON after every sample, and choose the exit code.

use crate::cli::RunArgs;
use crate::error::{CliError, CliResult};
use crate::exports::Exports;
use crate::progress::Progress;
use crate::runner::{self, Event, Sink};
use crate::storage::RunStore;
use fsbench_model::{CacheState, ResultEntry, RunInfo, RunRecord, RunStatus, SCHEMA_VERSION};
use fsbench_spec::RunSpec;
use fsbench_spec::plan::{Plan, PlanTarget, Runs, TargetKind};
use fsbench_workload::CancelToken;

struct RunSink {
    record: RunRecord,
    exports: Exports,
    store: Option<RunStore>,
    progress: Progress,
    /// What a forced exit writes (the exports so far, the store's mark), in the cleanup registry.
    last_words: Option<fsbench_sys::cleanup::Registration>,
}

impl Sink for RunSink {
    fn event(&mut self, e: Event<'_>) {
        self.progress.show(&e);
        if let Event::Results(results) = e {
            self.results(results);
        }
    }
}

impl RunSink {
    /// The store and the exports that are rewritten during the run get the new results.
    fn results(&mut self, results: &[ResultEntry]) {
        if let Some(s) = &mut self.store {
            s.sync(results);
        }
        // Copying every result after every sample costs O(samples) each time: only for exports
        // that are rewritten during the run.
        if self.exports.rewritten_during_run() {
            self.record.results = results.to_vec();
            self.save(false);
        }
    }

    /// Writes the exports due now and refreshes what a forced exit would write.
    fn save(&mut self, last: bool) {
        self.exports.write(&self.record, last);
        if last {
            return;
        }
        let files = self.exports.last_words(&self.record);
        let db = self.store.as_ref().map(|s| s.path());
        let id = self.record.run.id.clone();
        let stage = fsbench_sys::cleanup::Stage::Outputs;
        // The new words replace the old: the previous registration is dropped (forgotten).
        self.last_words = Some(crate::signals::cleanup().register(stage, move || {
            if let Some(f) = files {
                f();
            }
            if let Some(path) = db {
                crate::storage::mark_interrupted(&path, &id);
            }
            Vec::new()
        }));
    }

    /// The first export or store failure, as the run's error.
    fn output_error(&mut self) -> Option<String> {
        let store = self.store.as_mut().and_then(|s| {
            s.error.take().map(|e| {
                format!("results database: {e} (the run's samples are in --export-json if given)")
            })
        });
        self.exports.error.take().or(store)
    }
}

/// Runs the plan described by `args` (on every rank when started by mpirun).
pub fn run(mut args: RunArgs) -> CliResult<i32> {
    let team = join_ranks(&mut args)?;
    let result = run_with(args, &team);
    if team.parallel() {
        // Rank 0 says why before MPI is finalised: another rank's early exit makes mpirun end
        // the job, and rank 0 with it.
        if let Err(e) = &result {
            if team.root() {
                crate::report_error(e);
            }
            return Err(CliError {
                kind: e.kind,
                message: String::new(),
            });
        }
    }
    result
}

/// What a run starts from, every input checked (and its lab built).
struct Inputs {
    spec: RunSpec,
    suite: Option<fsbench_spec::suite::file::Suite>,
    plan: Plan,
    confidence: f64,
    exports: Exports,
    baseline: Option<RunRecord>,
    cancel: CancelToken,
    lab: crate::lab::Lab,
}

/// Checks the inputs and builds the lab: everything before the ranks first talk.
fn inputs(args: &RunArgs, team: &runner::Team) -> CliResult<Inputs> {
    let mut spec = crate::spec_args::run_spec(args)?;
    let suite = fsbench_spec::suite::resolve(&mut spec)?;
    let lab = crate::lab::request(&spec.lab, args.quiet)?;
    let mut plan = fsbench_spec::plan::build(&spec)?;
    check_team(team, &spec, &plan)?;
    let confidence = spec.confidence();
    check_percentages(confidence, args)?;
    let exports = check_outputs(&spec, args, &plan, suite.as_ref())?;
    let baseline = load_baseline(args)?;
    let cancel = CancelToken::new();
    crate::signals::install(cancel.clone())
        .map_err(|e| CliError::run(format!("cannot install signal handlers: {e}")))?;
    // Built after every input check; torn down when `lab` drops, on every path out of here.
    let lab = build_lab(lab, suite.as_ref(), &mut plan)?;
    precondition(&spec, &lab, &mut plan)?;
    Ok(Inputs {
        spec,
        suite,
        plan,
        confidence,
        exports,
        baseline,
        cancel,
        lab,
    })
}

/// Under MPI, every rank's verdict on its inputs, so that all go on or all stop: a check can
/// fail on one host only (a target that host does not have), and a rank that left alone would
/// leave the others waiting at their first exchange. The first failing rank's message (naming
/// its rank and host) and exit code are everyone's.
fn in_step(team: &runner::Team, mine: CliResult<Inputs>) -> CliResult<Inputs> {
    if !team.parallel() {
        return mine;
    }
    let err = mine.as_ref().err();
    let Some(message) = team.agree(err.map(|e| e.message.clone())) else {
        return mine;
    };
    let code = err.map_or(0, |e| e.kind.code().clamp(0, 255) as u8);
    let kind = team
        .dist
        .all_gather(&[code])
        .iter()
        .find_map(|c| c.first().copied().filter(|&c| c != 0))
        .map_or(crate::error::ExitKind::Usage, |c| {
            crate::error::ExitKind::from_code(i32::from(c))
        });
    Err(CliError { kind, message })
}

fn run_with(args: RunArgs, team: &runner::Team) -> CliResult<i32> {
    let checked = inputs(&args, team);
    let Inputs {
        spec,
        suite,
        plan,
        confidence,
        exports,
        baseline,
        cancel,
        lab,
    } = in_step(team, checked)?;
    let mut record = new_record(&plan, team.root());
    // Every rank names its scratch after rank 0's run id.
    record.run.id = team.dist.broadcast(&record.run.id);
    lab.annotate(&mut record.environment.targets);
    let estimate = match crate::estimate::before_run(&args, team, &plan, &record, suite.as_ref())? {
        crate::estimate::Next::Stop => return Ok(0),
        crate::estimate::Next::Run(e) => e,
    };
    let started = std::time::Instant::now();
    let store = if args.no_store {
        None
    } else {
        Some(RunStore::begin(
            args.db.db.as_deref(),
            &record,
            args.note.as_deref(),
        )?)
    };
    let total = planned_samples(&plan);
    let mut sink = RunSink {
        record,
        exports,
        store,
        progress: Progress::new(args.quiet, total, team.live.clone()),
        last_words: None,
    };
    sink.save(false);
    if let Some(e) = sink.exports.error.take() {
        return Err(CliError::usage(e));
    }
    let id = sink.record.run.id.clone();
    let mut outcome = runner::execute(&plan, &id, &cancel, &mut sink, team)?;
    sink.progress.finish();
    crate::estimate::after_run(estimate.as_ref(), started, args.quiet);
    let results = std::mem::take(&mut outcome.results);
    finish_record(&mut sink, results, &outcome, confidence);
    if let Some(s) = &suite {
        fsbench_analysis::policy::suite_policy(s.compare.as_deref(), &mut sink.record, confidence);
    }
    if let Some(s) = &mut sink.store {
        s.finish(&sink.record);
    }
    sink.save(true);
    let html = match &args.html {
        Some(p) => super::report::write(p, &super::report::html(Vec::new(), &sink.record)),
        None => Ok(()),
    };
    // An output on standard output (`-`) has it alone: no tables after its last line.
    let html_on_stdout = args.html.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let printed = if sink.exports.uses_stdout() || html_on_stdout {
        Ok(())
    } else {
        print_tables(&sink.record, spec.plot, suite.as_ref())
    };
    let gate = match &baseline {
        Some(b) => crate::compare_runs::print_and_gate(
            b,
            &sink.record,
            confidence,
            args.fail_if_slower.map(|pct| crate::compare_runs::Gate {
                pct,
                allow_incomparable: args.allow_incomparable,
            }),
            spec.plot,
            None,
        ),
        None => Ok(()),
    };
    if let Some(e) = sink.output_error() {
        return Err(CliError::run(e));
    }
    if let Some(e) = &outcome.cleanup_failure {
        return Err(CliError::run(e.clone()));
    }
    if outcome.interrupted || crate::signals::interrupted() {
        return Err(CliError::interrupted());
    }
    if let Some((last, rest)) = outcome.failures.split_last() {
        for f in rest {
            crate::errln!("fsbench: error: {}", crate::escape_controls(f));
        }
        return Err(CliError::run(last.clone()));
    }
    printed?;
    html?;
    gate.map(|()| 0)
}

/// The run's tables, then a suite's seed-layout tables.
fn print_tables(
    record: &RunRecord,
    plot: bool,
    suite: Option<&fsbench_spec::suite::file::Suite>,
) -> CliResult<()> {
    let seed = suite
        .and_then(|s| s.report.as_deref())
        .and_then(fsbench_report::seed::Kind::parse);
    super::show::print(record, plot, seed)
}

/// The stored run `--baseline` names, loaded before the run starts (so a wrong id costs
/// nothing); a note when it is one that moves with every stored run.
fn load_baseline(args: &RunArgs) -> CliResult<Option<RunRecord>> {
    if args.fail_if_slower.is_some()
        && args
            .baseline
            .as_deref()
            .is_some_and(|b| b == "last" || b.starts_with("last~"))
    {
        crate::errln!(
            "note: --baseline {} moves with every stored run; pin one with 'fsbench baseline set NAME RUN' and gate on --baseline NAME",
            args.baseline.as_deref().unwrap_or_default()
        );
    }
    Ok(match &args.baseline {
        // Loaded before the run starts, so a wrong id costs nothing.
        Some(b) => Some(super::show::load(args.db.db.as_deref(), b)?),
        None => None,
    })
}

/// Every output file checked before any work: none may be the database, a workload's input,
/// the suite file or another output. The exports of the run.
fn check_outputs(
    spec: &RunSpec,
    args: &RunArgs,
    plan: &Plan,
    suite: Option<&fsbench_spec::suite::file::Suite>,
) -> CliResult<Exports> {
    let export = crate::cli::ExportArgs {
        export_json: spec.export_json.clone(),
        export_csv: spec.export_csv.clone(),
        export_markdown: spec.export_markdown.clone(),
        export_csv_series: spec.export_csv_series.clone(),
    };
    let mut protected = crate::storage::protected_db(args.db.db.as_deref());
    for w in &plan.workloads {
        for key in ["file", "archive", "tree"] {
            if let Some(v) = w.params.get(key).filter(|v| !v.is_empty()) {
                protected.push(crate::outputs::Protected {
                    what: format!("the input {key}= of {}", w.info.name),
                    path: v.into(),
                });
            }
        }
    }
    if let Some(file) = suite
        .map(|s| s.file.as_str())
        .filter(|f| !f.starts_with("builtin:"))
    {
        protected.push(crate::outputs::Protected {
            what: "the suite file".into(),
            path: file.into(),
        });
    }
    let html: Vec<(&str, &std::path::Path)> =
        args.html.iter().map(|p| ("--html", p.as_path())).collect();
    let exports = Exports::check(&export, &protected, &html)?;
    if let Some(p) = args.html.as_ref().filter(|p| p.as_os_str() != "-") {
        crate::outfile::check(p, "--html").map_err(CliError::usage)?;
    }
    Ok(exports)
}

/// Samples the plan takes in all, when the number per cell is fixed.
fn planned_samples(plan: &Plan) -> Option<u64> {
    match plan.runs {
        Runs::Fixed(n) if plan.workloads.iter().all(|w| !w.until_steady) => {
            let cells = plan.targets.len() * plan.workloads.len() * plan.caches.len();
            Some(cells as u64 * u64::from(n))
        }
        _ => None,
    }
}

/// `--precondition`: the fill cell first, every workload until steady (after the lab is built:
/// its targets are the ones it may fill).
fn precondition(spec: &RunSpec, lab: &crate::lab::Lab, plan: &mut Plan) -> CliResult<()> {
    if spec.precondition {
        fsbench_spec::precondition::apply(plan, &lab.labels())?;
    }
    Ok(())
}

/// Builds the lab targets and adds them to the plan, then puts a suite's baseline first.
fn build_lab(
    req: Option<crate::lab::LabRequest>,
    suite: Option<&fsbench_spec::suite::file::Suite>,
    plan: &mut Plan,
) -> CliResult<crate::lab::Lab> {
    let taken: Vec<&str> = plan.targets.iter().map(|t| t.label.as_str()).collect();
    let hooks = crate::lab::Hooks {
        interrupted: crate::signals::interrupted,
        say: |line| crate::errln!("{line}"),
    };
    let (lab, built) = crate::lab::build(req, &taken, hooks, crate::signals::cleanup())?;
    if let Some(w) = plan.workloads.iter().max_by_key(|w| w.caps.space_needed) {
        lab.check_aged_room(w.caps.space_needed, w.info.name)?;
    }
    plan.targets.extend(built.into_iter().map(|b| PlanTarget {
        label: b.label,
        path: b.path,
        kind: TargetKind::Dir,
    }));
    if let Some(note) = suite.and_then(|s| fsbench_spec::suite::order_targets(s, &mut plan.targets))
    {
        crate::errln!("{note}");
    }
    Ok(lab)
}

/// Joins the MPI job when mpirun started several ranks. Ranks other than 0 then print, store
/// and write nothing: rank 0 speaks for the run.
fn join_ranks(args: &mut RunArgs) -> CliResult<runner::Team> {
    let dist = fsbench_dist::Dist::init(&|k| std::env::var(k).ok()).map_err(CliError::usage)?;
    let team = runner::Team {
        dist,
        shared: args.layout == crate::cli::LayoutArg::Shared,
        clock: runner::ClockChoice::Real,
        cleanup: crate::signals::cleanup().clone(),
        live: Default::default(),
    };
    if team.parallel() && !team.root() {
        crate::out::silence();
        args.quiet = true;
        args.no_store = true;
        args.export = Default::default();
        args.html = None;
        args.baseline = None;
        args.fail_if_slower = None;
    }
    Ok(team)
}

/// What MPI ranks cannot do: build a lab (loop devices per rank), write to a device, or share
/// a directory with a workload that does not know how to split its work.
fn check_team(team: &runner::Team, spec: &RunSpec, plan: &Plan) -> CliResult<()> {
    if !team.parallel() {
        return Ok(());
    }
    if !spec.lab.kinds.is_empty() {
        return Err(CliError::usage(
            "--lab cannot be used under mpirun — build the filesystems first, then give them as --target",
        ));
    }
    if let Some(t) = plan.targets.iter().find(|t| t.kind != TargetKind::Dir) {
        return Err(CliError::usage(format!(
            "target {} is a device: under mpirun every target must be a directory",
            t.path.display()
        )));
    }
    if team.sharing() {
        if let Some(w) = plan.workloads.iter().find(|w| !w.caps.supports_shared) {
            let able = shared_able();
            return Err(CliError::usage(format!(
                "workload {} cannot run with --layout shared (it cannot split one file or directory among ranks) — use --layout per-rank, or one of: {}",
                w.info.name,
                able.join(", ")
            )));
        }
    }
    Ok(())
}

/// Workloads that split their work among ranks in one directory (built with their defaults).
fn shared_able() -> Vec<&'static str> {
    fsbench_workload::names()
        .into_iter()
        .filter(|n| {
            fsbench_workload::find(n)
                .and_then(|info| fsbench_workload::build(info, Default::default()).ok())
                .is_some_and(|b| b.caps.supports_shared)
        })
        .collect()
}

fn check_percentages(confidence: f64, args: &RunArgs) -> CliResult<()> {
    if !(confidence > 0.0 && confidence < 100.0) {
        return Err(CliError::usage(format!(
            "invalid --confidence {confidence} — give a percentage between 0 and 100, e.g. 95"
        )));
    }
    if args.fail_if_slower.is_some() && args.baseline.is_none() {
        return Err(CliError::usage(
            "--fail-if-slower needs --baseline RUN (the run to compare with) — add it, or use 'fsbench compare'",
        ));
    }
    if let Some(p) = args
        .fail_if_slower
        .filter(|p| !(*p >= 0.0 && p.is_finite()))
    {
        return Err(CliError::usage(format!(
            "invalid --fail-if-slower {p} — give a percentage of 0 or more, e.g. 5"
        )));
    }
    Ok(())
}

/// The run's final status and analyses.
fn finish_record(
    sink: &mut RunSink,
    results: Vec<ResultEntry>,
    outcome: &runner::Outcome,
    confidence: f64,
) {
    sink.record.results = results;
    sink.record.run.status = if outcome.cleanup_failure.is_some() {
        RunStatus::Failed
    } else if outcome.interrupted || crate::signals::interrupted() {
        RunStatus::Interrupted
    } else if outcome.failures.is_empty() {
        RunStatus::Ok
    } else {
        RunStatus::Failed
    };
    attach_stack_warnings(&mut sink.record);
    fsbench_analysis::sweeps::attach(&mut sink.record);
    let ceilings = sink
        .store
        .as_ref()
        .map(|s| s.ceilings(&sink.record.environment.hostname))
        .unwrap_or_default();
    fsbench_analysis::explain::attach(&mut sink.record, &ceilings);
    fsbench_analysis::cells::attach(&mut sink.record, confidence);
}

/// What the storage stack under each target means for its cold cells (a loop device without
/// direct I/O, tmpfs, FUSE, a network filesystem), added to those cells' warnings.
fn attach_stack_warnings(record: &mut RunRecord) {
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
        for w in crate::envinfo::stack_warnings(t) {
            let w = fsbench_model::Warning::new(fsbench_model::WarningKind::Stack, w.to_string());
            if !entry.warnings.contains(&w) {
                entry.warnings.push(w);
            }
        }
    }
}

/// The run's record; `measure_overhead` false on MPI ranks other than 0 (whose record is never
/// shown), so that rank 0 measures fsbench's own cost without the others competing.
fn new_record(plan: &Plan, measure_overhead: bool) -> RunRecord {
    let now = std::time::SystemTime::now();
    let stamp = humantime::format_rfc3339_seconds(now).to_string();
    let compact: String = stamp
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let mut environment = crate::envinfo::host();
    environment.targets = plan
        .targets
        .iter()
        .map(|t| crate::envinfo::target(&t.label, &t.path))
        .collect();
    RunRecord {
        schema_version: SCHEMA_VERSION,
        run: RunInfo {
            id: format!("{compact}-{}", std::process::id()),
            started_at: stamp,
            fsbench_version: env!("CARGO_PKG_VERSION").into(),
            // Recorded for people to read: an argument that is not UTF-8 is shown lossily.
            argv: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            status: RunStatus::Running,
        },
        environment,
        overhead: if measure_overhead {
            fsbench_runner::overhead::measure()
        } else {
            Default::default()
        },
        results: Vec::new(),
        comparisons: Vec::new(),
        scaling: Vec::new(),
    }
}
