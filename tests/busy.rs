//! A busy machine is an environment difference (issue 33): a run taken while other processes kept
//! both CPUs busy, compared with a quiet run of the same cells, is named as such and its cells are
//! not called proven against the quiet ones.

use crate::util::{alone, fsbench, temp_dir};
use std::process::{Child, Command};

/// CPU hogs that are killed when dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    fn start(n: usize) -> Self {
        Self(
            (0..n)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("sh")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn run(dir: &std::path::Path, db: &std::path::Path) {
    fsbench()
        .args(["run", "-q", "--cache", "warm", "--runs", "4"])
        .args([
            "-w",
            "rand-read:size=16m,ops=40000",
            "-w",
            "walk:profile=small",
        ])
        .arg("-t")
        .arg(dir)
        .arg("--db")
        .arg(db)
        .assert()
        .success();
}

#[test]
fn a_run_on_a_busy_machine_is_not_comparable_with_a_quiet_one_and_says_why() {
    let d = temp_dir();
    let target = d.path().join("t");
    std::fs::create_dir(&target).unwrap();
    let db = d.path().join("r.db");
    let _alone = alone();
    // The quiet side must be quiet: a machine busy with something else is waited out (three
    // tries, a few seconds apart), never taken for quiet.
    let loaded = |db: &std::path::Path| {
        let shown = fsbench()
            .args(["show", "last", "--db"])
            .arg(db)
            .output()
            .unwrap();
        String::from_utf8_lossy(&shown.stdout).contains("ran while other processes took")
    };
    let mut tries = 0;
    loop {
        run(&target, &db);
        tries += 1;
        if !loaded(&db) {
            break;
        }
        assert!(
            tries < 3,
            "the machine was busy with other work for all three quiet runs"
        );
        std::thread::sleep(std::time::Duration::from_secs(5));
    }
    {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let _hogs = Hogs::start(cpus);
        run(&target, &db);
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
