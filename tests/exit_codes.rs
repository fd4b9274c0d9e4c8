//! One exit-code rule for every command (`fsbench --help`, README.md, docs/safety.md): usage or
//! input 2, the work failed on I/O or a full disk 3, a gate 1 or 4, interrupted 130 — tested per
//! path here and where each path lives (gates in tests/store.rs, signals in tests/races.rs).

use crate::util::{fsbench, temp_dir};
use std::path::Path;
use std::process::Command;

#[test]
fn help_states_the_exit_codes() {
    for args in [&["--help"][..], &["run", "--help"]] {
        let out = fsbench().args(args).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success());
        for code in [
            "0 ok",
            "2 usage or input",
            "3 the work failed",
            "130 interrupted",
        ] {
            assert!(text.contains(code), "{args:?}: {text}");
        }
    }
}

#[test]
fn a_bad_flag_and_a_missing_file_are_usage_errors() {
    let out = fsbench().args(["run", "--no-such-flag"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = fsbench()
        .args(["import", "/nonexistent/r.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A tmpfs of `kib` KiB mounted on a fresh directory, unmounted when dropped.
struct Tiny(tempfile::TempDir);

impl Tiny {
    fn new(kib: u32) -> Self {
        let dir = temp_dir();
        let st = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tiny"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(st.success(), "mount tmpfs");
        Self(dir)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    /// Fills what is left of it.
    fn fill(&self) {
        let filler = self.path().join("filler");
        let mut f = std::fs::File::create(filler).unwrap();
        let block = vec![0u8; 4096];
        while std::io::Write::write_all(&mut f, &block).is_ok() {}
    }
}

impl Drop for Tiny {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.0.path()).status();
    }
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root (a small tmpfs)")]
fn a_full_disk_under_the_database_is_exit_3() {
    let target = temp_dir();
    let tiny = Tiny::new(1024);
    let db = tiny.path().join("r.db");
    let run = |db: &Path| {
        fsbench()
            .args([
                "run", "-q", "-w", "null", "--cache", "warm", "--runs", "3", "--db",
            ])
            .arg(db)
            .arg("-t")
            .arg(target.path())
            .output()
            .unwrap()
    };
    // The database exists and works; then its filesystem fills up.
    assert_eq!(run(&db).status.code(), Some(0));
    tiny.fill();
    let out = run(&db);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("full"), "{err}");
    // No database yet on a full filesystem: the same.
    let out = run(&tiny.path().join("new.db"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    // And an import into it.
    let json = target.path().join("r.json");
    let made = fsbench()
        .args([
            "run",
            "-q",
            "-w",
            "null",
            "--cache",
            "warm",
            "--runs",
            "2",
            "--no-store",
        ])
        .arg("--json")
        .arg(&json)
        .arg("-t")
        .arg(target.path())
        .output()
        .unwrap();
    assert_eq!(made.status.code(), Some(0));
    let out = fsbench()
        .arg("import")
        .arg(&json)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
}

#[test]
fn a_file_that_is_not_a_database_is_an_input_error() {
    let t = temp_dir();
    let db = t.path().join("notes.txt");
    std::fs::write(&db, "not a database\n".repeat(20)).unwrap();
    let out = fsbench()
        .args([
            "run", "-q", "-w", "null", "--cache", "warm", "--runs", "2", "--db",
        ])
        .arg(&db)
        .arg("-t")
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
