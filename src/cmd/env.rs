//! `fsbench env DIR`: what fsbench records about the host and the filesystem under DIR.

use crate::error::{CliError, CliResult};
use std::path::Path;

/// Prints the environment of `dir` as JSON (the `environment` object of a run).
pub fn run(dir: &Path) -> CliResult<i32> {
    let meta = std::fs::metadata(dir)
        .map_err(|e| CliError::usage(crate::scratch::explain(&e, dir, "cannot use").message))?;
    let _ = meta;
    let path = std::fs::canonicalize(dir)
        .map_err(|e| CliError::usage(format!("cannot resolve {}: {e}", dir.display())))?;
    let mut env = crate::envinfo::host();
    env.targets
        .push(crate::envinfo::target(&dir.display().to_string(), &path));
    let text = serde_json::to_string_pretty(&env).expect("invariant: environment serialises");
    println!("{text}");
    Ok(0)
}
