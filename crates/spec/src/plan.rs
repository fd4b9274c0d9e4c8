//! From a [`RunSpec`] to a validated plan: targets × workloads × cache states with a
//! repetition policy. Every input error is found here, before anything is written.

use crate::cold::ColdMethod;
use crate::run_spec::{self, CacheChoice, Order, RunSpec, TargetSpec, WorkloadRequest};
use fsbench_model::text::escape_controls;
use fsbench_model::{EngineResult, Failure};
use fsbench_workload::{Params, WorkloadInfo};
use std::collections::BTreeMap;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

pub use fsbench_model::CacheState;

/// What a target is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetKind {
    /// A directory: workloads run in a scratch directory inside it.
    Dir,
    /// A block device: read workloads read it; writes only when explicitly allowed.
    Device {
        /// Size in bytes.
        size: u64,
        /// `--allow-destroy` named this device and it is not in use.
        writable: bool,
    },
}

/// One target of the plan.
#[derive(Debug, Clone)]
pub struct PlanTarget {
    /// Label in results.
    pub label: String,
    /// Canonical path.
    pub path: PathBuf,
    /// Directory or device.
    pub kind: TargetKind,
}

/// One workload of the plan (built anew for each target).
#[derive(Debug, Clone)]
pub struct PlanWorkload {
    /// Registry entry.
    pub info: &'static WorkloadInfo,
    /// Raw parameters as given.
    pub raw: BTreeMap<String, String>,
    /// Canonical parameters, defaults included.
    pub params: BTreeMap<String, String>,
    /// Parameters swept by a list value, with this variant's value.
    pub sweep: BTreeMap<String, String>,
    /// Its fixed facts (headline, capabilities, needs), from the one build that validated it.
    pub caps: fsbench_workload::Caps,
    /// The files and directories its parameters name that it only reads (no output may
    /// replace them).
    pub inputs: Vec<fsbench_workload::Input>,
    /// Measured warm only: a suite asked for cold, which this workload cannot be made here.
    pub warm_only: bool,
    /// `until=steady`: sampled until steady state instead of the plan's `runs`.
    pub until_steady: bool,
    /// Its own number of samples, instead of the plan's (the `--precondition` fill's passes).
    pub runs: Option<Runs>,
}

/// How many samples a cell takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Runs {
    /// Exactly this many.
    Fixed(u32),
    /// Until the CI95 half-width is within `precision` of the mean.
    Auto {
        /// Relative precision (0.05 = 5%).
        precision: f64,
        /// At least this many.
        min: u32,
        /// At most this many.
        max: u32,
        /// Stop a cell after this much sampling time, ns.
        max_time_ns: Option<u64>,
    },
    /// Until the SNIA steady-state criteria hold over the last `window` samples (`until=steady`,
    /// `--until-steady`).
    Steady {
        /// Samples in the judged window (5).
        window: u32,
        /// At most this many samples.
        max: u32,
        /// Stop a cell after this much sampling time, ns.
        max_time_ns: Option<u64>,
    },
}

/// A validated plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Targets in order (the first is the baseline).
    pub targets: Vec<PlanTarget>,
    /// Workloads in order.
    pub workloads: Vec<PlanWorkload>,
    /// Cache states in order (cold first).
    pub caches: Vec<CacheState>,
    /// Cold method, when a cold state is planned.
    pub cold: Option<ColdMethod>,
    /// Repetition policy.
    pub runs: Runs,
    /// Unrecorded samples before the measured ones; `None` = default (1 for warm, 0 for cold).
    pub warmup: Option<u32>,
    /// Interleave targets round by round.
    pub interleave: bool,
    /// Interleave the workloads too (every workload prepared at once, `--order workloads`).
    pub interleave_workloads: bool,
    /// `--interval`: of each sample's time series, ns; `None` for the recorder's default.
    pub interval_ns: Option<u64>,
    /// The policy of `until=steady` workloads (and of all with `--until-steady`).
    pub steady: Runs,
    /// `--background`: the workload that runs beside every measured sample, and its spec as
    /// given (recorded in each result's parameters).
    pub background: Option<(PlanWorkload, String)>,
    /// `--profile`: record the kernel's evidence for every sample.
    pub profile: bool,
    /// `--runs auto`: how comparisons decide, and stop their cells as soon as they have.
    pub sequential: Option<Sequential>,
    /// `--baseline` with `--runs auto`: the stored cells this run's cells sample against.
    pub against: Vec<Against>,
}

/// A stored cell of `--baseline` that this run's cell of the same target label, workload,
/// parameters, sweep and cache state samples against until their comparison is settled: the
/// gate's question with `--fail-if-slower`, else different or equivalent.
#[derive(Debug, Clone, PartialEq)]
pub struct Against {
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Resolved parameters.
    pub params: BTreeMap<String, String>,
    /// Swept parameters of the cell.
    pub sweep: BTreeMap<String, String>,
    /// Cache state.
    pub cache: CacheState,
    /// Its headline values, in sampling order.
    pub values: Vec<f64>,
    /// `--fail-if-slower PCT` as a change of the headline: −PCT for a rate, +PCT for a time.
    pub gate_pct: Option<f64>,
}

/// Sequential decisions of a `--runs auto` plan (`fsbench_stats::sequential`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sequential {
    /// Confidence, margin and the looks' schedule (`--min-runs` to `--max-runs`).
    pub plan: fsbench_stats::sequential::Plan,
    /// `--precision` was given: a compared cell also waits for its own interval to be narrow.
    pub precision_asked: bool,
}

impl Plan {
    /// Samples the plan takes in all, when the number per cell is fixed (`None` with
    /// `--runs auto` or a workload sampled until steady).
    pub fn planned_samples(&self) -> Option<u64> {
        match self.runs {
            Runs::Fixed(n) if self.workloads.iter().all(|w| !w.until_steady) => {
                let cells = self.targets.len() * self.workloads.len() * self.caches.len();
                Some(cells as u64 * u64::from(n))
            }
            _ => None,
        }
    }

    /// How many samples a cell of `w` takes.
    pub fn runs_for(&self, w: &PlanWorkload) -> Runs {
        if let Some(r) = w.runs {
            r
        } else if w.until_steady {
            self.steady
        } else {
            self.runs
        }
    }
}

/// Validates the specification into a plan.
pub fn build(args: &RunSpec) -> EngineResult<Plan> {
    // `--lab` alone measures only the targets it builds (`lab::build` appends them).
    let targets = match args.targets.is_empty() && !args.lab.kinds.is_empty() {
        true => Vec::new(),
        false => parse_targets(&args.targets, args.allow_destroy.as_deref())?,
    };
    // Without `--workload`, `suite::resolve` has filled in the suite's (`quick` by default).
    let mut workloads = Vec::new();
    for request in &args.workloads {
        match args.fix_comparable {
            true => workloads.extend(expand(&buffered(request))?),
            false => workloads.extend(expand(request)?),
        }
    }
    if !args.force {
        check_worker_counts(&workloads)?;
    }
    check_compatible(&targets, &workloads)?;
    if args.until_steady {
        workloads.iter_mut().for_each(|w| w.until_steady = true);
    }
    let cold_timeout = std::time::Duration::from_nanos(
        args.cold_timeout
            .unwrap_or(run_spec::DEFAULT_COLD_TIMEOUT_NS),
    );
    let caches = match args.cache.unwrap_or(CacheChoice::Both) {
        CacheChoice::Cold => vec![CacheState::Cold],
        CacheChoice::Warm => vec![CacheState::Warm],
        CacheChoice::Both => vec![CacheState::Cold, CacheState::Warm],
    };
    let cold = caches
        .contains(&CacheState::Cold)
        .then(|| ColdMethod::choose(args.cold_cmd.as_deref(), cold_timeout));
    if cold == Some(ColdMethod::Fadvise) {
        // A suite measures such workloads warm only, and its summary says why.
        if args.suite.is_some() && caches.contains(&CacheState::Warm) {
            workloads
                .iter_mut()
                .filter(|w| w.caps.cold_needs_global)
                .for_each(|w| w.warm_only = true);
        } else if let Some(w) = workloads.iter().find(|w| w.caps.cold_needs_global) {
            return Err(Failure::input(format!(
                "cannot make '{}' cold: it reads metadata (dentries, inodes) that only drop_caches drops — run as root, give --cold-cmd, or use --cache warm",
                w.info.name
            )));
        }
    }
    let steady = steady_policy(args, &workloads)?;
    let runs = parse_runs(args, workloads.iter().any(|w| w.until_steady))?;
    let background = background(args.background.as_deref(), &targets)?;
    let sequential = sequential(args, runs)?;
    Ok(Plan {
        targets,
        workloads,
        caches,
        cold,
        runs,
        warmup: args.warmup,
        interleave: args.order != Some(Order::Sequential),
        interleave_workloads: args.order == Some(Order::Workloads),
        interval_ns: args.interval,
        steady,
        background,
        profile: args.profile,
        sequential,
        against: Vec::new(),
    })
}

/// The sequential decisions of a `--runs auto` plan; `--margin` is refused without it.
fn sequential(args: &RunSpec, runs: Runs) -> EngineResult<Option<Sequential>> {
    let margin = args.margin.unwrap_or(run_spec::DEFAULT_MARGIN);
    if !(margin > 0.0 && margin < 100.0) {
        return Err(Failure::input(format!(
            "invalid --margin {margin} — give a percentage between 0 and 100, e.g. 3"
        )));
    }
    let Runs::Auto { min, max, .. } = runs else {
        if args.margin.is_some() {
            return Err(Failure::input(
                "--margin applies only to --runs auto (comparisons decided as samples arrive) — add --runs auto, or drop --margin",
            ));
        }
        return Ok(None);
    };
    Ok(Some(Sequential {
        plan: fsbench_stats::sequential::Plan::new(
            args.confidence() / 100.0,
            margin / 100.0,
            min as usize,
            max as usize,
        ),
        precision_asked: args.precision.is_some(),
    }))
}

/// `--background WORKLOAD`: one workload (no sweep) that runs in a directory target's scratch.
fn background(
    spec: Option<&str>,
    targets: &[PlanTarget],
) -> EngineResult<Option<(PlanWorkload, String)>> {
    let Some(spec) = spec else { return Ok(None) };
    let req =
        WorkloadRequest::parse(spec).map_err(|e| Failure::input(format!("--background: {e}")))?;
    if let Some((k, _)) = req.params.iter().find(|(_, v)| v.len() > 1) {
        return Err(Failure::input(format!(
            "--background '{spec}': '{k}' is a list — the background runs one workload; give one value"
        )));
    }
    let w = parse_workload(spec)?;
    if targets.iter().any(|t| !matches!(t.kind, TargetKind::Dir)) {
        return Err(Failure::input(
            "--background runs in a target's scratch directory; a block device target has none — measure a directory, or drop --background",
        ));
    }
    if w.info.name == "command" {
        return Err(Failure::input(
            "--background cannot run 'command' (its processes would outlive the sample) — give a data or tree workload",
        ));
    }
    Ok(Some((w, spec.trim().to_string())))
}

/// The repetition policy of the cells not sampled until steady. `steady`: some workload is
/// (`--until-steady`, or `until=steady` on it), and `--max-time` bounds its cells.
fn parse_runs(args: &RunSpec, steady: bool) -> EngineResult<Runs> {
    let runs = args.runs.as_deref().unwrap_or(run_spec::DEFAULT_RUNS);
    let precision = args.precision.unwrap_or(run_spec::DEFAULT_PRECISION);
    if runs != "auto" && args.max_time.is_some() && !steady {
        return Err(Failure::input(
            "--max-time applies only to --runs auto and to sampling until steady (--until-steady, or until=steady on a workload) — add one, or drop --max-time",
        ));
    }
    if runs == "auto" {
        let min = args.min_runs.unwrap_or(run_spec::DEFAULT_MIN_RUNS);
        let max = args.max_runs.unwrap_or(run_spec::DEFAULT_MAX_RUNS);
        if min < 2 || max < min {
            return Err(Failure::input(format!(
                "invalid --min-runs {min} / --max-runs {max} — need 2 <= min-runs <= max-runs"
            )));
        }
        if !(precision > 0.0 && precision < 100.0) {
            return Err(Failure::input(
                "invalid --precision — give a percentage between 0 and 100, e.g. 5",
            ));
        }
        let max_time_ns = args.max_time;
        return Ok(Runs::Auto {
            precision: precision / 100.0,
            min,
            max,
            max_time_ns,
        });
    }
    match runs.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(Runs::Fixed(n)),
        _ => Err(Failure::input(format!(
            "invalid --runs '{runs}' — give a number of samples (1 or more) or 'auto'"
        ))),
    }
}

/// Resolves the targets (default `.`).
fn parse_targets(
    specs: &[TargetSpec],
    allow_destroy: Option<&Path>,
) -> EngineResult<Vec<PlanTarget>> {
    let specs = if specs.is_empty() {
        vec![TargetSpec {
            label: None,
            dir: PathBuf::from("."),
        }]
    } else {
        specs.to_vec()
    };
    let mut out: Vec<PlanTarget> = Vec::new();
    for spec in &specs {
        // A label is shown on terminals: control characters become visible escapes.
        let label = escape_controls(&spec.label());
        let path = resolve_target(&spec.dir)?;
        check_writable_kind(&path)?;
        let kind = target_kind(&path, allow_destroy)?;
        if out.iter().any(|t| t.label == label) {
            return Err(Failure::input(format!(
                "target label '{label}' is used twice (--target) — give each target its own LABEL=DIR"
            )));
        }
        out.push(PlanTarget { label, path, kind });
    }
    Ok(out)
}

fn resolve_target(p: &Path) -> EngineResult<PathBuf> {
    let dir = p.display();
    let meta = std::fs::metadata(p).map_err(|e| {
        let why = fsbench_scratch::explain(&e, p, "cannot use target");
        Failure::input(why.message)
    })?;
    if !meta.is_dir() && !meta.file_type().is_block_device() {
        return Err(Failure::input(format!(
            "target is not a directory ({dir}) — give a directory on the filesystem to test, or a block device"
        )));
    }
    std::fs::canonicalize(p).map_err(|e| {
        Failure::input(format!(
            "cannot resolve target ({dir}): {e} — check the path"
        ))
    })
}

fn target_kind(path: &Path, allow_destroy: Option<&Path>) -> EngineResult<TargetKind> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Failure::input(format!("cannot stat {}: {e}", path.display())))?;
    if !meta.file_type().is_block_device() {
        return Ok(TargetKind::Dir);
    }
    let size = fsbench_envinfo::device_size(path).ok_or_else(|| {
        Failure::input(format!(
            "cannot open block device ({}) for reading — run as a user who may read it",
            path.display()
        ))
    })?;
    let named =
        allow_destroy.is_some_and(|a| std::fs::canonicalize(a).ok().as_deref() == Some(path));
    if named && fsbench_envinfo::device_in_use(path) {
        return Err(Failure::input(format!(
            "refusing --allow-destroy on a device in use ({}) — unmount it and its partitions first",
            path.display()
        )));
    }
    Ok(TargetKind::Device {
        size,
        writable: named,
    })
}

/// The most workers (threads or processes) one workload may start without `--force`.
pub fn max_workers() -> u64 {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    (8 * cpus).max(64)
}

/// Refuses worker counts that would exhaust threads or processes (`workers=100000`).
fn check_worker_counts(workloads: &[PlanWorkload]) -> EngineResult<()> {
    let cap = max_workers();
    for w in workloads {
        for key in w
            .info
            .params
            .iter()
            .filter(|d| d.kind == fsbench_workload::ParamKind::Workers)
            .map(|d| d.key)
        {
            let n = w.params.get(key).and_then(|v| v.parse::<u64>().ok());
            if let Some(n) = n.filter(|&n| n > cap) {
                return Err(Failure::input(format!(
                    "{key}={n} for '{}' is more than {cap} (8 per CPU, at least 64) — use fewer, or pass --force",
                    w.info.name
                )));
            }
        }
    }
    Ok(())
}

/// Refuses a target directory on a kernel interface (`/proc`, `/sys`...).
fn check_writable_kind(path: &Path) -> EngineResult<()> {
    if let Some(name) = fsbench_sys::fskind::kernel_interface(path) {
        return Err(Failure::input(format!(
            "target {} is on {name}, a kernel interface, not a filesystem fsbench can measure — give a directory on the filesystem to test",
            path.display()
        )));
    }
    Ok(())
}

/// Most variants one swept `--workload` may expand to.
const MAX_VARIANTS: usize = 1000;

/// Expands a workload request (a list value sweeps that parameter) into one workload per
/// combination, each validated.
pub fn expand(req: &WorkloadRequest) -> EngineResult<Vec<PlanWorkload>> {
    let origin = &req.origin;
    if let Some((k, _)) = req
        .params
        .iter()
        .enumerate()
        .find(|(i, (k, _))| req.params[..*i].iter().any(|(o, _)| o == k))
        .map(|(_, p)| p)
    {
        return Err(Failure::input(format!(
            "bad parameter '{k}': given twice; give each parameter once (a list is key=a,b,c) ({origin}) — 'fsbench workloads {}' lists its parameters",
            req.name
        )));
    }
    let variants = req
        .params
        .iter()
        .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))
        .filter(|&n| n <= MAX_VARIANTS);
    if variants.is_none() {
        return Err(Failure::input(format!(
            "{origin} expands to more than {MAX_VARIANTS} variants — sweep fewer values"
        )));
    }
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (k, values) in &req.params {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values
                    .iter()
                    .map(move |v| [c.clone(), vec![(k.clone(), v.clone())]].concat())
            })
            .collect();
    }
    let swept: Vec<&String> = req
        .params
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, _)| k)
        .collect();
    combos
        .into_iter()
        .map(|c| {
            let raw: BTreeMap<String, String> = c.iter().cloned().collect();
            let mut w = build_workload(&req.name, raw, origin)?;
            w.sweep = c.into_iter().filter(|(k, _)| swept.contains(&k)).collect();
            Ok(w)
        })
        .collect()
}

/// Expands `NAME:key=a,b,c,other=x` ([`WorkloadRequest::parse`], then [`expand`]).
pub fn expand_sweep(spec: &str) -> EngineResult<Vec<PlanWorkload>> {
    expand(&WorkloadRequest::parse(spec)?)
}

/// Parses `NAME[:key=value,...]` (no sweep) and builds the workload once to validate it.
pub fn parse_workload(spec: &str) -> EngineResult<PlanWorkload> {
    let req = WorkloadRequest::parse(spec)?;
    let raw = req
        .params
        .iter()
        .map(|(k, v)| (k.clone(), v.join(",")))
        .collect();
    build_workload(&req.name, raw, &req.origin)
}

/// Builds workload `name` with `raw` parameters once, to validate them and learn its facts.
fn build_workload(
    name: &str,
    raw: BTreeMap<String, String>,
    origin: &str,
) -> EngineResult<PlanWorkload> {
    let info = fsbench_workload::find(name).ok_or_else(|| {
        let hint = match fsbench_workload::suggest(name) {
            Some(s) => format!("did you mean '{s}'?"),
            None => "'fsbench workloads' lists them".to_string(),
        };
        Failure::input(format!("unknown workload '{name}' ({origin}) — {hint}"))
    })?;
    let bad = |e: fsbench_workload::ParamError| {
        Failure::input(format!(
            "bad {e} ({origin}) — 'fsbench workloads {name}' lists its parameters"
        ))
    };
    let mut raw = raw;
    let until = fsbench_workload::knobs::every::UNTIL;
    let until_steady = match raw.remove(until.key).as_deref() {
        None => false,
        Some(fsbench_workload::knobs::every::STEADY) => true,
        Some(other) => {
            return Err(Failure::input(format!(
                "bad parameter 'until={other}' ({origin}) — until= takes 'steady' (sample until the SNIA steady state holds)"
            )));
        }
    };
    let built = fsbench_workload::build(info, Params::new(raw.clone())).map_err(bad)?;
    Ok(PlanWorkload {
        info,
        raw,
        params: built.params,
        sweep: BTreeMap::new(),
        caps: built.caps,
        inputs: built.inputs,
        warm_only: false,
        until_steady,
        runs: None,
    })
}

/// The policy of `until=steady` cells: the SNIA window of 5, at most `--max-runs` (25 by
/// default) samples or `--max-time`.
fn steady_policy(args: &RunSpec, workloads: &[PlanWorkload]) -> EngineResult<Runs> {
    let window = fsbench_stats::steady::WINDOW as u32;
    if !args.until_steady && !workloads.iter().any(|w| w.until_steady) {
        // Unused (`--precondition` may still ask for it later): `--max-runs` is `auto`'s.
        return Ok(Runs::Steady {
            window,
            max: args.max_runs.unwrap_or(STEADY_MAX_RUNS).max(window),
            max_time_ns: None,
        });
    }
    let max = args.max_runs.unwrap_or(STEADY_MAX_RUNS);
    if max < window {
        return Err(Failure::input(format!(
            "invalid --max-runs {max} for steady state — the window alone is {window} samples"
        )));
    }
    Ok(Runs::Steady {
        window,
        max,
        max_time_ns: args.max_time,
    })
}

/// Most samples a cell sampled until steady takes by default.
pub const STEADY_MAX_RUNS: u32 = 25;

fn check_compatible(targets: &[PlanTarget], workloads: &[PlanWorkload]) -> EngineResult<()> {
    for t in targets {
        let TargetKind::Device { writable, .. } = t.kind else {
            continue;
        };
        for w in workloads {
            if !w.caps.supports_device {
                return Err(Failure::input(format!(
                    "workload '{}' cannot run on a block device ({}) — give a directory instead",
                    w.info.name,
                    t.path.display()
                )));
            }
            if w.caps.writes && !writable {
                return Err(Failure::input(format!(
                    "workload '{}' writes, and {} is a block device — pass --allow-destroy={} to destroy its data",
                    w.info.name,
                    t.path.display(),
                    t.path.display()
                )));
            }
        }
    }
    Ok(())
}

/// `request` with `direct=false` when its workload takes `direct` (`--fix-comparable`).
fn buffered(request: &WorkloadRequest) -> WorkloadRequest {
    let mut r = request.clone();
    let direct = fsbench_workload::knobs::io::DIRECT.key;
    let takes_direct = fsbench_workload::find(&r.name)
        .is_some_and(|info| info.params.iter().any(|p| p.key == direct));
    if takes_direct {
        r.params.retain(|(k, _)| k != direct);
        r.params.push((direct.into(), vec!["false".into()]));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_expand_to_sweeps() {
        let ws = expand_sweep("null:ops=1,2,4,sleep=0s").unwrap();
        assert_eq!(ws.len(), 3);
        assert_eq!(ws[2].params["ops"], "4");
        assert_eq!(ws[2].sweep.get("ops").map(String::as_str), Some("4"));
        assert!(!ws[0].sweep.contains_key("sleep"));
        assert_eq!(expand_sweep("null:ops=1,2,sleep=0s,1ms").unwrap().len(), 4);
        assert!(expand_sweep("null:,x").is_err());
    }

    #[test]
    fn huge_sweeps_are_refused_before_expansion() {
        let many: Vec<String> = (1..=40).map(|i| i.to_string()).collect();
        let spec = format!("null:ops={},sleep={}", many.join(","), many.join(","));
        assert!(
            expand_sweep(&spec)
                .unwrap_err()
                .message
                .contains("variants")
        );
    }

    #[test]
    fn unknown_workload_suggests() {
        let e = parse_workload("seq-reed").unwrap_err();
        assert!(
            e.message.contains("did you mean 'seq-read'"),
            "{}",
            e.message
        );
    }

    #[test]
    fn bad_size_names_the_parameter_and_format() {
        let e = parse_workload("rand-read:bs=4q").unwrap_err();
        assert!(
            e.message.contains("'bs'") && e.message.contains("4k = 4096"),
            "{}",
            e.message
        );
    }
}
