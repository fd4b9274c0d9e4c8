//! Load as an environment difference: how much of the machine's CPUs other processes took while
//! a sample ran, told apart from what the measurement itself used (fsbench and its children, the
//! FUSE daemon, a served lab's server daemons). Inside one run the interleaved schedule gives
//! every cell the same share of whatever else runs; across runs nothing does, so a cell measured
//! while a compiler kept the CPUs busy is not proven slower than a quiet one: it is not
//! comparable, with how to compare. Kernel threads working for the workload (fscrypt's
//! workqueues) count as others here: they load both sides of a comparison alike, so only a
//! difference between the sides is judged.

use fsbench_model::metric as k;
use fsbench_model::{ResultEntry, RunRecord, Sample, Warning, WarningKind};

/// Others' share of the machine's CPUs, %, from which a sample or a cell counts as loaded.
pub const LOADED_PCT: f64 = 25.0;

/// Shortest sample judged alone: the machine's CPU counters advance in clock ticks (10 ms), so
/// a shorter sample's share is all or nothing; over many samples it averages out.
pub const MIN_JUDGED_NS: u64 = 100_000_000;

/// Other processes' share of the machine's `cpus` during sample `s`, % of wall × CPUs: the
/// machine's busy time (user, system, interrupts) less fsbench's own, the FUSE daemon's and the
/// simulated servers'. `None` when the machine's CPU was not read or the sample is shorter than
/// [`MIN_JUDGED_NS`].
pub fn others_pct(s: &Sample, cpus: u32) -> Option<f64> {
    (s.wall_ns >= MIN_JUDGED_NS).then_some(())?;
    Some(raw_others_pct(s, cpus)?.clamp(0.0, 100.0))
}

/// [`others_pct`] of any sample, unclamped: tick noise either way, for averaging.
fn raw_others_pct(s: &Sample, cpus: u32) -> Option<f64> {
    let m = |name: &str| s.metrics.get(name).copied();
    let busy =
        m(k::MACHINE_USER_PCT)? + m(k::MACHINE_SYS_PCT)? + m(k::MACHINE_IRQ_PCT).unwrap_or(0.0);
    let servers: f64 = s.servers.iter().map(|h| h.cpu_pct(s.wall_ns)).sum();
    let ours = m(k::CPU_PCT).unwrap_or(0.0) + m(k::DAEMON_CPU_PCT).unwrap_or(0.0) + servers;
    Some(busy - ours / f64::from(cpus.max(1)))
}

/// The share of all CPUs' samples (idle included) that a profiled cell's neighbours ran, % —
/// other processes' load as the kernel profile tells it, the cell's own kernel work (its
/// device's workers, journal, writeback) left out; with the shares of the largest, named.
fn profiled_others(p: &fsbench_model::Profile) -> (f64, String) {
    let (pct_busy, named) = p.neighbours(3).unwrap_or((0.0, String::new()));
    let all = (p.on_cpu_samples + p.idle_samples).max(1) as f64;
    (pct_busy * p.on_cpu_samples as f64 / all, named)
}

/// Others' share over all of `e`'s samples, weighted by their wall time (short samples' tick
/// noise averages out); `None` when they last under [`MIN_JUDGED_NS`] together. For a profiled
/// cell, its neighbours' share as the kernel profile tells it: the counters cannot tell the
/// cell's own kernel threads from other processes, and the profile can.
pub fn cell_others_pct(e: &ResultEntry, cpus: u32) -> Option<f64> {
    if let Some(p) = e.profile.as_ref().filter(|p| p.on_cpu_samples > 0) {
        return Some(profiled_others(p).0.clamp(0.0, 100.0));
    }
    let (mut sum, mut wall) = (0.0, 0u64);
    for s in &e.samples {
        if let Some(p) = raw_others_pct(s, cpus) {
            sum += p * s.wall_ns as f64;
            wall += s.wall_ns;
        }
    }
    (wall >= MIN_JUDGED_NS).then(|| (sum / wall as f64).clamp(0.0, 100.0))
}

/// The median over `r`'s cells of [`cell_others_pct`]: the run's load, for its environment.
pub fn run_others_pct(r: &RunRecord) -> Option<f64> {
    let mut v: Vec<f64> = r
        .results
        .iter()
        .filter_map(|e| cell_others_pct(e, r.environment.cpus))
        .collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// A share of `cpus` CPUs in words: "1.1 of 2 CPUs (56%)".
pub fn cpus_busy(pct: f64, cpus: u32) -> String {
    let pct = pct.clamp(0.0, 100.0);
    format!(
        "{:.1} of {cpus} CPU{} ({pct:.0}%)",
        pct / 100.0 * f64::from(cpus),
        if cpus == 1 { "" } else { "s" }
    )
}

/// How [`run_difference`]'s line starts among a comparison's or a step's environment differences.
pub const DIFFERENCE: &str = "load: ";

/// The runs' loads differ: one line for the environment differences, when one of them was
/// loaded and the other not.
pub fn run_difference(a: &RunRecord, b: &RunRecord) -> Option<String> {
    let (la, lb) = (run_others_pct(a)?, run_others_pct(b)?);
    ((la >= LOADED_PCT) != (lb >= LOADED_PCT)).then(|| {
        format!(
            "{DIFFERENCE}other processes took {} → {} of the machine",
            cpus_busy(la, a.environment.cpus),
            cpus_busy(lb, b.environment.cpus)
        )
    })
}

/// Why cell `ea` of run `a` and cell `eb` of run `b` cannot be compared for load: one ran with
/// other processes taking [`LOADED_PCT`] of the machine or more, the other without.
pub fn cells_unlike(
    a: &RunRecord,
    ea: &ResultEntry,
    b: &RunRecord,
    eb: &ResultEntry,
) -> Option<String> {
    // A cell too short to judge takes its run's load (the other cells around it).
    let la = cell_others_pct(ea, a.environment.cpus).or_else(|| run_others_pct(a))?;
    let lb = cell_others_pct(eb, b.environment.cpus).or_else(|| run_others_pct(b))?;
    ((la >= LOADED_PCT) != (lb >= LOADED_PCT)).then(|| {
        format!(
            "other processes took {} of the machine during run {}'s samples but {} during run {}'s",
            cpus_busy(la, a.environment.cpus),
            a.run.id,
            cpus_busy(lb, b.environment.cpus),
            b.run.id
        )
    })
}

/// How to compare cells a load difference keeps apart.
pub const HOW_TO_COMPARE: &str = "rerun the loaded side on a quiet machine (nothing else busy), or both under the same load (--background)";

/// Flags the samples of `e` that ran under heavy outside load (one warning for the cell), and
/// names who took the CPUs when the cell was profiled. The counters see the machine's busy time
/// beyond fsbench's and the daemons' own, and cannot tell other processes from the cell's own
/// kernel work (its device's workers, its journal and writeback, a FUSE daemon's helpers); the
/// kernel profile can. So for a profiled cell: neighbours that took [`LOADED_PCT`] of the CPUs'
/// samples (idle included) or more are the load, named; when they took less, the counters'
/// flag is no load but a note of kind `other` saying whose busy time it was (and the cell is
/// judged unloaded, [`cell_others_pct`]).
pub fn flag_loaded_samples(e: &mut ResultEntry, cpus: u32) {
    let loaded: Vec<(usize, f64)> = e
        .samples
        .iter()
        .enumerate()
        .filter_map(|(i, s)| others_pct(s, cpus).map(|p| (i, p)))
        .filter(|&(_, p)| p >= LOADED_PCT)
        .collect();
    let total = e.samples.len();
    let worst = loaded.iter().map(|&(_, p)| p).max_by(f64::total_cmp);
    let which: Vec<String> = loaded.iter().map(|(i, _)| (i + 1).to_string()).collect();
    // "N of M samples ran while WHO (up to …): samples 1, 2"
    let counted = worst.map(|worst| {
        move |who: &str| {
            format!(
                "{} of {total} samples ran while {who} (up to {}): sample{} {}",
                loaded.len(),
                cpus_busy(worst, cpus),
                if loaded.len() == 1 { "" } else { "s" },
                which.join(", ")
            )
        }
    });
    let profiled = e.profile.as_ref().map(profiled_others);
    let (kind, message) = match (counted, profiled) {
        (Some(counted), None) => (
            WarningKind::Load,
            format!(
                "{} — {COMPARE_UNDER_LOAD}",
                counted("other processes took a large share of the machine")
            ),
        ),
        (Some(counted), Some((of_cpus, named))) if of_cpus >= LOADED_PCT => (
            WarningKind::Load,
            format!(
                "{} — {COMPARE_UNDER_LOAD} (neighbours took {of_cpus:.0}% of the CPUs{})",
                counted("other processes took a large share of the machine"),
                named_list(&named)
            ),
        ),
        (Some(counted), Some((of_cpus, named))) => (
            WarningKind::Other,
            format!(
                "not load: {}, but the kernel profile finds other processes took only {of_cpus:.0}% of the CPUs{}: the rest of that busy time was the cell's own (its device's kernel workers, its journal and writeback, a FUSE daemon's helpers)",
                counted("the machine's CPUs were busy beyond the cell's threads"),
                named_list(&named)
            ),
        ),
        (None, Some((of_cpus, named))) if of_cpus >= LOADED_PCT => (
            WarningKind::Load,
            format!(
                "neighbours took {of_cpus:.0}% of the CPUs{} (kernel profile) — compare only with runs under the same load, or rerun on a quiet machine",
                named_list(&named)
            ),
        ),
        (None, _) => return,
    };
    e.warnings.push(Warning::new(kind, message));
}

/// What to do with samples taken under load.
const COMPARE_UNDER_LOAD: &str =
    "compare them only with runs under the same load, or rerun on a quiet machine";

/// `: cc1 31%, kworker flush-7:4 22%`, or nothing when none is named.
fn named_list(named: &str) -> String {
    match named.is_empty() {
        true => String::new(),
        false => format!(": {named}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(machine_user: f64, machine_sys: f64, own: f64) -> Sample {
        serde_json::from_value(serde_json::json!({
            "wall_ns": 1_000_000_000u64, "user_ns": 0, "sys_ns": 0, "ops": 1, "bytes": 0,
            "metrics": {"machine_user_pct": machine_user, "machine_sys_pct": machine_sys,
                        "machine_irq_pct": 0.0, "cpu_pct": own}
        }))
        .unwrap()
    }

    #[test]
    fn others_are_the_machine_less_what_the_measurement_used() {
        // 2 CPUs: the machine 60% busy (1.2 CPUs), fsbench 50% of one CPU: others 0.95 CPUs.
        let s = sample(40.0, 20.0, 50.0);
        assert!((others_pct(&s, 2).unwrap() - 35.0).abs() < 1e-9);
        // Tick-sampling noise never gives a negative share or more than the machine.
        assert_eq!(others_pct(&sample(10.0, 0.0, 90.0), 2), Some(0.0));
        assert_eq!(others_pct(&sample(90.0, 30.0, 0.0), 2), Some(100.0));
        assert_eq!(cpus_busy(56.0, 2), "1.1 of 2 CPUs (56%)");
        assert_eq!(cpus_busy(112.0, 2), "2.0 of 2 CPUs (100%)");
    }

    #[test]
    fn a_loaded_sample_is_flagged_once_for_its_cell() {
        let mut e: ResultEntry = serde_json::from_value(serde_json::json!({
            "target": "t", "workload": "w", "params": {}, "cache": {"state": "warm", "method": "none"},
            "headline": "iops", "samples": [], "summary": {}
        }))
        .unwrap();
        e.samples = vec![
            sample(5.0, 5.0, 20.0),
            sample(60.0, 20.0, 50.0),
            sample(70.0, 10.0, 40.0),
        ];
        flag_loaded_samples(&mut e, 2);
        assert_eq!(e.warnings.len(), 1);
        let w = &e.warnings[0];
        assert_eq!(w.kind, WarningKind::Load);
        assert!(w.message.starts_with("2 of 3 samples ran while other processes took a large share of the machine (up to 1.2 of 2 CPUs (60%)): samples 2, 3"), "{}", w.message);
        // (0 + 55 + 60) / 3: every sample counts by its wall time.
        assert!((cell_others_pct(&e, 2).unwrap() - 115.0 / 3.0).abs() < 1e-9);
        // A sample too short to be judged alone is not flagged, but counts in the cell's share.
        let mut short = sample(100.0, 0.0, 0.0);
        short.wall_ns = 2_000_000;
        assert_eq!(others_pct(&short, 2), None);
    }

    #[test]
    fn neighbours_of_a_profiled_cell_are_named_in_its_load_warning() {
        use fsbench_model::profile::{Profile, Role, WhoShare};
        let mut e: ResultEntry = serde_json::from_value(serde_json::json!({
            "target": "ext4", "workload": "seq-write", "params": {}, "cache": {"state": "cold", "method": "drop_caches"},
            "headline": "mib_s", "samples": [], "summary": {}
        }))
        .unwrap();
        let share = |who: &str, role, pct: f64| WhoShare {
            who: who.into(),
            role,
            samples: pct as u64,
            pct,
            ..Default::default()
        };
        e.profile = Some(Profile {
            on_cpu_samples: 100,
            idle_samples: 0,
            who: vec![
                share("cc1", Role::Neighbour, 31.0),
                share("fsbench", Role::Cell, 47.0),
                share("kworker flush-7:4", Role::Neighbour, 22.0),
            ],
            ..Default::default()
        });
        flag_loaded_samples(&mut e, 2);
        assert_eq!(e.warnings.len(), 1);
        assert!(
            e.warnings[0]
                .message
                .starts_with("neighbours took 53% of the CPUs: cc1 31%, kworker flush-7:4 22%"),
            "{}",
            e.warnings[0].message
        );
        // Below the threshold, nothing of its own.
        if let Some(p) = &mut e.profile {
            p.idle_samples = 300;
        }
        e.warnings.clear();
        flag_loaded_samples(&mut e, 2);
        assert!(e.warnings.is_empty());
        // The counters see others at 56% of 2 CPUs in samples 1 and 2.
        let busy = sample(60.0, 20.0, 48.0);
        e.samples = vec![busy.clone(), busy, sample(10.0, 0.0, 0.0)];
        flag_loaded_samples(&mut e, 2);
        // The counters put more on other processes than the profile finds: not a load, a note.
        assert_eq!(e.warnings[0].kind, WarningKind::Other);
        assert!(
            e.warnings[0].message.starts_with("not load: 2 of 3 samples ran while the machine's CPUs were busy beyond the cell's threads (up to 1.1 of 2 CPUs (56%)): samples 1, 2, but the kernel profile finds other processes took only 13% of the CPUs: cc1 31%, kworker flush-7:4 22%: the rest"),
            "{}",
            e.warnings[0].message
        );
        // And the cell is judged by the profile's neighbours: 13% of the CPUs, unloaded.
        assert_eq!(cell_others_pct(&e, 2).map(|p| p.round()), Some(13.0));
    }

    /// The counters flag a load, the profile finds no neighbour: the warning says whose busy
    /// time it was instead of "(neighbours took 0% of the CPUs: )" (issue 59).
    #[test]
    fn a_load_the_profile_finds_no_neighbour_for_is_said_to_be_the_cells_own() {
        let mut e: ResultEntry = serde_json::from_value(serde_json::json!({
            "target": "t", "workload": "w", "params": {}, "cache": {"state": "warm", "method": "none"},
            "headline": "iops", "samples": [], "summary": {}
        }))
        .unwrap();
        e.samples = vec![sample(60.0, 20.0, 50.0)];
        let mut p = fsbench_model::Profile {
            on_cpu_samples: 1000,
            ..Default::default()
        };
        p.who.push(fsbench_model::profile::WhoShare {
            who: "cc1".into(),
            role: fsbench_model::profile::Role::Neighbour,
            samples: 2,
            pct: 0.2,
            serves: None,
        });
        e.profile = Some(p);
        flag_loaded_samples(&mut e, 2);
        let w = &e.warnings[0].message;
        assert!(
            w.contains("but the kernel profile finds other processes took only 0%"),
            "{w}"
        );
        assert!(w.starts_with("not load: 1 of 1 samples ran while the machine's CPUs were busy beyond the cell's threads (up to"), "{w}");
        assert!(!w.contains("compare them only"), "{w}");
        assert!(!w.contains(": )") && !w.contains("CPUs: —"), "{w}");
    }
}
