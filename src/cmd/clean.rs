//! `fsbench clean DIR`: remove scratch directories left in DIR by runs whose process is gone
//! (killed with SIGKILL, a crash, a power cut). Scratches of live runs are left alone.

use crate::error::{CliError, CliResult};
use crate::scratch;
use std::path::Path;

/// Lists and removes stale scratches in `dir`, reporting each.
pub fn run(dir: &Path) -> CliResult<i32> {
    scratch::check_target_dir(dir).map_err(|e| CliError::usage(e.message))?;
    let found = scratch::find_scratches(dir).map_err(|e| CliError::usage(e.message))?;
    let mut removed = 0;
    for f in &found {
        let owner = f
            .pid
            .map(|p| format!("pid {p}"))
            .unwrap_or_else(|| "unknown owner".into());
        if f.stale {
            for line in crate::lab::teardown_dead(&f.path)? {
                crate::outln!("{line}")?;
            }
            scratch::remove_tree(&f.path).map_err(|e| CliError::run(e.message))?;
            crate::outln!("removed {} ({owner} is gone)", f.path.display())?;
            removed += 1;
        } else {
            crate::outln!(
                "kept {} ({owner} is still running, or it has no fsbench marker)",
                f.path.display()
            )?;
        }
    }
    crate::outln!(
        "{removed} stale scratch director{} removed from {}",
        if removed == 1 { "y" } else { "ies" },
        dir.display()
    )?;
    Ok(0)
}
