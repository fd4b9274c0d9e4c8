//! What is declared once stays declared once, and what the help and docs name exists: every
//! workload parameter key is a literal at most twice outside tests (its declaration, and a
//! `model::param` constant where other crates read it), every lab kind, workload, parameter and
//! suite of the registries appears in the help that lists them, and every `--flag` that
//! README.md and docs/*.md name is one the binary accepts.

use crate::util::fsbench;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn stdout_of(args: &[&str]) -> String {
    let out = fsbench().args(args).output().expect("run fsbench");
    assert!(out.status.success(), "fsbench {args:?} failed: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Crates that never read a workload parameter: their words (syscall names, postmark's own
/// configuration language, lab options, metric names) are other vocabularies.
const OTHER_VOCABULARIES: &[&str] = &[
    "crates/envinfo",
    "crates/io",
    "crates/lab",
    "crates/measure",
    "crates/output",
    "crates/postmark",
    "crates/profile",
    "crates/scratch",
    "crates/store",
    "crates/sys",
    "crates/testenv",
    // A trace's calls are named as the system calls are (read, write, stat, fsync).
    "crates/trace",
    "crates/tree",
    // Keys of a suite file's own tables (`scale = F`, `profile = true`, `[[target]] label`).
    "crates/spec/src/suite/file.rs",
    // `KIND:aged:seed=S`: a lab option.
    "crates/spec/src/lab.rs",
    // Column names of the CSV exports.
    "crates/report/src/export",
    // Metric names (a metric `workers`, `walks`).
    "crates/model/src/catalogue.rs",
    "crates/model/src/metric.rs",
    // The subcommand `run` in a stored argv, and the history table's `run` column.
    "crates/model/src/legacy.rs",
    "src/cmd/history.rs",
];

/// The non-test Rust source of the crates that read workload parameters, by file.
fn sources() -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![root().join("crates"), root().join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read source dir") {
            let path = entry.expect("dir entry").path();
            let rel = path.strip_prefix(root()).expect("under the root");
            let rel_text = rel.to_string_lossy();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_default();
            if OTHER_VOCABULARIES.iter().any(|o| rel_text.starts_with(o))
                || name == "tests"
                || name == "tests.rs"
                || name == "testutil.rs"
                || name.ends_with("_tests.rs")
            {
                continue;
            }
            if path.is_dir() {
                dirs.push(path);
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path).expect("read source");
                let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
                files.push((rel.to_path_buf(), code));
            }
        }
    }
    files
}

/// Every key of every registered workload, and the keys every workload takes.
fn keys() -> BTreeSet<&'static str> {
    fsbench_workload::names()
        .into_iter()
        .filter_map(fsbench_workload::find)
        .flat_map(|w| w.params.iter())
        .chain(fsbench_workload::knobs::every::DOCS)
        .map(|d| d.key)
        .collect()
}

/// Literal occurrences of `"key"` outside the first argument of `WorkloadError::io(` (a
/// syscall's name, as in `io("write", path, e)`).
fn literals(code: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    code.match_indices(&quoted)
        .filter(|(at, _)| !code[..*at].trim_end().ends_with("io("))
        .count()
}

#[test]
fn every_parameter_key_is_a_literal_at_most_twice_outside_tests() {
    let files = sources();
    assert!(
        files.len() > 100,
        "the source walk found {} files",
        files.len()
    );
    let mut over = Vec::new();
    for key in keys() {
        let places: Vec<String> = files
            .iter()
            .map(|(path, code)| (path, literals(code, key)))
            .filter(|(_, n)| *n > 0)
            .map(|(path, n)| format!("{}:{n}", path.display()))
            .collect();
        let total: usize = files.iter().map(|(_, code)| literals(code, key)).sum();
        if total > 2 {
            over.push(format!("\"{key}\" {total}x: {}", places.join(" ")));
        }
    }
    assert!(
        over.is_empty(),
        "keys written more than twice (read them through their Knob or model::param):\n{}",
        over.join("\n")
    );
}

#[test]
fn the_lab_help_names_every_kind_lab_list_knows() {
    let help = stdout_of(&["run", "--help"]);
    let section = help
        .split("--lab <")
        .nth(1)
        .and_then(|s| s.split("--lab-size").next())
        .expect("run --help has --lab");
    let listed = stdout_of(&["lab", "list"]);
    let kinds: Vec<&str> = listed
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("use:"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(kinds.len() >= 12, "lab list: {listed}");
    let flat = section.split_whitespace().collect::<Vec<_>>().join(" ");
    for kind in kinds {
        let named = flat
            .split([',', ' ', ':', '.'])
            .any(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-') == kind);
        assert!(named, "--lab's help does not name '{kind}':\n{section}");
    }
}

#[test]
fn workloads_lists_every_workload_and_each_of_its_parameters() {
    let listed = stdout_of(&["workloads"]);
    for name in fsbench_workload::names() {
        let block = listed
            .split(&format!("\n{name}: "))
            .nth(1)
            .or_else(|| listed.strip_prefix(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("'{name}' is not listed:\n{listed}"));
        let block: Vec<&str> = block
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with(' '))
            .collect();
        let info = fsbench_workload::find(name).expect("registered");
        for key in info
            .params
            .iter()
            .chain(fsbench_workload::knobs::every::DOCS)
            .map(|d| d.key)
        {
            assert!(
                block
                    .iter()
                    .any(|l| l.split_whitespace().next() == Some(key)),
                "'{name}' does not list its parameter '{key}'"
            );
        }
    }
}

#[test]
fn suite_list_names_every_built_in_suite() {
    let listed = stdout_of(&["suite", "list"]);
    for name in fsbench_spec::suite::builtin::names() {
        assert!(
            listed
                .lines()
                .any(|l| l.split_whitespace().next() == Some(name)),
            "suite list lacks '{name}':\n{listed}"
        );
    }
}

/// Every `--long-flag` the binary accepts, from its bash completion script (generated from the
/// same definition as `--help`, subcommands included).
fn accepted_flags() -> BTreeSet<String> {
    let script = stdout_of(&["completions", "bash"]);
    flags_in(&script)
}

fn flags_in(text: &str) -> BTreeSet<String> {
    let bytes = text.as_bytes();
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices("--") {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-') {
            continue;
        }
        let flag: String = text[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        if flag.len() > 1 && flag.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.insert(flag.trim_end_matches('-').to_string());
        }
    }
    out
}

/// Flags the docs name that are not fsbench's: other tools' (ministat is fsbench's own).
const OTHER_TOOLS_FLAGS: &[&str] = &[
    // cargo, cargo-nextest
    "doc",
    "release",
    "features",
    "workspace",
    "locked",
    "no-fail-fast",
    "report-time",
    "timings",
    "all-targets",
    "test",
    "path",
    // mpirun, srun
    "bind-to",
    "report-bindings",
    "hostfile",
    "map-by",
    "mca",
    "ntasks-per-node",
    // losetup, cryptsetup, mkfs, e4crypt
    "direct-io",
    "sector-size",
    "show",
    "type",
    "cipher",
    "key-size",
    "key-file",
    "pbkdf",
    "pbkdf-force-iterations",
    "batch-mode",
    // unshare, nsenter
    "mount",
    "uts",
    "net",
    "pid",
    "fork",
    "kill-child",
    "mount-proc",
    // glusterfs's client, bindfs, gocryptfs, sshd
    "volfile-server",
    "volfile-id",
    "log-file",
    "multithreaded",
    "forward-odirect",
    "daemonize",
    "mode",
    // strace (what `fsbench record` is compared with)
    "seccomp-bpf",
];

fn docs() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md")];
    let dir = root().join("docs");
    for entry in std::fs::read_dir(&dir).expect("docs/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    docs
}

/// True when `fsbench ministat` (which parses ministat's own options, outside clap) takes
/// `--flag` on two small data sets.
fn ministat_takes(flag: &str) -> bool {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::write(&a, "1\n2\n3\n").expect("write a");
    std::fs::write(&b, "2\n3\n4\n").expect("write b");
    let out = fsbench()
        .arg("ministat")
        .arg(format!("--{flag}"))
        .arg(&a)
        .arg(&b)
        .output()
        .expect("run ministat");
    out.status.success()
}

#[test]
fn every_flag_the_readme_and_docs_name_is_accepted() {
    let mut accepted = accepted_flags();
    accepted.extend(
        ["modern"]
            .into_iter()
            .filter(|f| ministat_takes(f))
            .map(String::from),
    );
    assert!(accepted.contains("lab-size") && accepted.contains("until-steady"));
    let mut unknown = Vec::new();
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).expect("read doc");
        for flag in flags_in(&text) {
            if !accepted.contains(&flag) && !OTHER_TOOLS_FLAGS.contains(&flag.as_str()) {
                unknown.push(format!("{}: --{flag}", short(&doc)));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "flags the docs name that fsbench does not accept:\n{}",
        unknown.join("\n")
    );
}

fn short(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}
