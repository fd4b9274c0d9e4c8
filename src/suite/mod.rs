//! Suites: named plans in TOML (`fsbench run --suite NAME|FILE`, `fsbench suite list|show`).
//! A suite is read ([`file`]), its workloads validated with the same `expand_sweep` and
//! `parse_workload` as `--workload` (every error pointing into the file), scaled ([`scale`]), and
//! applied to the run's arguments: the command line's `--target`, `--lab` and `--scale` win over
//! the suite's, and so does any other flag given a value other than its default. After the run a
//! suite chooses its comparisons and may add a report in its seed's layout ([`tables`]) or a
//! plain-language summary ([`summary`]).

pub mod builtin;
pub mod file;
pub mod scale;
pub mod summary;
pub mod tables;

use crate::cli::RunArgs;
use crate::error::{CliError, CliResult};
use file::{Source, Suite, WorkloadSpec};
use fsbench_model::RunRecord;
use std::collections::BTreeMap;

/// The suite `fsbench run` runs without `--workload` or `--suite`.
pub const DEFAULT_SUITE: &str = "quick";

/// Reads and validates the suite named by `arg`: a built-in name, or a TOML file.
pub fn load(arg: &str) -> CliResult<Suite> {
    let mut suite = match builtin::text(arg) {
        Some(text) => file::parse(&format!("builtin:{arg}"), text)?,
        None => file::parse(arg, &read(arg)?)?,
    };
    substitute_cores(&mut suite.workloads);
    validate(&suite)?;
    Ok(suite)
}

fn read(arg: &str) -> CliResult<String> {
    let path = std::path::Path::new(arg);
    if !path.exists() && !arg.contains('/') && !arg.ends_with(".toml") {
        let names = builtin::names();
        return Err(CliError::usage(format!(
            "unknown suite '{}' — {} ('fsbench suite list' lists them), or give a TOML file",
            crate::escape_controls(arg),
            file::hint(arg, &names)
        )));
    }
    std::fs::read_to_string(path).map_err(|e| {
        CliError::usage(format!(
            "cannot read suite file {arg}: {e} — check the path"
        ))
    })
}

/// Replaces the value `cores` of `workers`/`threads` by the number of CPUs, dropping a value
/// that is then given twice (`[1, 2, "cores"]` on 2 CPUs is `[1, 2]`).
fn substitute_cores(workloads: &mut [WorkloadSpec]) {
    let cpus = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .to_string();
    for p in workloads.iter_mut().flat_map(|w| w.params.iter_mut()) {
        if !matches!(p.key.as_str(), "workers" | "threads") {
            continue;
        }
        let mut seen: Vec<String> = Vec::new();
        p.values.retain_mut(|(v, _)| {
            if v == "cores" {
                *v = cpus.clone();
            }
            let fresh = !seen.contains(v);
            seen.push(v.clone());
            fresh
        });
    }
}

/// Checks everything that can be checked without running: workloads and their parameters,
/// target labels, lab kinds, the baseline.
pub fn validate(s: &Suite) -> CliResult<()> {
    let src = Source {
        file: &s.file,
        text: &s.text,
    };
    if s.workloads.is_empty() {
        return Err(src.err(
            0..0,
            "the suite has no [[workload]] — add one, e.g. [[workload]] name = \"seq-read\"",
        ));
    }
    for w in &s.workloads {
        check_workload(&src, w)?;
    }
    for k in &s.lab {
        if crate::lab::find(k).is_none() {
            return Err(src.err(
                0..0,
                format!(
                    "unknown lab kind '{k}' in lab — {}",
                    file::hint(k, &lab_kinds())
                ),
            ));
        }
    }
    let labels: Vec<&str> = s
        .targets
        .iter()
        .map(|t| t.label.as_str())
        .chain(s.lab.iter().map(String::as_str))
        .collect();
    if let Some(b) = &s.baseline {
        if !labels.is_empty() && !labels.contains(&b.as_str()) {
            return Err(src.err_at(
                s.baseline_pos,
                format!(
                    "baseline '{b}' is not a target of the suite — {}",
                    file::hint(b, &labels)
                ),
            ));
        }
    }
    Ok(())
}

fn lab_kinds() -> Vec<&'static str> {
    crate::lab::KINDS.iter().map(|k| k.name).collect()
}

/// One workload: known name, known keys, every value accepted, every combination valid.
fn check_workload(src: &Source, w: &WorkloadSpec) -> CliResult<()> {
    let info = fsbench_workload::find(&w.name).ok_or_else(|| {
        let hint = match fsbench_workload::suggest(&w.name) {
            Some(s) => format!("did you mean '{s}'?"),
            None => "'fsbench workloads' lists them".to_string(),
        };
        src.err_at(
            w.name_pos,
            format!("unknown workload '{}' — {hint}", w.name),
        )
    })?;
    let keys: Vec<&str> = info.params.iter().map(|d| d.key).collect();
    for p in &w.params {
        if !keys.contains(&p.key.as_str()) {
            return Err(src.err_at(
                p.key_pos,
                format!(
                    "unknown parameter '{}' for workload '{}' — {}",
                    p.key,
                    w.name,
                    file::hint(&p.key, &keys)
                ),
            ));
        }
    }
    let first: BTreeMap<String, String> = w
        .params
        .iter()
        .map(|p| (p.key.clone(), p.values[0].0.clone()))
        .collect();
    for p in &w.params {
        for (value, pos) in &p.values {
            let mut raw = first.clone();
            raw.insert(p.key.clone(), value.clone());
            if let Err(e) = fsbench_workload::build(info, fsbench_workload::Params::new(raw)) {
                let (at, bad) = match w.params.iter().find(|q| q.key == e.key) {
                    _ if e.key == p.key => (*pos, value.as_str()),
                    Some(q) => (q.values[0].1, q.values[0].0.as_str()),
                    None => (w.name_pos, ""),
                };
                return Err(src.err_at(
                    at,
                    format!(
                        "bad {e} (workload '{}') — {}",
                        w.name,
                        value_hint(&e, bad, &w.name)
                    ),
                ));
            }
        }
    }
    crate::plan::expand_sweep(&spec(w))
        .map(|_| ())
        .map_err(|e| src.err_at(w.name_pos, e.message))
}

/// "did you mean" for a value that should be one of a list, else where to look.
fn value_hint(e: &fsbench_workload::ParamError, value: &str, workload: &str) -> String {
    let choices: Option<Vec<&str>> = e
        .message
        .split("use one of ")
        .nth(1)
        .map(|l| l.split(", ").collect());
    match choices.map(|c| file::hint(value, &c)) {
        Some(h) if h.starts_with("did you mean") => h,
        _ => format!("'fsbench workloads {workload}' lists its parameters"),
    }
}

/// The `--workload` text of `w`: `NAME:key=value,key=a,b` (a list sweeps), values quoted where
/// they hold a comma, quote, `=` or space.
pub fn spec(w: &WorkloadSpec) -> String {
    let params: Vec<String> = w
        .params
        .iter()
        .map(|p| {
            let command = matches!(p.key.as_str(), "run" | "prepare");
            let values: Vec<String> = p.values.iter().map(|(v, _)| quote(v, command)).collect();
            format!("{}={}", p.key, values.join(","))
        })
        .collect();
    match params.is_empty() {
        true => w.name.clone(),
        false => format!("{}:{}", w.name, params.join(",")),
    }
}

fn quote(v: &str, always: bool) -> String {
    let plain = !v.is_empty() && !v.contains([',', '\'', '"', '=', ' ']);
    match (plain && !always, v.contains('\'')) {
        (true, _) => v.to_string(),
        (false, false) => format!("'{v}'"),
        (false, true) => format!("\"{v}\""),
    }
}

/// The suite of this run, applied to `args`: `--suite`, or `quick` when neither `--suite` nor
/// `--workload` is given; `None` for a plain `--workload` run.
pub fn resolve(args: &mut RunArgs) -> CliResult<Option<Suite>> {
    let name = match (&args.suite, args.workloads.is_empty()) {
        (Some(_), false) => {
            return Err(CliError::usage(
                "--suite and --workload cannot be combined — put the workload in the suite file, or drop --suite",
            ));
        }
        (Some(n), true) => n.clone(),
        (None, true) => DEFAULT_SUITE.to_string(),
        (None, false) if args.scale.is_some() => {
            return Err(CliError::usage(
                "--scale applies to suites — use it with --suite NAME (or alone for the default suite), or set sizes in --workload",
            ));
        }
        (None, false) => return Ok(None),
    };
    let mut suite = load(&name)?;
    let factor = args.scale.or(suite.scale).unwrap_or(1.0);
    if !(factor > 0.0 && factor <= 1.0) {
        return Err(CliError::usage(format!(
            "invalid --scale {factor} — give a factor above 0 and at most 1, e.g. 0.1"
        )));
    }
    scale::apply(&mut suite.workloads, factor);
    validate(&suite)?;
    args.suite = Some(suite.name.clone());
    apply(&suite, args);
    Ok(Some(suite))
}

/// Fills `args` from the suite where the command line left a flag at its default.
fn apply(s: &Suite, args: &mut RunArgs) {
    let d = defaults();
    args.workloads = s.workloads.iter().map(spec).collect();
    if args.targets.is_empty() && args.lab.is_empty() {
        args.targets = s
            .targets
            .iter()
            .map(|t| format!("{}={}", t.label, t.dir))
            .collect();
        args.lab = s.lab.clone();
    }
    if !args.lab.is_empty() && args.lab_size.is_none() {
        args.lab_size = s.lab_size.clone();
    }
    args.cache = args.cache.or(s.cache.as_deref().and_then(cache_arg));
    set_if_default(&mut args.runs, &d.runs, s.runs.clone());
    set_if_default(&mut args.precision, &d.precision, s.precision);
    set_if_default(&mut args.min_runs, &d.min_runs, s.min_runs);
    set_if_default(&mut args.max_runs, &d.max_runs, s.max_runs);
    set_if_default(&mut args.confidence, &d.confidence, s.confidence);
    args.max_time = args.max_time.take().or(s.max_time.clone());
    args.warmup = args.warmup.or(s.warmup);
    if s.order.as_deref() == Some("sequential") {
        args.order = crate::cli::OrderArg::Sequential;
    }
    args.plot |= s.plot.unwrap_or(false);
    let path = |p: &Option<String>| p.as_ref().map(std::path::PathBuf::from);
    let e = &mut args.export;
    e.export_json = e.export_json.take().or(path(&s.export_json));
    e.export_csv = e.export_csv.take().or(path(&s.export_csv));
    e.export_markdown = e.export_markdown.take().or(path(&s.export_markdown));
}

fn set_if_default<T: PartialEq>(field: &mut T, default: &T, suite: Option<T>) {
    if let Some(v) = suite.filter(|_| field == default) {
        *field = v;
    }
}

fn cache_arg(s: &str) -> Option<crate::cli::CacheArg> {
    use crate::cli::CacheArg;
    match s {
        "cold" => Some(CacheArg::Cold),
        "warm" => Some(CacheArg::Warm),
        "both" => Some(CacheArg::Both),
        _ => None,
    }
}

/// `fsbench run`'s arguments with every flag at its default.
fn defaults() -> RunArgs {
    use clap::Parser;
    match crate::cli::Cli::try_parse_from(["fsbench", "run"]) {
        Ok(crate::cli::Cli {
            command: crate::cli::Command::Run(a),
        }) => a,
        _ => unreachable!("invariant: `fsbench run` parses"),
    }
}

/// Puts the suite's baseline target first (the first target is the one others are compared
/// with); a baseline the command line's targets do not have is ignored with a note.
pub fn order_targets(s: &Suite, targets: &mut [crate::plan::PlanTarget]) {
    let Some(b) = &s.baseline else { return };
    match targets.iter().position(|t| &t.label == b) {
        Some(i) => targets[..=i].rotate_right(1),
        None => crate::errln!(
            "note: suite baseline '{b}' is not among the targets; the first target is the baseline"
        ),
    }
}

/// The suite's comparisons: `targets` (each target against the baseline), `cache` (warm against
/// cold on each target), `both`, or `none`; default: what `fsbench run` does.
pub fn compare(s: &Suite, record: &mut RunRecord, confidence: f64) {
    let Some(policy) = s.compare.as_deref() else {
        return;
    };
    let mut out = Vec::new();
    if matches!(policy, "targets" | "both") {
        let first = record
            .results
            .first()
            .map(|r| r.target.clone())
            .unwrap_or_default();
        for o in record.results.iter().filter(|r| r.target != first) {
            let base = record
                .results
                .iter()
                .find(|b| b.target == first && b.cache.state == o.cache.state && same(b, o));
            out.extend(base.and_then(|b| crate::compare::one(b, o, confidence)));
        }
    }
    if matches!(policy, "cache" | "both") {
        for o in record.results.iter().filter(|r| r.cache.state == "warm") {
            let base = record
                .results
                .iter()
                .find(|b| b.target == o.target && b.cache.state == "cold" && same(b, o));
            out.extend(base.and_then(|b| crate::compare::one(b, o, confidence)));
        }
    }
    record.comparisons = out;
}

fn same(a: &fsbench_model::ResultEntry, b: &fsbench_model::ResultEntry) -> bool {
    a.workload == b.workload && a.params == b.params && a.sweep == b.sweep
}

/// The suite's own report after the standard tables: its seed's layout, or the summary.
pub fn report(s: &Suite, record: &RunRecord) -> String {
    match s.report.as_deref() {
        Some("summary") => summary::render(record),
        Some("times") => tables::times(record),
        Some("overhead") => tables::overhead(record),
        _ => String::new(),
    }
}
