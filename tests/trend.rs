//! `fsbench trend` end to end (issue 33, "trends across runs"): runs under one target label on
//! tmpfs, then on ext4, give one step at the first ext4 run with the filesystem change beside
//! it, in the table, the JSON and the HTML, and `--fail-on-step` fails on it; a flat history
//! passes; bad input is one line and exit 2.

use crate::util::{LoopExt4, fsbench, temp_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `fsbench trend ARGS --db DB`: (exit code, stdout, stderr).
fn trend(db: &Path, args: &[&str]) -> (i32, String, String) {
    let out = fsbench()
        .arg("trend")
        .args(args)
        .arg("--db")
        .arg(db)
        .output()
        .expect("run fsbench trend");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// The stored run ids, oldest first.
fn run_ids(db: &Path) -> Vec<String> {
    let out = fsbench()
        .args(["history", "--export-json", "-", "--db"])
        .arg(db)
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut ids: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    ids.reverse();
    ids
}

/// What a trend of a tmpfs-then-ext4 history must say: one step down with the filesystem change
/// beside it, at `at`, in the table, the JSON and the HTML; `--fail-on-step` fails. Runs of short
/// tmpfs samples can also step, proven, between two runs with nothing else changed (the machine's
/// other work changed): such a step is real, and not the one asked; it must not be blamed on the
/// filesystem.
fn assert_one_step_at(db: &Path, at: &str, dir: &Path) {
    let (code, out, err) = trend(db, &[]);
    assert_eq!(code, 0, "{err}");
    let changed: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("stepped") && l.contains("filesystem: tmpfs → ext4"))
        .collect();
    assert_eq!(changed.len(), 1, "{out}");
    let line = changed[0];
    assert!(line.contains("stepped down"), "{line}");
    assert!(line.contains(&format!("at run {at} ")), "{line}");
    for other in out.lines().filter(|l| l.contains("stepped") && *l != line) {
        assert!(
            other.contains("no environment difference recorded"),
            "{out}"
        );
    }
    assert!(out.contains("same/"), "{out}");
    let (json, html) = (dir.join("trend.json"), dir.join("trend.html"));
    let args = [
        "--export-json",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ];
    assert_eq!(trend(db, &args).0, 0);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let all = v["cells"][0]["steps"].as_array().unwrap();
    // One step down at the filesystem change; any other is between runs with nothing changed.
    let at_change = |s: &&Value| s["environment"].to_string().contains("tmpfs → ext4");
    let steps: Vec<&Value> = all.iter().filter(at_change).collect();
    assert_eq!(steps.len(), 1, "{v:#}");
    assert_eq!(steps[0]["worse"], true, "{v:#}");
    assert_eq!(steps[0]["run_id"], at);
    let env: Vec<&str> = steps[0]["environment"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(env.contains(&"same filesystem: tmpfs → ext4"), "{env:?}");
    assert_eq!(v["cells"][0]["newest_on_worse_side"], true);
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<svg").count(), 1, "one chart for one cell");
    assert_eq!(
        page.matches("<g class=\"step\">").count(),
        all.len(),
        "{page}"
    );
    assert!(page.contains("tmpfs → ext4"), "{page}");
    let (code, _, err) = trend(db, &["--fail-on-step"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("worse side of a step"), "{err}");
}

/// A tmpfs mounted on a temp directory (root), unmounted when dropped.
pub(crate) struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    /// A fresh tmpfs of 64 MiB.
    pub(crate) fn new() -> Self {
        let dir = temp_dir();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64m", "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "mount tmpfs");
        Self(dir)
    }

    /// Its root.
    pub(crate) fn path(&self) -> PathBuf {
        self.0.path().to_path_buf()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .status();
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn runs_on_tmpfs_then_ext4_under_one_label_show_one_step_at_the_first_ext4_run() {
    // Eight runs whose levels must hold: no other test's runs beside them.
    let _alone = crate::util::alone();
    let d = temp_dir();
    let db = d.path().join("r.db");
    let (tmpfs, ext4) = (Tmpfs::new(), LoopExt4::new(256 << 20));
    // fsync after every 256 KiB: free on tmpfs, a device round trip on ext4.
    let run = |dir: &Path| {
        fsbench()
            .args(["run", "-q", "--cache", "warm", "--runs", "3", "-w"])
            .arg("seq-write:size=32m,bs=256k,fsync=each")
            .arg("-t")
            .arg(format!("same={}", dir.display()))
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
    };
    for _ in 0..4 {
        run(tmpfs.0.path());
    }
    for _ in 0..4 {
        run(&ext4.path());
    }
    let ids = run_ids(&db);
    assert_eq!(ids.len(), 8);
    assert_one_step_at(&db, &ids[4], d.path());
}

/// A stored-run template: one `null` run's JSON (warm, three samples) on target `same`.
fn template(dir: &Path) -> Value {
    let target = dir.join("target");
    std::fs::create_dir_all(&target).unwrap();
    let json = dir.join("template.json");
    fsbench()
        .args([
            "run",
            "-q",
            "--no-store",
            "--cache",
            "warm",
            "--runs",
            "3",
            "-w",
            "null",
        ])
        .arg("-t")
        .arg(format!("same={}", target.display()))
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// Imports one run per entry of `runs` (filesystem, IOPS level) into `db`, oldest first, each
/// with three samples around its level; returns their ids.
fn import(db: &Path, dir: &Path, base: &Value, runs: &[(&str, f64)]) -> Vec<String> {
    let mut ids = Vec::new();
    for (i, (fs, level)) in runs.iter().enumerate() {
        let mut r = base.clone();
        let id = format!("20260101T{:02}0000Z-{}", i, 100 + i);
        r["run"]["id"] = id.clone().into();
        r["run"]["started_at"] = format!("2026-01-01T{i:02}:00:00Z").into();
        r["environment"]["targets"][0]["fs_type"] = (*fs).into();
        for (k, s) in r["results"][0]["samples"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            let wobble = [0.99, 1.0, 1.01][k % 3] * (1.0 + 0.01 * (i % 3) as f64);
            s["metrics"]["iops"] = (level * wobble).into();
        }
        let file: PathBuf = dir.join(format!("{id}.json"));
        std::fs::write(&file, serde_json::to_string(&r).unwrap()).unwrap();
        fsbench()
            .arg("import")
            .arg(&file)
            .arg("--db")
            .arg(db)
            .assert()
            .success();
        ids.push(id);
    }
    ids
}

#[test]
fn imported_runs_on_tmpfs_then_ext4_show_one_step_and_a_flat_history_passes_the_gate() {
    let d = temp_dir();
    let base = template(d.path());
    let db = d.path().join("r.db");
    let mut runs = vec![("tmpfs", 1_000_000.0); 4];
    runs.extend([("ext4", 300_000.0); 4]);
    let ids = import(&db, d.path(), &base, &runs);
    assert_one_step_at(&db, &ids[4], d.path());
    // The ext4 runs alone are flat: nothing to fail on.
    let (code, out, err) = trend(&db, &["--last", "4", "--fail-on-step"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no lasting step"), "{out}");
    let flat = d.path().join("flat.db");
    import(&flat, d.path(), &base, &[("ext4", 5000.0); 6]);
    let (code, out, _) = trend(
        &flat,
        &["--fail-on-step", "--cache", "warm", "--target", "same"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no lasting step"), "{out}");
    let row = out.lines().find(|l| l.contains("same/null/warm")).unwrap();
    assert!(row.contains(" 6 |"), "six runs: {out}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let d = temp_dir();
    let missing = d.path().join("none.db");
    let base = template(d.path());
    let db = d.path().join("r.db");
    import(&db, d.path(), &base, &[("ext4", 5000.0); 2]);
    let db_text = db.to_str().unwrap();
    let cases: Vec<(&Path, Vec<&str>)> = vec![
        (&missing, vec![]),
        (&db, vec!["--cache", "lukewarm"]),
        (&db, vec!["--last", "0"]),
        (&db, vec!["--confidence", "100"]),
        (&db, vec!["--target", "no-such-label"]),
        (&db, vec!["--export-json", db_text]),
    ];
    for (path, args) in cases {
        let (code, out, err) = trend(path, &args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("fsbench: error:"), "{args:?}: {err}");
    }
    assert!(
        std::fs::metadata(&db).unwrap().len() > 0,
        "the database is untouched"
    );
}
