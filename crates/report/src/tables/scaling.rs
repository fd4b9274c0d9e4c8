//! The scaling table of a workers sweep: per J the rate, speedup, efficiency, times, kernel
//! time per entry, the machine's kernel share and a FUSE daemon's CPU, with the verdict after.

use super::pct_or_dash;
use crate::format::duration_ns;
use crate::table::{Column, Table};
use fsbench_model::Scaling;

/// The table of one sweep, its verdict as the note.
pub fn table(s: &Scaling) -> Table {
    let daemon = s.rows.iter().any(|r| r.daemon_cpu_pct.is_some());
    let mut cols = vec![
        Column::number("J"),
        Column::number("entries/s"),
        Column::number("speedup"),
        Column::number("efficiency").optional(3),
        Column::number("real").optional(2),
        Column::number("user").optional(1),
        Column::number("sys").optional(2),
        Column::number("sys/entry"),
        Column::number("machine sys").optional(4),
    ];
    if daemon {
        cols.push(Column::number("daemon CPU"));
    }
    let mut t = Table::new(
        &format!("Scaling of {} on {} ({})", s.workload, s.target, s.cache),
        cols,
    );
    for r in &s.rows {
        let mut row = vec![
            r.workers.to_string().into(),
            crate::format::count(r.rate).into(),
            format!("{:.2}x", r.speedup).into(),
            format!("{:.0}%", r.efficiency * 100.0).into(),
            duration_ns(r.wall_ns).into(),
            duration_ns(r.user_ns).into(),
            duration_ns(r.sys_ns).into(),
            duration_ns(r.sys_ns_per_entry).into(),
            pct_or_dash(r.machine_sys_pct).into(),
        ];
        if daemon {
            row.push(pct_or_dash(r.daemon_cpu_pct).into());
        }
        t.push(row);
    }
    // The class once, then what shows it.
    t.note = format!(
        "{} on {} ({}): {} — {}",
        s.workload,
        s.target,
        s.cache,
        s.verdict.name(),
        s.explanation
    );
    t
}
