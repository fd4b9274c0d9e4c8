//! `fsbench env [--json] [--probe | --ceiling R,W] DIR`: what fsbench records about the host and
//! the storage stack under DIR, as a table (one row per fact, layers top to bottom) or as the
//! JSON `environment` object that runs store; with `--probe` or `--ceiling`, the deepest
//! device's ceiling, kept in the results database for later runs' plausibility checks.

use crate::error::{CliError, CliResult};
use fsbench_runner::ceiling::{self, Ceiling};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// Prints the environment of `dir` as a table, or as JSON with `json`; measures or records the
/// device's ceiling when asked.
pub fn run(dir: &Path, json: bool, ceiling: Ceiling, db: Option<&Path>) -> CliResult<i32> {
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
    if !matches!(ceiling, Ceiling::None) {
        let cleanup = crate::signals::cleanup();
        let c = ceiling::device_ceiling(&env.targets[0], &path, meta.is_dir(), ceiling, cleanup)?;
        let mut store = crate::storage::open_for_writing(db)?;
        store
            .set_ceiling(&env.hostname, &c)
            .map_err(|e| CliError::run(e.to_string()))?;
        crate::errln!(
            "ceiling of {}: read {:.0} MiB/s, write {:.0} MiB/s ({}), kept in {}",
            c.device,
            c.read_mib_s,
            c.write_mib_s,
            c.source,
            store.path().display()
        );
    }
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
