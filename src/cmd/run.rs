//! `fsbench run`: validate the plan, record the environment and fsbench's own overhead, execute,
//! print the tables, write JSON after every sample, and choose the exit code.

use crate::cli::RunArgs;
use crate::error::{CliError, CliResult};
use crate::outfile::OutputKind;
use crate::runner::{self, Sink};
use fsbench_model::{ResultEntry, RunInfo, RunRecord, SCHEMA_VERSION};
use fsbench_workload::CancelToken;
use std::io::IsTerminal;
use std::path::PathBuf;

struct RunSink {
    record: RunRecord,
    json: Option<(PathBuf, OutputKind)>,
    quiet: bool,
    json_error: Option<String>,
}

impl Sink for RunSink {
    fn progress(&mut self, line: &str) {
        if !self.quiet {
            crate::errln!("{}", crate::escape_controls(line));
        }
    }

    fn results(&mut self, results: &[ResultEntry]) {
        self.record.results = results.to_vec();
        self.save(false);
    }
}

impl RunSink {
    /// Rewrites the JSON file; a device or FIFO gets the document once, at the end (`last`).
    fn save(&mut self, last: bool) {
        if let Some((path, kind)) = &self.json {
            if *kind == OutputKind::Stream && !last {
                return;
            }
            if !last {
                let mut words = self.record.clone();
                words.run.status = "interrupted".into();
                let target = path.clone();
                crate::signals::set_last_words(Box::new(move || {
                    let text = fsbench_report::json::render(&words);
                    let _ = crate::outfile::write(&target, text.as_bytes());
                }));
            }
            let text = fsbench_report::json::render(&self.record);
            if let Err(e) = crate::outfile::write(path, text.as_bytes()) {
                self.json_error = Some(format!(
                    "cannot write --json file ({}): {e} — check the path",
                    path.display()
                ));
            }
        }
    }
}

/// Runs the plan described by `args`.
pub fn run(args: RunArgs) -> CliResult<i32> {
    let lab = crate::lab::request(&args)?;
    let mut plan = crate::plan::from_args(&args)?;
    if !(args.confidence > 0.0 && args.confidence < 100.0) {
        return Err(CliError::usage(format!(
            "invalid --confidence {} — give a percentage between 0 and 100, e.g. 95",
            args.confidence
        )));
    }
    let json = match &args.json {
        Some(p) => Some((
            p.clone(),
            crate::outfile::check(p, "--json").map_err(CliError::usage)?,
        )),
        None => None,
    };
    let cancel = CancelToken::new();
    crate::signals::install(cancel.clone())
        .map_err(|e| CliError::run(format!("cannot install signal handlers: {e}")))?;
    // Built after every input check; torn down when `lab` drops, on every path out of here.
    let lab = crate::lab::build(lab, &mut plan.targets)?;
    let mut record = new_record(&plan);
    lab.annotate(&mut record.environment.targets);
    let mut sink = RunSink {
        record,
        json,
        quiet: args.quiet,
        json_error: None,
    };
    sink.save(false);
    if let Some(e) = sink.json_error.take() {
        return Err(CliError::usage(e));
    }
    let outcome = runner::execute(&plan, &sink.record.run.id.clone(), &cancel, &mut sink)?;
    sink.record.results = outcome.results;
    sink.record.run.status = if outcome.interrupted || crate::signals::interrupted() {
        "interrupted".into()
    } else if outcome.failures.is_empty() {
        "ok".into()
    } else {
        "failed".into()
    };
    attach_stack_warnings(&mut sink.record);
    crate::sweeps::attach(&mut sink.record);
    crate::compare::attach(&mut sink.record, args.confidence);
    sink.save(true);
    let printed = print_report(&sink.record, args.plot);
    if let Some(e) = sink.json_error {
        return Err(CliError::run(e));
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
    printed.map(|()| 0)
}

/// What the storage stack under each target means for its cold cells (a loop device without
/// direct I/O, tmpfs, FUSE, a network filesystem), added to those cells' warnings.
fn attach_stack_warnings(record: &mut RunRecord) {
    for entry in &mut record.results {
        if entry.cache.state != "cold" {
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
            let line = w.to_string();
            if !entry.warnings.contains(&line) {
                entry.warnings.push(line);
            }
        }
    }
}

fn new_record(plan: &crate::plan::Plan) -> RunRecord {
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
            argv: std::env::args().collect(),
            status: "running".into(),
        },
        environment,
        overhead: crate::overhead::measure(),
        results: Vec::new(),
        comparisons: Vec::new(),
        scaling: Vec::new(),
    }
}

fn print_report(record: &RunRecord, plot: bool) -> CliResult<()> {
    let width = if std::io::stdout().is_terminal() {
        rustix::termios::tcgetwinsize(std::io::stdout())
            .ok()
            .map(|w| w.ws_col)
            .filter(|&c| c > 0)
    } else {
        None
    };
    let mut text = String::new();
    fsbench_report::terminal::render(
        record,
        fsbench_report::terminal::TerminalOptions { width, plot },
        &mut text,
    );
    crate::out::stdout(&text)
}
