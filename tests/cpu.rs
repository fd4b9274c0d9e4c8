//! CPU beyond fsbench's own: the machine's time by kind per sample (`/proc/stat`), and the CPU of
//! a FUSE daemon serving the walked tree (`/proc/PID/stat`), in the JSON and the scaling table.

use crate::util::{fsbench, temp_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Runs `fsbench run --target TARGET ARGS -q --json F`; returns the JSON and the stdout text.
fn run(target: &Path, args: &[&str]) -> (Value, String) {
    let json = temp_dir();
    let out = json.path().join("out.json");
    let assert = fsbench()
        .arg("run")
        .arg("--target")
        .arg(target)
        .args(args)
        .args(["-q", "--json"])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let v = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (v, stdout)
}

/// Every sample's machine parts add up to about wall × CPUs. Each part is counted in 10 ms
/// clock ticks, so the tolerance is two ticks per CPU plus a generous relative share.
fn check_machine_parts(sample: &Value) {
    let m = &sample["machine"];
    let cpus = m["cpus"].as_u64().expect("machine.cpus");
    assert!(cpus >= 1, "{m}");
    let parts = [
        "user_ns",
        "sys_ns",
        "iowait_ns",
        "irq_ns",
        "idle_ns",
        "steal_ns",
    ];
    let sum: f64 = parts.iter().map(|p| m[*p].as_f64().expect(p)).sum();
    let capacity = sample["wall_ns"].as_f64().unwrap() * cpus as f64;
    let slack = 2.0 * 10e6 * cpus as f64 + 0.5 * capacity;
    assert!(
        (sum - capacity).abs() <= slack,
        "parts {sum} vs {capacity}: {m}"
    );
    let metrics = &sample["metrics"];
    let pct_sum: f64 = ["user", "sys", "iowait", "irq", "idle", "steal"]
        .iter()
        .map(|p| metrics[format!("machine_{p}_pct")].as_f64().expect(p))
        .sum();
    assert!((pct_sum * capacity / 100.0 - sum).abs() < 1.0, "{metrics}");
    assert!(m["context_switches"].as_u64().is_some());
    assert!(sample["process"]["voluntary_switches"].as_u64().is_some());
}

#[test]
fn walk_samples_carry_the_machines_cpu() {
    let t = temp_dir();
    let w = "walk:profile=small,scale=0.1,workers=1,2,walks=8";
    let (v, stdout) = run(t.path(), &["-w", w, "--cache", "warm", "--runs", "2"]);
    for r in v["results"].as_array().unwrap() {
        for s in r["samples"].as_array().unwrap() {
            check_machine_parts(s);
            assert!(s["daemon"].is_null(), "no FUSE daemon on a temp dir: {s}");
            assert!(s["metrics"].get("daemon_cpu_pct").is_none());
        }
        assert_eq!(r["summary"]["machine_sys_pct"]["unit"], "%");
    }
    let row = &v["scaling"][0]["rows"][0];
    assert!(row["machine_sys_pct"].as_f64().is_some(), "{row}");
    assert!(row["daemon_cpu_pct"].is_null(), "{row}");
    assert!(stdout.contains("machine sys"), "{stdout}");
    assert!(!stdout.contains("daemon CPU"), "{stdout}");
}

/// A bindfs mount, unmounted when dropped (also when the test fails).
struct Bindfs {
    mnt: PathBuf,
}

impl Bindfs {
    fn mount(src: &Path, mnt: &Path) -> Self {
        let ok = std::process::Command::new("bindfs")
            .arg(src)
            .arg(mnt)
            .status()
            .expect("run bindfs");
        assert!(
            ok.success(),
            "bindfs {} {} failed",
            src.display(),
            mnt.display()
        );
        Self {
            mnt: mnt.to_path_buf(),
        }
    }
}

impl Drop for Bindfs {
    fn drop(&mut self) {
        let fusermount = std::process::Command::new("fusermount3")
            .arg("-u")
            .arg(&self.mnt)
            .status();
        if !fusermount.is_ok_and(|s| s.success()) {
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(&self.mnt)
                .status();
        }
    }
}

/// A tree of `dirs` × `files` empty files.
fn make_tree(root: &Path, dirs: usize, files: usize) {
    for d in 0..dirs {
        let dir = root.join(format!("d{d}"));
        std::fs::create_dir(&dir).unwrap();
        for f in 0..files {
            std::fs::write(dir.join(format!("f{f}")), b"").unwrap();
        }
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_bindfs, fsbench_dev_fuse)),
    ignore = "needs root, bindfs and /dev/fuse"
)]
fn a_bindfs_walk_records_the_daemons_cpu() {
    let (src, mnt, target) = (temp_dir(), temp_dir(), temp_dir());
    make_tree(src.path(), 60, 50);
    let guard = Bindfs::mount(src.path(), mnt.path());
    let w = format!("walk:tree={},workers=1,2,walks=4", guard.mnt.display());
    let (v, stdout) = run(target.path(), &["-w", &w, "--cache", "warm", "--runs", "4"]);
    let mut daemon_ns = 0;
    for r in v["results"].as_array().unwrap() {
        assert_eq!(r["samples"][0]["metrics"]["entries"], 4.0 * 3060.0);
        for s in r["samples"].as_array().unwrap() {
            check_machine_parts(s);
            let d = &s["daemon"];
            daemon_ns += d["user_ns"].as_u64().expect("daemon.user_ns");
            daemon_ns += d["sys_ns"].as_u64().expect("daemon.sys_ns");
        }
    }
    assert!(daemon_ns > 0, "the daemon served the walk: {v}");
    let rows = v["scaling"][0]["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["daemon_cpu_pct"].as_f64().is_some()));
    assert!(stdout.contains("daemon CPU"), "{stdout}");
    eprintln!("{stdout}");
}
