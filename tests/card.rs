//! `fsbench card`: the 19 operations on a lab ext4, the lock a shared-directory create waits on,
//! the JSON's fields, two targets' HTML with a differential, two stored cards compared, and bad
//! input.

use crate::lab::LabDir;
use crate::util::{fsbench, temp_dir};
use serde_json::Value;
use std::path::Path;

/// Runs a card with `args` (plus a database and a JSON file in `dir`); returns the JSON and the
/// printed text.
fn card(dir: &Path, args: &[&str]) -> (Value, String) {
    let json = dir.join("card.json");
    let out = fsbench()
        .arg("card")
        .args(args)
        .arg("--db")
        .arg(dir.join("c.db"))
        .arg("--json")
        .arg(&json)
        .arg("-q")
        .output()
        .expect("run fsbench card");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("JSON");
    (v, text)
}

/// A card of a lab ext4 with `args`; returns the JSON and the printed text.
fn lab_ext4_card(args: &[&str]) -> (Value, String) {
    let lab = LabDir::new();
    let dir = temp_dir();
    let lab_dir = lab.path();
    let mut all = vec!["--lab", "ext4", "--lab-dir", lab_dir.to_str().unwrap()];
    all.extend_from_slice(args);
    card(dir.path(), &all)
}

/// A short, unprofiled card of two directories labelled `a` and `b` with `ops`, its HTML to
/// `html`, stored in `dir`'s database.
fn two_dir_card(a: &Path, b: &Path, ops: &str, dir: &Path, html: &Path) -> (Value, String) {
    let (ta, tb) = (format!("a={}", a.display()), format!("b={}", b.display()));
    let args = [
        "-t",
        &ta,
        "-t",
        &tb,
        "--ops",
        ops,
        "--jobs",
        "1,2",
        "--duration",
        "100ms",
        "--runs",
        "2",
        "--no-profile",
        "--html",
    ];
    let mut all: Vec<&str> = args.to_vec();
    let html = html.to_str().unwrap();
    all.push(html);
    card(dir, &all)
}

fn cell<'a>(card: &'a Value, op: &str) -> &'a Value {
    card["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .find(|c| c["op"] == op)
        .unwrap_or_else(|| panic!("no {op} in {card}"))
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn every_operation_on_lab_ext4_runs_at_one_and_two_jobs_with_every_field() {
    let (v, text) = lab_ext4_card(&[
        "--quick",
        "--jobs",
        "1,2",
        "--duration",
        "50ms",
        "--runs",
        "1",
        "--no-profile",
    ]);
    assert_eq!(v["run"]["kind"], "card");
    let cards = v["cards"].as_array().expect("cards");
    assert_eq!(cards.len(), 1);
    let c = &cards[0];
    assert_eq!(c["target"], "ext4");
    assert!(c["cpus"].as_u64().unwrap() >= 1);
    let cells = c["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 19, "{text}");
    for cell in cells {
        for key in [
            "op",
            "name",
            "component",
            "sharing",
            "best_jobs",
            "class",
            "lock",
        ] {
            assert!(cell.get(key).is_some(), "{key} missing in {cell}");
        }
        let points = cell["points"].as_array().unwrap();
        assert_eq!(points.len(), 2, "{cell}");
        for (p, jobs) in points.iter().zip([1, 2]) {
            // One sample: its interval is the value itself.
            assert_eq!(p["jobs"], jobs);
            assert!(p["ops_per_s"].as_f64().unwrap() > 0.0, "{cell}");
            let (lo, hi) = (
                p["ci95_low"].as_f64().unwrap(),
                p["ci95_high"].as_f64().unwrap(),
            );
            assert!(lo <= p["ops_per_s"].as_f64().unwrap() && hi >= lo, "{p}");
            for key in ["user_pct", "sys_pct", "idle_pct", "iowait_pct"] {
                assert!(p[key].as_f64().is_some(), "{key} in {p}");
            }
            assert!(p.get("lock_wait_ns_per_op").is_some(), "{p}");
        }
    }
    assert!(text.contains("Character card of ext4"), "{text}");
    assert!(text.contains("MWRM rename-into-shared-dir"), "{text}");
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn shared_creates_wait_on_the_parents_rwsem_renames_on_the_rename_mutex_reads_on_nothing() {
    // The profile needs the machine to itself: another test's work would not be the cell's,
    // but its CPU use would starve the jobs.
    let _alone = crate::util::alone();
    let (v, text) = lab_ext4_card(&[
        "--ops",
        "MWCM,read-private,MWRM",
        "--jobs",
        "1,4",
        "--duration",
        "500ms",
    ]);
    let c = &v["cards"][0];
    let mwcm = cell(c, "MWCM");
    // The parent directory's i_rwsem, taken exclusively to create a name (directory-locking.rst),
    // among the waits at 4 jobs. Whether it is the lock that *stops* creates here depends on its
    // share (6-11% of four jobs' time on these 2 CPUs, against a 5% bar): when it is named, it
    // is this one.
    let create_path = |l: &Value| {
        l["kind"].as_str().is_some_and(|k| k.starts_with("rwsem"))
            && l["caller"].as_str().is_some_and(|c| {
                ["filename_create", "open_last_lookups", "path_openat"]
                    .iter()
                    .any(|f| c.contains(f))
            })
    };
    let at4 = &mwcm["points"][1];
    assert_eq!(at4["jobs"], 4);
    assert!(
        at4["locks"]
            .as_array()
            .is_some_and(|ls| ls.iter().any(create_path)),
        "{mwcm}\n{text}"
    );
    assert!(
        mwcm["lock"].is_null() || create_path(&mwcm["lock"]),
        "{mwcm}"
    );
    assert!(text.contains("the lock that stops it"), "{text}");
    // A rename across directories takes the filesystem's rename mutex (lock_rename, inlined
    // into do_renameat2 on this kernel).
    let mwrm = cell(c, "MWRM");
    let lock = &mwrm["lock"];
    assert_eq!(lock["kind"], "mutex", "{mwrm}\n{text}");
    assert!(
        lock["caller"]
            .as_str()
            .is_some_and(|c| c.contains("renameat") || c.contains("lock_rename")),
        "{mwrm}"
    );
    let drbl = cell(c, "DRBL");
    assert!(drbl["lock"].is_null(), "{drbl}");
    for p in drbl["points"].as_array().unwrap() {
        // A share of the jobs' time, not a time: a slower machine's waits are longer, and so
        // are its operations. The card names a lock at 5%.
        let per_op = p["lock_wait_ns_per_op"].as_f64().unwrap_or(0.0);
        let ops_per_s = p["ops_per_s"].as_f64().unwrap();
        let jobs = p["jobs"].as_f64().unwrap();
        let share = per_op * ops_per_s / (jobs * 1e9);
        assert!(
            share < 0.01,
            "a cached read waits on no lock: {share} of its time: {p}"
        );
    }
}

#[test]
fn two_targets_draw_both_grids_and_a_differential_and_two_stored_cards_compare() {
    let (a, b, dir) = (temp_dir(), temp_dir(), temp_dir());
    let html = dir.path().join("card.html");
    let (v, text) = two_dir_card(a.path(), b.path(), "DRBL,MWCM", dir.path(), &html);
    assert_eq!(v["cards"].as_array().unwrap().len(), 2);
    assert!(text.contains("Differential card: b / a"), "{text}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(
        page.matches("<div class=\"card\">").count(),
        2,
        "both grids"
    );
    assert_eq!(page.matches("data-op=\"MWCM\"").count(), 2);
    assert!(page.contains("Differential card: b / a"));
    // Two stored cards: compare takes them as runs, point by point.
    let first = v["run"]["id"].as_str().unwrap().to_string();
    let (v2, _) = two_dir_card(a.path(), b.path(), "DRBL,MWCM", dir.path(), &html);
    let second = v2["run"]["id"].as_str().unwrap().to_string();
    let out = fsbench()
        .args(["compare", &first, &second, "--db"])
        .arg(dir.path().join("c.db"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("op=MWCM jobs=2"), "{text}");
    // And the report of both: the second card over the first.
    let both = dir.path().join("both.html");
    let out = fsbench()
        .args(["report", &first, &second, "-o"])
        .arg(&both)
        .arg("--db")
        .arg(dir.path().join("c.db"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&both).unwrap();
    assert!(page.contains("Two cards"), "the stored cards' differential");
    // show prints the stored card as a card.
    let out = fsbench()
        .args(["show", &first, "--db"])
        .arg(dir.path().join("c.db"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Character card of a"), "{text}");
    // history says which runs are cards.
    let out = fsbench()
        .args(["history", "--db"])
        .arg(dir.path().join("c.db"))
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().filter(|l| l.contains(" card ")).count(),
        2,
        "{text}"
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = temp_dir();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let t = format!("{}", dir.path().display());
    let f = format!("{}", file.display());
    for (args, needle) in [
        (
            vec!["-t", t.as_str(), "--ops", "NOPE"],
            "unknown operation 'NOPE'",
        ),
        (vec!["-t", t.as_str(), "--jobs", "0"], "--jobs: '0'"),
        (
            vec!["-t", f.as_str(), "--ops", "DRBL", "--no-profile"],
            "plain-file",
        ),
        (vec!["-t", t.as_str(), "-w", "null"], "use --ops"),
    ] {
        let out = fsbench()
            .arg("card")
            .args(&args)
            .arg("--no-store")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(
        crate::util::entries(dir.path()) == vec!["plain-file".to_string()],
        "nothing left behind"
    );
}

#[test]
#[cfg_attr(not(fsbench_tool_chromium), ignore = "needs chromium")]
fn chromium_draws_two_cards_side_by_side_and_their_differential() {
    let (a, b, dir) = (temp_dir(), temp_dir(), temp_dir());
    let html = dir.path().join("card.html");
    two_dir_card(a.path(), b.path(), "DRBL,MRPM,MWCM", dir.path(), &html);
    let url = format!("file://{}", html.display());
    let profile = dir.path().join("profile");
    let shot = dir.path().join("shot.png");
    let out = crate::screenshots::chromium(
        &url,
        &profile,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,1600".into(),
        ],
    );
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(shot.exists(), "no screenshot: {log}");
    assert!(crate::report::ink(&shot) > 0.02, "the card page is blank");
    let dom = crate::screenshots::chromium(&url, &profile, &["--dump-dom".into()]);
    let text = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(
        text.matches("class=\"card-curve\"").count(),
        6,
        "a curve per operation and card"
    );
    assert_eq!(text.matches("<polyline").count(), 6);
    assert!(text.contains("Differential card: b / a"));
    let logs = log + &String::from_utf8_lossy(&dom.stderr);
    let errors: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("rror") || l.contains("Uncaught")))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// A card in CI's gate: a card of one labelled target stored as the baseline, then the card of
/// the same label where writes wait for a device (`fsync` on a journaled ext4 instead of
/// tmpfs): `--baseline last --fail-if-slower 5` fails naming the operation's cells, `compare`
/// says the same of the two stored cards, and `trend` follows each job count's cell across the
/// three cards. A card against itself passes the gate.
#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn a_card_gates_ci_against_its_baseline_and_trends_across_runs() {
    let _alone = crate::util::alone();
    let dir = temp_dir();
    let db = dir.path().join("c.db");
    let fast = crate::trend::Tmpfs::new();
    let slow = crate::util::LoopExt4::new(256 << 20);
    let card_on = |target: &Path, extra: &[&str]| {
        fsbench()
            .args([
                "card",
                "--ops",
                "DWSL",
                "--jobs",
                "1,2",
                "--duration",
                "200ms",
            ])
            .args(["--runs", "3", "--no-profile", "-q", "-t"])
            .arg(format!("t={}", target.display()))
            .arg("--db")
            .arg(&db)
            .args(extra)
            .output()
            .expect("run fsbench card")
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let first = card_on(&fast.path(), &[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    // Cells another process's load made not comparable are reported, not failed: the gate's
    // verdict on a proven slowdown is what is tested.
    let gate = |pct| {
        [
            "--baseline",
            "last",
            "--fail-if-slower",
            pct,
            "--allow-incomparable",
        ]
    };
    let again = card_on(&fast.path(), &gate("1000"));
    assert!(
        again.status.success(),
        "a card against itself: {}{}",
        text(&again.stdout),
        text(&again.stderr)
    );
    let slower = card_on(&slow.path(), &gate("5"));
    let (out, err) = (text(&slower.stdout), text(&slower.stderr));
    assert_eq!(slower.status.code(), Some(1), "{out}{err}");
    assert!(err.contains("the gate failed"), "{err}");
    assert!(
        out.contains("op=DWSL"),
        "the operation's cells named: {out}"
    );
    assert!(out.contains("SLOWER"), "{out}");
    // The stored cards compared the same way.
    let compare = fsbench()
        .args([
            "compare",
            "last~1",
            "last",
            "--fail-if-slower",
            "5",
            "--allow-incomparable",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(compare.status.code(), Some(1), "{}", text(&compare.stdout));
    // The trend of the label's cells: a step at the slower card, its filesystem beside it.
    let trend = fsbench()
        .args(["trend", "--db"])
        .arg(&db)
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    let (out, err) = (text(&trend.stdout), text(&trend.stderr));
    assert!(trend.status.success(), "{out}{err}");
    for jobs in ["jobs=1", "jobs=2"] {
        let row = out
            .lines()
            .find(|l| l.contains(&format!("t/fx {jobs}/warm")))
            .unwrap_or_else(|| panic!("the card's {jobs} cell in the trend: {out}"));
        assert!(row.contains("|    3 |"), "three stored cards: {row}");
    }
}
