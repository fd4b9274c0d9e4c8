//! `fsbench run`: validate the plan, record the environment and fsbench's own overhead, execute,
//! print the tables, write JSON during the run, and choose the exit code.

use crate::cli::RunArgs;
use crate::error::{CliError, CliResult};
use crate::runner::{self, Event, Sink};
use fsbench_model::RunRecord;
use fsbench_output::exports::{ExportPaths, Exports};
use fsbench_output::run_sink::RunSink;
use fsbench_runner::order::Agreed;
use fsbench_runner::progress::Progress;
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

/// Runs the plan described by `args` (on every rank when started by mpirun). Every option is
/// read through the run's specification; one that does not parse is reported once the ranks
/// have joined, as every other input error is.
pub fn run(args: RunArgs) -> CliResult<i32> {
    run_spec(crate::spec_args::run_spec(&args))
}

/// Runs the plan `spec` describes (`run`, and `card` with its operations as workloads).
pub fn run_spec(spec: CliResult<RunSpec>) -> CliResult<i32> {
    // Before any thread starts: a lab's mounts in a namespace of the run's own.
    crate::labns::enter(&spec);
    let shared = spec.as_ref().is_ok_and(|s| s.session.shared_layout);
    let team = join_ranks(shared)?;
    let result = run_with(spec, &team);
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
    /// The user named the suite (`--suite`); the default plan (no `--suite`, no `--workload`)
    /// resolves to `quick` without being named.
    suite_named: bool,
    plan: Plan,
    confidence: f64,
    exports: Exports,
    baseline: Option<RunRecord>,
    cancel: CancelToken,
    /// The lab, torn down before the early words are released: until the run's own exports
    /// take over, what a forced exit writes (the JSON, interrupted).
    held: runner::order::Held<crate::lab::Lab, Option<fsbench_sys::cleanup::Registration>>,
    /// The run's record before anything is measured.
    record: RunRecord,
}

/// Checks the inputs and builds the lab: everything before the ranks first talk.
fn inputs(spec: CliResult<RunSpec>, team: &runner::Team) -> CliResult<Inputs> {
    // First of all: a signal from here on stops the run with its JSON written, never kills it.
    let cancel = CancelToken::new();
    crate::signals::install(cancel.clone())
        .map_err(|e| CliError::run(format!("cannot install signal handlers: {e}")))?;
    let begun = runner::order::Begun::new(crate::signals::Settling::begin());
    let mut spec = spec?;
    if team.parallel() && !team.root() {
        spec.silence();
    }
    // Before `resolve` gives the default plan its suite's name.
    let suite_named = spec.suite.is_some();
    let suite = fsbench_spec::suite::resolve(&mut spec)?;
    let lab = crate::lab::request(
        spec.lab.entries()?,
        spec.lab.size.as_deref(),
        spec.lab.dir.as_deref(),
        spec.session.quiet,
    )?;
    let mut plan = fsbench_spec::plan::build(&spec)?;
    let spread = Spread {
        parallel: team.parallel(),
        shared: team.sharing(),
    };
    fsbench_spec::checks::team(spread, &spec, &plan)?;
    let confidence = spec.confidence();
    let session = &spec.session;
    fsbench_spec::checks::percentages(
        confidence,
        session.fail_if_slower,
        session.baseline.is_some(),
    )?;
    let mut exports = check_outputs(&spec, &plan, suite.as_ref())?;
    let baseline = load_baseline(&spec.session)?;
    if let (Some(b), Some(_)) = (&baseline, &plan.sequential) {
        plan.against = against(b, spec.session.gate().map(|(pct, _)| pct));
    }
    if spec.profile {
        let said = fsbench_profile::prepare().map_err(|e| CliError::usage(e.to_string()))?;
        said.iter().for_each(|line| crate::errln!("{line}"));
    }
    let record = runner::record::provisional(invocation(&spec, suite.as_ref()));
    let cleanup = crate::signals::cleanup();
    let speaking = begun.speak(fsbench_output::run_sink::early_words(
        &exports, &record, cleanup,
    ));
    // Built after every input check; torn down when `held` drops, on every path out of here.
    let built = speaking.build_lab(|| {
        build_lab(lab, suite.as_ref(), &mut plan).and_then(|lab| {
            fsbench_spec::precondition::when_asked(&spec, &mut plan, &lab.labels())?;
            Ok(lab)
        })
    });
    let held = match built {
        Ok(held) => held,
        Err((_words, e)) => return Err(end_before_start(&mut exports, record, e)),
    };
    Ok(Inputs {
        spec,
        suite,
        suite_named,
        plan,
        confidence,
        exports,
        baseline,
        cancel,
        held,
        record,
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
fn in_step(team: &runner::Team, mine: CliResult<Inputs>) -> CliResult<Agreed<Inputs>> {
    Agreed::new(mine, |err| {
        if !team.parallel() {
            return None; // Alone: this rank's own verdict stands.
        }
        let message = team.agree(err.map(|e| e.message.clone()))?;
        let code = err.map_or(0, |e| e.kind.code().clamp(0, 255) as u8);
        let kind = team
            .cluster
            .all_gather(&[code])
            .iter()
            .find_map(|c| c.first().copied().filter(|&c| c != 0))
            .map_or(crate::error::ExitKind::Usage, |c| {
                crate::error::ExitKind::from_code(i32::from(c))
            });
        Some(CliError { kind, message })
    })
}

fn run_with(spec: CliResult<RunSpec>, team: &runner::Team) -> CliResult<i32> {
    let checked = inputs(spec, team);
    let mut agreed = in_step(team, checked)?;
    let inputs = agreed.get_mut();
    let provisional = inputs.record.clone();
    let mut record = runner::record::complete(provisional, &inputs.plan, team.root());
    // Every rank names its scratch after rank 0's run id.
    record.run.id = team.cluster.broadcast(&record.run.id);
    inputs.held.lab().annotate(&mut record.environment.targets);
    // The guard against a suite running far longer than it says is for a suite the user named
    // (`--suite`), never for the default plan.
    let named = inputs.suite.as_ref().filter(|_| inputs.suite_named);
    let session = &inputs.spec.session;
    let estimate = match crate::estimate::before_run(session, team, &inputs.plan, &record, named) {
        Ok(crate::estimate::Next::Stop) => return Ok(0),
        Ok(crate::estimate::Next::Run(e)) => e,
        Err(e) => return Err(end_before_start(&mut inputs.exports, record, e)),
    };
    let started = std::time::Instant::now();
    let measured = measure(team, &mut agreed, record)?;
    let inputs = agreed.get();
    crate::estimate::after_run(estimate.as_ref(), started, inputs.spec.session.quiet);
    conclude(inputs, measured)
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
        report: suite.and_then(|s| s.report).or(spec.layout),
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
    team: &runner::Team,
    agreed: &mut Agreed<Inputs>,
    record: RunRecord,
) -> CliResult<Measured> {
    let inputs = agreed.get_mut();
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
    inputs.held.words_taken_over();
    if let Some(e) = out.exports.error.take() {
        return Err(CliError::usage(e));
    }
    let session = &inputs.spec.session;
    let mut store = match session.no_store {
        true => None,
        false => {
            let path = crate::storage::db_path(session.db.as_deref())?;
            let note = session.note.as_deref();
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
    let mut progress = Progress::new(
        session.quiet,
        plan.planned_samples(),
        team.live.clone(),
        crate::out::stderr_line,
    );
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
    if let Some(seq) = &plan.sequential {
        fsbench_analysis::sequential::attach(&mut out.record, &seq.plan);
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
fn conclude(inputs: &Inputs, m: Measured) -> CliResult<i32> {
    let session = &inputs.spec.session;
    let Measured {
        mut out,
        mut store,
        outcome,
    } = m;
    let html = match &session.html {
        Some(p) => super::report::write(p, &super::report::html(Vec::new(), &out.record)),
        None => Ok(()),
    };
    // An output on standard output (`-`) has it alone: no tables after its last line.
    let html_on_stdout = session.html.as_ref().is_some_and(|p| p.as_os_str() == "-");
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
            session
                .gate()
                .map(|(pct, allow_incomparable)| crate::compare_runs::Gate {
                    pct,
                    allow_incomparable,
                }),
            plot,
            None,
            inputs
                .plan
                .sequential
                .as_ref()
                .filter(|_| !inputs.plan.against.is_empty())
                .map(|s| &s.plan),
        ),
        None => Ok(()),
    };
    let interrupted = outcome.interrupted || crate::signals::interrupted();
    let ending = runner::order::Ending {
        outputs: output_error(&mut out, store.as_mut()).map(CliError::run),
        cleanup: outcome.cleanup_failure.map(CliError::run),
        interrupted: interrupted.then(CliError::interrupted),
        failures: outcome.failures.into_iter().map(CliError::run).collect(),
        printing: printed.err(),
        html: html.err(),
        gate: gate.err(),
    };
    match ending.first() {
        (None, _) => Ok(0),
        (Some(e), printed_before) => {
            for f in printed_before {
                crate::errln!("fsbench: error: {}", crate::escape_controls(&f.message));
            }
            Err(e)
        }
    }
}

/// The cells of the stored run `baseline` that this run's `--runs auto` cells sample against,
/// each with the gate's threshold (`--fail-if-slower PCT`) as a change of its headline.
fn against(baseline: &RunRecord, gate: Option<f64>) -> Vec<fsbench_spec::plan::Against> {
    baseline
        .results
        .iter()
        .filter(|e| !e.samples.is_empty())
        .map(|e| fsbench_spec::plan::Against {
            target: e.target.clone(),
            workload: e.workload.clone(),
            params: e.params.clone(),
            sweep: e.sweep.clone(),
            cache: e.cache.state,
            values: fsbench_analysis::cells::values(e),
            gate_pct: gate.map(|pct| fsbench_analysis::sequential::gate_pct(&e.headline, pct)),
        })
        .collect()
}

/// The stored run `--baseline` names, loaded before the run starts (so a wrong id costs
/// nothing); a note when it is one that moves with every stored run.
fn load_baseline(session: &fsbench_spec::Session) -> CliResult<Option<RunRecord>> {
    if session.fail_if_slower.is_some()
        && session
            .baseline
            .as_deref()
            .is_some_and(|b| b == "last" || b.starts_with("last~"))
    {
        crate::errln!(
            "note: --baseline {} moves with every stored run; pin one with 'fsbench baseline set NAME RUN' and gate on --baseline NAME",
            session.baseline.as_deref().unwrap_or_default()
        );
    }
    Ok(match &session.baseline {
        // Loaded before the run starts, so a wrong id costs nothing.
        Some(b) => Some(super::show::load(session.db.as_deref(), b)?),
        None => None,
    })
}

/// Every output file checked before any work: none may be the database, a workload's input,
/// the suite file or another output. The exports of the run.
fn check_outputs(
    spec: &RunSpec,
    plan: &Plan,
    suite: Option<&fsbench_spec::suite::file::Suite>,
) -> CliResult<Exports> {
    let export = ExportPaths {
        json: spec.export_json.clone(),
        csv: spec.export_csv.clone(),
        markdown: spec.export_markdown.clone(),
        csv_series: spec.export_csv_series.clone(),
    };
    let session = &spec.session;
    let mut protected = crate::storage::protected_db(session.db.as_deref());
    protected.extend(fsbench_spec::checks::protected_inputs(plan, suite));
    let html: Vec<(&str, &std::path::Path)> = session
        .html
        .iter()
        .map(|p| ("--html", p.as_path()))
        .collect();
    let exports = Exports::check(&export, &protected, &html)?;
    if let Some(p) = session.html.as_ref().filter(|p| p.as_os_str() != "-") {
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
fn join_ranks(shared: bool) -> CliResult<runner::Team> {
    let dist = fsbench_cluster::Cluster::init(&|k| std::env::var(k).ok())
        .map_err(|e| CliError::usage(e.to_string()))?;
    let team = runner::Team {
        cluster: dist,
        shared,
        clock: runner::ClockChoice::Real,
        cleanup: crate::signals::cleanup().clone(),
        live: Default::default(),
    };
    if team.parallel() && !team.root() {
        crate::out::silence();
    }
    Ok(team)
}
