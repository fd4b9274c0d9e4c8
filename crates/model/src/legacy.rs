//! What records written before schema 3 did not say outright: the suite and scale a run
//! measured, recovered once from its command line — by the store's migration to version 5 and
//! when an older JSON file is imported — and never again afterwards (the record carries them).

use crate::DEFAULT_SUITE;

/// The value of `--flag VALUE` or `--flag=VALUE` in a command line.
fn flag_value(argv: &[String], flag: &str) -> Option<String> {
    let eq = format!("{flag}=");
    argv.iter().enumerate().find_map(|(i, a)| {
        if a == flag {
            argv.get(i + 1).cloned()
        } else {
            a.strip_prefix(&eq).map(str::to_string)
        }
    })
}

/// The suite a stored command line ran: `--suite NAME`, or the default suite of a `run`
/// without workloads.
pub fn suite_of(argv: &[String]) -> Option<String> {
    flag_value(argv, "--suite").or_else(|| {
        let workloads = argv.iter().skip(2).any(|a| {
            a == "--workload"
                || a.starts_with("--workload=")
                || (a.starts_with("-w") && !a.starts_with("--"))
        });
        (argv.get(1).map(String::as_str) == Some("run") && !workloads)
            .then(|| DEFAULT_SUITE.to_string())
    })
}

/// The `--scale` of a stored command line, when given and not 1.
pub fn scale_of(argv: &[String]) -> Option<f64> {
    flag_value(argv, "--scale")
        .and_then(|s| s.parse().ok())
        .filter(|&s: &f64| s != 1.0)
}

/// Fills `run.suite` and `run.scale` of a record older than schema 3 from its command line, and
/// the roles of profiles written before roles.
pub fn upgrade(record: &mut crate::RunRecord) {
    if record.schema_version < 3 && record.run.suite.is_none() {
        record.run.suite = suite_of(&record.run.argv);
        record.run.scale = scale_of(&record.run.argv);
    }
    // Profiles written before roles take them from their names.
    for p in record.results.iter_mut().filter_map(|e| e.profile.as_mut()) {
        p.fill_legacy_roles();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_suite_is_the_flag_or_the_default_of_a_plain_run() {
        assert_eq!(
            suite_of(&argv("fsbench run --suite disk-speed")).as_deref(),
            Some("disk-speed")
        );
        assert_eq!(
            suite_of(&argv("fsbench run --suite=x.toml")).as_deref(),
            Some("x.toml")
        );
        assert_eq!(
            suite_of(&argv("fsbench run -t /x")).as_deref(),
            Some("quick")
        );
        assert_eq!(suite_of(&argv("fsbench run -w null")), None);
        assert_eq!(suite_of(&argv("fsbench run --workload=null")), None);
        assert_eq!(suite_of(&argv("fsbench import x.json")), None);
    }

    #[test]
    fn the_scale_is_kept_only_when_not_one() {
        assert_eq!(scale_of(&argv("fsbench run --scale 0.1")), Some(0.1));
        assert_eq!(scale_of(&argv("fsbench run --scale=1")), None);
        assert_eq!(scale_of(&argv("fsbench run")), None);
    }
}
