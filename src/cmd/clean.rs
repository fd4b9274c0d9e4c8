//! `fsbench clean DIR`: remove scratch directories left in DIR by runs whose process is gone
//! (killed with SIGKILL, a crash, a power cut). Every `.fsbench-*` directory left is named with
//! the reason; one that looks stale and is left (a mount inside, no marker for a long time) makes
//! the exit non-zero.

use crate::error::{CliError, CliResult};
use crate::scratch::judge::{Verdict, judge};
use crate::scratch::{self, Found};
use std::path::Path;

/// Lists and removes stale scratches in `dir`, reporting each; exit 3 when one that looks stale
/// is left.
pub fn run(dir: &Path) -> CliResult<i32> {
    scratch::check_target_dir(dir).map_err(|e| CliError::usage(e.message))?;
    let found = scratch::find_scratches(dir).map_err(|e| CliError::usage(e.message))?;
    let mut removed = 0;
    let mut left_stale = 0;
    for f in &found {
        match judge(f) {
            Verdict::Remove => match remove(f) {
                Ok(lines) => {
                    for line in lines {
                        crate::outln!("{line}")?;
                    }
                    let owner = f.pid.map_or("its owner".into(), |p| format!("pid {p}"));
                    crate::outln!("removed {} ({owner} is gone)", f.path.display())?;
                    removed += 1;
                }
                Err(why) => {
                    crate::errln!("fsbench: left {}: {}", f.path.display(), why.message);
                    left_stale += 1;
                }
            },
            Verdict::Keep(why) => crate::outln!("left {} ({why})", f.path.display())?,
            Verdict::LooksStale(why) => {
                crate::errln!("fsbench: left {}: {why}", f.path.display());
                left_stale += 1;
            }
        }
    }
    crate::outln!(
        "{removed} stale scratch director{} removed from {}",
        if removed == 1 { "y" } else { "ies" },
        dir.display()
    )?;
    if left_stale > 0 {
        return Err(CliError::run(format!(
            "{left_stale} scratch director{} in {} could not be cleaned (named above) — fix what each line says and run 'fsbench clean' again",
            if left_stale == 1 { "y" } else { "ies" },
            dir.display()
        )));
    }
    Ok(0)
}

/// Undoes a dead run's lab in `f` and removes it; the lab's lines, or why it is left.
fn remove(f: &Found) -> CliResult<Vec<String>> {
    let lines = crate::lab::teardown_dead(&f.path).map_err(|e| CliError::run(e.message))?;
    scratch::remove_tree(&f.path).map_err(|e| CliError::run(e.message))?;
    Ok(lines)
}
