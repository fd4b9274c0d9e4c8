//! A busy machine is an environment difference (issue 33): a run taken while other processes kept
//! both CPUs busy, compared with a quiet run of the same cells, is named as such and its cells are
//! not called proven against the quiet ones. The quiet side is a real run whose machine readings
//! are set to a quiet machine's: a test cannot wait for a shared machine to be quiet.

use crate::util::{alone, fsbench, hog_every_cpu, temp_dir};
use serde_json::Value;
use std::path::Path;

/// Four warm samples of a cached random read (300 ms each, sized by time: long enough on any
/// machine, 100 ms or more, to have its load judged alone) and of a small walk (too short: its run's load stands for it).
fn run(dir: &Path, db: &Path, extra: &[&std::ffi::OsStr]) {
    fsbench()
        .args(["run", "-q", "--cache", "warm", "--runs", "4"])
        .args([
            "-w",
            "rand-read:size=16m,duration=300ms",
            "-w",
            "walk:profile=small",
        ])
        .arg("-t")
        .arg(dir)
        .arg("--db")
        .arg(db)
        .args(extra)
        .assert()
        .success();
}

/// `record` (a run's JSON) as the same samples would have been read on a quiet machine: the
/// machine's busy time is what the measurement itself used (fsbench, its FUSE daemon), nothing
/// else, and no cell is flagged for load.
fn as_if_quiet(record: &mut Value) {
    let cpus = record["environment"]["cpus"].as_f64().expect("cpus");
    for cell in record["results"].as_array_mut().expect("results") {
        for s in cell["samples"].as_array_mut().expect("samples") {
            let m = &mut s["metrics"];
            let ours =
                m["cpu_pct"].as_f64().unwrap_or(0.0) + m["daemon_cpu_pct"].as_f64().unwrap_or(0.0);
            m["machine_user_pct"] = (ours / cpus).into();
            m["machine_sys_pct"] = 0.0.into();
            m["machine_irq_pct"] = 0.0.into();
        }
        if let Some(w) = cell["warnings"].as_array_mut() {
            w.retain(|w| w["kind"] != "load");
        }
    }
}

#[test]
fn a_run_on_a_busy_machine_is_not_comparable_with_a_quiet_one_and_says_why() {
    let d = temp_dir();
    let target = d.path().join("t");
    std::fs::create_dir(&target).unwrap();
    let db = d.path().join("r.db");
    let _alone = alone();
    // The quiet side: real samples, with the machine's readings of a quiet machine (the test
    // runs wherever the suite does, on machines that are never quiet), imported.
    let quiet = d.path().join("quiet.json");
    run(
        &target,
        &db,
        &["--no-store".as_ref(), "--json".as_ref(), quiet.as_os_str()],
    );
    let mut record: Value = serde_json::from_slice(&std::fs::read(&quiet).unwrap()).unwrap();
    as_if_quiet(&mut record);
    std::fs::write(&quiet, serde_json::to_vec(&record).unwrap()).unwrap();
    fsbench()
        .arg("import")
        .arg(&quiet)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    {
        let _hogs = hog_every_cpu();
        run(&target, &db, &[]);
    }
    let out = fsbench()
        .args(["compare", "last~1", "last", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("load: other processes took"),
        "the load is named among the environment differences:\n{text}"
    );
    assert!(!text.contains("no differences recorded"), "{text}");
    assert!(
        text.contains("rerun the loaded side on a quiet machine"),
        "{text}"
    );
    assert!(
        !text.contains("worse, proven") && !text.contains("better, proven"),
        "nothing is proven across the load:\n{text}"
    );
    // The walk's samples are too short to judge alone: its run's load stands for it.
    assert_eq!(
        text.matches("not comparable: other processes took").count(),
        2,
        "{text}"
    );
    // The gate judges none of them, so it does not pass them either.
    fsbench()
        .args(["compare", "last~1", "last", "--fail-if-slower", "5", "--db"])
        .arg(&db)
        .assert()
        .code(1);
    // The loaded run's own cells flag their samples.
    let shown = fsbench()
        .args(["show", "last", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("ran while other processes took a large share"),
        "{shown}"
    );
}
