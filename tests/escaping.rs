//! Every line fsbench prints from stored or imported text goes through its one escaping helper
//! (`fsbench_model::text`): a property test puts arbitrary text, control characters included,
//! into every free-text field of an imported result and runs every printer on it.

use crate::util::{fsbench, temp_dir};
use proptest::prelude::*;
use std::path::Path;

/// A result the printers have something to show for: two cells of a real run (made once).
fn real_result() -> serde_json::Value {
    static SEED: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    SEED.get_or_init(|| {
        let t = temp_dir();
        run_once(t.path())
    })
    .clone()
}

fn run_once(dir: &Path) -> serde_json::Value {
    let json = dir.join("seed.json");
    let out = fsbench()
        .args([
            // A small tree: the record's strings are what count, not the tree's size.
            "run",
            "-q",
            "-w",
            "null",
            "-w",
            "walk:profile=small",
            "--cache",
            "warm",
            "--runs",
            "2",
        ])
        .arg("--no-store")
        .arg("--json")
        .arg(&json)
        .arg("-t")
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// Puts `evil` into every string of `v` that the record still reads with it (an enum's word,
/// such as a status, would no longer parse and is kept).
fn poison(root: &mut serde_json::Value, evil: &str) {
    fn leaves(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(_) => out.push(at),
            serde_json::Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| leaves(x, format!("{at}/{i}"), out)),
            serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| {
                leaves(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                )
            }),
            _ => {}
        }
    }
    let mut paths = Vec::new();
    leaves(root, String::new(), &mut paths);
    for p in paths {
        let old = root.pointer(&p).cloned().unwrap();
        let new = format!("{}{evil}", old.as_str().unwrap());
        *root.pointer_mut(&p).unwrap() = new.into();
        if serde_json::from_value::<fsbench_model::RunRecord>(root.clone()).is_err() {
            *root.pointer_mut(&p).unwrap() = old;
        }
    }
}

/// The controls a terminal acts on: C0 but the newline, DEL, and C1 (8-bit CSI is 0x9b).
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| c != '\n' && c.is_control())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5, max_shrink_iters: 8, ..ProptestConfig::default() })]

    #[test]
    fn no_printer_passes_a_control_character_from_an_imported_result(
        evil in "[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}a\\[\\]]{1,8}"
    ) {
        let t = temp_dir();
        let db = t.path().join("r.db");
        let mut v = real_result();
        poison(&mut v, &evil);
        let json = t.path().join("evil.json");
        std::fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
        // Twice, so that `compare` has two runs.
        for _ in 0..2 {
            let out = fsbench().arg("import").arg(&json).arg("--db").arg(&db).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            prop_assert_eq!(out.status.code(), Some(0), "{}", err);
            prop_assert!(raw_controls(&String::from_utf8_lossy(&out.stdout)).is_empty(), "import");
            v["run"]["id"] = format!("{}2", v["run"]["id"].as_str().unwrap()).into();
            std::fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
        }
        let printers: [&[&str]; 9] = [
            &["show", "last"],
            &["show", "last", "--plot"],
            &["show", "last", "--export-markdown", "-"],
            &["show", "last", "--export-csv", "-"],
            &["show", "last", "--export-csv-series", "-"],
            &["show", "last", "--export-json", "-"],
            &["history"],
            &["history", "--target", "x"],
            &["compare", "last~1", "last"],
        ];
        for args in printers {
            let out = fsbench().args(args).arg("--db").arg(&db).output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            prop_assert!(out.status.code().is_some_and(|c| c < 100), "{:?}: {}", args, stderr);
            prop_assert!(raw_controls(&stdout).is_empty(), "{:?} stdout: {:?}", args, raw_controls(&stdout));
            prop_assert!(raw_controls(&stderr).is_empty(), "{:?} stderr: {:?}", args, raw_controls(&stderr));
        }
    }
}
