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

use crate::lab::EntryError;
use crate::run_spec::{CacheChoice, Order, RunSpec, TargetSpec, WorkloadRequest};
use file::{ParamSpec, Source, Suite, WorkloadSpec};
use fsbench_model::text::escape_controls;
use fsbench_model::{EngineResult, Failure, LabEntry, LabKind};
use std::collections::BTreeMap;

/// The suite `fsbench run` runs without `--workload` or `--suite`.
pub use fsbench_model::DEFAULT_SUITE;

/// Reads and validates the suite named by `arg`: a built-in name, or a TOML file.
pub fn load(arg: &str) -> EngineResult<Suite> {
    let mut suite = match builtin::described(arg) {
        Some(parsed) => parsed?,
        None => {
            let mut suite = file::parse(arg, &read(arg)?)?;
            beside_the_file(&mut suite.workloads, std::path::Path::new(arg));
            suite
        }
    };
    substitute_cores(&mut suite.workloads);
    validate(&suite)?;
    Ok(suite)
}

/// Parameters that name a file the suite ships with (a replay's `trace`: `ParamKind::File`),
/// resolved beside the suite file when relative: `trace = "git-status.fsbtrace"` in
/// `study/suite.toml` is `study/git-status.fsbtrace`, wherever fsbench runs from.
fn beside_the_file(workloads: &mut [WorkloadSpec], suite_file: &std::path::Path) {
    let dir = suite_file.parent().unwrap_or(std::path::Path::new(""));
    for w in workloads.iter_mut() {
        let is_file = |key: &str| {
            fsbench_workload::find(&w.name).is_some_and(|i| {
                i.params
                    .iter()
                    .any(|d| d.kind == fsbench_workload::ParamKind::File && d.key == key)
            })
        };
        for p in w.params.iter_mut().filter(|p| is_file(&p.key)) {
            for (v, _) in p.values.iter_mut() {
                if !v.is_empty() && std::path::Path::new(v.as_str()).is_relative() {
                    *v = dir.join(v.as_str()).to_string_lossy().into_owned();
                }
            }
        }
    }
}

fn read(arg: &str) -> EngineResult<String> {
    let path = std::path::Path::new(arg);
    if !path.exists() && !arg.contains('/') && !arg.ends_with(".toml") {
        let names = builtin::names();
        return Err(Failure::input(format!(
            "unknown suite '{}' — {} ('fsbench suite list' lists them), or give a TOML file",
            escape_controls(arg),
            file::hint(arg, &names)
        )));
    }
    let bytes = fsbench_sys::infile::read_regular(path, MAX_SUITE_BYTES).map_err(|e| {
        Failure::input(format!(
            "cannot read suite file {}: {e} — give a TOML file of at most 1 MiB",
            escape_controls(arg)
        ))
    })?;
    String::from_utf8(bytes).map_err(|_| {
        Failure::input(format!(
            "suite file {} is not UTF-8 text — give a TOML file",
            escape_controls(arg)
        ))
    })
}

/// Largest suite file read (the built-in ones are a few KiB).
pub const MAX_SUITE_BYTES: u64 = 1 << 20;

/// Replaces the value `cores` of `workers`/`threads` by the number of CPUs, dropping a value
/// that is then given twice (`[1, 2, "cores"]` on 2 CPUs is `[1, 2]`).
fn substitute_cores(workloads: &mut [WorkloadSpec]) {
    let cpus = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .to_string();
    for w in workloads.iter_mut() {
        let counts_workers = |key: &str| {
            fsbench_workload::find(&w.name).is_some_and(|i| {
                i.params
                    .iter()
                    .any(|d| d.kind == fsbench_workload::ParamKind::Workers && d.key == key)
            })
        };
        for p in w.params.iter_mut().filter(|p| counts_workers(&p.key)) {
            substitute_in(p, &cpus);
        }
    }
}

/// `cores` replaced by `cpus` in one parameter's values, a value then given twice dropped.
fn substitute_in(p: &mut ParamSpec, cpus: &str) {
    let mut seen: Vec<String> = Vec::new();
    p.values.retain_mut(|(v, _)| {
        if v == "cores" {
            *v = cpus.to_string();
        }
        let fresh = !seen.contains(v);
        seen.push(v.clone());
        fresh
    });
}

/// Checks everything that can be checked without running: workloads and their parameters,
/// target labels, lab kinds, the baseline.
pub fn validate(s: &Suite) -> EngineResult<()> {
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
    check_lab_size(&src, s)?;
    let lab = lab_entries(&src, s)?;
    let labels: Vec<&str> = s
        .targets
        .iter()
        .map(|t| t.label.as_str())
        .chain(lab.iter().map(|e| e.label.as_str()))
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

/// The suite's `lab` entries (`"ext4"`, `"ext4:aged:fill=80,churn=3"`), parsed as `--lab`'s.
fn lab_entries(src: &Source, s: &Suite) -> EngineResult<Vec<LabEntry>> {
    crate::lab::parse_all(&s.lab).map_err(|e| {
        let name = s
            .lab
            .iter()
            .find(|k| LabKind::parse(k).is_none() && !k.contains(':'));
        match name {
            Some(k) if matches!(e, EntryError::UnknownKind(_)) => src.err_at(
                s.lab_pos,
                format!(
                    "unknown lab kind '{k}' in lab — {}",
                    file::hint(k, &lab_kinds())
                ),
            ),
            _ => src.err_at(s.lab_pos, format!("in lab: {e}")),
        }
    })
}

fn lab_kinds() -> Vec<&'static str> {
    LabKind::ALL.iter().map(LabKind::name).collect()
}

/// One workload: known name, known keys, every value accepted, every combination valid.
fn check_workload(src: &Source, w: &WorkloadSpec) -> EngineResult<()> {
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
        if !keys.contains(&p.key.as_str()) && p.key != fsbench_workload::LABEL {
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
    crate::plan::expand(&request(w))
        .map(|_| ())
        .map_err(|e| src.err_at(w.name_pos, e.message))
}

/// The worker cap of `--workload` (8 per CPU, at least 64), pointing at the value in the file.
fn check_worker_cap(src: &Source, w: &WorkloadSpec) -> EngineResult<()> {
    let cap = crate::plan::max_workers();
    let Some(info) = fsbench_workload::find(&w.name) else {
        return Ok(());
    };
    let counts_workers = |key: &str| {
        info.params
            .iter()
            .any(|d| d.kind == fsbench_workload::ParamKind::Workers && d.key == key)
    };
    for p in w.params.iter().filter(|p| counts_workers(&p.key)) {
        for (v, pos) in &p.values {
            if v.parse::<u64>().is_ok_and(|n| n > cap) {
                return Err(src.err_at(
                    *pos,
                    format!(
                        "{}={v} for '{}' is more than {cap} (8 per CPU, at least 64) — use fewer, or pass --force",
                        p.key, w.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `lab_size`: a size, at least what every lab kind of the suite needs, pointing into the file.
fn check_lab_size(src: &Source, s: &Suite) -> EngineResult<()> {
    let Some(text) = &s.lab_size else {
        return Ok(());
    };
    use fsbench_model::units::{format_size, parse_size};
    let size = parse_size(text).ok().filter(|&n| n > 0).ok_or_else(|| {
        src.err_at(
            s.lab_size_pos,
            format!("invalid lab_size '{text}' — give a size such as 512m or 2g (4k = 4096)"),
        )
    })?;
    let kinds = crate::lab::parse_all(&s.lab).unwrap_or_default();
    for k in kinds.iter().map(|e| &e.kind) {
        if size < k.min_bytes() {
            let min = format_size(k.min_bytes());
            return Err(src.err_at(
                s.lab_size_pos,
                format!(
                    "lab_size {} is too small for {} (it needs at least {min}) — give lab_size = \"{min}\" or more",
                    format_size(size),
                    k
                ),
            ));
        }
    }
    Ok(())
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
            let command = crate::run_spec::takes_command(&w.name, &p.key);
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

/// The workload request of `w`, structured as the file gave it (no text round trip).
pub fn request(w: &WorkloadSpec) -> WorkloadRequest {
    WorkloadRequest {
        name: w.name.clone(),
        params: w
            .params
            .iter()
            .map(|p| {
                (
                    p.key.clone(),
                    p.values.iter().map(|(v, _)| v.clone()).collect(),
                )
            })
            .collect(),
        origin: format!("workload {}", spec(w)),
    }
}

/// The suite of this run, applied to `args`: `--suite`, or `quick` when neither `--suite` nor
/// `--workload` is given; `None` for a plain `--workload` run.
pub fn resolve(args: &mut RunSpec) -> EngineResult<Option<Suite>> {
    let name = match (&args.suite, args.workloads.is_empty()) {
        (Some(_), false) => {
            return Err(Failure::input(
                "--suite and --workload cannot be combined — put the workload in the suite file, or drop --suite",
            ));
        }
        (Some(n), true) => n.clone(),
        (None, true) => DEFAULT_SUITE.to_string(),
        (None, false) if args.scale.is_some() => {
            return Err(Failure::input(
                "--scale applies to suites — use it with --suite NAME (or alone for the default suite), or set sizes in --workload",
            ));
        }
        (None, false) => return Ok(None),
    };
    let mut suite = load(&name)?;
    let factor = args.scale.or(suite.scale).unwrap_or(1.0);
    if !(factor > 0.0 && factor <= 1.0) {
        return Err(Failure::input(format!(
            "invalid --scale {factor} — give a factor above 0 and at most 1, e.g. 0.1"
        )));
    }
    scale::apply(&mut suite.workloads, factor);
    validate(&suite)?;
    if !args.force {
        let src = Source {
            file: &suite.file,
            text: &suite.text,
        };
        for w in &suite.workloads {
            check_worker_cap(&src, w)?;
        }
    }
    args.suite = Some(suite.name.clone());
    apply(&suite, args);
    Ok(Some(suite))
}

/// Fills `args` from the suite where the command line did not give a value.
fn apply(s: &Suite, args: &mut RunSpec) {
    args.workloads = s.workloads.iter().map(request).collect();
    if args.targets.is_empty() && args.lab.kinds.is_empty() {
        args.targets = s
            .targets
            .iter()
            .map(|t| TargetSpec {
                label: Some(t.label.clone()),
                dir: std::path::PathBuf::from(&t.dir),
            })
            .collect();
        args.lab.kinds = s.lab.clone();
    }
    if !args.lab.kinds.is_empty() && args.lab.size.is_none() {
        args.lab.size = s.lab_size.clone();
    }
    args.cache = args
        .cache
        .or(s.cache.as_deref().and_then(CacheChoice::parse));
    args.runs = args.runs.take().or(s.runs.clone());
    args.precision = args.precision.or(s.precision);
    args.min_runs = args.min_runs.or(s.min_runs);
    args.max_runs = args.max_runs.or(s.max_runs);
    args.confidence = args.confidence.or(s.confidence);
    args.max_time = args.max_time.take().or(s.max_time);
    args.warmup = args.warmup.or(s.warmup);
    if args.order.is_none() {
        args.order = match s.order.as_deref() {
            Some("sequential") => Some(Order::Sequential),
            Some("interleaved") => Some(Order::Interleaved),
            Some("workloads") => Some(Order::Workloads),
            _ => None,
        };
    }
    args.plot |= s.plot.unwrap_or(false);
    args.profile |= s.profile.unwrap_or(false);
    let path = |p: &Option<String>| p.as_ref().map(std::path::PathBuf::from);
    args.export_json = args.export_json.take().or(path(&s.export_json));
    args.export_csv = args.export_csv.take().or(path(&s.export_csv));
    args.export_markdown = args.export_markdown.take().or(path(&s.export_markdown));
    args.export_csv_series = args.export_csv_series.take().or(path(&s.export_csv_series));
}

/// Puts the suite's baseline target first (the first target is the one others are compared
/// with); a baseline the command line's targets do not have is ignored, and the note to show is
/// returned.
pub fn order_targets(s: &Suite, targets: &mut [crate::plan::PlanTarget]) -> Option<String> {
    let b = s.baseline.as_ref()?;
    match targets.iter().position(|t| &t.label == b) {
        Some(i) => {
            targets[..=i].rotate_right(1);
            None
        }
        None => Some(format!(
            "note: suite baseline '{b}' is not among the targets; the first target is the baseline"
        )),
    }
}
