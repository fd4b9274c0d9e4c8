//! The one conversion from `fsbench run`'s clap arguments into the engine's plain
//! [`RunSpec`]. A flag not given stays `None`, so a suite can fill it in.

use crate::cli::{CacheArg, LayoutArg, OrderArg, RunArgs};
use crate::error::CliResult;
use fsbench_spec::{CacheChoice, Order, RunSpec, Session, TargetSpec, WorkloadRequest};

/// `fsbench run`'s arguments as a run specification; a malformed `--workload` is refused here.
pub fn run_spec(args: &RunArgs) -> CliResult<RunSpec> {
    let workloads = args
        .workloads
        .iter()
        .map(|w| WorkloadRequest::parse(w))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RunSpec {
        layout: None,
        targets: args
            .targets
            .iter()
            .map(|t| TargetSpec::parse(t))
            .collect::<Result<Vec<_>, _>>()?,
        suite: args.suite.clone(),
        scale: args.scale,
        workloads,
        cache: args.cache.map(|c| match c {
            CacheArg::Cold => CacheChoice::Cold,
            CacheArg::Warm => CacheChoice::Warm,
            CacheArg::Both => CacheChoice::Both,
        }),
        cold_cmd: args.cold_cmd.clone(),
        cold_timeout: (args.cold_timeout.as_deref())
            .map(fsbench_spec::parse_cold_timeout)
            .transpose()?,
        interval: (args.interval.as_deref())
            .map(fsbench_spec::parse_interval)
            .transpose()?,
        until_steady: args.until_steady,
        precondition: args.precondition,
        background: args.background.clone(),
        runs: args.runs.clone(),
        warmup: args.warmup,
        precision: args.precision,
        min_runs: args.min_runs,
        max_runs: args.max_runs,
        max_time: (args.max_time.as_deref())
            .map(fsbench_spec::parse_max_time)
            .transpose()?,
        order: args.order.map(|o| match o {
            OrderArg::Interleaved => Order::Interleaved,
            OrderArg::Sequential => Order::Sequential,
            OrderArg::Workloads => Order::Workloads,
        }),
        confidence: args.confidence,
        margin: args.margin,
        plot: args.plot,
        profile: args.profile,
        fix_comparable: args.fix_comparable,
        lab: fsbench_spec::lab::LabSpec {
            kinds: args.lab.clone(),
            size: args.lab_size.clone(),
            dir: args.lab_dir.clone(),
        },
        force: args.force,
        allow_destroy: args.allow_destroy.clone(),
        export_json: args.export.export_json.clone(),
        export_csv: args.export.export_csv.clone(),
        export_markdown: args.export.export_markdown.clone(),
        export_csv_series: args.export.export_csv_series.clone(),
        session: Session {
            quiet: args.quiet,
            no_store: args.no_store,
            db: args.db.db.clone(),
            note: args.note.clone(),
            html: args.html.clone(),
            baseline: args.baseline.clone(),
            fail_if_slower: args.fail_if_slower,
            allow_incomparable: args.allow_incomparable,
            yes: args.yes,
            estimate_only: args.estimate,
            shared_layout: args.layout == LayoutArg::Shared,
        },
    })
}
