//! The character card as tables: one per target (operations grouped by component: sharing,
//! ops/s at one job, the curve, the best job count with its interval, the class and the lock
//! that stops it), and for two or more targets a differential card (each target's ops/s over
//! the first's at every job count, and the lock that appears or disappears).

use crate::format::count;
use crate::table::{Column, Table};
use fsbench_model::RunRecord;
use fsbench_model::card::{Card, CardCell, CardLock};

/// A lock in a few words: kind, caller chain, its share at the most jobs.
pub fn lock_text(l: &CardLock) -> String {
    format!(
        "{} {}, {:.0}% of the time at J={}",
        l.kind,
        l.caller,
        l.share * 100.0,
        l.jobs
    )
}

/// Why no lock is named on a cell: the largest wait at the most jobs (never the scheduler's
/// run-queue locks, whose time is the preemption's, nor one taken by the operation's recycling)
/// and its share of the jobs' time at each job count, so a reader sees how far it was from the
/// rule; `-` without a profile.
pub fn no_lock_text(c: &CardCell) -> String {
    if c.points.iter().all(|p| p.lock_wait_ns_per_op.is_none()) {
        return "-".into();
    }
    let aside = fsbench_model::card::card_op(&c.op).map_or(&[][..], |o| o.kind.recycling_frames());
    let real = |l: &&CardLock| {
        !fsbench_model::profile::is_scheduler_lock(&l.caller)
            && !aside.iter().any(|f| l.caller.contains(f))
    };
    let Some(largest) = c
        .points
        .iter()
        .rev()
        .find_map(|p| p.locks.iter().find(real))
    else {
        return "none: no lock waited outside the scheduler's run queues".into();
    };
    let same = |l: &&CardLock| l.kind == largest.kind && l.caller == largest.caller;
    let shares: Vec<String> = c
        .points
        .iter()
        .filter(|p| p.lock_wait_ns_per_op.is_some())
        .map(|p| {
            let share = p.locks.iter().find(same).map_or(0.0, |l| l.share);
            format!("{}:{}", p.jobs, pct(share))
        })
        .collect();
    format!(
        "none met the rule; largest wait {} {}: {} of the time by jobs",
        largest.kind,
        largest.caller,
        shares.join(" ")
    )
}

/// A share (0–1) as a percentage, with one decimal below 1%.
fn pct(share: f64) -> String {
    match share * 100.0 {
        p if p < 1.0 => format!("{p:.1}%"),
        p => format!("{p:.0}%"),
    }
}

/// The scaling of a cell in words: class, then what happens above the CPUs.
pub fn scaling_text(c: &CardCell) -> String {
    match &c.oversubscribed {
        Some(o) => format!("{}; {o}", c.class.name()),
        None => c.class.name().to_string(),
    }
}

/// `1:12.3k 2:20.1k 4:19.8k`: ops/s by job count.
pub fn curve_text(c: &CardCell) -> String {
    c.points
        .iter()
        .map(|p| format!("{}:{}", p.jobs, count(p.ops_per_s)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn best_text(c: &CardCell) -> String {
    let Some(best) = c.best_jobs else {
        return "-".into();
    };
    c.points
        .iter()
        .find(|p| p.jobs == best)
        .map_or("-".into(), |p| {
            format!(
                "J={best}: {} ({}–{})",
                count(p.ops_per_s),
                count(p.ci95_low),
                count(p.ci95_high)
            )
        })
}

/// One target's card.
pub fn card_table(card: &Card) -> Table {
    let mut t = Table::new(
        &format!(
            "Character card of {} ({} CPUs; ops/s, the class judged up to the CPUs)",
            card.target, card.cpus
        ),
        vec![
            Column::text("component"),
            Column::text("operation"),
            Column::text("sharing"),
            Column::number("J=1 ops/s"),
            Column::text("ops/s by jobs").optional(2),
            Column::text("best (95% interval)").optional(1),
            Column::text("scaling"),
            Column::text("the lock that stops it"),
        ],
    );
    let mut last = "";
    for c in &card.cells {
        let one = c
            .points
            .iter()
            .find(|p| p.jobs == 1)
            .map_or("-".into(), |p| count(p.ops_per_s));
        let component = if c.component == last {
            String::new()
        } else {
            c.component.clone()
        };
        last = &c.component;
        t.push(vec![
            component.into(),
            format!("{} {}", c.op, c.name).into(),
            c.sharing.name().into(),
            one.into(),
            curve_text(c).into(),
            best_text(c).into(),
            scaling_text(c).into(),
            c.lock
                .as_ref()
                .map_or_else(|| no_lock_text(c), lock_text)
                .into(),
        ]);
    }
    t.note = "a lock is named when its wait per operation grows with the jobs and takes at least 5% of their time (docs/card.md); where none is, the largest wait and its share at each job count".into();
    t
}

/// Each later card over the first, at every job count they share.
pub fn differential_table(a: &Card, b: &Card) -> Table {
    let mut t = Table::new(
        &format!(
            "Differential card: {} / {} (ops/s ratio by jobs)",
            b.target, a.target
        ),
        vec![
            Column::text("operation"),
            Column::text("B/A by jobs"),
            Column::text(&format!("{} scaling", a.target)),
            Column::text(&format!("{} scaling", b.target)),
            Column::text("lock"),
        ],
    );
    for ca in &a.cells {
        let Some(cb) = b.cells.iter().find(|c| c.op == ca.op) else {
            continue;
        };
        let ratios = ca
            .points
            .iter()
            .filter_map(|pa| {
                let pb = cb.points.iter().find(|p| p.jobs == pa.jobs)?;
                (pa.ops_per_s > 0.0)
                    .then(|| format!("{}:{}", pa.jobs, ratio(pb.ops_per_s / pa.ops_per_s)))
            })
            .collect::<Vec<_>>()
            .join(" ");
        t.push(vec![
            format!("{} {}", ca.op, ca.name).into(),
            ratios.into(),
            scaling_text(ca).into(),
            scaling_text(cb).into(),
            lock_change(ca.lock.as_ref(), cb.lock.as_ref()).into(),
        ]);
    }
    t
}

/// A ratio with two decimals, or three significant ones below 0.1 (a FUSE layer is 0.003 of
/// the filesystem under it, not 0.00).
pub fn ratio(r: f64) -> String {
    if r >= 0.1 {
        format!("{r:.2}")
    } else {
        format!("{r:.1e}")
    }
}

/// What a lock did between two cards: the same, appeared, disappeared, or another.
pub fn lock_change(a: Option<&CardLock>, b: Option<&CardLock>) -> String {
    let name = |l: &CardLock| format!("{} {}", l.kind, l.caller);
    match (a, b) {
        (None, None) => "-".into(),
        (Some(x), Some(y)) if name(x) == name(y) => format!("both: {}", name(x)),
        (None, Some(y)) => format!("appears: {}", name(y)),
        (Some(x), None) => format!("disappears: {}", name(x)),
        (Some(x), Some(y)) => format!("{} → {}", name(x), name(y)),
    }
}

/// The card's tables: one per target, then the differential of each later target.
pub fn tables(record: &RunRecord) -> Vec<Table> {
    let mut out: Vec<Table> = record.cards.iter().map(card_table).collect();
    if let Some((first, rest)) = record.cards.split_first() {
        out.extend(rest.iter().map(|b| differential_table(first, b)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::card::{CardClass, CardPoint, Sharing};

    fn lock(caller: &str, share: f64, jobs: u32) -> CardLock {
        CardLock {
            kind: "rwsem-write".into(),
            caller: caller.into(),
            wait_ns_per_op: share * 1e4,
            share,
            jobs,
        }
    }

    fn point(jobs: u32, profiled: bool, locks: Vec<CardLock>) -> CardPoint {
        CardPoint {
            jobs,
            ops_per_s: 1000.0 * f64::from(jobs),
            ci95_low: 0.0,
            ci95_high: 0.0,
            user_pct: None,
            sys_pct: None,
            idle_pct: None,
            iowait_pct: None,
            lock_wait_ns_per_op: profiled.then_some(10.0),
            locks,
            top_frames: Vec::new(),
        }
    }

    fn cell(points: Vec<CardPoint>) -> CardCell {
        CardCell {
            op: "MWUM".into(),
            name: "unlink in a shared directory".into(),
            component: "namespace".into(),
            sharing: Sharing::Medium,
            points,
            best_jobs: None,
            class: CardClass::Scales,
            oversubscribed: None,
            lock: None,
        }
    }

    #[test]
    fn a_cell_naming_no_lock_shows_its_largest_wait_at_every_job_count() {
        let c = cell(vec![
            point(1, true, vec![]),
            point(2, true, vec![lock("down_write <- do_unlinkat", 0.004, 2)]),
            point(
                4,
                true,
                vec![
                    lock("down_write <- do_unlinkat", 0.031, 4),
                    lock("other", 0.01, 4),
                ],
            ),
        ]);
        assert_eq!(
            no_lock_text(&c),
            "none met the rule; largest wait rwsem-write down_write <- do_unlinkat: 1:0.0% 2:0.4% 4:3% of the time by jobs"
        );
        // An unlink job's recycling creates its names: the create's lock is not the unlink's.
        let recycling = lock("down_write <- path_openat <- do_filp_open", 0.06, 2);
        let mut unlink = cell(vec![
            point(1, true, vec![]),
            point(2, true, vec![recycling]),
        ]);
        unlink.op = "MWUM".into();
        assert_eq!(
            no_lock_text(&unlink),
            "none: no lock waited outside the scheduler's run queues"
        );
        let switching = lock(
            "_raw_spin_lock <- raw_spin_rq_lock_nested <- __schedule",
            0.2,
            2,
        );
        let quiet = cell(vec![
            point(1, true, vec![]),
            point(2, true, vec![switching]),
        ]);
        assert_eq!(
            no_lock_text(&quiet),
            "none: no lock waited outside the scheduler's run queues"
        );
        let unprofiled = cell(vec![point(1, false, vec![]), point(2, false, vec![])]);
        assert_eq!(no_lock_text(&unprofiled), "-");
        let t = card_table(&Card {
            target: "ext4".into(),
            cpus: 2,
            cells: vec![c],
        });
        let text = crate::table::markdown::render(&t);
        assert!(text.contains("largest wait rwsem-write"), "{text}");
    }
}
