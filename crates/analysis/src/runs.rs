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
    differences(a, b, None)
}

/// What differs between the environments of `a` and `b` for one target: the machine's and
/// that target's differences (a trend's step is about one cell, not the run's other targets).
pub fn target_environment_differences(a: &RunRecord, b: &RunRecord, label: &str) -> Vec<String> {
    differences(a, b, Some(label))
}

fn differences(a: &RunRecord, b: &RunRecord, only: Option<&str>) -> Vec<String> {
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
        if only.is_some_and(|l| l != ta.label) {
            continue;
        }
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
        ("filesystem", a.fs_type.clone(), b.fs_type.clone()),
        (
            "mount options",
            a.mount_options.clone(),
            b.mount_options.clone(),
        ),
        ("devices", devices(a), devices(b)),
        ("encryption", a.encryption.clone(), b.encryption.clone()),
        (
            "device model",
            a.device_model.clone(),
            b.device_model.clone(),
        ),
        ("lab kind", lab_kind(a), lab_kind(b)),
        // Last: a lab's path changes with every run; what is under it is said above.
        ("path", a.path.clone(), b.path.clone()),
    ]
}

/// The block devices under a target, top first, or `none` (tmpfs, NFS, FUSE).
fn devices(t: &TargetInfo) -> String {
    match t.device_chain.is_empty() {
        true => "none".into(),
        false => t.device_chain.join(" > "),
    }
}

/// The lab kind that built a target, or `none` for a target given by path.
fn lab_kind(t: &TargetInfo) -> String {
    t.lab
        .as_ref()
        .map_or_else(|| "none".into(), |l| l.kind.name().to_string())
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
    compare_records_as(a, b, confidence, None)
}

/// [`compare_records`], where `b` sampled against `a` with `--runs auto` (`sequential`: its
/// plan and the gate's threshold): each comparison also gets the sequential decision its
/// sampling stopped on, which becomes its verdict.
pub fn compare_records_as(
    a: &RunRecord,
    b: &RunRecord,
    confidence: f64,
    sequential: Option<(&fsbench_stats::sequential::Plan, Option<f64>)>,
) -> Vec<Comparison> {
    let mut out = Vec::new();
    let tagged = merged(a, b, Vec::new()).results;
    let names = fsbench_model::names::CellNames::new(&tagged);
    for (ia, ea) in a.results.iter().enumerate() {
        // A replay of another trace under the same name is its cell, not comparable.
        let Some(ib) = (b.results.iter().position(|eb| key(eb) == key(ea)))
            .or_else(|| b.results.iter().position(|eb| same_but_trace(ea, eb)))
        else {
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
        if let Some((plan, gate)) = sequential {
            let gate_pct = gate.map(|pct| crate::sequential::gate_pct(&ea.headline, pct));
            c.decision = crate::sequential::decision_against(plan, gate_pct, ea, eb);
            if let Some(d) = &c.decision {
                c.proven = c.comparable && d.verdict == "different";
            }
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

/// The same cell but for the trace its replay made again (same name, another content).
fn same_but_trace(a: &ResultEntry, b: &ResultEntry) -> bool {
    let without = |e: &ResultEntry| {
        let mut p = e.params.clone();
        p.remove(fsbench_model::param::TRACE_ID);
        p
    };
    a.params.get(fsbench_model::param::TRACE_ID) != b.params.get(fsbench_model::param::TRACE_ID)
        && a.target == b.target
        && a.workload == b.workload
        && a.sweep == b.sweep
        && a.cache.state == b.cache.state
        && without(a) == without(b)
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
