//! A cell's profile as the sum of its samples' profiles.

use fsbench_model::Profile;
use fsbench_model::profile::{self as p, Role};
use std::collections::BTreeMap;

/// Adds the sample profile `s` to the cell profile `cell`.
pub fn add(cell: &mut Profile, s: &Profile) {
    cell.frequency_hz = s.frequency_hz;
    cell.cpus = s.cpus;
    cell.samples += s.samples;
    cell.wall_ns += s.wall_ns;
    cell.on_cpu_samples += s.on_cpu_samples;
    cell.idle_samples += s.idle_samples;
    cell.lost += s.lost;
    sum_into(&mut cell.on_cpu, &s.on_cpu);
    crate::fold::cap(&mut cell.on_cpu, crate::fold::KEEP_STACKS);
    sum_into(&mut cell.off_cpu, &s.off_cpu);
    sum_into(&mut cell.daemon_off_cpu, &s.daemon_off_cpu);
    sum_into(&mut cell.helper_off_cpu, &s.helper_off_cpu);
    for (kind, e) in &s.by_call {
        cell.by_call.entry(kind.clone()).or_default().add(e);
    }
    add_locks(cell, s);
    add_device(cell, s);
    let mut who: BTreeMap<String, (u64, Role, Option<String>)> = BTreeMap::new();
    for w in cell.who.iter().chain(&s.who) {
        let e = who
            .entry(w.who.clone())
            .or_insert((0, w.role, w.serves.clone()));
        e.0 += w.samples;
    }
    cell.who = crate::reduce::shares(who, cell.on_cpu_samples);
    cell.lock_drops.add(&s.lock_drops);
    for n in &s.notes {
        if !cell.notes.contains(n) && !n.starts_with(p::LOCK_DROPS_NOTE) {
            cell.notes.push(n.clone());
        }
    }
    // One note for the cell's drops, with its samples' counts summed.
    cell.notes.retain(|n| !n.starts_with(p::LOCK_DROPS_NOTE));
    cell.notes.extend(cell.lock_drops.note());
    for broken in crate::invariants::check_profile(cell) {
        if !cell.notes.contains(&broken) {
            cell.notes.push(broken);
        }
    }
}

fn sum_into(total: &mut BTreeMap<String, u64>, part: &BTreeMap<String, u64>) {
    for (k, v) in part {
        *total.entry(k.clone()).or_default() += v;
    }
}

fn add_locks(cell: &mut Profile, s: &Profile) {
    for l in &s.locks {
        match cell
            .locks
            .iter_mut()
            .find(|c| c.kind == l.kind && c.caller == l.caller)
        {
            Some(c) => {
                c.wait_ns += l.wait_ns;
                c.count += l.count;
                // Threads of different samples are different threads.
                c.threads += l.threads;
                c.asleep_ns += l.asleep_ns;
            }
            None => cell.locks.push(l.clone()),
        }
    }
    cell.locks.sort_by_key(|w| std::cmp::Reverse(w.wait_ns));
}

fn add_device(cell: &mut Profile, s: &Profile) {
    let Some(sd) = &s.device else { return };
    let Some(cd) = &mut cell.device else {
        cell.device = Some(sd.clone());
        return;
    };
    let n = cd.requests + sd.requests;
    cd.mean_ns = (cd.mean_ns * cd.requests as f64 + sd.mean_ns * sd.requests as f64) / n as f64;
    cd.requests = n;
    // Time in flight over time sampled, across the samples so far.
    let before = cell.wall_ns - s.wall_ns;
    cd.mean_queue_depth = (cd.mean_queue_depth * before as f64
        + sd.mean_queue_depth * s.wall_ns as f64)
        / cell.wall_ns.max(1) as f64;
    for b in &sd.histogram {
        match cd.histogram.iter_mut().find(|c| c.le_ns == b.le_ns) {
            Some(c) => c.count += b.count,
            None => cd.histogram.push(*b),
        }
    }
    cd.histogram.sort_by_key(|b| b.le_ns);
}
