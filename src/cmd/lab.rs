//! `fsbench lab list`: every lab kind, whether it can be built on this machine and, if not, every
//! reason (a tool missing and its package, not root, a filesystem the kernel lacks, no
//! `/dev/fuse`, no device-mapper, no NFS server running) — found without building anything.

use crate::cli::LabCommand;
use crate::error::CliResult;
use crate::lab::{self, probe};
use fsbench_model::{AgingSpec, LabKind};

/// Runs `fsbench lab SUBCOMMAND`.
pub fn run(command: LabCommand) -> CliResult<i32> {
    match command {
        LabCommand::List => list(),
    }
}

fn list() -> CliResult<i32> {
    let width = LabKind::ALL
        .iter()
        .map(|k| k.name().len())
        .max()
        .unwrap_or(0);
    let mut text = format!("{:<width$}  {:<5}  WHAT / WHY NOT\n", "KIND", "WORKS");
    for recipe in lab::RECIPES {
        let problems = probe::problems(recipe);
        let (works, why) = if problems.is_empty() {
            ("yes", recipe.about.to_string())
        } else {
            let why: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
            ("no", why.join("; "))
        };
        let name = recipe.kind.name();
        text.push_str(&format!("{name:<width$}  {works:<5}  {why}\n"));
    }
    text.push_str(&format!(
        "use: fsbench run --lab KIND[,KIND...] [--lab-size SIZE, default {}] [--lab-dir DIR]\n",
        fsbench_model::units::format_size(lab::DEFAULT_SIZE)
    ));
    let ageable: Vec<&str> = LabKind::ALL
        .iter()
        .filter(|k| k.ageable())
        .map(LabKind::name)
        .collect();
    text.push_str(&format!(
        "aged: KIND:aged[:fill=PCT,churn=N,seed=S] ({}; default fill={}, churn={}) is filled and churned before it is measured, labelled KIND-aged\n",
        ageable.join(", "),
        AgingSpec::DEFAULT_FILL,
        AgingSpec::DEFAULT_CHURN
    ));
    crate::out::stdout(&text)?;
    Ok(0)
}
