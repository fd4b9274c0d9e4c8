//! Every table everywhere (issue 23): the seed layouts and the times table in `show`,
//! `--export-markdown` and the HTML report; two cells of one workload told apart in all of them;
//! tables fitted to an 80-column terminal with ASCII borders off a terminal; `history`'s
//! duration, status, suite and note; ministat's plot in the metric's natural unit; and runs that
//! share no cell said to share none.

use crate::util::{fsbench, temp_dir};
use std::path::Path;

/// Runs `args` into `db` (warm, 3 samples) and returns stdout.
fn run(db: &Path, args: &[&str]) -> String {
    let out = fsbench()
        .env_remove("COLUMNS")
        .args(["run", "-q", "--runs", "3", "--cache", "warm", "--db"])
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `fsbench ARGS --db DB` with `env`, stdout as text.
fn text(db: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let mut cmd = fsbench();
    cmd.env_remove("COLUMNS").env_remove("FSBENCH_BORDERS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).arg("--db").arg(db).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A suite file with the seed layout `report` over two command cells on two targets.
fn suite(dir: &Path, report: &str) -> String {
    let file = dir.join(format!("{report}.toml"));
    std::fs::write(
        &file,
        format!(
            "name = \"t-{report}\"\ndescription = \"test\"\ncache = \"warm\"\nruns = 3\nreport = \"{report}\"\ncompare = \"targets\"\n\n[[workload]]\nname = \"command\"\nrun = \"sleep 0.01\"\n\n[[workload]]\nname = \"command\"\nrun = \"sleep 0.02\"\nlabel = \"nap\"\n"
        ),
    )
    .unwrap();
    file.display().to_string()
}

#[test]
fn show_markdown_and_html_have_the_seed_layout_and_times_tables() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let targets = [
        "-t".to_string(),
        format!("a={}", a.display()),
        "-t".into(),
        format!("b={}", b.display()),
    ];
    for (report, title) in [
        ("times", "In the seed's layout"),
        ("overhead", "Overhead against a"),
    ] {
        let file = suite(d.path(), report);
        let mut args = vec!["--suite", file.as_str()];
        args.extend(targets.iter().map(String::as_str));
        let printed = run(&db, &args);
        assert!(printed.contains(title), "run: {printed}");
        let show = text(&db, &[], &["show", "last"]);
        let md = text(&db, &[], &["show", "last", "--export-markdown", "-"]);
        let html = text(&db, &[], &["report", "last", "-o", "-"]);
        for (what, out) in [("show", &show), ("markdown", &md), ("html", &html)] {
            for needed in [title, "Times and CPU (means)", "Results"] {
                assert!(out.contains(needed), "{what} lacks {needed}: {out}");
            }
        }
        assert!(md.contains("### Times and CPU (means)") && md.contains("| target |"));
    }
}

#[test]
fn two_cells_of_one_workload_are_told_apart_everywhere() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    run(
        &db,
        &[
            "-t",
            &format!("x={}", d.path().display()),
            "-t",
            "y=/dev/shm",
            "-w",
            "command:run='sleep 0.01'",
            "-w",
            "command:run='sleep 0.02'",
            "-w",
            "command:run='sleep 0.03',label=longest",
        ],
    );
    let show = text(&db, &[], &["show", "last"]);
    let md = text(&db, &[], &["show", "last", "--export-markdown", "-"]);
    let html = text(&db, &[], &["report", "last", "-o", "-"]);
    for (what, out) in [("show", &show), ("markdown", &md), ("html", &html)] {
        for name in [
            "command run='sleep 0.01'",
            "command run='sleep 0.02'",
            "longest",
        ] {
            assert!(out.contains(name), "{what} lacks {name}: {out}");
        }
    }
    for label in [
        "x/command run='sleep 0.01'/warm",
        "y/command run='sleep 0.02'/warm",
        "y/longest/warm",
    ] {
        assert!(show.contains(label), "comparison label {label}: {show}");
    }
}

#[test]
fn tables_fit_80_columns_with_ascii_borders_off_a_terminal() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    run(
        &db,
        &[
            "-t",
            &format!("a-rather-long-target-label={}", d.path().display()),
            "-t",
            "b=/dev/shm",
            "-w",
            "latency:count=20,interval=0ms,size=256k",
            "-w",
            "command:run='sleep 0.01'",
        ],
    );
    let narrow = text(&db, &[("COLUMNS", "80")], &["show", "last"]);
    let tables: Vec<&str> = narrow
        .lines()
        .filter(|l| l.starts_with('|') || l.starts_with('+'))
        .collect();
    assert!(tables.len() > 10, "{narrow}");
    for l in &tables {
        assert!(
            l.chars().count() <= 80,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    assert!(!narrow.contains('│') && !narrow.contains('┆'), "{narrow}");
    assert!(narrow.contains("left out to fit 80 columns"), "{narrow}");
    let wide = text(&db, &[], &["show", "last"]);
    assert!(!wide.contains("left out"), "{wide}");
    assert!(wide.contains("p99.9"), "no limit without COLUMNS: {wide}");
    let boxed = text(&db, &[("FSBENCH_BORDERS", "unicode")], &["show", "last"]);
    assert!(boxed.contains('│'), "{boxed}");
}

#[test]
fn history_shows_duration_status_suite_and_note() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    let file = suite(d.path(), "times");
    run(
        &db,
        &[
            "--suite",
            &file,
            "-t",
            &d.path().display().to_string(),
            "--note",
            "why-it-ran",
        ],
    );
    let out = text(&db, &[], &["history"]);
    for head in ["duration", "status", "suite", "note"] {
        assert!(out.contains(head), "{head}: {out}");
    }
    assert!(
        out.contains("why-it-ran") && out.contains(" s ") && out.contains("ok"),
        "{out}"
    );
    assert!(out.contains("times.toml"), "{out}");
    let json = text(&db, &[], &["history", "--export-json", "-"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v[0]["suite"].as_str().unwrap().ends_with("times.toml"));
    assert!(v[0]["duration_s"].as_f64().is_some());
}

#[test]
fn ministat_plots_are_in_the_metrics_natural_unit() {
    let d = temp_dir();
    let out = fsbench()
        .env_remove("COLUMNS")
        .args([
            "run",
            "-q",
            "--runs",
            "3",
            "--cache",
            "warm",
            "--no-store",
            "--plot",
        ])
        .args([
            "-t",
            &format!("a={}", d.path().display()),
            "-t",
            "b=/dev/shm",
        ])
        .args(["-w", "command:run='sleep 0.02'"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("command time (ms): a/command/warm vs b/command/warm"),
        "{text}"
    );
    assert!(!text.contains("e+0"), "raw nanoseconds in the plot: {text}");
}

#[test]
fn runs_that_share_no_cell_say_so_in_the_report_and_compare() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    let t = format!("t={}", d.path().display());
    run(&db, &["-t", &t, "-w", "command:run='sleep 0.01'"]);
    run(&db, &["-t", &t, "-w", "null:ops=10"]);
    let html = text(&db, &[], &["report", "last~1", "last", "-o", "-"]);
    assert!(html.contains("share no cell"), "{html}");
    assert!(!html.contains("2 runs compared"));
    let compare = text(&db, &[], &["compare", "last~1", "last"]);
    assert!(compare.contains("no cells in common"), "{compare}");
}
