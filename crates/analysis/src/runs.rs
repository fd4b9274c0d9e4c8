//! Comparing two stored runs (`fsbench compare A B`, `fsbench run --baseline A`): cells are
//! matched by target label, workload, resolved parameters and cache state; each pair gets
//! ministat's test on the headline metric and the comparability check; the environments'
//! differences (kernel, mount options, device chain, encryption, fsbench version, load) come
//! first, because they are what the difference is about — or what makes it meaningless. A cell
//! measured under outside load is not comparable with a quiet one (`crate::load`). The regression
//! gate (`--fail-if-slower PCT`) fails when a headline metric is proven worse by more than PCT.

use fsbench_model::{Comparison, ResultEntry, RunRecord, TargetInfo};

/// What differs between the environments of `a` and `b`, in words.
pub fn environment_differences(a: &RunRecord, b: &RunRecord) -> Vec<String> {
    let mut out = Vec::new();
    let mut diff = |what: &str, x: &str, y: &str| {
        if x != y {
            out.push(format!("{what}: {x} → {y}"));
        }
    };
    diff("fsbench", &a.run.fsbench_version, &b.run.fsbench_version);
    diff("kernel", &a.environment.kernel, &b.environment.kernel);
    diff("host", &a.environment.hostname, &b.environment.hostname);
    diff("CPU", &a.environment.cpu_model, &b.environment.cpu_model);
    for ta in &a.environment.targets {
        let Some(tb) = b.environment.targets.iter().find(|t| t.label == ta.label) else {
            continue;
        };
        for (what, x, y) in target_facts(ta, tb) {
            diff(&format!("{} {what}", ta.label), &x, &y);
        }
    }
    out.extend(crate::load::run_difference(a, b));
    out
}

fn target_facts(a: &TargetInfo, b: &TargetInfo) -> Vec<(&'static str, String, String)> {
    vec![
        ("path", a.path.clone(), b.path.clone()),
        ("filesystem", a.fs_type.clone(), b.fs_type.clone()),
        (
            "mount options",
            a.mount_options.clone(),
            b.mount_options.clone(),
        ),
        (
            "devices",
            a.device_chain.join(" > "),
            b.device_chain.join(" > "),
        ),
        ("encryption", a.encryption.clone(), b.encryption.clone()),
        (
            "device model",
            a.device_model.clone(),
            b.device_model.clone(),
        ),
    ]
}

/// The key two runs' cells are matched on.
pub(crate) fn key(
    e: &ResultEntry,
) -> (
    &str,
    &str,
    &std::collections::BTreeMap<String, String>,
    &std::collections::BTreeMap<String, String>,
    &str,
) {
    (
        &e.target,
        &e.workload,
        &e.params,
        &e.sweep,
        e.cache.state.name(),
    )
}

/// Every shared cell of `a` (baseline) and `b`, compared; cell labels carry `A:`/`B:`.
pub fn compare_records(a: &RunRecord, b: &RunRecord, confidence: f64) -> Vec<Comparison> {
    let mut out = Vec::new();
    let tagged = merged(a, b, Vec::new()).results;
    let names = fsbench_model::names::CellNames::new(&tagged);
    for (ia, ea) in a.results.iter().enumerate() {
        let Some(ib) = b.results.iter().position(|eb| key(eb) == key(ea)) else {
            continue;
        };
        let eb = &b.results[ib];
        let Some(mut c) = crate::cells::one(ea, eb, confidence) else {
            continue;
        };
        if let Some(why) = crate::load::cells_unlike(a, ea, b, eb) {
            c.not_comparable.push(why);
            let how = crate::load::HOW_TO_COMPARE;
            c.how_to_compare = Some(match c.how_to_compare.take() {
                Some(h) => format!("{h}; {how}"),
                None => how.to_string(),
            });
            c.comparable = false;
            c.proven = false;
        }
        if a.run.fsbench_version != b.run.fsbench_version {
            c.not_comparable.push(format!(
                "measured by fsbench {} vs {}",
                a.run.fsbench_version, b.run.fsbench_version
            ));
            c.comparable = false;
            c.proven = false;
        }
        c.baseline = names.label(&tagged, ia);
        c.other = names.label(&tagged, a.results.len() + ib);
        out.push(c);
    }
    out
}

/// A record holding both runs' cells (targets prefixed `A:`/`B:`) and the comparisons: what the
/// renderers and exports of `compare` take.
pub fn merged(a: &RunRecord, b: &RunRecord, comparisons: Vec<Comparison>) -> RunRecord {
    let mut m = b.clone();
    let tag = |r: &RunRecord, p: &str| -> Vec<ResultEntry> {
        r.results
            .iter()
            .cloned()
            .map(|mut e| {
                e.target = format!("{p}:{}", e.target);
                e
            })
            .collect()
    };
    m.results = tag(a, "A");
    m.results.extend(tag(b, "B"));
    m.comparisons = comparisons;
    m.scaling = Vec::new();
    m
}
