//! `fsbench env [--json] DIR`: what fsbench records about the host and the storage stack under
//! DIR, as a table (one row per fact, layers top to bottom) or as the JSON `environment` object
//! that runs store.

use crate::error::{CliError, CliResult};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// Prints the environment of `dir` as a table, or as JSON with `json`.
pub fn run(dir: &Path, json: bool) -> CliResult<i32> {
    let usage =
        |e: std::io::Error| CliError::usage(crate::scratch::explain(&e, dir, "cannot use").message);
    let meta = std::fs::metadata(dir).map_err(usage)?;
    if meta.is_dir() {
        std::fs::read_dir(dir).map_err(usage)?;
    } else if !meta.file_type().is_block_device() {
        return Err(usage(std::io::Error::from_raw_os_error(libc::ENOTDIR)));
    }
    let path = std::fs::canonicalize(dir)
        .map_err(|e| CliError::usage(format!("cannot resolve {}: {e}", dir.display())))?;
    let mut env = crate::envinfo::host();
    env.targets
        .push(crate::envinfo::target(&dir.display().to_string(), &path));
    if json {
        let text = serde_json::to_string_pretty(&env).expect("invariant: environment serialises");
        crate::outln!("{text}")?;
    } else {
        let warnings = |t: &fsbench_model::TargetInfo| {
            crate::envinfo::stack_warnings(t)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        let table = fsbench_report::environment::render(&env, &warnings).to_string();
        crate::outln!("{}", fsbench_report::format::terminal_safe(&table))?;
    }
    Ok(0)
}
