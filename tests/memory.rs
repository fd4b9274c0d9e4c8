//! Peak memory per sample: a command's process tree is measured by its largest process (the
//! `ru_maxrss` of the children fsbench reaps), fsbench's own workers by its high-water mark
//! reset before every sample, in the JSON, the store and the times table.

use crate::util::{fsbench, temp_dir};
use serde_json::Value;

/// Each cell's workload and the peak of each of its samples.
type Peaks = Vec<(String, Vec<Option<u64>>)>;

/// The peak of every sample of each cell of a run of `workloads` (warm, 2 samples), and what
/// the run printed.
fn peaks(workloads: &[&str]) -> (Peaks, String) {
    let dir = temp_dir();
    let json = dir.path().join("out.json");
    let mut cmd = fsbench();
    cmd.current_dir(dir.path())
        .args(["run", "--cache", "warm", "--runs", "2"]);
    for w in workloads {
        cmd.args(["-w", w]);
    }
    let out = cmd.arg("--json").arg(&json).output().expect("run");
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cells = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let samples = r["samples"].as_array().unwrap();
            let peaks = samples.iter().map(|s| s["peak_rss_kib"].as_u64()).collect();
            (r["workload"].as_str().unwrap().to_string(), peaks)
        })
        .collect();
    (cells, String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_commands_largest_process_is_its_samples_peak_memory() {
    // A child that touches 96 MiB; the 1-MiB one beside it, in another cell, stays far below.
    let big = "command:run='python3 -c \"b = bytearray(96 << 20)\"'";
    let small = "command:run='python3 -c \"b = bytearray(1 << 20)\"'";
    let (cells, stdout) = peaks(&[big, small]);
    let big_peaks = &cells[0].1;
    let small_peaks = &cells[1].1;
    for (b, s) in big_peaks.iter().zip(small_peaks) {
        let (b, s) = (b.expect("measured"), s.expect("measured"));
        assert!(b >= 96 << 10, "{b} KiB for a process that touched 96 MiB");
        assert!(
            s < b - (64 << 10),
            "{s} KiB (1 MiB touched) against {b} KiB (96 MiB)"
        );
    }
    assert!(stdout.contains("peak RSS"), "{stdout}");
}

#[test]
fn each_sample_measures_its_own_peak_not_the_runs() {
    // fsbench's own high-water mark is reset before each sample: a later sample of a small
    // workload does not inherit an earlier cell's large command (that is the children's, and
    // reset too).
    let big = "command:run='python3 -c \"b = bytearray(96 << 20)\"'";
    let (cells, _) = peaks(&[big, "null"]);
    let null = &cells[1].1;
    for p in null {
        let p = p.expect("measured");
        assert!(
            p < 90 << 10,
            "null's sample peak {p} KiB carries the command's 96 MiB"
        );
    }
}
