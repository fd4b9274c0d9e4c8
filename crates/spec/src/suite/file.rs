//! The experiment-file format: a TOML document read into a [`Suite`], with every error pointing
//! at `FILE:LINE:COLUMN`, saying what is wrong, and suggesting the closest known key. Parsing
//! keeps the spans of keys and values (`toml::de::DeTable`) so that later checks (workload
//! parameters, targets) can point into the file too. The keys are documented in `docs/suites.md`.

use fsbench_model::{EngineResult, Failure};
use std::ops::Range;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A position in a suite file, for messages (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
}

/// One `[[target]]`: a labelled directory.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetSpec {
    /// Label in results.
    pub label: String,
    /// Directory (or block device).
    pub dir: String,
    /// Where the table is.
    pub pos: Pos,
}

/// One parameter of a `[[workload]]`: a key and one value, or several (a sweep).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSpec {
    /// The key.
    pub key: String,
    /// Where the key is.
    pub key_pos: Pos,
    /// Values as text, with where each is; more than one sweeps the parameter.
    pub values: Vec<(String, Pos)>,
}

/// One `[[workload]]`: a registered workload and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadSpec {
    /// Workload name (`seq-read`).
    pub name: String,
    /// Where the name's value is.
    pub name_pos: Pos,
    /// Parameters in file order.
    pub params: Vec<ParamSpec>,
}

/// How long a suite says it takes (`time = "about 85 s per target"`): the words as written,
/// and the number they give, read once when the suite is.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteTime {
    /// The text as written.
    pub text: String,
    /// Seconds it states (for one target when `per_target`); `None` when it gives no number.
    pub seconds: Option<f64>,
    /// The time is per target (`per target`).
    pub per_target: bool,
}

impl SuiteTime {
    /// Reads a suite's `time` text: the first number and the unit after it (`s`, `min`, `h`;
    /// seconds when none), and whether it says `per target`.
    pub fn parse(text: &str) -> Self {
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .collect();
        let seconds = words
            .iter()
            .enumerate()
            .find_map(|(i, w)| w.parse::<f64>().ok().map(|n| (i, n)))
            .and_then(|(i, n)| {
                let unit = match words.get(i + 1).copied().unwrap_or("s") {
                    "s" | "sec" | "seconds" => 1.0,
                    "min" | "minutes" => 60.0,
                    "h" | "hour" | "hours" => 3600.0,
                    _ => return None,
                };
                Some(n * unit)
            });
        Self {
            text: text.to_string(),
            seconds,
            per_target: text.contains("per target"),
        }
    }

    /// Seconds it states for a run on `targets` targets.
    pub fn for_targets(&self, targets: usize) -> Option<f64> {
        let per = if self.per_target {
            targets.max(1) as f64
        } else {
            1.0
        };
        self.seconds.map(|s| s * per)
    }
}

/// A suite: a named plan read from TOML. `None` fields leave the command line's value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Suite {
    /// Where it came from, for messages: a path, or `builtin:NAME`.
    pub file: String,
    /// The TOML text it was read from.
    pub text: String,
    /// Name (`quick`).
    pub name: String,
    /// What it measures and why, a few sentences.
    pub description: String,
    /// How long the full run took on the development machine (`about 50 s`).
    pub time: Option<SuiteTime>,
    /// Directories to measure.
    pub targets: Vec<TargetSpec>,
    /// Lab kinds to build and measure (`--lab`).
    pub lab: Vec<String>,
    /// `--lab-size`.
    pub lab_size: Option<String>,
    /// Workloads in order.
    pub workloads: Vec<WorkloadSpec>,
    /// `cold`, `warm` or `both`.
    pub cache: Option<String>,
    /// A number of samples, or `auto`.
    pub runs: Option<String>,
    /// With `runs = "auto"`: target CI half-width in % of the mean.
    pub precision: Option<f64>,
    /// With `runs = "auto"`: at least this many samples.
    pub min_runs: Option<u32>,
    /// With `runs = "auto"`: at most this many samples.
    pub max_runs: Option<u32>,
    /// With `runs = "auto"`: stop a cell after this long.
    pub max_time: Option<u64>,
    /// Unrecorded samples before the measured ones.
    pub warmup: Option<u32>,
    /// `interleaved`, `sequential` or `workloads`.
    pub order: Option<String>,
    /// Which comparisons: `targets`, `cache`, `both` or `none`.
    pub compare: Option<fsbench_model::ComparePolicy>,
    /// Label of the target the others are compared with (default: the first).
    pub baseline: Option<String>,
    /// Where `baseline` is.
    pub baseline_pos: Pos,
    /// Where `lab_size`'s value is.
    pub lab_size_pos: Pos,
    /// Where `lab`'s value is.
    pub lab_pos: Pos,
    /// Confidence level of the comparisons, %.
    pub confidence: Option<f64>,
    /// Draw ministat's plot for every comparison.
    pub plot: Option<bool>,
    /// `--profile`: the kernel's evidence for every sample.
    pub profile: Option<bool>,
    /// `--export-json`.
    pub export_json: Option<String>,
    /// `--export-csv`.
    pub export_csv: Option<String>,
    /// `--export-markdown`.
    pub export_markdown: Option<String>,
    /// `--export-csv-series`.
    pub export_csv_series: Option<String>,
    /// Scale of the workloads' sizes (`--scale` overrides it).
    pub scale: Option<f64>,
    /// Extra report after the tables: `summary`, `times` or `overhead`.
    pub report: Option<fsbench_model::SeedLayout>,
}

/// Keys of the top level, in the order `docs/suites.md` documents them.
pub const TOP_KEYS: &[&str] = &[
    "name",
    "description",
    "time",
    "target",
    "lab",
    "lab_size",
    "workload",
    "cache",
    "runs",
    "precision",
    "min_runs",
    "max_runs",
    "max_time",
    "warmup",
    "order",
    "compare",
    "baseline",
    "confidence",
    "plot",
    "profile",
    "export_json",
    "export_csv",
    "export_markdown",
    "export_csv_series",
    "scale",
    "report",
];

/// Reading context: the file's name and text, to turn spans into `FILE:LINE:COLUMN`.
pub struct Source<'a> {
    /// Name shown in messages.
    pub file: &'a str,
    /// The text.
    pub text: &'a str,
}

impl Source<'_> {
    /// Line and column of byte offset `at`.
    pub fn pos(&self, at: usize) -> Pos {
        let at = at.min(self.text.len());
        let before = &self.text[..self.text.floor_char_boundary_compat(at)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Pos { line, col }
    }

    /// An input error at `span`: `FILE:LINE:COLUMN: MESSAGE`.
    pub fn err(&self, span: Range<usize>, message: impl std::fmt::Display) -> Failure {
        self.err_at(self.pos(span.start), message)
    }

    /// An input error at `pos`.
    pub fn err_at(&self, pos: Pos, message: impl std::fmt::Display) -> Failure {
        Failure::input(format!("{}:{}:{}: {message}", self.file, pos.line, pos.col))
    }
}

/// `str::floor_char_boundary` is not stable at our MSRV.
trait FloorBoundary {
    fn floor_char_boundary_compat(&self, at: usize) -> usize;
}

impl FloorBoundary for str {
    fn floor_char_boundary_compat(&self, mut at: usize) -> usize {
        while at > 0 && !self.is_char_boundary(at) {
            at -= 1;
        }
        at
    }
}

/// Parses suite `text` read from `file` (a path or `builtin:NAME`).
pub fn parse(file: &str, text: &str) -> EngineResult<Suite> {
    let src = Source { file, text };
    let root = DeTable::parse(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        let what = e.message().lines().next().unwrap_or("invalid TOML").trim();
        src.err(at..at, format!("{what} — fix the TOML syntax"))
    })?;
    let table = root.get_ref();
    check_keys(&src, table, TOP_KEYS, "at the top level")?;
    let mut s = Suite {
        file: file.to_string(),
        text: text.to_string(),
        ..Suite::default()
    };
    s.name = string(&src, table, "name")?
        .ok_or_else(|| src.err(0..0, "missing key 'name' — add name = \"my-suite\""))?;
    s.description = string(&src, table, "description")?.unwrap_or_default();
    s.time = string(&src, table, "time")?.map(|t| SuiteTime::parse(&t));
    s.targets = targets(&src, table)?;
    s.lab = string_list(&src, table, "lab")?;
    s.lab_size = string(&src, table, "lab_size")?;
    s.workloads = workloads(&src, table)?;
    read_policy(&src, table, &mut s)?;
    read_outputs(&src, table, &mut s)?;
    Ok(s)
}

/// Repetition policy and cache states.
fn read_policy(src: &Source, t: &DeTable, s: &mut Suite) -> EngineResult<()> {
    s.cache = choice(src, t, "cache", &["cold", "warm", "both"])?;
    s.runs = runs(src, t)?;
    s.precision = number(src, t, "precision")?;
    s.min_runs = count(src, t, "min_runs")?;
    s.max_runs = count(src, t, "max_runs")?;
    s.max_time = duration(src, t, "max_time")?;
    s.warmup = count(src, t, "warmup")?;
    s.order = choice(src, t, "order", &["interleaved", "sequential", "workloads"])?;
    s.scale = number(src, t, "scale")?;
    if let (Some(v), Some(key)) = (s.scale, find(t, "scale")) {
        if !(v > 0.0 && v <= 1.0) {
            return Err(src.err(
                key.1.span(),
                format!(
                    "scale {v} is out of range — give a factor above 0 and at most 1, e.g. 0.1"
                ),
            ));
        }
    }
    Ok(())
}

/// Comparisons and outputs.
fn read_outputs(src: &Source, t: &DeTable, s: &mut Suite) -> EngineResult<()> {
    s.compare = choice(src, t, "compare", &["targets", "cache", "both", "none"])?
        .and_then(|c| fsbench_model::ComparePolicy::parse(&c));
    s.baseline = string(src, t, "baseline")?;
    s.baseline_pos = find(t, "baseline").map_or(Pos::default(), |(_, v)| src.pos(v.span().start));
    s.lab_size_pos = find(t, "lab_size").map_or(Pos::default(), |(_, v)| src.pos(v.span().start));
    s.lab_pos = find(t, "lab").map_or(Pos::default(), |(_, v)| src.pos(v.span().start));
    s.confidence = number(src, t, "confidence")?;
    if let (Some(c), Some((_, v))) = (s.confidence, find(t, "confidence")) {
        if !(c > 0.0 && c < 100.0) {
            return Err(src.err(
                v.span(),
                format!(
                    "confidence {c} is out of range — give a percentage between 0 and 100, e.g. 95"
                ),
            ));
        }
    }
    s.plot = boolean(src, t, "plot")?;
    s.profile = boolean(src, t, "profile")?;
    s.export_json = string(src, t, "export_json")?;
    s.export_csv = string(src, t, "export_csv")?;
    s.export_markdown = string(src, t, "export_markdown")?;
    s.export_csv_series = string(src, t, "export_csv_series")?;
    s.report = choice(src, t, "report", &["summary", "times", "overhead"])?
        .and_then(|r| fsbench_model::SeedLayout::parse(&r));
    Ok(())
}

type Entry<'t, 'i> = (
    &'t Spanned<std::borrow::Cow<'i, str>>,
    &'t Spanned<DeValue<'i>>,
);

fn find<'t, 'i>(t: &'t DeTable<'i>, key: &str) -> Option<Entry<'t, 'i>> {
    t.iter().find(|(k, _)| k.get_ref().as_ref() == key)
}

/// Refuses keys not in `allowed`, the first in file order, with a "did you mean".
pub fn check_keys(src: &Source, t: &DeTable, allowed: &[&str], place: &str) -> EngineResult<()> {
    let mut keys: Vec<_> = t.keys().collect();
    keys.sort_by_key(|k| k.span().start);
    let Some(bad) = keys
        .into_iter()
        .find(|k| !allowed.contains(&k.get_ref().as_ref()))
    else {
        return Ok(());
    };
    Err(src.err(
        bad.span(),
        format!(
            "unknown key '{}' {place} — {}",
            bad.get_ref(),
            hint(bad.get_ref(), allowed)
        ),
    ))
}

/// "did you mean 'x'?" or the list of known words.
pub fn hint(word: &str, known: &[&str]) -> String {
    let close = known
        .iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d);
    match close {
        Some((_, c)) => format!("did you mean '{c}'?"),
        None => format!("known: {}", known.join(", ")),
    }
}

/// The TOML type of `v`, for "found ..." messages.
fn type_name(v: &DeValue) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "a list",
        DeValue::Table(_) => "a table",
    }
}

fn wrong_type(src: &Source, key: &str, v: &Spanned<DeValue>, want: &str) -> Failure {
    src.err(
        v.span(),
        format!(
            "'{key}' must be {want}, found {} — e.g. {}",
            type_name(v.get_ref()),
            example(key)
        ),
    )
}

/// An example of a well-formed value of `key`, for type errors.
fn example(key: &str) -> &'static str {
    match key {
        "runs" => "runs = 6 or runs = \"auto\"",
        "lab" => "lab = [\"ext4\", \"xfs\"]",
        "target" => "[[target]] label = \"ext4\", dir = \"/mnt/x\"",
        "workload" => "[[workload]] name = \"seq-read\"",
        "plot" | "profile" => "plot = true",
        "precision" | "confidence" | "scale" => "confidence = 95",
        "min_runs" | "max_runs" | "warmup" => "min_runs = 3",
        _ => "key = \"value\"",
    }
}

fn string(src: &Source, t: &DeTable, key: &str) -> EngineResult<Option<String>> {
    match find(t, key) {
        None => Ok(None),
        Some((_, v)) => match v.get_ref() {
            DeValue::String(s) => Ok(Some(s.to_string())),
            _ => Err(wrong_type(src, key, v, "a string")),
        },
    }
}

/// A duration above zero (`"2m"`), ns.
fn duration(src: &Source, t: &DeTable, key: &str) -> EngineResult<Option<u64>> {
    let Some(text) = string(src, t, key)? else {
        return Ok(None);
    };
    let at = find(t, key).map_or(0..0, |(_, v)| v.span());
    match fsbench_model::units::parse_duration(&text) {
        Ok(ns) if ns > 0 => Ok(Some(ns)),
        _ => Err(src.err(
            at,
            format!("invalid {key} '{text}' — give a duration above zero, e.g. \"2m\""),
        )),
    }
}

fn boolean(src: &Source, t: &DeTable, key: &str) -> EngineResult<Option<bool>> {
    match find(t, key) {
        None => Ok(None),
        Some((_, v)) => match v.get_ref() {
            DeValue::Boolean(b) => Ok(Some(*b)),
            _ => Err(wrong_type(src, key, v, "true or false")),
        },
    }
}

fn number(src: &Source, t: &DeTable, key: &str) -> EngineResult<Option<f64>> {
    match find(t, key) {
        None => Ok(None),
        Some((_, v)) => match v.get_ref() {
            DeValue::Integer(i) => Ok(i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|n| n as f64)),
            DeValue::Float(f) => Ok(f.as_str().parse().ok()),
            _ => Err(wrong_type(src, key, v, "a number")),
        },
    }
}

fn count(src: &Source, t: &DeTable, key: &str) -> EngineResult<Option<u32>> {
    match find(t, key) {
        None => Ok(None),
        Some((_, v)) => match v.get_ref() {
            DeValue::Integer(i) => u32::from_str_radix(i.as_str(), i.radix())
                .map(Some)
                .map_err(|_| {
                    src.err(
                        v.span(),
                        format!(
                            "'{key}' must be a whole number of 0 or more — e.g. {}",
                            example(key)
                        ),
                    )
                }),
            _ => Err(wrong_type(src, key, v, "a whole number")),
        },
    }
}

fn choice(src: &Source, t: &DeTable, key: &str, choices: &[&str]) -> EngineResult<Option<String>> {
    let Some(value) = string(src, t, key)? else {
        return Ok(None);
    };
    if choices.contains(&value.as_str()) {
        return Ok(Some(value));
    }
    let span = find(t, key).map_or(0..0, |(_, v)| v.span());
    Err(src.err(
        span,
        format!(
            "invalid {key} '{value}' — use one of {}; {}",
            choices.join(", "),
            hint(&value, choices)
        ),
    ))
}

fn runs(src: &Source, t: &DeTable) -> EngineResult<Option<String>> {
    let Some((_, v)) = find(t, "runs") else {
        return Ok(None);
    };
    match v.get_ref() {
        DeValue::String(s) if s.as_ref() == "auto" => Ok(Some("auto".into())),
        DeValue::Integer(i) => match i.as_str().parse::<u32>() {
            Ok(n) if n >= 1 => Ok(Some(n.to_string())),
            _ => Err(src.err(
                v.span(),
                "'runs' must be 1 or more — e.g. runs = 6 or runs = \"auto\"",
            )),
        },
        _ => Err(wrong_type(
            src,
            "runs",
            v,
            "a number of samples or \"auto\"",
        )),
    }
}

fn string_list(src: &Source, t: &DeTable, key: &str) -> EngineResult<Vec<String>> {
    let Some((_, v)) = find(t, key) else {
        return Ok(Vec::new());
    };
    let DeValue::Array(items) = v.get_ref() else {
        return Err(wrong_type(src, key, v, "a list of strings"));
    };
    items
        .iter()
        .map(|item| match item.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            _ => Err(wrong_type(src, key, item, "a list of strings")),
        })
        .collect()
}

/// The tables of an array of tables `key` (`[[target]]`).
fn tables<'t, 'i>(
    src: &Source,
    t: &'t DeTable<'i>,
    key: &str,
) -> EngineResult<Vec<&'t Spanned<DeValue<'i>>>> {
    let Some((_, v)) = find(t, key) else {
        return Ok(Vec::new());
    };
    let DeValue::Array(items) = v.get_ref() else {
        return Err(wrong_type(
            src,
            key,
            v,
            &format!("a list of tables ([[{key}]])"),
        ));
    };
    for item in items.iter() {
        if !matches!(item.get_ref(), DeValue::Table(_)) {
            return Err(wrong_type(src, key, item, &format!("a table ([[{key}]])")));
        }
    }
    Ok(items.iter().collect())
}

fn targets(src: &Source, t: &DeTable) -> EngineResult<Vec<TargetSpec>> {
    let mut out = Vec::new();
    for item in tables(src, t, "target")? {
        let DeValue::Table(tt) = item.get_ref() else {
            continue;
        };
        check_keys(src, tt, &["label", "dir"], "in [[target]]")?;
        let dir = string(src, tt, "dir")?.ok_or_else(|| {
            src.err(
                item.span(),
                "[[target]] has no 'dir' — add dir = \"/mnt/x\"",
            )
        })?;
        let label = string(src, tt, "label")?.unwrap_or_else(|| dir.clone());
        out.push(TargetSpec {
            label,
            dir,
            pos: src.pos(item.span().start),
        });
    }
    Ok(out)
}

fn workloads(src: &Source, t: &DeTable) -> EngineResult<Vec<WorkloadSpec>> {
    let mut out = Vec::new();
    for item in tables(src, t, "workload")? {
        let DeValue::Table(wt) = item.get_ref() else {
            continue;
        };
        let (_, name) = find(wt, "name").ok_or_else(|| {
            // A misspelt `name` is a key of its own: point at it, not at the table.
            let typo = wt.iter().find(|(k, _)| {
                let k: &str = k.get_ref().as_ref();
                k != "name" && strsim::damerau_levenshtein(k, "name") <= 2 && k.len() <= 6
            });
            match typo {
                Some((k, _)) => src.err(
                    k.span(),
                    format!(
                        "unknown key '{}' in [[workload]] — did you mean 'name'?",
                        k.get_ref().as_ref() as &str
                    ),
                ),
                None => src.err(item.span(), "[[workload]] has no 'name' — add name = \"seq-read\" ('fsbench workloads' lists them)"),
            }
        })?;
        let DeValue::String(n) = name.get_ref() else {
            return Err(wrong_type(src, "name", name, "a workload name"));
        };
        let mut entries: Vec<Entry> = wt
            .iter()
            .filter(|(k, _)| k.get_ref().as_ref() != "name")
            .collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        let params = entries
            .into_iter()
            .map(|(k, v)| param(src, k, v))
            .collect::<EngineResult<_>>()?;
        out.push(WorkloadSpec {
            name: n.to_string(),
            name_pos: src.pos(name.span().start),
            params,
        });
    }
    Ok(out)
}

/// One parameter: a scalar, or a list of scalars (a sweep).
fn param(
    src: &Source,
    k: &Spanned<std::borrow::Cow<str>>,
    v: &Spanned<DeValue>,
) -> EngineResult<ParamSpec> {
    let key = k.get_ref().to_string();
    let items: Vec<&Spanned<DeValue>> = match v.get_ref() {
        DeValue::Array(a) if a.is_empty() => {
            return Err(src.err(
                v.span(),
                format!("'{key}' is an empty list — give one value, or a list of values to sweep"),
            ));
        }
        DeValue::Array(a) => a.iter().collect(),
        _ => vec![v],
    };
    let values = items
        .into_iter()
        .map(|item| Ok((scalar(src, &key, item)?, src.pos(item.span().start))))
        .collect::<EngineResult<_>>()?;
    Ok(ParamSpec {
        key,
        key_pos: src.pos(k.span().start),
        values,
    })
}

fn scalar(src: &Source, key: &str, v: &Spanned<DeValue>) -> EngineResult<String> {
    match v.get_ref() {
        DeValue::String(s) => Ok(s.to_string()),
        DeValue::Integer(i) => Ok(i64::from_str_radix(i.as_str(), i.radix()).map_or_else(|_| i.as_str().to_string(), |n| n.to_string())),
        DeValue::Float(f) => Ok(f.as_str().to_string()),
        DeValue::Boolean(b) => Ok(b.to_string()),
        other => Err(src.err(v.span(), format!(
            "parameter '{key}' must be a string, number or boolean, or a list of them to sweep, found {} — e.g. workers = [1, 2, 4]",
            type_name(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_times_are_read_per_target_or_whole() {
        let secs = |t: &str, n: usize| SuiteTime::parse(t).for_targets(n);
        assert_eq!(secs("about 85 s per target", 3), Some(255.0));
        assert_eq!(secs("about 10 min, 3 lab targets (est.)", 3), Some(600.0));
        assert_eq!(secs("about 1 min", 2), Some(60.0));
        assert_eq!(secs("quick", 1), None);
        assert_eq!(secs("about 2 h per target", 1), Some(7200.0));
    }

    #[test]
    fn printed_builtin_parses_back_to_the_same_suite() {
        for name in crate::suite::builtin::names() {
            let text = crate::suite::builtin::text(name).expect("exists");
            let a = parse("x.toml", text).expect("parses");
            let b = parse("x.toml", &a.text).expect("parses back");
            assert_eq!(a, b);
        }
    }

    #[test]
    fn sweeps_and_scalars_become_text() {
        let s = parse(
            "x.toml",
            "name = \"t\"\n[[workload]]\nname = \"walk\"\nworkers = [1, 2]\nstat = \"none\"\n",
        )
        .unwrap();
        let w = &s.workloads[0];
        assert_eq!(
            w.params[0]
                .values
                .iter()
                .map(|v| v.0.as_str())
                .collect::<Vec<_>>(),
            ["1", "2"]
        );
        assert_eq!(w.params[0].values[1].1, Pos { line: 4, col: 15 });
        assert_eq!(crate::suite::spec(w), "walk:workers=1,2,stat=none");
    }

    #[test]
    fn missing_name_and_bad_ranges_are_placed() {
        assert!(
            parse("x.toml", "[[workload]]\nname = \"null\"\n")
                .unwrap_err()
                .message
                .contains("x.toml:1:1: missing key 'name'")
        );
        let e = parse("x.toml", "name = \"t\"\nconfidence = 120\n").unwrap_err();
        assert!(
            e.message
                .starts_with("x.toml:2:14: confidence 120 is out of range"),
            "{}",
            e.message
        );
    }
}
