//! `fsbench ministat` against the real ministat: committed fixtures produced by Debian's
//! ministat 20150715 (tests/fixtures/ministat/generate.sh) compared byte for byte, and a
//! differential test on random inputs when the real tool is installed.

use crate::util::{fixture, fsbench};
use std::path::Path;
use std::process::{Command, Stdio};

fn check_case(dir: &Path) {
    let args: Vec<String> = std::fs::read_to_string(dir.join("args"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let stdin = std::fs::read(dir.join("stdin")).unwrap_or_default();
    let out = fsbench()
        .arg("ministat")
        .args(&args)
        .current_dir(dir)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let want_out = std::fs::read(dir.join("stdout")).unwrap();
    let want_err = std::fs::read(dir.join("stderr")).unwrap();
    let want_code: i32 = std::fs::read_to_string(dir.join("code"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let name = dir.file_name().unwrap().to_string_lossy();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&want_out),
        "stdout of {name}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&want_err),
        "stderr of {name}"
    );
    assert_eq!(out.status.code(), Some(want_code), "exit code of {name}");
}

#[test]
fn every_fixture_matches_the_real_ministat_byte_for_byte() {
    let mut cases: Vec<_> = std::fs::read_dir(fixture("ministat/cases"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 30, "only {} fixture cases", cases.len());
    for c in cases {
        check_case(&c);
    }
}

/// A tiny deterministic generator so the differential test needs no dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
#[cfg_attr(not(fsbench_tool_ministat), ignore = "needs ministat")]
fn random_inputs_agree_with_the_installed_ministat() {
    let dir = crate::util::temp_dir();
    let mut rng = Lcg(42);
    let flag_sets: [&[&str]; 6] = [
        &[],
        &["-s"],
        &["-A"],
        &["-n"],
        &["-c", "99", "-w", "60"],
        &["-c", "80", "-s", "-w", "100"],
    ];
    for round in 0..60 {
        let sets = 1 + (rng.next() * 4.0) as usize;
        let mut files = Vec::new();
        for s in 0..sets {
            let n = 3 + (rng.next() * 40.0) as usize;
            let scale = 10f64.powi((rng.next() * 12.0) as i32 - 4);
            let shift = rng.next() * 0.2 * s as f64;
            let text: String = (0..n)
                .map(|_| {
                    let v = (rng.next() + shift) * scale;
                    if rng.next() < 0.3 {
                        format!("{}\n", (v * 100.0).round())
                    } else {
                        format!("{v}\n")
                    }
                })
                .collect();
            let path = dir.path().join(format!("r{round}-{s}"));
            std::fs::write(&path, text).unwrap();
            files.push(path);
        }
        let flags = flag_sets[round % flag_sets.len()];
        let real = Command::new("ministat")
            .args(flags)
            .args(&files)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let ours = fsbench()
            .arg("ministat")
            .args(flags)
            .args(&files)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&real.stdout),
            "round {round} flags {flags:?}"
        );
        assert_eq!(ours.status.code(), real.status.code(), "round {round}");
    }
}

#[test]
fn modern_uses_the_true_median_and_percivals_interval() {
    let dir = fixture("ministat/cases/01-two");
    let old = fsbench()
        .args(["ministat", "a", "b"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let new = fsbench()
        .args(["ministat", "--modern", "a", "b"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let (old, new) = (
        String::from_utf8_lossy(&old.stdout),
        String::from_utf8_lossy(&new.stdout),
    );
    // a = 1 2 3 4: old median is the upper middle point (3), modern the mean of the middle two.
    assert!(
        old.contains("x   4             1             4             3"),
        "{old}"
    );
    assert!(
        new.contains("x   4             1             4           2.5"),
        "{new}"
    );
}

#[test]
fn quiet_drops_legend_and_header() {
    let dir = fixture("ministat/cases/01-two");
    let out = fsbench()
        .args(["ministat", "-q", "-n", "a", "b"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("x a") && !text.contains("Median"), "{text}");
    assert_eq!(text.lines().count(), 2);
}
