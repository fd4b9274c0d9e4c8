//! `fsbench workloads [NAME]`: the workloads and their parameters with defaults.

use crate::error::{CliError, CliResult};

/// Prints every workload (or one) with its parameter table.
pub fn run(name: Option<&str>) -> CliResult<i32> {
    let names = match name {
        Some(n) => {
            if fsbench_workload::find(n).is_none() {
                let hint = fsbench_workload::suggest(n)
                    .map(|s| format!("did you mean '{s}'?"))
                    .unwrap_or_default();
                return Err(CliError::usage(format!(
                    "unknown workload '{n}' — {hint} ('fsbench workloads' lists them)"
                )));
            }
            vec![n]
        }
        None => fsbench_workload::names(),
    };
    for n in names {
        let info = fsbench_workload::find(n).expect("invariant: listed names exist");
        crate::outln!("{}: {}", info.name, info.summary)?;
        for p in info.params {
            let default = if p.default.is_empty() {
                "-".to_string()
            } else {
                p.default.to_string()
            };
            crate::outln!("    {:<14} {:<10} {}", p.key, default, p.help)?;
        }
        // Keys every workload takes: the plan reads them before the workload sees the rest.
        for p in fsbench_workload::knobs::every::DOCS {
            crate::outln!("    {:<14} {:<10} {}", p.key, "-", p.help)?;
        }
    }
    Ok(0)
}
