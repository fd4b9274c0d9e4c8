//! Postmark's text, reproduced byte for byte: the verbose and terse reports, `show`, and the
//! size scaling (`scale` for ints, `scalef` for its `float` byte counters, computed in `f32`
//! like the C). Plus fsbench's own block of precise timings, printed after the report.
//! Pure functions from numbers to text.

use crate::engine::Config;
use fsbench_measure::LatencyStats;
use std::fmt::Write;

const KILOBYTE: i32 = 1024;
const MEGABYTE: i32 = KILOBYTE * KILOBYTE;

/// The numbers postmark's reports print; counters in postmark's C `int` / `float` types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportData {
    /// Whole seconds from start to end (at least 1).
    pub elapsed: i64,
    /// Whole seconds of transactions (at least 1).
    pub t_elapsed: i64,
    /// Whole seconds of pool creation (at least 1).
    pub create_interval: i64,
    /// Whole seconds of the final deletion (at least 1).
    pub delete_interval: i64,
    /// Configured transactions.
    pub transactions: i32,
    /// Configured pool size (`set number`).
    pub simultaneous: i32,
    /// Files created.
    pub files_created: i32,
    /// Files deleted.
    pub files_deleted: i32,
    /// Files read.
    pub files_read: i32,
    /// Files appended.
    pub files_appended: i32,
    /// Files deleted in the final phase.
    pub deleted_alone: i32,
    /// Bytes read (postmark's float counter).
    pub bytes_read: f32,
    /// Bytes written (postmark's float counter).
    pub bytes_written: f32,
}

/// `diff_time`: whole-second difference, 1 when 0 (postmark avoids dividing by zero).
pub fn diff_time(t1: i64, t0: i64) -> i64 {
    match t1 - t0 {
        0 => 1,
        d => d,
    }
}

/// `scale(int)`: sizes in `show`.
pub fn scale(i: i32) -> String {
    if i / MEGABYTE != 0 {
        format!("{:.2} megabytes", f64::from(i as f32 / MEGABYTE as f32))
    } else if i / KILOBYTE != 0 {
        format!("{:.2} kilobytes", f64::from(i as f32 / KILOBYTE as f32))
    } else {
        format!("{i} bytes")
    }
}

/// `scalef(float)`: byte counters in the verbose report.
pub fn scalef(i: f32) -> String {
    if i / MEGABYTE as f32 > 1.0 {
        format!("{:.2} megabytes", f64::from(i / MEGABYTE as f32))
    } else if i / KILOBYTE as f32 != 0.0 {
        format!("{:.2} kilobytes", f64::from(i / KILOBYTE as f32))
    } else {
        format!("{:.6} bytes", f64::from(i))
    }
}

/// Postmark's verbose report.
pub fn verbose(r: &ReportData) -> String {
    let (el, tel) = (r.elapsed, r.t_elapsed);
    let created = i64::from(r.files_created);
    let mixed_created = i64::from(r.files_created - r.simultaneous);
    let mixed_deleted = i64::from(r.files_deleted - r.deleted_alone);
    let mut s = String::new();
    let _ = write!(
        s,
        "Time:\n\t{el} seconds total\n\t{tel} seconds of transactions ({} per second)\n",
        i64::from(r.transactions) / tel
    );
    let _ = write!(
        s,
        "\nFiles:\n\t{created} created ({} per second)\n",
        created / el
    );
    let _ = writeln!(
        s,
        "\t\tCreation alone: {} files ({} per second)",
        r.simultaneous,
        i64::from(r.simultaneous) / r.create_interval
    );
    let _ = writeln!(
        s,
        "\t\tMixed with transactions: {mixed_created} files ({} per second)",
        mixed_created / tel
    );
    let _ = writeln!(
        s,
        "\t{} read ({} per second)",
        r.files_read,
        i64::from(r.files_read) / tel
    );
    let _ = writeln!(
        s,
        "\t{} appended ({} per second)",
        r.files_appended,
        i64::from(r.files_appended) / tel
    );
    let _ = writeln!(s, "\t{created} deleted ({} per second)", created / el);
    let _ = writeln!(
        s,
        "\t\tDeletion alone: {} files ({} per second)",
        r.deleted_alone,
        i64::from(r.deleted_alone) / r.delete_interval
    );
    let _ = writeln!(
        s,
        "\t\tMixed with transactions: {mixed_deleted} files ({} per second)",
        mixed_deleted / tel
    );
    let elf = el as f32;
    let _ = write!(
        s,
        "\nData:\n\t{} read ({} per second)\n\t{} written ({} per second)\n",
        scalef(r.bytes_read),
        scalef(r.bytes_read / elf),
        scalef(r.bytes_written),
        scalef(r.bytes_written / elf)
    );
    s
}

/// Postmark's terse report: one line of 13 fields.
pub fn terse(r: &ReportData) -> String {
    let (el, tel, ci, di) = (
        r.elapsed as f32,
        r.t_elapsed as f32,
        r.create_interval as f32,
        r.delete_interval as f32,
    );
    let f = |x: f32| format!("{:.2}", f64::from(x));
    let fields = [
        f(r.transactions as f32 / tel),
        f(r.files_created as f32 / el),
        f(r.simultaneous as f32 / ci),
        f((r.files_created - r.simultaneous) as f32 / tel),
        f(r.files_read as f32 / tel),
        f(r.files_appended as f32 / tel),
        f(r.files_created as f32 / el),
        f(r.deleted_alone as f32 / di),
        f((r.files_deleted - r.deleted_alone) as f32 / tel),
        f(r.bytes_read / el),
        f(r.bytes_written / el),
    ];
    format!("{} {} {}\n", r.elapsed, r.t_elapsed, fields.join(" "))
}

/// `show`'s text up to the location list and after it: (head, tail). Postmark prints the
/// per-location lines in between on standard output even when `show FILE` redirects the rest.
pub fn show(cfg: &Config, terse: bool, workdir: &str, many: bool) -> (String, String) {
    let mut h = String::new();
    let _ = writeln!(h, "Current configuration is:");
    let _ = writeln!(h, "The base number of files is {}", cfg.number);
    let _ = writeln!(h, "Transactions: {}", cfg.transactions);
    let (lo, hi) = (cfg.size_low as i32, cfg.size_high as i32);
    if lo != hi {
        let _ = writeln!(
            h,
            "Files range between {} and {} in size",
            scale(lo),
            scale(hi)
        );
    } else {
        let _ = writeln!(h, "Files are {} in size", scale(lo));
    }
    let plural = if many { "ies" } else { "y" };
    let _ = writeln!(h, "Working director{plural}: {workdir}");
    let mut t = String::new();
    if cfg.subdirectories > 0 {
        let y = if cfg.subdirectories == 1 { "y" } else { "ies" };
        let _ = writeln!(t, "{} subdirector{y} will be used", cfg.subdirectories);
    }
    let _ = writeln!(
        t,
        "Block sizes are: read={}, write={}",
        scale(cfg.read_block as i32),
        scale(cfg.write_block as i32)
    );
    let _ = writeln!(
        t,
        "Biases are: read/append={}, create/delete={}",
        cfg.bias_read, cfg.bias_create
    );
    let u = if cfg.buffering { "U" } else { "Not u" };
    let _ = writeln!(t, "{u}sing Unix buffered file I/O");
    let _ = writeln!(t, "Random number generator seed is {}", cfg.seed);
    let fmt = if terse { "terse" } else { "verbose" };
    let _ = writeln!(t, "Report format is {fmt}.");
    (h, t)
}

/// fsbench's precise measurements of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Precise {
    /// Nanoseconds of pool creation, transactions and final deletion.
    pub phases_ns: [u64; 3],
    /// Transactions performed.
    pub transactions: u64,
    /// True when the run stopped out of files.
    pub incomplete: bool,
    /// Latency statistics per kind (create, read, append, delete); `None` when none happened.
    pub latency: [Option<LatencyStats>; 4],
    /// User and system CPU of the run, in nanoseconds.
    pub cpu_ns: (u64, u64),
}

fn ms(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

fn lat(ns: u64) -> String {
    if ns >= 1_000_000 {
        format!("{:.2} ms", ns as f64 / 1e6)
    } else {
        format!("{:.1} us", ns as f64 / 1e3)
    }
}

/// The block printed after postmark's report, separated by a blank line and a header.
pub fn precise(p: &Precise) -> String {
    let [c, t, d] = p.phases_ns;
    let mut s =
        String::from("\n--- fsbench: precise timings (not part of PostMark's report) ---\n");
    if p.incomplete {
        s.push_str("Run incomplete: out of files (PostMark prints no report).\n");
    }
    let _ = writeln!(
        s,
        "Phases: creation {}, transactions {}, deletion {}, total {}",
        ms(c),
        ms(t),
        ms(d),
        ms(c + t + d)
    );
    let per_s = p.transactions as f64 / (t.max(1) as f64 / 1e9);
    let _ = writeln!(
        s,
        "Transactions: {} ({per_s:.1} per second)",
        p.transactions
    );
    s.push_str("Latency per operation (count, mean, p50, p99, max):\n");
    for (name, l) in ["create", "read", "append", "delete"]
        .iter()
        .zip(&p.latency)
    {
        match l {
            Some(l) => {
                let _ = writeln!(
                    s,
                    "\t{name}: {}, {}, {}, {}, {}",
                    l.count,
                    lat(l.mean_ns as u64),
                    lat(l.p50_ns),
                    lat(l.p99_ns),
                    lat(l.max_ns)
                );
            }
            None => {
                let _ = writeln!(s, "\t{name}: 0");
            }
        }
    }
    let _ = writeln!(s, "CPU: user {}, sys {}", ms(p.cpu_ns.0), ms(p.cpu_ns.1));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_run() -> ReportData {
        // Debian postmark with default settings (a 1-second run).
        ReportData {
            elapsed: 1,
            t_elapsed: 1,
            create_interval: 1,
            delete_interval: 1,
            transactions: 500,
            simultaneous: 500,
            files_created: 764,
            files_deleted: 764,
            files_read: 243,
            files_appended: 257,
            deleted_alone: 528,
            bytes_read: 1_426_063.0,
            bytes_written: 4_666_163.0,
        }
    }

    #[test]
    fn verbose_layout_is_postmarks() {
        let s = verbose(&default_run());
        assert!(s.starts_with("Time:\n\t1 seconds total\n\t1 seconds of transactions (500 per second)\n\nFiles:\n\t764 created (764 per second)\n\t\tCreation alone: 500 files (500 per second)\n\t\tMixed with transactions: 264 files (264 per second)\n"), "{s}");
        assert!(s.contains("\t764 deleted (764 per second)\n\t\tDeletion alone: 528 files (528 per second)\n\t\tMixed with transactions: 236 files (236 per second)\n\nData:\n\t1.36 megabytes read (1.36 megabytes per second)\n"), "{s}");
    }

    #[test]
    fn scaling_follows_the_c_quirks() {
        assert_eq!(scalef(0.0), "0.000000 bytes");
        assert_eq!(scalef(1_048_576.0), "1024.00 kilobytes");
        assert_eq!(scalef(512.0), "0.50 kilobytes");
        assert_eq!(scale(500), "500 bytes");
        assert_eq!(scale(10000), "9.77 kilobytes");
        assert_eq!(scale(1_048_576), "1.00 megabytes");
    }

    #[test]
    fn terse_has_thirteen_fields() {
        let s = terse(&default_run());
        assert_eq!(s.split_whitespace().count(), 13);
        assert!(
            s.starts_with("1 1 500.00 764.00 500.00 264.00 243.00 257.00 764.00 528.00 236.00 ")
        );
    }

    #[test]
    fn show_matches_postmark() {
        let cfg = Config {
            number: 10,
            transactions: 20,
            ..Config::default()
        };
        let (h, t) = show(&cfg, true, "/tmp/pm", false);
        assert_eq!(
            h,
            "Current configuration is:\nThe base number of files is 10\nTransactions: 20\nFiles range between 500 bytes and 9.77 kilobytes in size\nWorking directory: /tmp/pm\n"
        );
        assert_eq!(
            t,
            "Block sizes are: read=512 bytes, write=512 bytes\nBiases are: read/append=5, create/delete=5\nUsing Unix buffered file I/O\nRandom number generator seed is 42\nReport format is terse.\n"
        );
    }
}
