//! Where the time went (`--profile`), one table per profiled cell: the kernel functions that ran
//! most, fsbench's off-CPU time by reason, the longest lock waits with their callers, the
//! device's own latency and queue depth, and who ran on the CPUs.

use crate::names::CellNames;
use crate::table::{Column, Table};
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
        let what = format!("{} ×{}: {}", l.kind, l.count, l.caller);
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
    for w in p.who.iter().take(TOP_WHO) {
        t.push(vec![
            "who".into(),
            w.who.as_str().into(),
            format!("{:.1}%", w.pct).into(),
        ]);
    }
    t.note = note(p);
    t
}

fn note(p: &Profile) -> String {
    let mut s = format!(
        "on-CPU and who: % of {} busy samples at {} Hz on {} CPUs ({} lost); off-CPU and lock: % of the wall time (summed over threads)",
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
        });
        p.who.push(WhoShare {
            who: "fsbench".into(),
            samples: 100,
            pct: 100.0,
        });
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
                "rwsem-write ×4: down_write <- open_last_lookups <- path_openat",
                "10.0%"
            ]
        );
        assert_eq!(rows[3], ["who", "fsbench", "100.0%"]);
    }
}
