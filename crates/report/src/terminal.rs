//! The terminal report of a run: a header (host, targets, fsbench's own overhead), a table of
//! headline metrics per target × workload × cache state (median, mean ± stddev, min–max, n,
//! cache residency), a table of CPU and latency, then warnings and failures.

use crate::format::duration_ns;
use crate::names::CellNames;
use crate::table::terminal::Style;
use fsbench_model::RunRecord;
use std::fmt::Write;

/// Options of the terminal report.
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalOptions {
    /// Table width in columns (`None`: no limit).
    pub width: Option<u16>,
    /// Draw ministat's distribution plot for each comparison.
    pub plot: bool,
    /// Unicode box-drawing borders (a terminal) instead of ASCII (files, pipes, logs).
    pub unicode: bool,
    /// The seed layout the run's suite asks for, printed after the standard tables.
    pub seed: Option<fsbench_model::SeedLayout>,
}

impl TerminalOptions {
    /// How tables are drawn with these options.
    pub fn style(self) -> Style {
        Style {
            width: self.width.map(usize::from),
            unicode: self.unicode,
        }
    }
}

/// The head of `fsbench compare A B`: the two runs, then what differs between their
/// environments (`env`, in words).
pub fn compare_head(a: &RunRecord, b: &RunRecord, env: &[String]) -> String {
    let mut text = format!(
        "A = run {} ({})\nB = run {} ({})\n",
        a.run.id, a.run.started_at, b.run.id, b.run.started_at
    );
    if env.is_empty() {
        text.push_str("environment: no differences recorded\n");
    } else {
        text.push_str("environment differences:\n");
        for d in env {
            let _ = writeln!(text, "  {}", fsbench_model::text::escape_controls(d));
        }
    }
    text
}

/// The tables `fsbench run` prints, with these options.
#[derive(Debug, Clone, Copy, Default)]
pub struct Terminal(pub TerminalOptions);

impl crate::Renderer for Terminal {
    fn format(&self) -> crate::Format {
        crate::Format::Terminal
    }

    fn render(&self, record: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut text = String::new();
        render(record, self.0, &mut text);
        out.write_all(crate::format::terminal_safe(&text).as_bytes())
    }
}

/// Renders `record` as text: header, the standard tables, comparisons, the seed layout, notes.
fn render(record: &RunRecord, opts: TerminalOptions, out: &mut String) {
    header(record, out);
    let names = CellNames::new(&record.results);
    if record.run.kind == fsbench_model::RunKind::Card {
        // A card's cells are its points: the card stands in for their tables.
        for t in crate::seed::card::tables(record) {
            out.push_str(&crate::table::terminal::render(&t, opts.style()));
        }
        card_comparisons(record, out);
        notes(record, &names, out);
        return;
    }
    for t in crate::tables::standard(record, &names) {
        out.push_str(&crate::table::terminal::render(&t, opts.style()));
    }
    comparisons(record, opts, out);
    match opts.seed {
        Some(fsbench_model::SeedLayout::Summary) => {
            out.push_str(&crate::seed::summary::render(record))
        }
        kind => {
            for t in crate::seed::tables(kind, record, &names) {
                out.push('\n');
                out.push_str(&crate::table::terminal::render(&t, opts.style()));
            }
        }
    }
    notes(record, &names, out);
}

/// Of a card's comparisons (every point of every later target against the first), the proven
/// ones in one line each; the rest are in the JSON and `fsbench compare`.
fn card_comparisons(record: &RunRecord, out: &mut String) {
    let proven: Vec<&fsbench_model::Comparison> =
        record.comparisons.iter().filter(|c| c.proven).collect();
    if record.comparisons.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "comparisons: {} of {} points differ, proven at 95%",
        proven.len(),
        record.comparisons.len()
    );
    const SHOWN: usize = 10;
    for c in proven.iter().take(SHOWN) {
        let _ = writeln!(out, "  {} vs {}: {}", c.other, c.baseline, verdict(c));
    }
    if proven.len() > SHOWN {
        let _ = writeln!(
            out,
            "  … and {} more (every point in --json, or fsbench compare)",
            proven.len() - SHOWN
        );
    }
}

/// A comparison's verdict in words: not comparable (and why), better or worse (proven), or no
/// difference proven.
pub fn verdict(c: &fsbench_model::Comparison) -> String {
    crate::tables::comparisons::verdict(c)
}

/// The comparisons table of `record` (and, with `opts.plot`, ministat's plot of each baseline
/// with everything compared with it).
pub fn comparisons(record: &RunRecord, opts: TerminalOptions, out: &mut String) {
    let Some(t) = crate::tables::comparisons::table(record, "Comparisons", false, false) else {
        return;
    };
    out.push_str(&crate::table::terminal::render(&t, opts.style()));
    for line in crate::tables::sequential::lines(record) {
        let _ = writeln!(out, "{line}");
    }
    for c in &record.comparisons {
        if let Some(how) = &c.how_to_compare {
            let _ = writeln!(out, "to compare {} with {}: {how}", c.baseline, c.other);
        }
    }
    if opts.plot {
        let width = opts
            .width
            .map_or(74, |w| usize::from(w).saturating_sub(2).max(40));
        for (title, block) in ministat_blocks(record, width) {
            let _ = writeln!(out, "{title}");
            out.push_str(&block);
        }
    }
}

/// A divisor and unit that put `max` in its natural unit for metric `name` (`s` for 2e10 ns);
/// `(1, unit)` for metrics that are not durations.
fn natural_unit(name: &str, max: f64) -> (f64, &'static str) {
    match fsbench_model::catalogue::unit_kind(name) {
        fsbench_model::catalogue::Unit::Ns => {
            if max >= 1e9 {
                (1e9, "s")
            } else if max >= 1e6 {
                (1e6, "ms")
            } else if max >= 1e3 {
                (1e3, "µs")
            } else {
                (1.0, "ns")
            }
        }
        u => (1.0, u.label()),
    }
}

/// ministat's reports (plot, vitals, verdicts) `width` columns wide: one per baseline and metric
/// with up to six cells compared with it overlaid (ministat's seven symbols), in the metric's
/// natural unit; each with a title line. Cells with fewer than 3 samples are left out (and said).
pub fn ministat_blocks(record: &RunRecord, width: usize) -> Vec<(String, String)> {
    let names = CellNames::new(&record.results);
    let mut groups: Vec<(&str, &str, f64, Vec<&str>)> = Vec::new();
    for c in &record.comparisons {
        match groups
            .iter_mut()
            .find(|g| g.0 == c.baseline && g.1 == c.metric && g.2 == c.confidence)
        {
            Some(g) => g.3.push(&c.other),
            None => groups.push((&c.baseline, &c.metric, c.confidence, vec![&c.other])),
        }
    }
    let mut out = Vec::new();
    for (base, metric, confidence, others) in groups {
        for chunk in others.chunks(6) {
            let cells: Vec<&str> = std::iter::once(base).chain(chunk.iter().copied()).collect();
            out.push(ministat_of(
                record,
                &names,
                (metric, confidence),
                &cells,
                width,
            ));
        }
    }
    out
}

/// One ministat report over `cells` (the first the baseline).
fn ministat_of(
    record: &RunRecord,
    names: &CellNames,
    (metric, confidence): (&str, f64),
    cells: &[&str],
    width: usize,
) -> (String, String) {
    use fsbench_stats::ministat::{self, Dataset, Options};
    let values: Vec<(&str, Vec<f64>)> = cells
        .iter()
        .map(|label| {
            let v = names
                .find(&record.results, label)
                .map(|i| {
                    record.results[i]
                        .samples
                        .iter()
                        .filter_map(|s| s.metrics.get(metric).copied())
                        .collect()
                })
                .unwrap_or_default();
            (*label, v)
        })
        .collect();
    let max = values
        .iter()
        .flat_map(|v| &v.1)
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let (div, unit) = natural_unit(metric, max);
    let title = format!(
        "{}{}: {}",
        fsbench_model::label_of(metric),
        if unit.is_empty() {
            String::new()
        } else {
            format!(" ({unit})")
        },
        cells.join(" vs ")
    );
    let (enough, few): (Vec<_>, Vec<_>) = values.into_iter().partition(|v| v.1.len() >= 3);
    if enough.len() < 2 || enough[0].0 != cells[0] {
        return (
            title,
            "(no plot: ministat needs 3 samples per side)\n".to_string(),
        );
    }
    let sets: Vec<Dataset> = enough
        .iter()
        .map(|(l, v)| {
            let scaled: Vec<f64> = v.iter().map(|x| x / div).collect();
            Dataset::from_values(l, &scaled)
        })
        .collect();
    let o = Options {
        width,
        confidence_index: ministat::confidence_index(confidence).unwrap_or(2),
        no_plot: false,
        stats_only: false,
        separate_bars: false,
        quiet: false,
        modern: false,
    };
    let mut text = ministat::render(&sets, &o);
    for (l, _) in few {
        text.push_str(&format!("({l} left out: fewer than 3 samples)\n"));
    }
    (title, text)
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
    let names = CellNames::new(&r.results);
    let mut seen: Vec<&str> = Vec::new();
    for (i, res) in r.results.iter().enumerate() {
        if !seen.contains(&names.base(i)) {
            seen.push(names.base(i));
            let p: Vec<String> = res.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(out, "workload {}: {}", names.base(i), p.join(" "));
        }
    }
}

/// A short column label for a metric, from the catalogue.
pub fn metric_label(name: &str) -> String {
    fsbench_model::label_of(name)
}

/// What the reader must know about a target's stack to read its numbers: how a lab target was
/// aged and how fragmented it was, each encryption layer's implementation, what is under a FUSE daemon, the devices and whether the disk is a
/// hypervisor's.
pub fn stack_lines(t: &fsbench_model::TargetInfo) -> Vec<String> {
    let mut out = t.lab.as_ref().map(crate::lab::lines).unwrap_or_default();
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

fn notes(record: &RunRecord, names: &CellNames, out: &mut String) {
    for (i, r) in record.results.iter().enumerate() {
        for w in &r.warnings {
            let _ = writeln!(
                out,
                "note: {} on {} ({}): {w}",
                names.workload(i),
                r.target,
                r.cache.state
            );
        }
        if let Some(e) = &r.error {
            let _ = writeln!(
                out,
                "FAILED: {} on {} ({}): {e}",
                names.workload(i),
                r.target,
                r.cache.state
            );
        }
    }
}
