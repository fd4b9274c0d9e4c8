//! Snapshot tests of every exporter on one hand-made record: a change in output is a reviewed
//! diff of the `.snap` files.

use super::*;
use crate::Renderer;
use crate::html::Html;
use crate::json::Json;
use crate::terminal::Terminal;
use fsbench_model::*;
use std::collections::BTreeMap;

fn sample(v: f64, wall: u64) -> Sample {
    let mut s = Sample::new(wall, 100, 200, 10, 40960).with_metrics([
        (fsbench_model::metric::IOPS, v),
        (fsbench_model::metric::WALL_NS, wall as f64),
    ]);
    s.resident_pct = Some(0.0);
    s
}

pub(crate) fn summary(median: f64) -> MetricSummary {
    MetricSummary {
        n: 2,
        min: median - 1.0,
        max: median + 1.0,
        median,
        mean: median,
        stddev: 1.414,
        ci95: Some(12.7),
        unit: "IOPS".into(),
        better: Better::Higher,
    }
}

/// A fixed record: two targets, one comparison, a label with a comma and a pipe.
pub(crate) fn record() -> RunRecord {
    let entry = |target: &str, v: f64| ResultEntry {
        target: target.into(),
        workload: "rand-read".into(),
        params: BTreeMap::from([
            ("bs".to_string(), "4k".to_string()),
            ("size".to_string(), "64m".to_string()),
        ]),
        sweep: BTreeMap::new(),
        cache: CacheInfo {
            state: fsbench_model::CacheState::Cold,
            method: "drop_caches".into(),
            resident_pct: Some(0.0),
        },
        headline: fsbench_model::metric::IOPS.into(),
        also_shown: Vec::new(),
        samples: vec![sample(v - 1.0, 1_000_000), sample(v + 1.0, 1_100_000)],
        summary: BTreeMap::from([(fsbench_model::metric::IOPS.to_string(), summary(v))]),
        precision_reached: None,
        steady: None,
        warnings: Vec::new(),
        error: None,
        bound: None,
        profile: None,
    };
    RunRecord {
        schema_version: SCHEMA_VERSION,
        run: RunInfo {
            id: "20261123T000000Z-1".into(),
            started_at: "2026-11-23T00:00:00Z".into(),
            fsbench_version: "0.1.0".into(),
            argv: vec!["fsbench".into(), "run".into()],
            status: fsbench_model::RunStatus::Ok,
            ..Default::default()
        },
        environment: Environment {
            kernel: "6.18".into(),
            os: "Linux".into(),
            cpus: 2,
            ..Environment::default()
        },
        overhead: OverheadInfo::default(),
        results: vec![entry("ext4", 1000.0), entry("x,y|z", 1500.0)],
        comparisons: vec![Comparison {
            metric: fsbench_model::metric::IOPS.into(),
            baseline: "ext4/rand-read/cold".into(),
            other: "x,y|z/rand-read/cold".into(),
            confidence: 95.0,
            difference: 500.0,
            ci_half: 6.1,
            difference_pct: 50.0,
            ci_half_pct: 0.61,
            proven: true,
            method: "student-pooled (ministat table)".into(),
            comparable: true,
            not_comparable: Vec::new(),
            how_to_compare: None,
            decision: None,
        }],
        scaling: Vec::new(),
        cards: Vec::new(),
    }
}

/// Every format goes through the one trait into any `Write`, with the same bytes as its text.
#[test]
fn every_format_writes_through_the_one_trait() {
    let formats: [Box<dyn Renderer>; 5] = [
        Box::new(Terminal::default()),
        Box::new(Json),
        Box::new(Csv),
        Box::new(Markdown::default()),
        Box::new(Html::default()),
    ];
    let names: Vec<&str> = formats.iter().map(|f| f.format().name()).collect();
    assert_eq!(names, ["terminal", "json", "csv", "markdown", "html"]);
    for f in &formats {
        let mut out: Vec<u8> = Vec::new();
        f.render(&record(), &mut out).unwrap();
        assert!(!out.is_empty(), "{}", f.format().name());
        assert_eq!(String::from_utf8(out).unwrap(), f.text(&record()));
    }
}

#[test]
fn csv_is_one_row_per_sample() {
    insta::assert_snapshot!("csv", Csv.text(&record()));
}

#[test]
fn markdown_has_the_table_and_the_verdicts() {
    insta::assert_snapshot!("markdown", Markdown::default().text(&record()));
}

#[test]
fn json_snapshot() {
    insta::assert_snapshot!("json", Json.text(&record()));
}

#[test]
fn json_round_trips() {
    let text = Json.text(&record());
    let back: RunRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back, record());
}

#[test]
fn terminal_report_snapshot() {
    let text = Terminal(crate::terminal::TerminalOptions::default()).text(&record());
    insta::assert_snapshot!("terminal", text);
}

/// The HTML report's structure: headings, table headers, figures and their chart kinds, without
/// the SVG drawing itself (its coordinates are checked by the SVG snapshots in `html/tests.rs`).
#[test]
fn html_structure_snapshot() {
    let html = Html::default().text(&record());
    let outline: Vec<String> = html
        .split('<')
        .filter(|t| {
            [
                "h1",
                "h2",
                "h3",
                "th>",
                "figure",
                "figcaption",
                "li>",
                "title>",
            ]
            .iter()
            .any(|p| t.starts_with(p))
        })
        .map(|t| {
            t.split_once('>')
                .map(|(tag, text)| format!("<{tag}> {text}"))
                .unwrap_or_default()
        })
        .map(|l| l.trim().to_string())
        .collect();
    insta::assert_snapshot!("html_outline", outline.join("\n"));
    assert!(html.contains("<svg") && !html.contains("<script"));
}
