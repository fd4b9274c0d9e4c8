//! The command line itself: help, version, unknown subcommands.

use crate::util::fsbench;
use predicates::prelude::*;

#[test]
fn help_lists_the_subcommands() {
    fsbench()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("run").and(predicate::str::contains("ministat")));
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
fn stubbed_subcommands_say_not_yet_available() {
    fsbench()
        .arg("history")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not yet available"));
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
