//! Snapshots of the charts' SVG structure: for every chart of a two-target cold/warm record
//! with latency curves and a workers sweep, and of a two-run comparison, its title, every text
//! drawn (tick labels, legends, panel names, verdicts) and how many of each shape. A change of
//! ticks, units, legends or verdict colours is a reviewed diff; coordinates are not snapshotted.

use super::*;
use crate::Renderer;
use crate::export::tests::record;
use fsbench_model::*;

fn sample(v: f64, wall: u64) -> Sample {
    let mut s = record().results[0].samples[0].clone();
    s.metrics.insert(metric::IOPS.into(), v);
    s.wall_ns = wall;
    s
}

fn summary(values: &[f64]) -> MetricSummary {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    MetricSummary {
        n: values.len(),
        min: sorted[0],
        max: sorted[values.len() - 1],
        median: sorted[values.len() / 2],
        mean,
        stddev: 1.0,
        ci95: Some(mean * 0.05),
        unit: "IOPS".into(),
        better: Better::Higher,
    }
}

/// Two targets (ext4, fuse), cold and warm, five samples each; warm is 40× faster than cold.
fn study() -> RunRecord {
    let mut r = record();
    let base = r.results[0].clone();
    let cell = |target: &str, cache: CacheState, level: f64| {
        let mut e = base.clone();
        e.target = target.into();
        e.cache.state = cache;
        let v: Vec<f64> = (0..5)
            .map(|k| level * (1.0 + 0.02 * f64::from(k)))
            .collect();
        e.samples = v.iter().map(|&x| sample(x, 1_000_000)).collect();
        e.summary = BTreeMap::from([(metric::IOPS.to_string(), summary(&v))]);
        e
    };
    r.results = vec![
        cell("ext4", CacheState::Cold, 2_000.0),
        cell("ext4", CacheState::Warm, 80_000.0),
        cell("fuse", CacheState::Cold, 1_500.0),
        cell("fuse", CacheState::Warm, 90_000.0),
    ];
    let c = |base: &str, other: &str, pct: f64, proven: bool, comparable: bool| Comparison {
        baseline: base.into(),
        other: other.into(),
        difference_pct: pct,
        ci_half_pct: 4.0,
        difference: pct * 20.0,
        ci_half: 80.0,
        proven,
        comparable,
        not_comparable: if comparable {
            Vec::new()
        } else {
            vec!["fuse used direct I/O but ext4 used buffered I/O".into()]
        },
        ..r.comparisons[0].clone()
    };
    r.comparisons = vec![
        c(
            "ext4/rand-read/cold",
            "fuse/rand-read/cold",
            -25.0,
            true,
            true,
        ),
        c(
            "ext4/rand-read/warm",
            "fuse/rand-read/warm",
            12.5,
            true,
            false,
        ),
    ];
    r.scaling = vec![sweep("ext4", 1.0), sweep("fuse", 0.6)];
    r
}

fn sweep(target: &str, gain: f64) -> Scaling {
    let row = |j: u32| ScalingRow {
        workers: j,
        rate: 1e5 * (1.0 + gain * f64::from(j - 1) / 3.0),
        speedup: 1.0 + gain * f64::from(j - 1) / 3.0,
        efficiency: 0.9,
        sys_ns_per_entry: 900.0 * f64::from(j),
        wall_ns: 1e9,
        user_ns: 1e8,
        sys_ns: 6e8,
        machine_sys_pct: Some(40.0),
        daemon_cpu_pct: None,
    };
    Scaling {
        target: target.into(),
        workload: "walk".into(),
        cache: "warm".into(),
        rows: vec![row(1), row(2), row(4), row(8)],
        verdict: ScalingVerdict::Saturates,
        explanation: "saturates at J=4".into(),
    }
}

fn curve(scale: f64) -> LatencyCurve {
    LatencyCurve {
        count: 5_000,
        points: [0.0, 50.0, 90.0, 99.0, 99.9, 99.99]
            .iter()
            .zip([1.0, 1.2, 2.0, 8.0, 40.0, 90.0])
            .map(|(&p, v)| (p, v * scale))
            .collect(),
    }
}

/// Every chart of `html` as an outline: title, texts in order, and shape counts.
fn outline(html: &str) -> String {
    let mut out = Vec::new();
    for svg in html.split("<svg ").skip(1) {
        let svg = svg.split("</svg>").next().unwrap_or_default();
        let mut texts = Vec::new();
        for t in svg.split("<text ").skip(1) {
            let body = t.split_once('>').map_or("", |x| x.1);
            texts.push(body.split("</text>").next().unwrap_or_default().to_string());
        }
        let title = svg
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or_default();
        let count = |tag: &str| svg.matches(&format!("<{tag} ")).count();
        out.push(format!(
            "== {title}\n   shapes: {} circle, {} rect, {} line, {} polyline; dashed: {}; colours better/worse: {}/{}\n   texts: {}",
            count("circle"),
            count("rect"),
            count("line"),
            count("polyline"),
            svg.matches("stroke-dasharray").count(),
            svg.matches(palette::BETTER).count(),
            svg.matches(palette::WORSE).count(),
            texts.join(" | ")
        ));
    }
    out.join("\n")
}

#[test]
fn the_charts_of_a_two_target_cold_warm_run_with_a_sweep() {
    let r = study();
    let mut latency = BTreeMap::new();
    for (i, scale) in [(0, 50_000.0), (1, 1_000.0), (2, 80_000.0), (3, 1_500.0)] {
        latency.insert((0, i), curve(scale));
    }
    let html = Html {
        latency,
        ..Html::default()
    }
    .text(&r);
    insta::assert_snapshot!("svg_two_targets", outline(&html));
}

#[test]
fn the_charts_of_two_runs() {
    let a = study();
    let mut b = study();
    b.run.id = "20261124T000000Z-2".into();
    let mut merged = b.clone();
    let tag = |r: &RunRecord, p: &str| -> Vec<ResultEntry> {
        r.results
            .iter()
            .cloned()
            .map(|mut e| {
                e.target = format!("{p}:{}", e.target);
                e
            })
            .collect()
    };
    merged.results = tag(&a, "A");
    merged.results.extend(tag(&b, "B"));
    merged.comparisons = vec![Comparison {
        baseline: "A:ext4/rand-read/cold".into(),
        other: "B:ext4/rand-read/cold".into(),
        difference_pct: 8.0,
        ci_half_pct: 3.0,
        difference: 160.0,
        ..a.comparisons[0].clone()
    }];
    merged.scaling = Vec::new();
    let html = Html {
        earlier: vec![a.clone()],
        cross: vec![CrossRun {
            heading: "A = run 1 against B = run 2".into(),
            environment: Vec::new(),
            merged,
            runs: (0, 1),
            a_cells: a.results.len(),
        }],
        latency: BTreeMap::from([((0, 0), curve(50_000.0)), ((1, 0), curve(40_000.0))]),
        seed: None,
    }
    .text(&b);
    let cross = html
        .split("<section class=\"run\">")
        .next()
        .unwrap_or_default();
    insta::assert_snapshot!("svg_two_runs", outline(cross));
    assert!(html.contains("What changed") && html.contains("1 better"));
}

#[test]
fn runs_that_share_no_cell_say_so() {
    let a = study();
    let mut b = study();
    for e in &mut b.results {
        e.workload = "seq-read".into();
    }
    let mut merged = b.clone();
    merged.comparisons = Vec::new();
    let html = Html {
        earlier: vec![a.clone()],
        cross: vec![CrossRun {
            heading: "A = run 1 against B = run 2".into(),
            environment: Vec::new(),
            merged,
            runs: (0, 1),
            a_cells: 0,
        }],
        ..Html::default()
    }
    .text(&b);
    assert!(html.contains("share no cell"), "{html}");
    assert!(!html.contains("2 runs compared"));
}

#[test]
fn hostile_labels_stay_text_in_every_chart() {
    let mut r = study();
    for e in &mut r.results {
        e.target = e
            .target
            .replace("fuse", "<script>alert(1)</script>\u{1b}[2J");
    }
    for c in &mut r.comparisons {
        c.other = c
            .other
            .replace("fuse", "<script>alert(1)</script>\u{1b}[2J");
    }
    let html = Html::default().text(&r);
    assert!(!html.contains("<script>") && !html.contains('\u{1b}'));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;\\u{1b}[2J"));
}
