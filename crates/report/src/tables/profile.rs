//! Where the time went (`--profile`), one table per profiled cell: the kernel functions that ran
//! most, fsbench's off-CPU time by reason, the longest lock waits with their callers, the
//! device's own latency and queue depth, and who ran on the CPUs.

use crate::names::CellNames;
use crate::table::{Column, Table};
use fsbench_model::profile::Role;
use fsbench_model::{Profile, RunRecord};

/// Rows of each part.
const TOP_FRAMES: usize = 5;
const TOP_LOCKS: usize = 3;
const TOP_WHO: usize = 4;

/// One table per profiled cell of `record`.
pub fn tables(record: &RunRecord, names: &CellNames) -> Vec<Table> {
    let cells = record.results.iter().enumerate();
    cells
        .filter_map(|(i, r)| {
            let p = r.profile.as_ref()?;
            let title = format!(
                "Where the time went: {} {} {}",
                r.target,
                names.workload(i),
                r.cache.state
            );
            Some(table(&title, p))
        })
        .collect()
}

fn pct(part: f64, whole: f64) -> String {
    format!("{:.1}%", 100.0 * part / whole.max(1.0))
}

/// The table of one profile.
pub fn table(title: &str, p: &Profile) -> Table {
    let mut t = Table::new(
        title,
        vec![
            Column::text("part"),
            Column::text("what"),
            Column::number("share"),
        ],
    );
    let busy = p.on_cpu_samples as f64;
    let kernel = p
        .top_frames()
        .into_iter()
        .filter(|(f, _)| !f.starts_with('['));
    for (f, n) in kernel.take(TOP_FRAMES) {
        t.push(vec!["on-CPU".into(), f.into(), pct(n as f64, busy).into()]);
    }
    let wall = p.wall_ns as f64;
    let mut reasons: Vec<(&String, &u64)> = p.off_cpu.iter().filter(|(_, ns)| **ns > 0).collect();
    reasons.sort_by_key(|(_, ns)| std::cmp::Reverse(**ns));
    for (r, ns) in reasons {
        t.push(vec![
            "off-CPU".into(),
            r.as_str().into(),
            pct(*ns as f64, wall).into(),
        ]);
    }
    for l in p.locks.iter().take(TOP_LOCKS) {
        let what = format!("{} ×{}{}: {}", l.kind, l.count, lock_how(l), l.caller);
        t.push(vec![
            "lock".into(),
            what.into(),
            pct(l.wait_ns as f64, wall).into(),
        ]);
    }
    if let Some(d) = &p.device {
        let what = format!(
            "{}: {} requests, {:.0} µs mean, queue depth {:.2}",
            d.device,
            d.requests,
            d.mean_ns / 1e3,
            d.mean_queue_depth
        );
        t.push(vec!["device".into(), what.into(), "".into()]);
    }
    let helpers = reasons_words(&p.helper_off_cpu, wall);
    if !helpers.is_empty() {
        let what = format!("off-CPU (not the cell's): {helpers}");
        t.push(vec!["helpers".into(), what.into(), "".into()]);
    }
    let ours = p.who.iter().filter(|w| w.role != Role::Neighbour);
    for w in ours.take(TOP_WHO) {
        t.push(vec![
            "who".into(),
            format!("{} ({})", w.who, w.role.name()).into(),
            format!("{:.1}%", w.pct).into(),
        ]);
    }
    if let Some((pct, named)) = p.neighbours(TOP_WHO) {
        t.push(vec![
            "neighbours".into(),
            named.into(),
            format!("{pct:.1}%").into(),
        ]);
    }
    t.note = note(p);
    t
}

/// Off-CPU reasons in words, largest first, % of `wall` (`other 157%, preempted 3%`).
fn reasons_words(by: &std::collections::BTreeMap<String, u64>, wall: f64) -> String {
    let mut v: Vec<(&String, &u64)> = by.iter().filter(|(_, ns)| **ns > 0).collect();
    v.sort_by_key(|(_, ns)| std::cmp::Reverse(**ns));
    let words: Vec<String> = v
        .iter()
        .map(|(r, ns)| format!("{r} {}", pct(**ns as f64, wall)))
        .collect();
    words.join(", ")
}

/// How a lock's waiters waited: a spinlock's spun on the CPU; a sleeping lock's share asleep.
fn lock_how(l: &fsbench_model::profile::LockWait) -> String {
    let threads = match l.threads {
        0 => String::new(),
        1 => ", 1 thread".into(),
        n => format!(", {n} threads"),
    };
    if l.spins() {
        return format!(" (spinning on-CPU{threads})");
    }
    let asleep = 100.0 * l.asleep_ns as f64 / l.wait_ns.max(1) as f64;
    format!(" ({asleep:.0}% asleep{threads})")
}

fn note(p: &Profile) -> String {
    let mut s = format!(
        "on-CPU, who and neighbours: % of {} busy samples at {} Hz on {} CPUs ({} lost); off-CPU and lock: the cell's threads, % of the wall time (summed over threads)",
        p.on_cpu_samples, p.frequency_hz, p.cpus, p.lost
    );
    for n in &p.notes {
        s += "; ";
        s += n;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::profile::{LockWait, WhoShare};

    #[test]
    fn a_profile_shows_its_kernel_functions_reasons_locks_and_who() {
        let mut p = Profile {
            frequency_hz: 997,
            cpus: 2,
            wall_ns: 1_000_000_000,
            on_cpu_samples: 100,
            ..Default::default()
        };
        p.on_cpu
            .insert("fsbench;[fsbench];do_syscall_64;filemap_read".into(), 60);
        p.on_cpu.insert("fsbench;[fsbench]".into(), 40);
        p.off_cpu.insert("device I/O".into(), 700_000_000);
        p.locks.push(LockWait {
            kind: "rwsem-write".into(),
            caller: "down_write <- open_last_lookups <- path_openat".into(),
            wait_ns: 100_000_000,
            count: 4,
            threads: 2,
            asleep_ns: 90_000_000,
        });
        p.who.push(WhoShare {
            who: "fsbench".into(),
            role: Role::Cell,
            samples: 70,
            pct: 70.0,
            ..Default::default()
        });
        p.who.push(WhoShare {
            who: "cc1".into(),
            role: Role::Neighbour,
            samples: 30,
            pct: 30.0,
            ..Default::default()
        });
        p.helper_off_cpu.insert("other".into(), 1_570_000_000);
        let t = table("Where the time went: ext4 rand-read cold", &p);
        let rows: Vec<Vec<&str>> = t
            .rows
            .iter()
            .map(|r| r.iter().map(|c| c.text.as_str()).collect())
            .collect();
        assert_eq!(rows[0], ["on-CPU", "filemap_read", "60.0%"]);
        assert_eq!(rows[1], ["off-CPU", "device I/O", "70.0%"]);
        assert_eq!(
            rows[2],
            [
                "lock",
                "rwsem-write ×4 (90% asleep, 2 threads): down_write <- open_last_lookups <- path_openat",
                "10.0%"
            ]
        );
        assert_eq!(
            rows[3],
            ["helpers", "off-CPU (not the cell's): other 157.0%", ""]
        );
        assert_eq!(rows[4], ["who", "fsbench (cell)", "70.0%"]);
        assert_eq!(rows[5], ["neighbours", "cc1 30%", "30.0%"]);
    }
}
