//! The HTML report (issue 13): self-contained (nothing fetched), with its charts, and rendered by
//! a real browser: Debian's Chromium headless takes a screenshot, which must not be blank, and
//! dumps the DOM, which must hold the charts. Skips with a printed reason without Chromium (CI
//! installs it).

use crate::util::{fsbench, temp_dir};
use std::path::Path;

/// A small real run with latency, a sweep and two targets, written as HTML by `run --html` and
/// by `report last`.
fn make_report(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (a, b) = (temp_dir(), temp_dir());
    let db = dir.join("r.db");
    let html = dir.join("run.html");
    fsbench()
        .args(["run", "-q", "--runs", "3", "--cache", "warm"])
        .args([
            "-w",
            "rand-read:size=1m,ops=500",
            "-w",
            "latency:count=10,interval=1ms,size=256k",
        ])
        .args(["-w", "walk:profile=small,scale=0.05,workers=1,2"])
        .arg("-t")
        .arg(format!("a={}", a.path().display()))
        .arg("-t")
        .arg(format!("b={}", b.path().display()))
        .arg("--db")
        .arg(&db)
        .arg("--html")
        .arg(&html)
        .assert()
        .success();
    let report = dir.join("report.html");
    fsbench()
        .args(["report", "last", "-o"])
        .arg(&report)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    (html, report)
}

#[test]
fn the_report_is_self_contained_and_has_its_charts() {
    let d = temp_dir();
    let (html, report) = make_report(d.path());
    for f in [&html, &report] {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.starts_with("<!DOCTYPE html>"), "{}", f.display());
        for banned in ["<script", "<link", " src=", "url(", "https://", "@import"] {
            assert!(!text.contains(banned), "{} contains {banned}", f.display());
        }
        let charts = text.matches("<figure class=\"chart").count();
        assert!(charts >= 4, "{charts} charts in {}", f.display());
        assert!(text.contains("latency by percentile"));
        assert!(text.contains("Comparisons"));
        assert!(text.contains("Environment"));
    }
}

/// Fraction of pixels of a PNG that are not (near) white.
pub(crate) fn ink(png_file: &Path) -> f64 {
    let decoder = png::Decoder::new(std::fs::File::open(png_file).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let pixels = buf[..info.buffer_size()].chunks(px);
    let total = (info.width * info.height) as f64;
    pixels
        .filter(|p| p.iter().take(3).any(|&c| c < 230))
        .count() as f64
        / total
}

#[test]
#[cfg_attr(not(fsbench_tool_chromium), ignore = "needs chromium")]
fn chromium_renders_the_report_with_charts_and_no_console_errors() {
    let d = temp_dir();
    let (_, report) = make_report(d.path());
    let url = format!("file://{}", report.display());
    let shot = d.path().join("shot.png");
    let profile = d.path().join("profile");
    let run = |extra: &[String]| crate::screenshots::chromium(&url, &profile, extra);
    let out = run(&[
        format!("--screenshot={}", shot.display()),
        "--window-size=1280,2000".into(),
    ]);
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(shot.exists(), "no screenshot: {log}");
    let share = ink(&shot);
    assert!(
        share > 0.02,
        "the screenshot is blank ({share:.4} of pixels drawn)"
    );
    let dom = run(&["--dump-dom".into()]);
    let text = String::from_utf8_lossy(&dom.stdout);
    assert!(
        text.matches("<svg").count() >= 4,
        "charts missing from the DOM"
    );
    let all_logs = log + &String::from_utf8_lossy(&dom.stderr);
    let console_errors: Vec<&str> = all_logs
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("rror") || l.contains("Uncaught")))
        .collect();
    assert!(console_errors.is_empty(), "{console_errors:?}");
    // A phone-width rendering also draws (the page reflows instead of breaking).
    let phone = d.path().join("phone.png");
    run(&[
        format!("--screenshot={}", phone.display()),
        "--window-size=390,2000".into(),
    ]);
    assert!(ink(&phone) > 0.02, "blank at phone width");
}

/// Runs `fsbench run ARGS -t DIR` in a tmux pane `width` columns wide until it exits; returns
/// whether `seen` held for any screen while it ran, and the final screen.
fn watch_in_tmux(
    dir: &std::path::Path,
    args: &str,
    width: u32,
    seen: impl Fn(&str) -> bool,
) -> (bool, String) {
    let socket = dir.join("tmux.sock");
    let tmux = |a: &[&str]| {
        std::process::Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(a)
            .output()
            .expect("tmux")
    };
    let bin = assert_cmd::cargo::cargo_bin("fsbench");
    let script = format!(
        "XDG_DATA_HOME={} {} run {args} -t {}; echo EXIT=$?; sleep 60",
        crate::util::data_home().display(),
        bin.display(),
        dir.display()
    );
    tmux(&[
        "new-session",
        "-d",
        "-x",
        &width.to_string(),
        "-y",
        "45",
        &script,
    ]);
    let screen = || String::from_utf8_lossy(&tmux(&["capture-pane", "-p"]).stdout).to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut saw = false;
    let last = loop {
        let s = screen();
        saw |= seen(&s);
        if s.contains("EXIT=") {
            break s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "run did not finish:\n{s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    tmux(&["kill-server"]);
    (saw, last)
}

/// Live progress under a real pseudo-terminal (tmux): the bar appears while the run works and is
/// gone from the final screen; without a terminal there is no bar, only lines.
#[test]
#[cfg_attr(not(fsbench_tool_tmux), ignore = "needs tmux")]
fn the_progress_bar_shows_on_a_terminal_and_leaves_a_clean_screen() {
    let d = temp_dir();
    let (saw_bar, last) = watch_in_tmux(
        d.path(),
        "-w null:ops=10,sleep=150ms --runs 12 --cache warm --no-store",
        150,
        |s| s.contains("/12 (eta"),
    );
    assert!(saw_bar, "no progress bar was seen");
    assert!(last.contains("EXIT=0"), "{last}");
    assert!(
        !last.contains("(eta"),
        "the bar was left on the final screen:\n{last}"
    );
    assert!(last.contains("IOPS"), "{last}");
    // No terminal: plain lines, no bar.
    let out = fsbench()
        .args([
            "run",
            "-w",
            "null:ops=10",
            "--runs",
            "2",
            "--cache",
            "warm",
            "--no-store",
            "-t",
        ])
        .arg(d.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sample 2/2") && !err.contains("eta"), "{err}");
}

/// The bar shows the running sample's current rate, from the interval that just ended.
#[test]
#[cfg_attr(not(fsbench_tool_tmux), ignore = "needs tmux")]
fn the_progress_bar_shows_the_current_intervals_rate_while_a_sample_runs() {
    let d = temp_dir();
    // One warm sample of 3 s: the bar redraws every 200 ms while it runs.
    let (saw_rate, last) = watch_in_tmux(
        d.path(),
        "-w rand-read:size=16m,duration=3s --runs 1 --cache warm --no-store",
        200,
        |s| {
            s.lines()
                .any(|l| l.contains("(eta") && l.contains("now ") && l.contains(" MiB/s"))
        },
    );
    assert!(last.contains("EXIT=0"), "{last}");
    assert!(saw_rate, "no current rate was seen beside the bar:\n{last}");
}
