//! `fsbench postmark` against Debian's postmark: committed fixtures (config + the real tool's
//! output, see fixtures/postmark/generate.sh) must give the same output once the numbers that
//! depend on elapsed time are removed; a differential test runs both tools on random
//! configurations; and the drop-in's own rules (errors with FILE:LINE, the prompt, a clean
//! location) are checked.

use crate::util::{fixture, fsbench};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bytes available to unprivileged users on the filesystem of `dir`.
fn available(dir: &Path) -> u64 {
    rustix::fs::statvfs(dir).map_or(0, |s| s.f_bavail.saturating_mul(s.f_frsize))
}

/// A fresh directory with empty `a/` and `b/` (for `set location`), on tmpfs when it has
/// `need` bytes free, else in the default temp dir; the test fails when neither has.
fn work_dir_for(need: u64) -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    let mut b = tempfile::Builder::new();
    b.prefix("fsbench-pm-test");
    let dir = if shm.is_dir() && available(shm) >= need {
        b.tempdir_in(shm).or_else(|_| b.tempdir())
    } else {
        b.tempdir()
    }
    .expect("temp dir");
    // Not a skip: a machine without this much room cannot run the postmark cross-checks, and
    // the failure says so.
    assert!(
        available(dir.path()) >= need,
        "the postmark tests need {need} bytes free in /dev/shm or {} — free space there",
        dir.path().display()
    );
    for sub in ["a", "b"] {
        std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
    }
    dir
}

/// A work directory for small configurations.
fn work_dir() -> tempfile::TempDir {
    work_dir_for(64 << 20)
}

/// Drops what depends on time or the machine: the banner, the time lines, `(N per second)`,
/// terse rates, the working directory and fsbench's precise block.
fn normalize(out: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_precise = false;
    for line in out.lines().skip(1) {
        if line.starts_with("--- fsbench: precise timings") {
            in_precise = true;
            lines.pop(); // the blank separator line
            continue;
        }
        if in_precise {
            in_precise = !line.starts_with("CPU: ");
            continue;
        }
        if line.contains("seconds total") || line.contains("seconds of transactions") {
            continue;
        }
        let fields: Vec<&str> = line.split(' ').collect();
        if fields.len() == 13 && fields.iter().all(|f| f.parse::<f64>().is_ok()) {
            lines.push("<terse report>".into());
            continue;
        }
        let line = match (line.rfind(" ("), line.ends_with(" per second)")) {
            (Some(i), true) => &line[..i],
            _ => line,
        };
        let line = match line.strip_prefix("Working directory: ") {
            Some(_) => "Working directory: <dir>",
            None => line,
        };
        lines.push(line.to_string());
    }
    lines
}

/// Runs `fsbench postmark config` in a fresh work dir holding `config`; returns stdout and
/// checks that nothing but config, a/ and b/ is left.
fn run_fsbench(config: &str) -> String {
    // The CSAIL pool peaks near 4.5 GB; everything else fits in a few MB.
    let need = if config.contains("set number 8192") {
        6 << 30
    } else {
        64 << 20
    };
    let dir = work_dir_for(need);
    std::fs::write(dir.path().join("config"), config).expect("write config");
    let out = fsbench()
        .current_dir(dir.path())
        .args(["postmark", "config"])
        .output()
        .expect("run fsbench");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "fsbench postmark failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let left = crate::util::entries(dir.path());
    assert_eq!(left, ["a", "b", "config"], "location not left clean");
    for sub in ["a", "b"] {
        assert!(crate::util::entries(&dir.path().join(sub)).is_empty());
    }
    stdout
}

fn check_fixture(name: &str) {
    let base: PathBuf = fixture("postmark").join(name);
    let config = std::fs::read_to_string(base.with_extension("pmrc")).expect("fixture config");
    let expected = std::fs::read_to_string(base.with_extension("out")).expect("fixture output");
    let got = run_fsbench(&config);
    assert_eq!(
        normalize(&got),
        normalize(&expected),
        "fixture {name}\n{got}"
    );
    assert!(got.contains("--- fsbench: precise timings"), "{got}");
}

macro_rules! fixtures {
    ($($test:ident => $name:literal,)*) => {
        $(#[test] fn $test() { check_fixture($name); })*
        const FIXTURES: &[&str] = &[$($name),*];
    };
}

fixtures! {
    postmark_fixture_tiny => "01-tiny",
    postmark_fixture_defaults => "02-defaults",
    postmark_fixture_csail => "03-csail",
    postmark_fixture_read_heavy => "04-read-heavy",
    postmark_fixture_create_heavy => "05-create-heavy",
    postmark_fixture_bias_read_off => "06-bias-read-off",
    postmark_fixture_bias_create_off => "07-bias-create-off",
    postmark_fixture_both_biases_off => "08-both-biases-off",
    postmark_fixture_unbuffered => "09-unbuffered",
    postmark_fixture_out_of_files => "10-out-of-files",
    postmark_fixture_subdirectories => "11-subdirectories",
    postmark_fixture_locations => "12-locations",
    postmark_fixture_terse_and_show => "13-terse-and-show",
    postmark_fixture_table_full => "14-table-full",
    postmark_fixture_fixed_size => "15-fixed-size",
    postmark_fixture_float_counters => "16-float-counters",
    postmark_fixture_two_runs_reseed => "17-two-runs-reseed",
    postmark_fixture_prefix_quirks => "18-prefix-quirks",
}

#[test]
fn postmark_every_fixture_file_has_a_test() {
    let mut on_disk: Vec<String> = crate::util::entries(&fixture("postmark"))
        .into_iter()
        .filter_map(|f| f.strip_suffix(".pmrc").map(String::from))
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, FIXTURES);
}

/// A small deterministic generator for the differential test (seed printed on failure).
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn random_config(r: &mut XorShift) -> String {
    let low = 1 + r.below(5000);
    let high = low + r.below(20000);
    let mut c = format!(
        "set number {}\nset transactions {}\nset size {low} {high}\nset seed {}\n",
        1 + r.below(120),
        10 + r.below(600),
        1 + r.below(1_000_000),
    );
    let bias = |r: &mut XorShift| r.below(12) as i64 - 1;
    c += &format!("set bias read {}\nset bias create {}\n", bias(r), bias(r));
    c += &format!(
        "set read {}\nset write {}\n",
        1 + r.below(9000),
        1 + r.below(9000)
    );
    if r.below(2) == 0 {
        c += "set buffering false\n";
    }
    if r.below(3) == 0 {
        c += &format!("set subdirectories {}\n", 1 + r.below(12));
    }
    if r.below(4) == 0 {
        c += &format!("set location a\nset location +b {}\n", 1 + r.below(4));
    }
    c + "run\nquit\n"
}

fn run_postmark(config: &str) -> String {
    let dir = work_dir();
    std::fs::write(dir.path().join("config"), config).expect("write config");
    let out = Command::new("postmark")
        .current_dir(dir.path())
        .arg("config")
        .output()
        .expect("run postmark");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
#[cfg_attr(not(fsbench_tool_postmark), ignore = "needs postmark")]
fn postmark_random_configurations_match_the_real_tool() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        | 1;
    let mut r = XorShift(seed);
    for i in 0..12 {
        let config = random_config(&mut r);
        let want = run_postmark(&config);
        let got = run_fsbench(&config);
        assert_eq!(
            normalize(&got),
            normalize(&want),
            "seed {seed}, config {i}:\n{config}\nfsbench:\n{got}\npostmark:\n{want}"
        );
    }
}

#[test]
fn postmark_config_errors_name_file_and_line() {
    let dir = work_dir();
    let cfg = dir.path().join("bad.pmrc");
    std::fs::write(&cfg, "set number 10\n\nset transactions zero\nrun\n").unwrap();
    let out = fsbench()
        .current_dir(dir.path())
        .args(["postmark", "bad.pmrc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("fsbench: error: no transactions specified (bad.pmrc:3) — "),
        "{err}"
    );
    std::fs::write(&cfg, "set nmber 10\n").unwrap();
    let out = fsbench()
        .current_dir(dir.path())
        .args(["postmark", "bad.pmrc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown command 'set nmber 10' (bad.pmrc:1)"),
        "{err}"
    );
    let out = fsbench()
        .current_dir(dir.path())
        .args(["postmark", "missing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(crate::util::entries(dir.path()), ["a", "b", "bad.pmrc"]);
}

#[test]
fn postmark_interactive_prompt_keeps_postmarks_manners() {
    let dir = work_dir();
    let out = fsbench()
        .current_dir(dir.path())
        .arg("postmark")
        .write_stdin("set number 5\nset transactions 10\nset number x\nfrob\n?\nrun\nexit\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("pm>Eh?\n"), "{stdout}");
    assert!(stdout.contains("quit - Exit program\n"), "{stdout}");
    assert!(stdout.contains("Creation alone: 5 files"), "{stdout}");
    assert!(
        stderr.contains("Error: invalid number of files"),
        "{stderr}"
    );
    assert_eq!(crate::util::entries(dir.path()), ["a", "b"]);
}

#[test]
fn postmark_run_to_file_appends_the_report() {
    let dir = work_dir();
    let out = fsbench()
        .current_dir(dir.path())
        .arg("postmark")
        .write_stdin("set number 5\nset transactions 10\nrun rep.txt\nrun rep.txt\nquit\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let rep = std::fs::read_to_string(dir.path().join("rep.txt")).unwrap();
    assert_eq!(rep.matches("Creation alone: 5 files").count(), 2, "{rep}");
}

#[test]
fn postmark_missing_location_is_a_usage_error() {
    let dir = work_dir();
    let cfg = dir.path().join("c");
    std::fs::write(&cfg, "set location nowhere\nset number 5\nrun\nquit\n").unwrap();
    let out = fsbench()
        .current_dir(dir.path())
        .args(["postmark", "c"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere"));
}
