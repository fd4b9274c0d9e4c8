//! Command-line definition (clap derive). No logic here: `plan.rs` validates and resolves.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

/// fsbench: a filesystem benchmark lab. Runs real workloads on any directory, cold and warm,
/// repeated until a difference is proven or ruled out.
#[derive(Debug, Parser)]
#[command(name = "fsbench", version, about, long_about = None, propagate_version = true)]
#[command(after_help = fsbench_model::EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per process: boxing `RunArgs` would buy nothing
pub enum Command {
    /// Run a plan: targets × workloads × cache states.
    #[command(after_help = fsbench_model::EXIT_CODES)]
    Run(RunArgs),
    /// A filesystem's character card: FxMark's 19 operations × job counts, how each scales and
    /// the kernel lock that stops it. Takes run's targets, lab and output flags.
    #[command(after_help = fsbench_model::card::ops_help())]
    Card(CardArgs),
    /// Record a program's filesystem calls (every thread and child process) and the start state
    /// of the files it touched under a root, into a trace file (`fsbench trace show FILE`).
    Record(RecordArgs),
    /// Traces made by `fsbench record`.
    Trace {
        /// What to do.
        #[command(subcommand)]
        command: TraceCommand,
    },
    /// Compare sets of numbers exactly as ministat does (drop-in).
    #[command(disable_help_flag = true)]
    Ministat {
        /// ministat's own flags and files.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<OsString>,
    },
    /// Run postmark's command language from FILE, or interactively (drop-in).
    Postmark {
        /// A postmark configuration file; standard input when absent.
        config: Option<PathBuf>,
    },
    /// Describe the storage stack behind DIR: filesystem, encryption, FUSE daemon, devices.
    Env {
        /// Directory (or device) to describe.
        dir: PathBuf,
        /// Print the JSON `environment` object that runs store, instead of a table.
        #[arg(long)]
        json: bool,
        /// Measure the ceiling of the deepest device under DIR (256 MiB of direct I/O in a
        /// scratch directory, written with a flush, then read) and keep it in the results
        /// database: later results faster than it are flagged as served by a cache.
        #[arg(long)]
        probe: bool,
        /// Give the device's ceiling instead of measuring it: READ,WRITE in MiB/s.
        #[arg(long, value_name = "READ,WRITE", conflicts_with = "probe")]
        ceiling: Option<String>,
        /// Results database where ceilings are kept (default: as `run`).
        #[arg(long)]
        db: Option<PathBuf>,
    },
    /// Remove scratch directories left in DIR by fsbench runs that are gone.
    Clean {
        /// Target directory to clean.
        dir: PathBuf,
    },
    /// List workloads and their parameters.
    Workloads {
        /// Show only this workload.
        name: Option<String>,
    },
    /// List every metric fsbench records, with unit, direction and meaning.
    Metrics,
    /// List stored runs, newest first.
    History(HistoryArgs),
    /// Print a stored run as `fsbench run` printed it, or export it.
    Show(ShowArgs),
    /// Compare two stored runs cell by cell (ministat's test), environment differences first.
    Compare(CompareArgs),
    /// Each cell's headline over the stored runs: lasting steps and what changed at each.
    Trend(TrendArgs),
    /// Load a JSON result (`--export-json` of this or an earlier version) into the store.
    Import {
        /// The JSON file.
        file: PathBuf,
        /// The database.
        #[command(flatten)]
        db: DbArg,
    },
    /// Write stored runs as one self-contained HTML report with charts (offline, no scripts).
    Report {
        /// Run ids, prefixes, `last`, `last~N` [default: last]; several runs are compared.
        runs: Vec<String>,
        /// The HTML file to write (`-` for standard output).
        #[arg(short = 'o', long = "output", value_name = "FILE.html")]
        output: PathBuf,
        /// The database.
        #[command(flatten)]
        db: DbArg,
    },
    /// Named baselines: a run pinned under a name, for `--baseline NAME` and `compare NAME RUN`.
    Baseline {
        /// What to do.
        #[command(subcommand)]
        command: BaselineCommand,
    },
    /// Throwaway targets for `run --lab`: `fsbench lab list` says which kinds work here.
    Lab {
        /// What to do.
        #[command(subcommand)]
        command: LabCommand,
    },
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; `fsbench man > fsbench.1 && man ./fsbench.1`).
    Man,
    /// Panics on purpose: proves the panic hook (one line, exit 101, no backtrace).
    #[command(name = "__internal-panic", hide = true)]
    InternalPanic,
    /// Suites: named plans in TOML (`fsbench run --suite NAME|FILE`).
    Suite {
        /// What to do.
        #[command(subcommand)]
        command: SuiteCommand,
    },
}

/// `fsbench record`'s arguments.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The trace file to write [default: PROGRAM.fsbtrace in the current directory].
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The root: calls on paths below it are replayed, the rest (libraries, /etc, /proc) are
    /// recorded and counted only [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Untraced runs of the command after the traced one, for the overhead line; 0 for a
    /// program that cannot run twice (tracing's cost is then estimated from the calibration).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub untraced: usize,
    /// A shell command run before the traced run and before each untraced one (sh -c, in the
    /// current directory, untimed, untraced) that restores what the program changes, so that
    /// every run does the same work: `--prepare 'rm -rf out && mkdir out'`.
    #[arg(long, value_name = "CMD")]
    pub prepare: Option<String>,
    /// The program and its arguments, after `--`.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, num_args = 1.., value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// Subcommands of `fsbench trace`.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// What a trace holds: calls by kind, threads, processes, files, bytes, the time in calls,
    /// what was outside the root, and what tracing cost.
    Show {
        /// The trace file.
        file: PathBuf,
        /// Also write these numbers as JSON (`-` for standard output).
        #[arg(long, value_name = "FILE")]
        export_json: Option<PathBuf>,
        /// List the calls under the root, one line each (thread, start, call, result, time).
        #[arg(long)]
        calls: bool,
        /// With --calls: the calls outside the root too.
        #[arg(long, requires = "calls")]
        outside: bool,
    },
}

/// Subcommands of `fsbench suite`.
#[derive(Debug, Subcommand)]
pub enum SuiteCommand {
    /// Every built-in suite: name, what it measures, how long the full run took where it was
    /// measured, and how long it took here (from the results database).
    List {
        /// Where earlier runs are read from.
        #[command(flatten)]
        db: DbArg,
    },
    /// Print a suite's TOML (a built-in name or a file), to copy and edit.
    Show {
        /// Built-in suite name or TOML file.
        name: String,
    },
}

/// Subcommands of `fsbench baseline`.
#[derive(Debug, Subcommand)]
pub enum BaselineCommand {
    /// Pin NAME to RUN (an id, a unique prefix, `last`, `last~N`), replacing an earlier pin.
    Set {
        /// The baseline's name (letters, digits, `-`, `_`, `.`).
        name: String,
        /// The run.
        run: String,
        /// The database.
        #[command(flatten)]
        db: DbArg,
    },
    /// Every baseline and the run it names.
    List {
        /// The database.
        #[command(flatten)]
        db: DbArg,
    },
}

/// Subcommands of `fsbench lab`.
#[derive(Debug, Subcommand)]
pub enum LabCommand {
    /// Every lab kind, whether it can be built on this machine, and why not.
    List,
}

/// Which database to use.
#[derive(Debug, Args, Clone)]
pub struct DbArg {
    /// Database file [default: $XDG_DATA_HOME/fsbench/results.db].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
}

/// Exports, with hyperfine's flag names; `-` writes to standard output.
#[derive(Debug, Args, Clone, Default)]
pub struct ExportArgs {
    /// Write the results as JSON to FILE (by `fsbench run`: rewritten during the run).
    #[arg(long, visible_alias = "json", value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write one CSV row per sample (the cell's keys, then every metric) to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write the tables and comparisons as Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Write the time series as CSV to FILE: one row per interval of every sample (its ops,
    /// bytes, MiB/s, IOPS and latency p50/p99/max).
    #[arg(long, value_name = "FILE")]
    pub export_csv_series: Option<PathBuf>,
}

impl ExportArgs {
    /// The export paths asked for.
    pub fn paths(&self) -> fsbench_output::exports::ExportPaths {
        fsbench_output::exports::ExportPaths {
            json: self.export_json.clone(),
            csv: self.export_csv.clone(),
            markdown: self.export_markdown.clone(),
            csv_series: self.export_csv_series.clone(),
        }
    }
}

/// Arguments of `fsbench history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Only runs with a target of this label.
    #[arg(long)]
    pub target: Option<String>,
    /// Only runs with this workload.
    #[arg(long)]
    pub workload: Option<String>,
    /// Only runs started on or after this date or time (2026-11-01, 2026-11-01T10:00:00Z).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// At most this many runs.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Print the list as JSON to FILE (`-` for standard output) instead of a table.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// The database.
    #[command(flatten)]
    pub db: DbArg,
}

/// Arguments of `fsbench show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run id, a unique prefix of one, `last` or `last~N`.
    pub run: String,
    /// Draw ministat's distribution plot for every comparison.
    #[arg(long)]
    pub plot: bool,
    /// Exports.
    #[command(flatten)]
    pub export: ExportArgs,
    /// The database.
    #[command(flatten)]
    pub db: DbArg,
}

/// Arguments of `fsbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Baseline run (id, prefix, `last~N`).
    pub a: String,
    /// Compared run.
    pub b: String,
    /// Confidence level in percent.
    #[arg(long, default_value_t = 95.0, value_name = "PCT")]
    pub confidence: f64,
    /// Exit 1 when a headline metric is proven worse than the baseline by more than PCT percent
    /// (exit 4 when a cell's interval straddles PCT; cells not comparable or missing fail too).
    #[arg(long, value_name = "PCT")]
    pub fail_if_slower: Option<f64>,
    /// With --fail-if-slower: cells not comparable or in one run only are reported, not failed.
    #[arg(long)]
    pub allow_incomparable: bool,
    /// Draw ministat's distribution plot for every comparison.
    #[arg(long)]
    pub plot: bool,
    /// Exports of the compared run with the comparisons.
    #[command(flatten)]
    pub export: ExportArgs,
    /// The database.
    #[command(flatten)]
    pub db: DbArg,
}

/// Arguments of `fsbench trend`.
#[derive(Debug, Args)]
pub struct TrendArgs {
    /// Only cells of this target label.
    #[arg(long)]
    pub target: Option<String>,
    /// Only cells of this workload.
    #[arg(long)]
    pub workload: Option<String>,
    /// Only cells in this cache state.
    #[arg(long, value_parser = ["cold", "warm"])]
    pub cache: Option<String>,
    /// Only each cell's newest N runs.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Confidence level of a step, in percent.
    #[arg(long, default_value_t = 95.0, value_name = "PCT")]
    pub confidence: f64,
    /// Exit 1 when the newest run of a shown cell is on the worse side of a step.
    #[arg(long)]
    pub fail_on_step: bool,
    /// Write the trends as JSON to FILE (`-`: standard output, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write one chart per cell to FILE as self-contained HTML.
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,
    /// The database.
    #[command(flatten)]
    pub db: DbArg,
}

/// Cache states to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CacheArg {
    /// Page cache dropped before each sample.
    Cold,
    /// Page cache as the previous sample left it.
    Warm,
    /// Both, cold first.
    Both,
}

/// Order of samples across targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    /// Round by round across targets (A1 B1 A2 B2 ...): drift hits all alike.
    Interleaved,
    /// All samples of one target, then the next.
    Sequential,
    /// Round by round across targets and workloads (A·w1 B·w1 A·w2 B·w2 ...): a program and
    /// its replay see the same drift; every workload's files are prepared at once.
    Workloads,
}

/// Where MPI ranks work (`mpirun -n N fsbench run ...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// Each rank in its own scratch directory, on its own files.
    PerRank,
    /// All ranks in one directory: one data file segmented by rank (IOR's shared file), one
    /// tree whose directories every rank fills (mdtest's shared directory).
    Shared,
}

/// Arguments of `fsbench card`: its own choices, then `run`'s (targets, lab, outputs, store).
#[derive(Debug, Args)]
pub struct CardArgs {
    /// Operations, comma-separated: FxMark codes (MWCM) or names (create-shared-dir); default
    /// all 19.
    #[arg(long, value_name = "OPS")]
    pub ops: Option<String>,
    /// Job counts, comma-separated; default 1, 2, then doubling to 4x the CPUs.
    #[arg(long, value_name = "N,N,...")]
    pub jobs: Option<String>,
    /// Jobs as threads (default: processes, FxMark's choice).
    #[arg(long)]
    pub threads: bool,
    /// The timed window of each point (default 1s; a warm-up comes before it).
    #[arg(long, value_name = "DURATION")]
    pub duration: Option<String>,
    /// A quick card: 300 ms points at jobs 1, 2 and 4.
    #[arg(long)]
    pub quick: bool,
    /// Without the kernel profile (on by default where it can run: it names the locks).
    #[arg(long)]
    pub no_profile: bool,
    /// Everything `run` takes but workloads and suites.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Arguments of `fsbench run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Directory under test, optionally labelled: `--target xfs=/mnt/xfs`. Repeatable; default `.`.
    #[arg(long = "target", short = 't', value_name = "[LABEL=]DIR")]
    pub targets: Vec<std::ffi::OsString>,
    /// Run a suite: a built-in name (`fsbench suite list`) or a TOML file. Without --suite and
    /// --workload, the `quick` suite runs.
    #[arg(long, value_name = "NAME|FILE")]
    pub suite: Option<String>,
    /// Scale a suite's sizes, counts, trees and durations by this factor (0 < F <= 1), e.g. 0.1.
    #[arg(long, value_name = "F")]
    pub scale: Option<f64>,
    /// Workload with parameters: `--workload rand-read:bs=4k,size=256m`. Repeatable.
    #[arg(long = "workload", short = 'w', value_name = "NAME[:key=value,...]")]
    pub workloads: Vec<String>,
    /// Cache states to measure; default: both when cold is possible, else warm.
    #[arg(long, value_enum)]
    pub cache: Option<CacheArg>,
    /// Command that makes caches cold (run through `sh -c` before each cold sample).
    #[arg(long, value_name = "CMD")]
    pub cold_cmd: Option<String>,
    /// Kill `--cold-cmd` (and its children) if it runs longer than this [default: 60s].
    #[arg(long, value_name = "DURATION")]
    pub cold_timeout: Option<String>,
    /// Interval of each sample's time series (at least 1ms; doubles past 1024 intervals)
    /// [default: 10ms].
    #[arg(long, value_name = "DURATION")]
    pub interval: Option<String>,
    /// Sample every workload until its headline is steady (SNIA: over the last 5 samples, range
    /// within 20% and trend within 10% of the average), at most --max-runs (25) or --max-time;
    /// the headline is then the steady window's. Per workload: until=steady.
    #[arg(long)]
    pub until_steady: bool,
    /// Precondition as SNIA does before measuring: write the whole target sequentially twice
    /// (a raw device named by --allow-destroy, or a --lab target's free space), then sample
    /// every workload until steady. The fill passes are kept as a cell with their time series.
    #[arg(long)]
    pub precondition: bool,
    /// Record the kernel's evidence for every sample (root): on-CPU stacks, off-CPU reasons,
    /// lock waits, the device's latency.
    #[arg(long)]
    pub profile: bool,
    /// Run this workload continuously on the same target while each measured sample runs
    /// (e.g. `-w latency --background seq-write:bs=1m`: latency while the disk writes); what it
    /// did is recorded with each sample.
    #[arg(long, value_name = "WORKLOAD")]
    pub background: Option<String>,
    /// Measured samples per cell, or `auto` (repeat until --precision is reached) [default: 3].
    #[arg(long, value_name = "N|auto")]
    pub runs: Option<String>,
    /// Unrecorded samples before the measured ones, per cell [default: 1 warm, 0 cold].
    #[arg(long, value_name = "N")]
    pub warmup: Option<u32>,
    /// With `--runs auto`: stop when the 95% CI half-width is within this % of the mean
    /// [default: 5].
    #[arg(long, value_name = "PCT")]
    pub precision: Option<f64>,
    /// With `--runs auto`: at least this many samples [default: 3].
    #[arg(long, value_name = "N")]
    pub min_runs: Option<u32>,
    /// With `--runs auto`: at most this many samples [default: 30].
    #[arg(long, value_name = "N")]
    pub max_runs: Option<u32>,
    /// With `--runs auto`: stop sampling a cell after this much time (e.g. 2m).
    #[arg(long, value_name = "DURATION")]
    pub max_time: Option<String>,
    /// Sample order across targets (and workloads) [default: interleaved].
    #[arg(long, value_enum)]
    pub order: Option<OrderArg>,
    /// Confidence level of the comparisons, in percent [default: 95].
    #[arg(long, value_name = "PCT")]
    pub confidence: Option<f64>,
    /// With `--runs auto`: a comparison whose interval lies within ±PCT of no change is decided
    /// `equivalent` (and stops sampling) [default: 3].
    #[arg(long, value_name = "PCT")]
    pub margin: Option<f64>,
    /// Draw ministat's distribution plot for every comparison.
    #[arg(long)]
    pub plot: bool,
    /// Run every workload that takes `direct` buffered (`direct=false`), so that targets with
    /// and without direct I/O (tmpfs, FUSE) are compared alike.
    #[arg(long)]
    pub fix_comparable: bool,
    /// Exports (`--export-json`/`--json`, `--export-csv`, `--export-markdown`).
    #[command(flatten)]
    pub export: ExportArgs,
    /// The database.
    #[command(flatten)]
    pub db: DbArg,
    /// Do not store this run.
    #[arg(long)]
    pub no_store: bool,
    /// Compare with this stored run (id, prefix, `last`, `last~N`) at the end.
    #[arg(long, value_name = "RUN")]
    pub baseline: Option<String>,
    /// With --baseline: exit 1 when a headline metric is proven worse by more than PCT percent
    /// (exit 4 when a cell's interval straddles PCT; cells not comparable or missing fail too).
    #[arg(long, value_name = "PCT")]
    pub fail_if_slower: Option<f64>,
    /// With --fail-if-slower: cells not comparable or in one run only are reported, not failed.
    #[arg(long)]
    pub allow_incomparable: bool,
    /// Write the run as a self-contained HTML report with charts to FILE at the end.
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,
    /// A note stored with the run (what changed, why it was run).
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// Print only errors and the final table.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Run a suite even when its estimated time is several times what the suite says.
    #[arg(long)]
    pub yes: bool,
    /// Print the time estimate (from stored history, else a probe of each target) and exit
    /// without measuring.
    #[arg(long)]
    pub estimate: bool,
    /// Under mpirun (fsbench built with `--features mpi`): where the ranks work. Alone, both
    /// are the same.
    #[arg(long, value_enum, default_value = "per-rank")]
    pub layout: LayoutArg,
    /// Allow more workers than 8 per CPU (at least 64) in `workers=`/`threads=`.
    #[arg(long)]
    pub force: bool,
    /// Allow writing to this exact block device (destroys its data); it must not be mounted.
    #[arg(long, value_name = "/dev/NAME")]
    pub allow_destroy: Option<PathBuf>,
    /// Build throwaway targets and measure them too (root): the kinds are listed in this help,
    /// generated from the lab's registry ([`lab_help`]).
    #[arg(
        long,
        value_name = "KIND[:aged][,KIND...]",
        value_delimiter = ',',
        help = lab_help()
    )]
    pub lab: Vec<String>,
    /// Size of each lab image (sparse) and of the lab tmpfs [default: 512m].
    #[arg(long, value_name = "SIZE")]
    pub lab_size: Option<String>,
    /// Directory that holds the lab's scratch (images, mount points) [default: the current one].
    #[arg(long, value_name = "DIR")]
    pub lab_dir: Option<PathBuf>,
}

/// The help of `--lab`, naming every kind the lab knows (`fsbench lab list` says which can be
/// built here), so that a new kind cannot be missing from it.
pub fn lab_help() -> String {
    let kinds: Vec<&str> = fsbench_model::LabKind::ALL
        .iter()
        .map(|k| k.name())
        .collect();
    format!(
        "Build throwaway targets and measure them too (root): {}. Labels are the kinds; torn \
         down on every exit ('fsbench lab list' says which this machine can build). \
         KIND:aged[:fill=PCT,churn=N,seed=S] (image kinds) fills and churns it first (default \
         fill=70, churn=10), labelled KIND-aged: `--lab ext4,ext4:aged` compares fresh and aged.",
        kinds.join(", ")
    )
}
