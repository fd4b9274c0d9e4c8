//! `fsbench suite list` (every built-in suite: name, one line, how long the full run takes here)
//! and `fsbench suite show NAME|FILE` (its TOML, to copy and edit).

use crate::cli::SuiteCommand;
use crate::error::CliResult;
use fsbench_spec::suite::{builtin, load};

/// Runs `fsbench suite ...`.
pub fn run(command: SuiteCommand) -> CliResult<i32> {
    match command {
        SuiteCommand::List => list(),
        SuiteCommand::Show { name } => show(&name),
    }
}

fn list() -> CliResult<i32> {
    let mut text = String::new();
    for name in builtin::names() {
        let s = load(name)?;
        let first = first_sentence(&s.description);
        let time = s.time.as_deref().unwrap_or("?");
        text.push_str(&format!("{name:<14} {time:<36} {first}\n"));
    }
    text.push_str("\n'fsbench suite show NAME' prints one; 'fsbench run --suite NAME' runs it (--scale 0.1 for a smaller run).\n");
    crate::out::stdout(&text)?;
    Ok(0)
}

/// The description up to its first full stop (or colon), on one line.
fn first_sentence(description: &str) -> String {
    let one_line = description.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.find(": ").or_else(|| one_line.find(". ")) {
        Some(i) => one_line[..i].to_string(),
        None => one_line.trim_end_matches('.').to_string(),
    }
}

fn show(name: &str) -> CliResult<i32> {
    let suite = load(name)?;
    crate::out::stdout(&suite.text)?;
    Ok(0)
}
