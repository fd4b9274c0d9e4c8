//! The plain run specification: everything `fsbench run` was asked to do, from flags or from a
//! suite file, before validation. A field left `None` was not given, so a suite can fill it
//! without mistaking an explicit `--runs 3` for the default.

use crate::lab::LabSpec;
use fsbench_model::{EngineResult, Failure};
use std::path::PathBuf;

/// Samples per cell when neither the command line nor a suite says.
pub const DEFAULT_RUNS: &str = "3";
/// `--precision` default, percent.
pub const DEFAULT_PRECISION: f64 = 5.0;
/// `--min-runs` default.
pub const DEFAULT_MIN_RUNS: u32 = 3;
/// `--max-runs` default.
pub const DEFAULT_MAX_RUNS: u32 = 30;
/// `--confidence` default, percent.
pub const DEFAULT_CONFIDENCE: f64 = 95.0;
/// `--margin`: a comparison within ±this % of no change is `equivalent`.
pub const DEFAULT_MARGIN: f64 = 3.0;
/// `--cold-timeout` default.
pub const DEFAULT_COLD_TIMEOUT_NS: u64 = 60_000_000_000;

/// Cache states to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheChoice {
    /// Caches dropped before each sample.
    Cold,
    /// Caches as the previous sample left them.
    Warm,
    /// Both, cold first.
    Both,
}

impl CacheChoice {
    /// `cold`, `warm` or `both` (the words of `--cache` and of suite files).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "cold" => Some(Self::Cold),
            "warm" => Some(Self::Warm),
            "both" => Some(Self::Both),
            _ => None,
        }
    }
}

/// Order of samples across targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Round by round across targets (A1 B1 A2 B2 ...).
    Interleaved,
    /// All samples of one target, then the next.
    Sequential,
    /// Round by round across targets and workloads (A·w1 B·w1 A·w2 B·w2 ...): every workload
    /// prepared at once, so that two workloads (a program and its replay) see the same drift.
    Workloads,
}

/// One target as asked: a directory (or device) and, if given, its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetSpec {
    /// Label in results; `None`: the directory as given.
    pub label: Option<String>,
    /// Directory or block device.
    pub dir: PathBuf,
}

impl TargetSpec {
    /// `--target [LABEL=]DIR`: text before the first `=` is a label when it is not empty and
    /// holds no `/` (so `/mnt/a=b` is a directory). The directory may be any bytes, as paths
    /// are; a label is text and must be UTF-8.
    pub fn parse(arg: &std::ffi::OsStr) -> EngineResult<Self> {
        use std::os::unix::ffi::OsStrExt;
        let bytes = arg.as_bytes();
        let split = bytes.iter().position(|&b| b == b'=');
        match split {
            Some(i) if i > 0 && !bytes[..i].contains(&b'/') => {
                let label = std::str::from_utf8(&bytes[..i]).map_err(|_| {
                    Failure::input(format!(
                        "target label '{}' is not UTF-8 (--target {}) — give a label in plain text",
                        String::from_utf8_lossy(&bytes[..i]),
                        arg.to_string_lossy()
                    ))
                })?;
                Ok(Self {
                    label: Some(label.to_string()),
                    dir: PathBuf::from(std::ffi::OsStr::from_bytes(&bytes[i + 1..])),
                })
            }
            _ => Ok(Self {
                label: None,
                dir: PathBuf::from(arg),
            }),
        }
    }

    /// The label results carry: the given one, else the directory as given.
    pub fn label(&self) -> String {
        match &self.label {
            Some(l) => l.clone(),
            None => self.dir.to_string_lossy().into_owned(),
        }
    }
}

/// One workload as asked: its name and parameters, a parameter with several values sweeping it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadRequest {
    /// Registered workload name (not yet checked).
    pub name: String,
    /// Parameters in the order given; values unquoted.
    pub params: Vec<(String, Vec<String>)>,
    /// Where it came from, for messages (`--workload seq-read:bs=4k`).
    pub origin: String,
}

/// True when `key` of workload `name` takes a shell command (its declaration says so): a bare
/// comma there is almost surely part of the command.
pub fn takes_command(name: &str, key: &str) -> bool {
    fsbench_workload::find(name).is_some_and(|info| {
        info.params
            .iter()
            .any(|d| d.key == key && d.kind == fsbench_workload::ParamKind::Command)
    })
}

impl WorkloadRequest {
    /// Parses `--workload NAME[:key=value,key=a,b,...]`: a list value sweeps that parameter;
    /// values may be quoted (`run='git status'`).
    pub fn parse(spec: &str) -> EngineResult<Self> {
        let origin = format!("--workload {spec}");
        let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
        fsbench_workload::check_quotes(params)
            .map_err(|e| Failure::input(format!("bad {e} ({origin})")))?;
        let mut keys: Vec<(String, Vec<String>)> = Vec::new();
        for tok in fsbench_workload::split_top_level(params)
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
        {
            match (tok.split_once('='), keys.last_mut()) {
                (Some((k, v)), _) => keys.push((k.trim().to_string(), vec![v.trim().to_string()])),
                (None, Some((_, values))) => values.push(tok.to_string()),
                (None, None) => {
                    return Err(Failure::input(format!(
                        "bad parameter '{tok}' ({origin}) — write key=value, a list as key=a,b,c"
                    )));
                }
            }
        }
        check_command_lists(name, &keys, &origin)?;
        for (_, values) in &mut keys {
            values.iter_mut().for_each(|v| *v = unquote(v));
        }
        Ok(Self {
            name: name.to_string(),
            params: keys,
            origin,
        })
    }
}

/// A list of commands must quote each one: `run=echo a,b` would otherwise run `b` as a second
/// command of a sweep.
fn check_command_lists(
    name: &str,
    keys: &[(String, Vec<String>)],
    origin: &str,
) -> EngineResult<()> {
    for (k, values) in keys {
        let quoted = |v: &String| {
            let b = v.as_bytes();
            b.len() >= 2 && (b[0] == b'\'' || b[0] == b'"') && b[b.len() - 1] == b[0]
        };
        if takes_command(name, k) && values.len() > 1 && !values.iter().all(quoted) {
            return Err(Failure::input(format!(
                "{k}= contains a comma outside quotes ({origin}) — quote the command: {k}='{}' (quoted items 'a','b' sweep over commands)",
                values.join(",")
            )));
        }
    }
    Ok(())
}

/// Removes one pair of surrounding quotes.
fn unquote(v: &str) -> String {
    let b = v.as_bytes();
    if b.len() >= 2 && (b[0] == b'\'' || b[0] == b'"') && b[b.len() - 1] == b[0] {
        v[1..v.len() - 1].to_string()
    } else {
        v.to_string()
    }
}

/// Everything `fsbench run` was asked to do. `None`: not given (a suite or the default decides).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSpec {
    /// The report layout asked without a suite file (`fsbench card`: the card).
    pub layout: Option<fsbench_model::SeedLayout>,
    /// Targets in order (empty: the current directory, unless a lab or suite gives some).
    pub targets: Vec<TargetSpec>,
    /// `--suite NAME|FILE`.
    pub suite: Option<String>,
    /// `--scale F` of a suite.
    pub scale: Option<f64>,
    /// Workloads in order (empty: the suite's, `quick` by default).
    pub workloads: Vec<WorkloadRequest>,
    /// `--cache`.
    pub cache: Option<CacheChoice>,
    /// `--cold-cmd`.
    pub cold_cmd: Option<String>,
    /// `--cold-timeout`.
    pub cold_timeout: Option<u64>,
    /// `--interval`: of each sample's time series, ns.
    pub interval: Option<u64>,
    /// `--until-steady`: every workload sampled until the SNIA steady state holds.
    pub until_steady: bool,
    /// `--precondition`: fill the targets twice, then sample until steady.
    pub precondition: bool,
    /// `--background WORKLOAD`: runs on each target while every sample is measured.
    pub background: Option<String>,
    /// `--runs N|auto`.
    pub runs: Option<String>,
    /// `--warmup N`.
    pub warmup: Option<u32>,
    /// `--precision PCT`.
    pub precision: Option<f64>,
    /// `--min-runs N`.
    pub min_runs: Option<u32>,
    /// `--max-runs N`.
    pub max_runs: Option<u32>,
    /// `--max-time DURATION`.
    pub max_time: Option<u64>,
    /// `--order`.
    pub order: Option<Order>,
    /// `--confidence PCT`.
    pub confidence: Option<f64>,
    /// `--margin PCT`: the equivalence margin of sequential decisions.
    pub margin: Option<f64>,
    /// `--plot`.
    pub plot: bool,
    /// `--profile`: the kernel's evidence for every sample.
    pub profile: bool,
    /// `--fix-comparable`: every workload that takes `direct` runs buffered (`direct=false`),
    /// so targets with and without direct I/O (tmpfs, FUSE) compare alike.
    pub fix_comparable: bool,
    /// `--lab`, `--lab-size`, `--lab-dir`.
    pub lab: LabSpec,
    /// `--force`: allow more workers than 8 per CPU.
    pub force: bool,
    /// `--allow-destroy /dev/NAME`.
    pub allow_destroy: Option<PathBuf>,
    /// `--export-json FILE`.
    pub export_json: Option<PathBuf>,
    /// `--export-csv FILE`.
    pub export_csv: Option<PathBuf>,
    /// `--export-markdown FILE`.
    pub export_markdown: Option<PathBuf>,
    /// `--export-csv-series FILE`.
    pub export_csv_series: Option<PathBuf>,
    /// What the run does beside measuring: where it speaks, stores and gates.
    pub session: Session,
}

/// What a run does beside measuring: its progress lines, its store, its HTML and its gate.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    /// `--quiet`: no progress, estimate or tables.
    pub quiet: bool,
    /// `--no-store`: the run is not stored.
    pub no_store: bool,
    /// `--db FILE` (default: the user's results database).
    pub db: Option<PathBuf>,
    /// `--note TEXT`, stored with the run.
    pub note: Option<String>,
    /// `--html FILE` (`-`: standard output).
    pub html: Option<PathBuf>,
    /// `--baseline RUN`: the stored run compared against.
    pub baseline: Option<String>,
    /// `--fail-if-slower PCT`: the gate against the baseline.
    pub fail_if_slower: Option<f64>,
    /// `--allow-incomparable`: cells the gate cannot judge do not fail it.
    pub allow_incomparable: bool,
    /// `--yes`: run a suite estimated far longer than it says without asking.
    pub yes: bool,
    /// `--estimate`: print the time estimate and stop.
    pub estimate_only: bool,
    /// `--layout shared`: MPI ranks share one file or directory.
    pub shared_layout: bool,
}

impl Session {
    /// A rank other than 0 prints, stores and writes nothing: rank 0 speaks for the run.
    pub fn silence(&mut self) {
        self.quiet = true;
        self.no_store = true;
        self.html = None;
        self.baseline = None;
        self.fail_if_slower = None;
    }

    /// The gate asked for: its threshold (percent slower) and whether cells it cannot judge
    /// pass.
    pub fn gate(&self) -> Option<(f64, bool)> {
        self.fail_if_slower
            .map(|pct| (pct, self.allow_incomparable))
    }
}

impl RunSpec {
    /// A rank other than 0 prints, stores and writes nothing: rank 0 speaks for the run.
    pub fn silence(&mut self) {
        self.session.silence();
        self.export_json = None;
        self.export_csv = None;
        self.export_markdown = None;
        self.export_csv_series = None;
    }

    /// The confidence level of comparisons, percent.
    pub fn confidence(&self) -> f64 {
        self.confidence.unwrap_or(DEFAULT_CONFIDENCE)
    }
}

/// `--cold-timeout`: a duration above zero, ns.
pub fn parse_cold_timeout(text: &str) -> EngineResult<u64> {
    positive_duration(text).ok_or_else(|| {
        Failure::input(format!(
            "invalid --cold-timeout '{text}' — give a duration above zero, e.g. 60s or 5m"
        ))
    })
}

/// `--max-time`: a duration above zero, ns.
pub fn parse_max_time(text: &str) -> EngineResult<u64> {
    positive_duration(text).ok_or_else(|| {
        Failure::input(format!(
            "invalid --max-time '{text}' — give a duration above zero, e.g. 2m"
        ))
    })
}

/// `--interval`: a duration of at least the recorder's finest interval, ns.
pub fn parse_interval(text: &str) -> EngineResult<u64> {
    let min = fsbench_measure::series::MIN_INTERVAL_NS;
    match fsbench_model::units::parse_duration(text) {
        Ok(ns) if ns >= min => Ok(ns),
        _ => Err(Failure::input(format!(
            "invalid --interval '{text}' — give a duration of at least {} ms, e.g. 10ms or 1s",
            min / 1_000_000
        ))),
    }
}

/// A duration above zero, ns.
fn positive_duration(text: &str) -> Option<u64> {
    fsbench_model::units::parse_duration(text)
        .ok()
        .filter(|&ns| ns > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_label_is_text_before_an_equals_sign_without_a_slash() {
        let t = TargetSpec::parse("a=b=c".as_ref()).unwrap();
        assert_eq!(t.label.as_deref(), Some("a"));
        assert_eq!(t.dir, PathBuf::from("b=c"));
        let t = TargetSpec::parse("/mnt/a=b".as_ref()).unwrap();
        assert_eq!(t.label, None);
        assert_eq!(t.label(), "/mnt/a=b");
    }

    #[test]
    fn a_target_dir_may_be_any_bytes_but_a_label_is_text() {
        use std::os::unix::ffi::OsStrExt;
        let t = TargetSpec::parse(std::ffi::OsStr::from_bytes(b"x=/tmp/\xff")).unwrap();
        assert_eq!(t.label.as_deref(), Some("x"));
        assert_eq!(t.dir.as_os_str().as_bytes(), b"/tmp/\xff");
        let e = TargetSpec::parse(std::ffi::OsStr::from_bytes(b"\xfe=/tmp")).unwrap_err();
        assert!(e.message.contains("not UTF-8"), "{e}");
    }

    #[test]
    fn workload_text_groups_list_values_and_unquotes() {
        let w = WorkloadRequest::parse("command:run='a,b',prepare=\"x\"").unwrap();
        assert_eq!(w.name, "command");
        assert_eq!(
            w.params,
            vec![
                ("run".to_string(), vec!["a,b".to_string()]),
                ("prepare".to_string(), vec!["x".to_string()])
            ]
        );
        let w = WorkloadRequest::parse("null:ops=1,2,4").unwrap();
        assert_eq!(w.params[0].1.len(), 3);
        assert!(WorkloadRequest::parse("command:run=echo a,b").is_err());
    }
}
