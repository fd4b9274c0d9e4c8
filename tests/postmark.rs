//! `fsbench postmark` against the real postmark: committed outputs of Debian's postmark for ten
//! configurations (tests/fixtures/postmark/generate.sh) must match line for line, except for the
//! whole-second times and the rates derived from them; and a differential test on random
//! configurations when postmark is installed.

use crate::util::{entries, fixture, fsbench, temp_dir, tool_or_skip};
use std::process::Command;

/// The output without what depends on wall time: "N seconds" lines, "(... per second)" rates,
/// terse fields, and fsbench's precise-timing block.
fn comparable(out: &str) -> Vec<String> {
    out.lines()
        .take_while(|l| !l.starts_with("Precise timings"))
        .filter(|l| !l.contains(" seconds") && !l.trim().is_empty())
        .filter(|l| {
            !(l.split_whitespace().count() == 13
                && l.split_whitespace().all(|w| w.parse::<f64>().is_ok()))
        })
        .map(|l| {
            if l.starts_with("Working directory: /") {
                "Working directory: (cwd)"
            } else {
                l
            }
        })
        .map(|l| match l.find(" (") {
            Some(i) if l.ends_with("per second)") => l[..i].to_string(),
            _ => l.to_string(),
        })
        .collect()
}

fn run_ours(config: &std::path::Path) -> (String, tempfile::TempDir) {
    let dir = temp_dir();
    let name = config.file_name().unwrap();
    std::fs::copy(config, dir.path().join(name)).unwrap();
    let out = fsbench()
        .arg("postmark")
        .arg(name)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8_lossy(&out.stdout).into_owned(), dir)
}

#[test]
fn fixtures_of_the_real_postmark_give_the_same_counts() {
    let mut configs: Vec<_> = std::fs::read_dir(fixture("postmark"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pmrc"))
        .collect();
    configs.sort();
    assert!(configs.len() >= 8);
    for c in configs {
        let want = std::fs::read_to_string(c.with_extension("out")).unwrap();
        let (got, dir) = run_ours(&c);
        assert_eq!(comparable(&got), comparable(&want), "{}", c.display());
        assert_eq!(
            entries(dir.path()),
            [c.file_name().unwrap().to_string_lossy().into_owned()],
            "only the config remains"
        );
        if want.contains("Data:") {
            assert!(got.contains("Precise timings"), "{got}");
        }
    }
}

/// A small deterministic generator for configurations.
fn lcg(state: &mut u64, n: u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 33) % n
}

#[test]
fn random_configurations_agree_with_the_installed_postmark() {
    if !tool_or_skip(
        "postmark",
        "random_configurations_agree_with_the_installed_postmark",
    ) {
        return;
    }
    let mut s = 7u64;
    for round in 0..12 {
        let lines = [
            format!("set number {}", 1 + lcg(&mut s, 300)),
            format!("set transactions {}", 10 + lcg(&mut s, 1500)),
            format!(
                "set size {} {}",
                1 + lcg(&mut s, 2000),
                1 + lcg(&mut s, 40000)
            ),
            format!("set seed {}", 1 + lcg(&mut s, 100000)),
            format!("set subdirectories {}", 1 + lcg(&mut s, 12)),
            format!("set bias read {}", lcg(&mut s, 12) as i64 - 1),
            format!("set bias create {}", lcg(&mut s, 12) as i64 - 1),
            format!(
                "set buffering {}",
                if lcg(&mut s, 2) == 0 { "true" } else { "false" }
            ),
            format!("set read {}", 1 + lcg(&mut s, 8192)),
            format!("set write {}", 1 + lcg(&mut s, 8192)),
            "run".into(),
            "quit".into(),
        ];
        let dir = temp_dir();
        let cfg = dir.path().join(format!("r{round}.pmrc"));
        std::fs::write(&cfg, lines.join("\n") + "\n").unwrap();
        let real_dir = temp_dir();
        std::fs::copy(&cfg, real_dir.path().join("c.pmrc")).unwrap();
        let real = Command::new("postmark")
            .arg("c.pmrc")
            .current_dir(real_dir.path())
            .output()
            .unwrap();
        let (ours, _d) = run_ours(&cfg);
        let real =
            String::from_utf8_lossy(&real.stdout).replace("c.pmrc", &format!("r{round}.pmrc"));
        assert_eq!(
            comparable(&ours),
            comparable(&real),
            "round {round}: {lines:?}"
        );
    }
}

#[test]
fn config_errors_are_postmarks_and_files_stay_in_a_scratch() {
    let dir = temp_dir();
    std::fs::write(
        dir.path().join("c"),
        "set number 0\nbogus\nset number 3\nset transactions 5\nrun\nquit\n",
    )
    .unwrap();
    let out = fsbench()
        .args(["postmark", "c"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Error: invalid number of files"), "{text}");
    assert!(text.contains("Eh?"), "{text}");
    assert_eq!(entries(dir.path()), ["c"]);
    fsbench()
        .args(["postmark", "/nonexistent/cfg"])
        .assert()
        .code(2);
}
