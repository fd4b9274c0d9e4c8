//! `fsbench run`: validate the plan, record the environment and fsbench's own overhead, execute,
//! print the tables, write JSON during the run, and choose the exit code.

use crate::cli::RunArgs;
use crate::error::{CliError, CliResult};
use crate::progress::Progress;
use crate::runner::{self, Event, Sink};
use fsbench_model::RunRecord;
use fsbench_output::exports::{ExportPaths, Exports};
use fsbench_output::run_sink::RunSink;
use fsbench_runner::record::Invocation;
use fsbench_runner::store_sink::StoreSink;
use fsbench_spec::RunSpec;
use fsbench_spec::checks::Spread;
use fsbench_spec::plan::{Plan, PlanTarget, TargetKind};
use fsbench_workload::CancelToken;

/// The run's exports as one of its sinks.
struct Exporting<'a>(&'a mut RunSink);

impl Sink for Exporting<'_> {
    fn event(&mut self, e: Event<'_>) {
        if let Event::Results(results) = e {
            self.0.results(results);
        }
    }
}

/// The first export or store failure, as the run's error.
fn output_error(exports: &mut RunSink, store: Option<&mut StoreSink>) -> Option<String> {
    let store = store.and_then(|s| {
        s.closed();
        s.error.take().map(|e| {
            format!("results database: {e} (the run's samples are in --export-json if given)")
        })
    });
    exports.exports.error.take().or(store)
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
                crate::report(e);
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
    /// The run's record before anything is measured.
    record: RunRecord,
    /// Until the run's own exports take over: what a forced exit writes (the JSON, interrupted).
    early_words: Option<fsbench_sys::cleanup::Registration>,
}

/// Checks the inputs and builds the lab: everything before the ranks first talk.
fn inputs(args: &RunArgs, team: &runner::Team) -> CliResult<Inputs> {
    // First of all: a signal from here on stops the run with its JSON written, never kills it.
    let cancel = CancelToken::new();
    crate::signals::install(cancel.clone())
        .map_err(|e| CliError::run(format!("cannot install signal handlers: {e}")))?;
    let settling = crate::signals::Settling::begin();
    let mut spec = crate::spec_args::run_spec(args)?;
    let suite = fsbench_spec::suite::resolve(&mut spec)?;
    let lab = crate::lab::request(
        spec.lab.entries()?,
        spec.lab.size.as_deref(),
        spec.lab.dir.as_deref(),
        args.quiet,
    )?;
    let mut plan = fsbench_spec::plan::build(&spec)?;
    let spread = Spread {
        parallel: team.parallel(),
        shared: team.sharing(),
    };
    fsbench_spec::checks::team(spread, &spec, &plan)?;
    let confidence = spec.confidence();
    fsbench_spec::checks::percentages(confidence, args.fail_if_slower, args.baseline.is_some())?;
    let mut exports = check_outputs(&spec, args, &plan, suite.as_ref())?;
    let baseline = load_baseline(args)?;
    if spec.profile {
        let said = fsbench_profile::prepare().map_err(|e| CliError::usage(e.to_string()))?;
        said.iter().for_each(|line| crate::errln!("{line}"));
    }
    let record = runner::record::provisional(invocation(&spec, suite.as_ref()));
    let cleanup = crate::signals::cleanup();
    let early_words = fsbench_output::run_sink::early_words(&exports, &record, cleanup);
    drop(settling);
    // Built after every input check; torn down when `lab` drops, on every path out of here.
    let built = build_lab(lab, suite.as_ref(), &mut plan).and_then(|lab| {
        fsbench_spec::precondition::when_asked(&spec, &mut plan, &lab.labels())?;
        Ok(lab)
    });
    let lab = match built {
        Ok(lab) => lab,
        Err(e) => return Err(end_before_start(&mut exports, record, e)),
    };
    Ok(Inputs {
        spec,
        suite,
        plan,
        confidence,
        exports,
        baseline,
        cancel,
        lab,
        record,
        early_words,
    })
}

/// The JSON of a run that ended before it began measuring (its lab could not be built, or a
/// signal came first): the provisional record, `interrupted` or `failed`. Returns `e`.
fn end_before_start(exports: &mut Exports, record: RunRecord, e: CliError) -> CliError {
    fsbench_output::run_sink::end_before_start(exports, record, interrupted_by(&e));
    e
}

/// Ends the JSON of a run that stopped on `e` before it finished. Returns `e`.
fn fail(out: &mut RunSink, e: CliError) -> CliError {
    out.fail(interrupted_by(&e));
    e
}

/// Whether a signal stopped the run that ended on `e`.
fn interrupted_by(e: &CliError) -> bool {
    e.kind == crate::error::ExitKind::Interrupted || crate::signals::interrupted()
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
    let mut inputs = in_step(team, checked)?;
    let provisional = inputs.record.clone();
    let mut record = runner::record::complete(provisional, &inputs.plan, team.root());
    // Every rank names its scratch after rank 0's run id.
    record.run.id = team.dist.broadcast(&record.run.id);
    inputs.lab.annotate(&mut record.environment.targets);
    let suite = inputs.suite.as_ref();
    let estimate = match crate::estimate::before_run(&args, team, &inputs.plan, &record, suite) {
        Ok(crate::estimate::Next::Stop) => return Ok(0),
        Ok(crate::estimate::Next::Run(e)) => e,
        Err(e) => return Err(end_before_start(&mut inputs.exports, record, e)),
    };
    let started = std::time::Instant::now();
    let measured = measure(&args, team, &mut inputs, record)?;
    crate::estimate::after_run(estimate.as_ref(), started, args.quiet);
    conclude(&args, &inputs, measured)
}

/// What the record says of how this run was started.
fn invocation(spec: &RunSpec, suite: Option<&fsbench_spec::suite::file::Suite>) -> Invocation {
    Invocation {
        // Recorded for people to read: an argument that is not UTF-8 is shown lossily.
        argv: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        version: env!("CARGO_PKG_VERSION").into(),
        // A built-in by its name, a suite file by its path as given.
        suite: suite.map(|s| {
            let name = s.file.strip_prefix("builtin:").unwrap_or(&s.file);
            name.to_string()
        }),
        scale: spec.scale,
        report: suite.and_then(|s| s.report),
    }
}

/// A measured run: its finished record (in the export sink), the store and the runner's outcome.
struct Measured {
    out: RunSink,
    store: Option<StoreSink>,
    outcome: runner::Outcome,
}

/// Runs the plan with its sinks (progress, the store, the exports), then finishes, stores and
/// exports the record.
fn measure(
    args: &RunArgs,
    team: &runner::Team,
    inputs: &mut Inputs,
    record: RunRecord,
) -> CliResult<Measured> {
    let plan = &inputs.plan;
    let exports = std::mem::take(&mut inputs.exports);
    let mark = runner::store_sink::mark_interrupted;
    let sink = RunSink::new(
        record,
        exports,
        crate::signals::cleanup(),
        crate::out::stdout_text,
        mark,
    );
    let mut out = sink;
    // The JSON exists from here on, and every way out of this function leaves it with a final
    // status (a forced exit's last words, or `fail` below).
    out.save(false);
    inputs.early_words = None;
    if let Some(e) = out.exports.error.take() {
        return Err(CliError::usage(e));
    }
    let mut store = match args.no_store {
        true => None,
        false => {
            let path = crate::storage::db_path(args.db.db.as_deref())?;
            let note = args.note.as_deref();
            let mut waiting = || {
                crate::errln!(
                    "fsbench: waiting for another program to release {} (up to 30 s)",
                    path.display()
                )
            };
            match StoreSink::begin(&path, &out.record, note, &mut waiting) {
                Ok(s) => Some(s),
                Err(e) => return Err(fail(&mut out, e.into())),
            }
        }
    };
    if let Some(s) = &store {
        out.db = Some(s.path());
        out.save(false);
    }
    let mut progress = Progress::new(args.quiet, plan.planned_samples(), team.live.clone());
    let id = out.record.run.id.clone();
    let executed = {
        let mut sinks: Vec<&mut dyn Sink> = vec![&mut progress];
        if let Some(s) = store.as_mut() {
            sinks.push(s);
        }
        let mut exporting = Exporting(&mut out);
        sinks.push(&mut exporting);
        runner::execute(plan, &id, &inputs.cancel, &mut runner::Fanout(sinks), team)
    };
    let mut outcome = match executed {
        Ok(o) => o,
        Err(e) => return Err(fail(&mut out, e.into())),
    };
    progress.finish();
    let ceilings = store
        .as_ref()
        .map(|s| s.ceilings(&out.record.environment.hostname))
        .unwrap_or_default();
    let interrupted = crate::signals::interrupted();
    let confidence = inputs.confidence;
    runner::record::finish(
        &mut out.record,
        &mut outcome,
        interrupted,
        &ceilings,
        confidence,
    );
    if let Some(s) = &inputs.suite {
        fsbench_analysis::policy::suite_policy(s.compare, &mut out.record, confidence);
    }
    if let Some(s) = &mut store {
        s.finish(&out.record);
    }
    out.save(true);
    Ok(Measured {
        out,
        store,
        outcome,
    })
}

/// Prints the tables, writes `--html`, gates against `--baseline`, and turns the run's ending
/// into the exit code.
fn conclude(args: &RunArgs, inputs: &Inputs, m: Measured) -> CliResult<i32> {
    let Measured {
        mut out,
        mut store,
        outcome,
    } = m;
    let html = match &args.html {
        Some(p) => super::report::write(p, &super::report::html(Vec::new(), &out.record)),
        None => Ok(()),
    };
    // An output on standard output (`-`) has it alone: no tables after its last line.
    let html_on_stdout = args.html.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let plot = inputs.spec.plot;
    let printed = if out.exports.uses_stdout() || html_on_stdout {
        Ok(())
    } else {
        super::show::print(&out.record, plot, out.record.run.report)
    };
    let gate = match &inputs.baseline {
        Some(b) => crate::compare_runs::print_and_gate(
            b,
            &out.record,
            inputs.confidence,
            args.fail_if_slower.map(|pct| crate::compare_runs::Gate {
                pct,
                allow_incomparable: args.allow_incomparable,
            }),
            plot,
            None,
        ),
        None => Ok(()),
    };
    if let Some(e) = output_error(&mut out, store.as_mut()) {
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
    let export = ExportPaths {
        json: spec.export_json.clone(),
        csv: spec.export_csv.clone(),
        markdown: spec.export_markdown.clone(),
        csv_series: spec.export_csv_series.clone(),
    };
    let mut protected = crate::storage::protected_db(args.db.db.as_deref());
    protected.extend(fsbench_spec::checks::protected_inputs(plan, suite));
    let html: Vec<(&str, &std::path::Path)> =
        args.html.iter().map(|p| ("--html", p.as_path())).collect();
    let exports = Exports::check(&export, &protected, &html)?;
    if let Some(p) = args.html.as_ref().filter(|p| p.as_os_str() != "-") {
        fsbench_output::file::check(p, "--html")?;
    }
    Ok(exports)
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
