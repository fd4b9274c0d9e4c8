//! The reports of issues 23 and 58 in a real browser: a two-target cold/warm run, a workers sweep,
//! two runs of one plan, a disk-speed-like run in the overhead layout, and a replay on two targets
//! (its time by call, the attribution of their difference), each rendered by
//! headless Chromium (Debian's package) at 1280 px. A blank page (nearly one colour), a page
//! whose charts are missing from the DOM, or a console error fails. `bench/screenshots.sh`
//! makes the same screenshots for a person to look at.

use crate::util::{fsbench, temp_dir};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `fsbench run` into `db` with `args`.
fn run(db: &Path, args: &[String]) {
    let out = fsbench()
        .args(["run", "-q", "--runs", "3", "--db"])
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `fsbench report RUNS -o FILE`.
fn report(db: &Path, runs: &[&str], file: &Path) {
    fsbench()
        .arg("report")
        .args(runs)
        .arg("-o")
        .arg(file)
        .arg("--db")
        .arg(db)
        .assert()
        .success();
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// The overhead suite: dd-style writes and reads at two block sizes, cold, targets compared.
const OVERHEAD: &str = r#"name = "overhead-test"
description = "a small disk-speed"
cache = "cold"
runs = 3
report = "overhead"
compare = "targets"

[[workload]]
name = "seq-write"
bs = ["1m", "4k"]
size = "4m"
direct = false

[[workload]]
name = "seq-read"
bs = ["1m", "4k"]
size = "4m"
direct = false
"#;

/// One of the four reports, made in `dir` with its own runs, and what it must show.
fn make_report(dir: &Path, which: &str) -> (PathBuf, Vec<&'static str>) {
    let db = dir.join("r.db");
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let targets = vec![
        "-t".to_string(),
        format!("a={}", a.display()),
        "-t".into(),
        format!("b={}", b.display()),
    ];
    let with = |mut extra: Vec<String>| {
        let mut v = targets.clone();
        v.append(&mut extra);
        v
    };
    match which {
        "two-targets" => {
            run(
                &db,
                &with(s(&[
                    "--cache",
                    "both",
                    "-w",
                    "rand-read:size=1m,ops=500",
                    "-w",
                    "latency:count=50,interval=0ms,size=256k",
                ])),
            );
            let f = dir.join("two-targets.html");
            report(&db, &["last"], &f);
            (
                f,
                vec![
                    "At a glance",
                    "Distributions",
                    "latency by percentile",
                    "Times and CPU",
                ],
            )
        }
        "sweep" => {
            run(
                &db,
                &with(s(&[
                    "--cache",
                    "warm",
                    "-w",
                    "walk:profile=small,scale=0.05,workers=1,2,mode=procs",
                ])),
            );
            let f = dir.join("sweep.html");
            report(&db, &["last"], &f);
            (
                f,
                vec!["speedup", "kernel (sys) time per entry", "ideal (J"],
            )
        }
        "two-runs" => {
            for _ in 0..2 {
                run(
                    &db,
                    &s(&[
                        "-t",
                        &format!("t={}", a.display()),
                        "--cache",
                        "warm",
                        "-w",
                        "rand-read:size=1m,ops=500",
                    ]),
                );
            }
            let f = dir.join("two-runs.html");
            report(&db, &["last~1", "last"], &f);
            (
                f,
                vec![
                    "B − A, % of A",
                    "Each shared cell, A against B",
                    "cells in common",
                ],
            )
        }
        "overhead" => {
            let suite = dir.join("overhead.toml");
            std::fs::write(&suite, OVERHEAD).unwrap();
            run(
                &db,
                &with(vec!["--suite".into(), suite.display().to_string()]),
            );
            let f = dir.join("overhead.html");
            report(&db, &["last"], &f);
            (
                f,
                vec!["Overhead against a", "Geometric mean", "seq-write bs=4k"],
            )
        }
        "replay" => replay_report(dir, &db, &with),
        other => panic!("no report '{other}'"),
    }
}

/// A replay on two targets: its time by call as a stacked bar per target, and the attribution of
/// their difference by call beneath (issue 58).
fn replay_report(
    dir: &Path,
    db: &Path,
    with: &dyn Fn(Vec<String>) -> Vec<String>,
) -> (PathBuf, Vec<&'static str>) {
    let trace = dir.join("known.fsbtrace");
    std::fs::write(
        &trace,
        fsbench_trace::encode(&crate::replay_calls::known_trace()),
    )
    .unwrap();
    let w = format!("replay:trace={}", trace.display());
    run(db, &with(s(&["--cache", "warm", "-w", &w])));
    let f = dir.join("replay.html");
    report(db, &["last"], &f);
    (
        f,
        vec![
            "Time by call",
            "class=\"call-kind\"",
            "Why b/replay/warm differs from a/replay/warm, by call",
        ],
    )
}

/// The share of the most common colour and of pixels that are not near white.
fn colours(png_file: &Path) -> (f64, f64) {
    let decoder = png::Decoder::new(std::fs::File::open(png_file).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let mut counts: HashMap<[u8; 3], usize> = HashMap::new();
    let mut ink = 0usize;
    let mut total = 0usize;
    for p in buf[..info.buffer_size()].chunks(px) {
        let rgb = [p[0], p[1], p[2]];
        *counts.entry(rgb).or_default() += 1;
        ink += usize::from(rgb.iter().any(|&c| c < 230));
        total += 1;
    }
    let top = counts.values().copied().max().unwrap_or(0);
    (top as f64 / total as f64, ink as f64 / total as f64)
}

/// Runs Chromium headless on `url` with `extra` flags and a profile directory of its own,
/// logging to stderr (console errors are read there); its output.
pub(crate) fn chromium(url: &str, profile: &Path, extra: &[String]) -> std::process::Output {
    std::process::Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run chromium")
}

/// Report `which` rendered in Chromium: a screenshot with ink and more than one colour, a DOM
/// with its charts and words, and no console error.
fn renders_in_chromium_with_its_charts(which: &str) {
    let d = temp_dir();
    let (file, needed) = make_report(d.path(), which);
    let name = file.file_stem().unwrap().to_string_lossy().into_owned();
    let url = format!("file://{}", file.display());
    let shot = d.path().join(format!("{name}.png"));
    let profile = d.path().join(format!("profile-{name}"));
    let out = chromium(
        &url,
        &profile,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,4000".into(),
        ],
    );
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(shot.exists(), "{name}: no screenshot: {log}");
    let (top, ink) = colours(&shot);
    assert!(
        top < 0.97,
        "{name}: the page is nearly one colour ({top:.3})"
    );
    assert!(ink > 0.03, "{name}: the page is blank ({ink:.4} drawn)");
    let dom = chromium(&url, &profile, &["--dump-dom".into()]);
    let text = String::from_utf8_lossy(&dom.stdout);
    assert!(text.contains("</html>"), "{name}: the DOM is cut short");
    assert!(text.matches("<svg").count() >= 3, "{name}: charts missing");
    for n in needed {
        assert!(text.contains(n), "{name}: '{n}' missing from the page");
    }
    let logs = log + &String::from_utf8_lossy(&dom.stderr);
    let errors: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("rror") || l.contains("Uncaught")))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
}

#[test]
#[cfg_attr(not(fsbench_tool_chromium), ignore = "needs chromium")]
fn the_two_targets_study_report_renders_in_chromium_with_its_charts() {
    renders_in_chromium_with_its_charts("two-targets");
}

#[test]
#[cfg_attr(not(fsbench_tool_chromium), ignore = "needs chromium")]
fn the_sweep_study_report_renders_in_chromium_with_its_charts() {
    renders_in_chromium_with_its_charts("sweep");
}

#[test]
#[cfg_attr(not(fsbench_tool_chromium), ignore = "needs chromium")]
fn the_two_runs_study_report_renders_in_chromium_with_its_charts() {
    renders_in_chromium_with_its_charts("two-runs");
}

#[test]
#[cfg_attr(not(fsbench_tool_chromium), ignore = "needs chromium")]
fn the_overhead_study_report_renders_in_chromium_with_its_charts() {
    renders_in_chromium_with_its_charts("overhead");
}

#[test]
#[cfg_attr(not(fsbench_tool_chromium), ignore = "needs chromium")]
fn the_replay_report_renders_its_time_by_call_in_chromium() {
    renders_in_chromium_with_its_charts("replay");
}
