//! The test runner's settings (`.config/nextest.toml`) match the tests: under nextest every test
//! is its own process, so the lock of `util::alone()` keeps nothing apart there; the tests that
//! hold it take every test slot through an override that names them. This keeps that list equal
//! to the tests that call `alone()`, so a new such test cannot run beside others unnoticed.

use std::collections::BTreeSet;
use std::path::Path;

/// `module::name` of every test function in tests/*.rs that calls `alone()`; panics on a
/// non-test function that calls it (a helper would hide the tests it serves from the list).
fn tests_that_call_alone(dir: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for file in files {
        let module = file.file_stem().unwrap().to_string_lossy().into_owned();
        // util defines alone(); this module names it in its own checks.
        if module == "util" || module == "runner_config" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a test source");
        for (name, attributes, body) in functions(&text) {
            if !calls_alone(body) {
                continue;
            }
            assert!(
                attributes.contains("#[test]"),
                "{module}::{name} calls alone() but is not a test: call it in the tests instead"
            );
            found.insert(format!("{module}::{name}"));
        }
    }
    found
}

/// Each function that starts a line, as (name, the text since the item before it, its text up
/// to the next function).
fn functions(text: &str) -> Vec<(&str, &str, &str)> {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let code = line.trim_start();
        let code = code
            .strip_prefix("pub(crate) ")
            .or_else(|| code.strip_prefix("pub "))
            .unwrap_or(code);
        if let Some(rest) = code.strip_prefix("fn ") {
            let name_len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            starts.push((at, &rest[..name_len]));
        }
        at += line.len();
    }
    let mut out = Vec::new();
    for (i, &(start, name)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(text.len(), |s| s.0);
        // The attributes: from the end of the previous item (a line "}") to this function.
        let before = &text[..start];
        let item_start = before.rfind("\n}\n").map_or(0, |p| p + 3);
        out.push((name, &text[item_start..start], &text[start..end]));
    }
    out
}

/// True when `body` calls `alone()` itself (not a function whose name ends in `alone`).
fn calls_alone(body: &str) -> bool {
    body.match_indices("alone()").any(|(i, _)| {
        !body[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The tests named in the override that takes every test slot.
fn listed_alone(config: &str) -> BTreeSet<String> {
    // Each override runs from its header to the next table's header.
    let block = config
        .split("[[profile.default.overrides]]")
        .skip(1)
        .map(|b| b.split("\n[").next().unwrap_or(b))
        .find(|b| b.contains("threads-required = \"num-test-threads\""))
        .expect("an override with threads-required = \"num-test-threads\"");
    block
        .split("test(=")
        .skip(1)
        .map(|t| t.split(')').next().unwrap().trim().to_string())
        .collect()
}

#[test]
fn every_test_that_holds_the_machine_alone_is_listed_in_nextest_toml() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let calling = tests_that_call_alone(&root.join("tests"));
    let config = std::fs::read_to_string(root.join(".config/nextest.toml")).expect("config");
    let listed = listed_alone(&config);
    assert!(
        calling.len() >= 20,
        "found only {} tests calling alone(): {calling:?}",
        calling.len()
    );
    let missing: Vec<_> = calling.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&calling).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        ".config/nextest.toml's alone override is out of date: add {missing:?}, remove {extra:?}"
    );
}

#[test]
fn the_scan_tells_a_call_of_alone_from_a_name_ending_in_it_and_reads_one_override() {
    let text = "#[test]\nfn a() {\n    let _g = crate::util::alone();\n}\n\nfn left_alone() {}\n";
    let fns = functions(text);
    assert_eq!(fns.len(), 2);
    assert!(calls_alone(fns[0].2) && fns[0].1.contains("#[test]"));
    assert!(!calls_alone(fns[1].2), "left_alone() is not alone()");
    let cfg = "[[profile.default.overrides]]\nfilter = \"test(=m::a) | test(=m::b)\"\nthreads-required = \"num-test-threads\"\n\n[[profile.ci.overrides]]\nfilter = \"test(=m::c)\"\n";
    assert_eq!(
        listed_alone(cfg),
        ["m::a", "m::b"].map(String::from).into_iter().collect()
    );
}
