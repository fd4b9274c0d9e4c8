//! `fsbench metrics`: the catalogue of every metric fsbench records, with unit, direction and
//! meaning (the same table the renderers read).

use crate::error::CliResult;
use fsbench_model::Better;
use fsbench_model::catalogue::CATALOGUE;

/// Prints one line per catalogued metric.
pub fn run() -> CliResult<i32> {
    let mut text = String::new();
    for d in CATALOGUE {
        let better = match d.better {
            Better::Higher => "higher",
            Better::Lower => "lower",
        };
        let unit = match d.unit.label() {
            "" => "-",
            u => u,
        };
        text.push_str(&format!(
            "{:<24} {:<10} {:<7} {}\n",
            d.name, unit, better, d.help
        ));
    }
    crate::out::stdout(&text)?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use fsbench_model::catalogue::{Unit, lookup};
    use fsbench_workload::Headline;

    /// Every workload's headline is catalogued with the unit and direction it declares, so the
    /// workload's own `Headline` unit and the renderers' can never disagree.
    #[test]
    fn every_headline_is_catalogued_as_its_workload_declares() {
        // A replay needs a trace: an empty one will do.
        let dir = tempfile::tempdir().expect("temp dir");
        let trace = dir.path().join("t.fsbtrace");
        std::fs::write(
            &trace,
            fsbench_trace::encode(&fsbench_trace::Trace::default()),
        )
        .expect("write");
        let replay = format!("trace={}", trace.display());
        for name in fsbench_workload::names() {
            let info = fsbench_workload::find(name).expect("listed");
            let raw = match name {
                "command" => "run=true",
                "replay" => replay.as_str(),
                _ => "",
            };
            let params = fsbench_workload::Params::parse(raw).expect("parse");
            let caps = fsbench_workload::build(info, params)
                .expect("defaults build")
                .caps;
            let metric = fsbench_runner::metrics::headline_name(caps.headline);
            let def = lookup(&metric).unwrap_or_else(|| panic!("{name}: {metric} not catalogued"));
            if let Headline::Metric {
                unit,
                higher_is_better,
                ..
            } = caps.headline
            {
                let unit_ok = match def.unit {
                    Unit::Ns => unit == "ns",
                    u => u.label() == unit,
                };
                assert!(
                    unit_ok,
                    "{name}: {metric} is {unit} in the workload, {:?} in the catalogue",
                    def.unit
                );
                let higher = def.better == fsbench_model::Better::Higher;
                assert_eq!(higher, higher_is_better, "{name}: direction of {metric}");
            }
            for extra in caps.also_shown {
                assert!(lookup(extra).is_some(), "{name}: {extra} not catalogued");
            }
        }
    }
}
