//! The command line itself: help, version, unknown subcommands.

use crate::util::fsbench;
use predicates::prelude::*;

/// The first word of each entry in the help's `Commands:` list (a wrapped description's
/// continuation lines are indented further and skipped).
fn help_commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim_end() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect()
}

#[test]
fn help_lists_the_subcommands() {
    let out = fsbench().arg("--help").assert().success();
    let help = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // Every subcommand by name, each once, in the order the help gives them; a new one is added
    // here on purpose.
    assert_eq!(
        help_commands(&help),
        [
            "run",
            "card",
            "record",
            "trace",
            "ministat",
            "postmark",
            "env",
            "clean",
            "workloads",
            "metrics",
            "history",
            "show",
            "compare",
            "trend",
            "import",
            "report",
            "baseline",
            "lab",
            "completions",
            "man",
            "suite",
            "help",
        ],
        "{help}"
    );
}

#[test]
fn version_prints_the_crate_version() {
    fsbench()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    fsbench().arg("frobnicate").assert().code(2);
}

#[test]
fn verify_app() {
    // clap's own consistency checks on the command definition (hyperfine's verify_app).
    use clap::CommandFactory;
    #[path = "../src/cli.rs"]
    #[allow(dead_code)]
    mod cli_def;
    cli_def::Cli::command().debug_assert();
}

#[test]
fn clap_errors_are_one_line() {
    for args in [
        &["run", "--cache", "lukewarm"][..],
        &["run", "--bogus"][..],
        &["clean"][..],
    ] {
        let out = fsbench().args(args).assert().code(2).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("fsbench: error: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn no_subcommand_shows_help_and_fails() {
    fsbench()
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Usage"));
}

#[test]
fn workloads_lists_every_data_path_workload_with_parameters() {
    let out = fsbench()
        .arg("workloads")
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    for w in [
        "seq-write",
        "seq-read",
        "rand-read",
        "rand-write",
        "latency",
        "seek-rate",
        "large-file",
        "null",
    ] {
        assert!(text.contains(&format!("{w}:")), "{w} missing");
    }
    assert!(text.contains("bs"));
    // The keys every workload takes are listed with each, and they are accepted.
    assert!(
        text.contains("    label ") && text.contains("    until "),
        "{text}"
    );
    let d = crate::util::temp_dir();
    fsbench()
        .args(["run", "-q", "--no-store", "--cache", "warm", "--runs", "1"])
        .args([
            "-w",
            "null:label=mine,until=steady",
            "--max-runs",
            "5",
            "-t",
        ])
        .arg(d.path())
        .assert()
        .success();
    fsbench()
        .args(["workloads", "seq-reed"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean 'seq-read'"));
}

#[test]
fn env_describes_a_directory() {
    let out = fsbench()
        .args(["env", "--json", "."])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["targets"][0]["fs_type"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
    fsbench().args(["env", "/nonexistent/x"]).assert().code(2);
}

#[test]
fn completions_are_generated_for_the_shells_clap_knows() {
    let out = fsbench()
        .args(["completions", "bash"])
        .output()
        .expect("run fsbench");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("_fsbench()") && text.contains("--workload"),
        "{text}"
    );
    let zsh = fsbench().args(["completions", "zsh"]).output().unwrap();
    assert!(String::from_utf8_lossy(&zsh.stdout).starts_with("#compdef fsbench"));
}

#[test]
fn an_unknown_shell_is_one_line_and_exit_2() {
    let out = fsbench().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("possible values: bash"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn the_manual_page_is_roff_naming_every_subcommand() {
    let out = fsbench().arg("man").output().expect("run fsbench");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(".TH fsbench 1"), "{text}");
    for sub in [
        "run",
        "ministat",
        "postmark",
        "env",
        "report",
        "completions",
    ] {
        assert!(text.contains(&format!("fsbench\\-{sub}")), "{sub}: {text}");
    }
}
