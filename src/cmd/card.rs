//! `fsbench card`: a character card. Its operations become `fx` workloads swept over the job
//! counts, measured warm and interleaved across targets by `run` itself (so a card is a stored
//! run, with run's safety, lab, store, outputs and comparisons); the card is built from the
//! cells when the run finishes and shown in place of the cell tables.

use crate::cli::CardArgs;
use crate::error::{CliError, CliResult};
use fsbench_model::card::{CARD_OPS, CARD_WORKLOAD, card_op};
use fsbench_model::param;

/// Default job counts: 1, 2, then doubling to 4× the CPUs.
fn default_jobs(cpus: u32) -> Vec<u32> {
    let mut v = vec![1, 2];
    while v.last().is_some_and(|&j| j < 4 * cpus.max(1)) {
        let next = v.last().map_or(1, |j| j * 2);
        v.push(next);
    }
    v
}

/// The operations `--ops` names (all 19 without it), each once, in the card's order.
fn ops(text: Option<&str>) -> CliResult<Vec<&'static str>> {
    let Some(text) = text else {
        return Ok(CARD_OPS.iter().map(|o| o.code).collect());
    };
    let mut chosen = Vec::new();
    for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let op = card_op(word).ok_or_else(|| {
            CliError::usage(format!(
                "--ops: unknown operation '{word}': use FxMark's codes ({}) or their names — `fsbench card --help` lists them",
                CARD_OPS.map(|o| o.code).join(", ")
            ))
        })?;
        if !chosen.contains(&op.code) {
            chosen.push(op.code);
        }
    }
    if chosen.is_empty() {
        return Err(CliError::usage(
            "--ops is empty: name at least one operation (e.g. --ops MWCM,MRDM)",
        ));
    }
    Ok(CARD_OPS
        .iter()
        .map(|o| o.code)
        .filter(|c| chosen.contains(c))
        .collect())
}

/// The job counts `--jobs` names, ascending and each once.
fn jobs(text: Option<&str>, quick: bool, cpus: u32) -> CliResult<Vec<u32>> {
    let Some(text) = text else {
        return Ok(if quick {
            vec![1, 2, 4]
        } else {
            default_jobs(cpus)
        });
    };
    let mut v = Vec::new();
    for word in text.split(',').map(str::trim) {
        match word.parse::<u32>() {
            Ok(j) if (1..=1024).contains(&j) => v.push(j),
            _ => {
                return Err(CliError::usage(format!(
                    "--jobs: '{word}' is not a job count from 1 to 1024: give counts like --jobs 1,2,4,8"
                )));
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// Runs the card `args` asks for.
pub fn run(mut args: CardArgs) -> CliResult<i32> {
    if !args.run.workloads.is_empty() || args.run.suite.is_some() {
        return Err(CliError::usage(
            "card measures its own operations: use --ops (not --workload or --suite)",
        ));
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let ops = ops(args.ops.as_deref())?;
    let jobs = jobs(args.jobs.as_deref(), args.quick, cpus)?;
    let duration = args
        .duration
        .clone()
        .unwrap_or_else(|| if args.quick { "300ms" } else { "1s" }.into());
    let warmup = if args.quick { "100ms" } else { "200ms" };
    let mode = if args.threads {
        param::MODE_THREADS
    } else {
        param::MODE_PROCS
    };
    let list = jobs
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    args.run.workloads = ops
        .iter()
        .map(|op| {
            format!(
                "{CARD_WORKLOAD}:{}={op},{}={list},{}={mode},{}={duration},{}={warmup}",
                param::OP,
                param::JOBS,
                param::MODE,
                param::DURATION,
                param::WARMUP
            )
        })
        .collect();
    args.run.cache.get_or_insert(crate::cli::CacheArg::Warm);
    args.run.runs.get_or_insert_with(|| "3".into());
    // Every sample warms up before its window: no discarded warm-up sample.
    args.run.warmup.get_or_insert(0);
    if !args.no_profile && !args.run.profile {
        // On by default where it can run; where it cannot, said in one line and left off.
        match fsbench_profile::prepare() {
            Ok(_) => args.run.profile = true,
            Err(e) => crate::errln!("card: no kernel profile, so no locks named: {e}"),
        }
    }
    let mut spec = crate::spec_args::run_spec(&args.run);
    if let Ok(s) = &mut spec {
        s.layout = Some(fsbench_model::SeedLayout::Card);
    }
    super::run::run_spec(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_jobs_double_to_four_times_the_cpus() {
        assert_eq!(default_jobs(2), vec![1, 2, 4, 8]);
        assert_eq!(default_jobs(1), vec![1, 2, 4]);
        assert_eq!(default_jobs(3), vec![1, 2, 4, 8, 16]);
    }

    #[test]
    fn ops_take_codes_and_names_in_card_order() {
        assert_eq!(
            ops(Some("mwcm,DRBL,read-private")).unwrap(),
            vec!["DRBL", "MWCM"]
        );
        assert_eq!(ops(None).unwrap().len(), 19);
        assert!(ops(Some("NOPE")).unwrap_err().message.contains("'NOPE'"));
        assert!(jobs(Some("0"), false, 2).is_err());
        assert_eq!(jobs(Some("4,1,2,2"), false, 2).unwrap(), vec![1, 2, 4]);
        assert_eq!(jobs(None, true, 8).unwrap(), vec![1, 2, 4]);
    }
}
