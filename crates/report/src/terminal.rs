//! The terminal report of a run: a header (host, targets, fsbench's own overhead), a table of
//! headline metrics per target × workload × cache state (median, mean ± stddev, min–max, n,
//! cache residency), a table of CPU and latency, then warnings and failures.

use crate::format::{duration_ns, metric_number};
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets};
use fsbench_model::{CacheState, ResultEntry, RunRecord};
use std::fmt::Write;

/// Options of the terminal report.
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalOptions {
    /// Table width in columns (`None`: no wrapping).
    pub width: Option<u16>,
    /// Draw ministat's distribution plot for each comparison.
    pub plot: bool,
}

/// The tables `fsbench run` prints, with these options.
#[derive(Debug, Clone, Copy, Default)]
pub struct Terminal(pub TerminalOptions);

impl crate::export::Renderer for Terminal {
    fn format(&self) -> &'static str {
        "terminal"
    }

    fn render(&self, record: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut text = String::new();
        render(record, self.0, &mut text);
        out.write_all(crate::format::terminal_safe(&text).as_bytes())
    }
}

/// Renders `record` as text.
fn render(record: &RunRecord, opts: TerminalOptions, out: &mut String) {
    header(record, out);
    if record.results.iter().any(|r| !r.samples.is_empty()) {
        let _ = writeln!(out, "{}", headline_table(&record.results, opts));
        let _ = writeln!(out, "{}", cpu_latency_table(&record.results, opts));
        if let Some(t) = bound_table(&record.results, opts) {
            let _ = writeln!(out, "{t}");
        }
        if let Some(t) = crate::ranks::ranks_table(&record.results, opts) {
            let _ = writeln!(out, "{t}");
        }
    }
    for s in &record.scaling {
        let _ = writeln!(out, "{}", scaling_table(s, opts));
        let _ = writeln!(
            out,
            "{} on {} ({}): {}",
            s.workload, s.target, s.cache, s.explanation
        );
    }
    comparisons(record, opts, out);
    notes(&record.results, out);
}

/// A comparison's verdict in words: not comparable (and why), proven, or no difference proven.
pub fn verdict(c: &fsbench_model::Comparison) -> String {
    if !c.comparable {
        format!("not comparable: {}", c.not_comparable.join("; "))
    } else if c.proven {
        format!("proven at {}%", c.confidence)
    } else {
        format!("no difference proven at {}%", c.confidence)
    }
}

/// The comparisons table of `record` (and, with `opts.plot`, ministat's plot of each one).
pub fn comparisons(record: &RunRecord, opts: TerminalOptions, out: &mut String) {
    if record.comparisons.is_empty() {
        return;
    }
    let head = ["metric", "baseline", "vs", "difference", "%", "verdict"];
    let mut t = table(opts, &head);
    for c in &record.comparisons {
        let n = |v: f64| metric_number(&c.metric, v);
        let verdict = verdict(c);
        t.add_row(vec![
            Cell::new(metric_label(&c.metric)),
            Cell::new(&c.baseline),
            Cell::new(&c.other),
            right(format!("{} ± {}", n(c.difference), n(c.ci_half))),
            right(format!("{:+.2}% ± {:.2}%", c.difference_pct, c.ci_half_pct)),
            Cell::new(verdict),
        ]);
    }
    let _ = writeln!(out, "{t}");
    for c in &record.comparisons {
        if let Some(how) = &c.how_to_compare {
            let _ = writeln!(out, "to compare {} with {}: {how}", c.baseline, c.other);
        }
    }
    if opts.plot {
        for c in &record.comparisons {
            plot_comparison(record, c, opts, out);
        }
    }
}

/// ministat's own report (plot, vitals, verdict) for the samples of one comparison.
fn plot_comparison(
    record: &RunRecord,
    c: &fsbench_model::Comparison,
    opts: TerminalOptions,
    out: &mut String,
) {
    let width = opts.width.map(|w| w as usize - 2).unwrap_or(74);
    match ministat_block(record, c, width) {
        Some(text) => {
            let _ = writeln!(
                out,
                "{}: {} vs {}",
                metric_label(&c.metric),
                c.baseline,
                c.other
            );
            out.push_str(&text);
        }
        None => {
            let _ = writeln!(
                out,
                "(no plot for {} vs {}: ministat needs 3 samples per side)",
                c.baseline, c.other
            );
        }
    }
}

/// ministat's report (plot, vitals, verdict) `width` columns wide for the two cells of `c`;
/// `None` when either side has fewer than 3 samples.
pub fn ministat_block(
    record: &RunRecord,
    c: &fsbench_model::Comparison,
    width: usize,
) -> Option<String> {
    use fsbench_stats::ministat::{self, Dataset, Options};
    let find = |label: &str| {
        record
            .results
            .iter()
            .find(|r| label_of(r) == label)
            .map(|r| {
                let v: Vec<f64> = r
                    .samples
                    .iter()
                    .filter_map(|s| s.metrics.get(&c.metric).copied())
                    .collect();
                Dataset::from_values(label, &v)
            })
    };
    let (a, b) = (find(&c.baseline)?, find(&c.other)?);
    if a.n() < 3 || b.n() < 3 {
        return None;
    }
    let o = Options {
        width,
        confidence_index: ministat::confidence_index(c.confidence).unwrap_or(2),
        no_plot: false,
        stats_only: false,
        separate_bars: false,
        quiet: false,
        modern: false,
    };
    Some(ministat::render(&[a, b], &o))
}

/// The label comparisons use for a cell (`target/workload[ sweep]/cache`).
pub fn label_of(r: &ResultEntry) -> String {
    let sweep: String = r.sweep.iter().map(|(k, v)| format!(" {k}={v}")).collect();
    format!("{}/{}{}/{}", r.target, r.workload, sweep, r.cache.state)
}

/// `12%`, or `-` when not measured.
fn pct_or_dash(v: Option<f64>) -> String {
    v.filter(|p| p.is_finite())
        .map(|p| format!("{p:.0}%"))
        .unwrap_or_else(|| "-".into())
}

fn scaling_table(s: &fsbench_model::Scaling, opts: TerminalOptions) -> Table {
    let daemon = s.rows.iter().any(|r| r.daemon_cpu_pct.is_some());
    let mut head = vec![
        "J",
        "entries/s",
        "speedup",
        "efficiency",
        "real",
        "user",
        "sys",
        "sys/entry",
        "machine sys",
    ];
    if daemon {
        head.push("daemon CPU");
    }
    let mut t = table(opts, &head);
    for r in &s.rows {
        let mut row = vec![
            right(r.workers.to_string()),
            right(crate::format::count(r.rate)),
            right(format!("{:.2}x", r.speedup)),
            right(format!("{:.0}%", r.efficiency * 100.0)),
            right(duration_ns(r.wall_ns)),
            right(duration_ns(r.user_ns)),
            right(duration_ns(r.sys_ns)),
            right(duration_ns(r.sys_ns_per_entry)),
            right(pct_or_dash(r.machine_sys_pct)),
        ];
        if daemon {
            row.push(right(pct_or_dash(r.daemon_cpu_pct)));
        }
        t.add_row(row);
    }
    t
}

fn header(r: &RunRecord, out: &mut String) {
    let e = &r.environment;
    let _ = writeln!(
        out,
        "fsbench {} · run {} · {} · {} {} · {} CPUs · {}",
        r.run.fsbench_version,
        r.run.id,
        e.hostname,
        e.os,
        e.kernel,
        e.cpus,
        crate::format::bytes(e.memory_bytes)
    );
    for t in &e.targets {
        let what = if t.kind == fsbench_model::TargetKind::Device {
            format!("block device, {}", crate::format::bytes(t.total_bytes))
        } else {
            let enc = match t.encryption.as_str() {
                "" | "none" => String::new(),
                e => format!(", encryption {e}"),
            };
            format!(
                "{} on {} ({}), {} free{enc}",
                t.fs_type,
                t.source,
                t.mount_options,
                crate::format::bytes(t.free_bytes)
            )
        };
        let _ = writeln!(out, "target {} = {}: {what}", t.label, t.path);
        for line in stack_lines(t) {
            let _ = writeln!(out, "  {line}");
        }
    }
    let o = &r.overhead;
    let _ = writeln!(
        out,
        "fsbench overhead: +{:.0} ns per recorded 4 KiB cached read ({:.1}% of {}); recorder alone {:.0} ns",
        o.per_op_ns,
        o.pct_of_4k_cached_read,
        duration_ns(o.reference_read_ns),
        o.recorder_only_ns
    );
    let mut seen = Vec::new();
    for res in &r.results {
        if !seen.contains(&&res.workload) {
            seen.push(&res.workload);
            let p: Vec<String> = res.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(out, "workload {}: {}", res.workload, p.join(" "));
        }
    }
}

/// What the reader must know about a target's stack to read its numbers: each encryption
/// layer's implementation, what is under a FUSE daemon, the devices and whether the disk is a
/// hypervisor's.
pub fn stack_lines(t: &fsbench_model::TargetInfo) -> Vec<String> {
    let mut out = Vec::new();
    for l in &t.stack.encryption {
        if let Some(i) = &l.implementation {
            out.push(format!(
                "cipher: {} {} uses {}",
                l.kind,
                i.algorithm,
                i.describe()
            ));
        }
    }
    if let Some(f) = &t.stack.fuse {
        let under = match (&f.backing_dir, &f.backing) {
            (Some(d), Some(b)) => format!(
                "serves {d} ({} on {})",
                b.fs_type,
                if b.device_chain.is_empty() {
                    "no device".to_string()
                } else {
                    b.device_chain.join(" → ")
                }
            ),
            (Some(d), None) => format!("serves {d}"),
            _ => "serves no local directory".into(),
        };
        out.push(format!(
            "FUSE daemon {} (pid {:?}) {under}",
            f.daemon_command, f.daemon_pids
        ));
    }
    let mut devices = Vec::new();
    collect_chain(t, &mut devices);
    if !devices.is_empty() {
        out.push(format!("devices: {}", devices.join(" → ")));
    }
    if let Some(v) = virtual_disk(t) {
        out.push(format!(
            "the disk is a {v} virtual disk: its host may cache what the guest flushed, so a flushed write can be faster than any disk"
        ));
    }
    out
}

fn collect_chain(t: &fsbench_model::TargetInfo, out: &mut Vec<String>) {
    for l in &t.stack.devices {
        let name = format!("{} ({})", l.name, l.kind);
        if !out.contains(&name) {
            out.push(name);
        }
        if let Some(b) = l.loop_device.as_ref().and_then(|l| l.backing.as_deref()) {
            collect_chain(b, out);
        }
    }
    if let Some(b) = t.stack.fuse.as_ref().and_then(|f| f.backing.as_deref()) {
        collect_chain(b, out);
    }
}

fn virtual_disk(t: &fsbench_model::TargetInfo) -> Option<String> {
    for l in &t.stack.devices {
        if let Some(v) = l.queue.as_ref().and_then(|q| q.virtual_disk.clone()) {
            return Some(v);
        }
        if let Some(v) = l
            .loop_device
            .as_ref()
            .and_then(|l| l.backing.as_deref())
            .and_then(virtual_disk)
        {
            return Some(v);
        }
    }
    t.stack
        .fuse
        .as_ref()
        .and_then(|f| f.backing.as_deref())
        .and_then(virtual_disk)
}

pub(crate) fn table(opts: TerminalOptions, head: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED);
    match opts.width {
        Some(w) => {
            t.set_width(w);
            t.set_content_arrangement(ContentArrangement::Dynamic);
        }
        None => {
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    t.set_header(head.iter().map(|h| Cell::new(*h)));
    t
}

pub(crate) fn right(s: String) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

/// The workload's name with the swept parameters of this cell (`walk workers=2`).
pub(crate) fn workload_label(r: &ResultEntry) -> String {
    let mut s = r.workload.clone();
    for (k, v) in &r.sweep {
        s.push_str(&format!(" {k}={v}"));
    }
    s
}

pub(crate) fn cache_label(r: &ResultEntry) -> String {
    let res = r
        .cache
        .resident_pct
        .map(|p| format!(" {p:.0}%"))
        .unwrap_or_default();
    if r.cache.state == CacheState::Cold {
        format!("cold ({}){res}", r.cache.method)
    } else {
        format!("warm{res}")
    }
}

fn headline_table(results: &[ResultEntry], opts: TerminalOptions) -> Table {
    let mut t = table(
        opts,
        &[
            "target",
            "workload",
            "cache (cached)",
            "metric",
            "median",
            "mean ± sd",
            "min – max",
            "n",
        ],
    );
    for r in results {
        for name in std::iter::once(&r.headline).chain(&r.also_shown) {
            headline_row(&mut t, r, name);
        }
    }
    t
}

/// One row of the headline table: cell `r`'s metric `name`.
fn headline_row(t: &mut Table, r: &ResultEntry, name: &str) {
    let Some(s) = r.summary.get(name) else {
        return;
    };
    let n = |v: f64| metric_number(name, v);
    let outliers = r.samples.iter().filter(|s| s.outlier).count();
    let count = if outliers > 0 {
        format!("{} ({outliers} outl.)", s.n)
    } else {
        s.n.to_string()
    };
    let metric = metric_label(name);
    t.add_row(vec![
        Cell::new(&r.target),
        Cell::new(workload_label(r)),
        Cell::new(cache_label(r)),
        Cell::new(metric),
        right(n(s.median)),
        right(format!("{} ± {}", n(s.mean), n(s.stddev))),
        right(format!("{} – {}", n(s.min), n(s.max))),
        right(count),
    ]);
}

/// A short column label for a metric, from the catalogue.
pub fn metric_label(name: &str) -> String {
    fsbench_model::label_of(name)
}

/// The mean of metric `name` in `r`; `None` when the cell has no such metric.
fn mean_of(r: &ResultEntry, name: &str) -> Option<f64> {
    r.summary
        .get(name)
        .map(|s| s.mean)
        .filter(|v| v.is_finite())
}

/// A time, or `-` when there is none.
fn duration_or_dash(ns: Option<f64>) -> String {
    ns.map_or_else(|| "-".into(), duration_ns)
}

/// The median over the samples of one latency figure; `None` without latencies.
fn median_latency(r: &ResultEntry, pick: fn(&fsbench_model::LatencySummary) -> f64) -> Option<f64> {
    let mut v: Vec<f64> = r
        .samples
        .iter()
        .filter_map(|s| s.latency.as_ref().map(pick))
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// Below this much CPU capacity (wall × CPUs, summed over a cell's samples) the machine's
/// shares rest on under 20 clock ticks of 10 ms: shown with `~`.
const COARSE_CAPACITY_NS: u64 = 200_000_000;

fn coarse_machine_shares(r: &ResultEntry) -> bool {
    let capacity: u64 = r
        .samples
        .iter()
        .filter_map(|s| {
            s.machine
                .map(|m| s.wall_ns.saturating_mul(u64::from(m.cpus)))
        })
        .fold(0, u64::saturating_add);
    capacity > 0 && capacity < COARSE_CAPACITY_NS
}

/// What bounded each cell, with the evidence; `None` when no cell was judged.
fn bound_table(results: &[ResultEntry], opts: TerminalOptions) -> Option<Table> {
    if results.iter().all(|r| r.bound.is_none()) {
        return None;
    }
    let mut t = table(
        opts,
        &["target", "workload", "cache", "bound by", "evidence"],
    );
    for r in results {
        if let Some(b) = &r.bound {
            t.add_row(vec![
                Cell::new(&r.target),
                Cell::new(workload_label(r)),
                Cell::new(r.cache.state),
                Cell::new(b.by),
                Cell::new(&b.evidence),
            ]);
        }
    }
    Some(t)
}

fn cpu_latency_table(results: &[ResultEntry], opts: TerminalOptions) -> Table {
    let any = |name: &str| results.iter().any(|r| r.summary.contains_key(name));
    let daemon = any(fsbench_model::metric::DAEMON_CPU_PCT);
    let device = any(fsbench_model::metric::DEVICE_BUSY_PCT);
    let mut head = vec![
        "target",
        "workload",
        "cache",
        "real",
        "user",
        "sys",
        "%CPU",
        "machine sys",
    ];
    if daemon {
        head.push("daemon CPU");
    }
    if device {
        head.extend(["device busy", "device read", "device written"]);
    }
    head.extend(["lat p50", "p99", "p99.9", "max"]);
    let mut t = table(opts, &head);
    for r in results.iter().filter(|r| !r.samples.is_empty()) {
        let machine_sys = pct_or_dash(
            r.summary
                .get(fsbench_model::metric::MACHINE_SYS_PCT)
                .map(|s| s.mean),
        );
        let machine_sys = if coarse_machine_shares(r) {
            format!("~{machine_sys}")
        } else {
            machine_sys
        };
        let mut row = vec![
            Cell::new(&r.target),
            Cell::new(workload_label(r)),
            Cell::new(r.cache.state),
            right(duration_or_dash(mean_of(r, fsbench_model::metric::WALL_NS))),
            right(duration_or_dash(mean_of(r, fsbench_model::metric::USER_NS))),
            right(duration_or_dash(mean_of(r, fsbench_model::metric::SYS_NS))),
            right(pct_or_dash(mean_of(r, fsbench_model::metric::CPU_PCT))),
            right(machine_sys),
        ];
        if daemon {
            row.push(right(pct_or_dash(mean_of(
                r,
                fsbench_model::metric::DAEMON_CPU_PCT,
            ))));
        }
        if device {
            let bytes = |name: &str| {
                mean_of(r, name).map_or_else(|| "-".into(), |b| crate::format::bytes(b as u64))
            };
            row.push(right(pct_or_dash(mean_of(
                r,
                fsbench_model::metric::DEVICE_BUSY_PCT,
            ))));
            row.push(right(bytes(fsbench_model::metric::DEVICE_READ_BYTES)));
            row.push(right(bytes(fsbench_model::metric::DEVICE_WRITE_BYTES)));
        }
        row.extend([
            right(duration_or_dash(median_latency(r, |l| l.p50_ns as f64))),
            right(duration_or_dash(median_latency(r, |l| l.p99_ns as f64))),
            right(duration_or_dash(median_latency(r, |l| l.p999_ns as f64))),
            right(duration_or_dash(median_latency(r, |l| l.max_ns as f64))),
        ]);
        t.add_row(row);
    }
    t
}

fn notes(results: &[ResultEntry], out: &mut String) {
    for r in results {
        for w in &r.warnings {
            let _ = writeln!(
                out,
                "note: {} on {} ({}): {w}",
                r.workload, r.target, r.cache.state
            );
        }
        if let Some(e) = &r.error {
            let _ = writeln!(
                out,
                "FAILED: {} on {} ({}): {e}",
                r.workload, r.target, r.cache.state
            );
        }
    }
}
