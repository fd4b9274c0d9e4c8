//! postmark's reports (verbose and terse) in its exact layout, computed from the whole-second
//! `time()` marks the way postmark computes them, and fsbench's precise timings after them.

use fsbench_workload::engines::postmark::{KINDS, PmConfig, PmCounts, PmOpTimes, PmTimes};
use std::fmt::Write;

/// postmark's `scalef` with its `"%.2f megabytes"` / `"%.2f kilobytes"` / `"%f bytes"`.
fn scalef(v: f32) -> String {
    if v / 1_048_576.0 > 1.0 {
        format!("{:.2} megabytes", v / 1_048_576.0)
    } else if v != 0.0 {
        format!("{:.2} kilobytes", v / 1024.0)
    } else {
        format!("{v:.6} bytes")
    }
}

/// `diff_time`: b - a in seconds, or 1 when that is 0.
fn diff(a: u64, b: u64) -> u64 {
    match b.saturating_sub(a) {
        0 => 1,
        d => d,
    }
}

/// postmark's report for a completed run.
pub fn postmark_report(cfg: &PmConfig, c: &PmCounts, t: &PmTimes, terse: bool) -> String {
    let elapsed = diff(t.secs[0], t.secs[3]);
    let t_elapsed = diff(t.secs[1], t.secs[2]);
    let create_iv = diff(t.secs[0], t.secs[1]);
    let delete_iv = diff(t.secs[2], t.secs[3]);
    let mixed_created = c.created - cfg.number.min(c.created);
    let mixed_deleted = c.deleted - c.deleted_final;
    if terse {
        let f = |a: u64, b: u64| format!("{:.2}", a as f64 / b as f64);
        return format!(
            "{} {} {} {} {} {} {} {} {} {} {} {:.2} {:.2}\n",
            elapsed,
            t_elapsed,
            f(cfg.transactions, t_elapsed),
            f(c.created, elapsed),
            f(cfg.number, create_iv),
            f(mixed_created, t_elapsed),
            f(c.read, t_elapsed),
            f(c.appended, t_elapsed),
            f(c.created, elapsed),
            f(c.deleted_final, delete_iv),
            f(mixed_deleted, t_elapsed),
            c.bytes_read_f32 / elapsed as f32,
            c.bytes_written_f32 / elapsed as f32
        );
    }
    let mut s = String::new();
    let _ = writeln!(s, "Time:\n\t{elapsed} seconds total");
    let _ = writeln!(
        s,
        "\t{t_elapsed} seconds of transactions ({} per second)\n",
        cfg.transactions / t_elapsed
    );
    let _ = writeln!(
        s,
        "Files:\n\t{} created ({} per second)",
        c.created,
        c.created / elapsed
    );
    let _ = writeln!(
        s,
        "\t\tCreation alone: {} files ({} per second)",
        cfg.number,
        cfg.number / create_iv
    );
    let _ = writeln!(
        s,
        "\t\tMixed with transactions: {mixed_created} files ({} per second)",
        mixed_created / t_elapsed
    );
    let _ = writeln!(s, "\t{} read ({} per second)", c.read, c.read / t_elapsed);
    let _ = writeln!(
        s,
        "\t{} appended ({} per second)",
        c.appended,
        c.appended / t_elapsed
    );
    let _ = writeln!(
        s,
        "\t{} deleted ({} per second)",
        c.created,
        c.created / elapsed
    );
    let _ = writeln!(
        s,
        "\t\tDeletion alone: {} files ({} per second)",
        c.deleted_final,
        c.deleted_final / delete_iv
    );
    let _ = writeln!(
        s,
        "\t\tMixed with transactions: {mixed_deleted} files ({} per second)\n",
        mixed_deleted / t_elapsed
    );
    let (r, w) = (c.bytes_read_f32, c.bytes_written_f32);
    let _ = writeln!(
        s,
        "Data:\n\t{} read ({} per second)",
        scalef(r),
        scalef(r / elapsed as f32)
    );
    let _ = writeln!(
        s,
        "\t{} written ({} per second)",
        scalef(w),
        scalef(w / elapsed as f32)
    );
    s
}

/// fsbench's precise timings of the same run.
pub fn precise(c: &PmCounts, t: &PmTimes, ops: &PmOpTimes, user_ns: u64, sys_ns: u64) -> String {
    let ms = |ns: u64| ns as f64 / 1e6;
    let mut s = String::from("\nPrecise timings (fsbench, monotonic clock):\n");
    let _ = writeln!(s, "\t{:.3} ms total", ms(t.ns[3] - t.ns[0]));
    let _ = writeln!(s, "\t{:.3} ms creating the pool", ms(t.ns[1] - t.ns[0]));
    let _ = writeln!(s, "\t{:.3} ms of transactions", ms(t.ns[2] - t.ns[1]));
    let _ = writeln!(s, "\t{:.3} ms deleting", ms(t.ns[3] - t.ns[2]));
    for (k, kind) in KINDS.iter().enumerate() {
        if ops.count[k] > 0 {
            let mean = ops.total_ns[k] as f64 / ops.count[k] as f64 / 1e3;
            let _ = writeln!(
                s,
                "\t{kind}: {} operations, mean {mean:.1} us",
                ops.count[k]
            );
        }
    }
    let _ = writeln!(
        s,
        "\tCPU: user {:.3} ms, sys {:.3} ms",
        ms(user_ns),
        ms(sys_ns)
    );
    let _ = writeln!(
        s,
        "\tbytes: {} read, {} written (exact)",
        c.bytes_read, c.bytes_written
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalef_matches_postmark() {
        assert_eq!(scalef(38072.0), "37.18 kilobytes");
        assert_eq!(scalef(1_048_576.0), "1024.00 kilobytes");
        assert_eq!(scalef(3.0 * 1_048_576.0), "3.00 megabytes");
        assert_eq!(scalef(0.0), "0.000000 bytes");
    }
}
