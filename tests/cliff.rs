//! Cliffs inside a sample (issue 22): buffered writes beyond a lowered dirty-page limit fall from
//! memory speed to writeback speed, and the run says so, where and why.
//!
//! The dirty-page limit is the whole machine's: every process's dirty pages count against it.
//! Another test writing at the same time (a lab being aged writes hundreds of MiB) fills it too,
//! and the writes here are throttled from their first MiB — no cliff, or one at another size,
//! as the kernel would have it. So the test runs alone ([`crate::util::alone`]), and it lowers
//! the limit only while it does (CPU load from elsewhere leaves the shape as it is).

use crate::util::{alone, fsbench};
use serde_json::Value;

/// Sets `vm.dirty_*` for the test and puts the machine's back when dropped (panics included).
struct DirtyLimits {
    saved: Vec<(&'static str, String)>,
}

const KNOBS: [&str; 4] = [
    "dirty_ratio",
    "dirty_background_ratio",
    "dirty_bytes",
    "dirty_background_bytes",
];

impl DirtyLimits {
    fn set(bytes: u64, background: u64) -> Self {
        let saved = KNOBS
            .iter()
            .map(|k| {
                (
                    *k,
                    std::fs::read_to_string(format!("/proc/sys/vm/{k}")).unwrap(),
                )
            })
            .collect();
        std::fs::write("/proc/sys/vm/dirty_bytes", bytes.to_string()).unwrap();
        std::fs::write(
            "/proc/sys/vm/dirty_background_bytes",
            background.to_string(),
        )
        .unwrap();
        Self { saved }
    }
}

impl Drop for DirtyLimits {
    fn drop(&mut self) {
        // Writing a ratio turns its *_bytes off and the reverse: only the non-zero one of each
        // pair is written back.
        for (k, v) in self.saved.iter().filter(|(_, v)| v.trim() != "0") {
            let _ = std::fs::write(format!("/proc/sys/vm/{k}"), v.trim());
        }
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4 (vm.dirty_bytes, a lab ext4 with fscrypt)"
)]
fn buffered_writes_past_a_lowered_dirty_limit_report_the_cliff_at_that_size() {
    // On ext4 with fscrypt, pages are encrypted at writeback (in software here): buffered writes
    // run at memory speed until the dirty limit, then at the cipher's speed — a clean cliff
    // whatever the disk below does.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a dir on a disk");
    let json = dir.path().join("r.json");
    let run = {
        // The other tests' fsbench runs end first; the limits are back before theirs start.
        let _alone = alone();
        let _limits = DirtyLimits::set(128 << 20, 64 << 20);
        fsbench()
            .args(["run", "-q", "--lab", "ext4-fscrypt", "--lab-dir"])
            .arg(dir.path())
            .args(["--lab-size", "700m"])
            // Four times the limit: the fast part (up to the limit) is under a fifth of the
            // bytes and a few % of the time, the shape a detector of balanced segments missed;
            // the interval is the default, chosen by fsbench. (At 1 GiB past a 256 MiB limit
            // the test took 20 s here. At 256 MiB past 64 MiB, beside two CPU hogs, the head
            // was 24-26 intervals and the hogs' erratic writeback gave its tail echoes that
            // the head's evidence could not outweigh: 2 runs in 27 found no cliff. Twice the
            // bytes double the head's intervals.)
            .args(["-w", "seq-write:size=512m,bs=1m", "--cache", "cold"])
            .args(["--runs", "1"])
            .arg("--db")
            .arg(dir.path().join("r.db"))
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap()
    };
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let r = &v["results"][0];
    let cliff = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "cliff")
        .unwrap_or_else(|| {
            panic!(
                "no cliff: {}; MiB/s per interval: {:?}",
                r["warnings"],
                rates(r)
            )
        });
    let text = cliff["message"].as_str().unwrap();
    assert!(
        text.contains("the kernel's dirty-page limit (vm.dirty_background_bytes = 64 MiB, vm.dirty_bytes = 128 MiB)"),
        "{text}"
    );
    // "after X MiB": between half the background threshold and 1.5 times the limit.
    let mib: f64 = text
        .split("after ")
        .nth(1)
        .and_then(|t| t.split(" MiB").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!((32.0..=192.0).contains(&mib), "{text}");
}

/// The first sample's MiB/s per interval, rounded (to show what the detector saw).
fn rates(r: &Value) -> Vec<u64> {
    let mut prev = 0;
    r["samples"][0]["series"]
        .as_array()
        .map(|points| {
            points
                .iter()
                .map(|p| {
                    let t = p["t_ns"].as_u64().unwrap_or(0);
                    let dt = t.saturating_sub(prev).max(1);
                    prev = t;
                    (p["bytes"].as_u64().unwrap_or(0) * 1_000_000_000 / dt) >> 20
                })
                .collect()
        })
        .unwrap_or_default()
}
