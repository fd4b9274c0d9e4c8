//! `fsbench env [--json] [--probe | --ceiling R,W] DIR`: what fsbench records about the host and
//! the storage stack under DIR, as a table (one row per fact, layers top to bottom) or as the
//! JSON `environment` object that runs store; with `--probe` or `--ceiling`, the deepest
//! device's ceiling, kept in the results database for later runs' plausibility checks.

use crate::error::{CliError, CliResult};
use fsbench_model::{DeviceCeiling, TargetInfo};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// What to do about the device's ceiling.
pub enum Ceiling {
    /// Nothing: describe only.
    None,
    /// Measure it.
    Probe,
    /// Given by the user, MiB/s.
    Given {
        /// Read MiB/s.
        read: f64,
        /// Write MiB/s.
        write: f64,
    },
}

impl Ceiling {
    /// From `--probe` and `--ceiling READ,WRITE`.
    pub fn from_args(probe: bool, given: Option<&str>) -> CliResult<Self> {
        let Some(text) = given else {
            return Ok(if probe { Self::Probe } else { Self::None });
        };
        let bad = || {
            CliError::usage(format!(
                "invalid --ceiling '{text}' — give READ,WRITE in MiB/s, e.g. --ceiling 870,600"
            ))
        };
        let (r, w) = text.split_once(',').ok_or_else(bad)?;
        let num = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(bad)
        };
        Ok(Self::Given {
            read: num(r)?,
            write: num(w)?,
        })
    }
}

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
        let c = device_ceiling(&env.targets[0], &path, meta.is_dir(), ceiling)?;
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

/// The ceiling of the deepest device under `t`: measured in a scratch under `path`, or given.
fn device_ceiling(
    t: &TargetInfo,
    path: &Path,
    is_dir: bool,
    how: Ceiling,
) -> CliResult<DeviceCeiling> {
    let Some(device) = crate::envinfo::io_devices(t).pop() else {
        return Err(CliError::usage(format!(
            "no block device under {} ({}): there is no device ceiling to measure",
            path.display(),
            t.fs_type
        )));
    };
    let (read, write, source) = match how {
        Ceiling::Given { read, write } => (
            read,
            write,
            format!("given {}", crate::storage::now_rfc3339()),
        ),
        _ if !is_dir => {
            return Err(CliError::usage(format!(
                "{} is a device: --probe measures through a filesystem — give a directory on it (fsbench never writes to a raw device here)",
                path.display()
            )));
        }
        _ => {
            let p = fsbench_runner::ceiling::probe(
                path,
                &format!("ceiling-{}", std::process::id()),
                fsbench_runner::ceiling::DEFAULT_BYTES,
                crate::signals::cleanup(),
            )
            .map_err(CliError::usage)?;
            (
                p.read_mib_s,
                p.write_mib_s,
                format!("probed {}", crate::storage::now_rfc3339()),
            )
        }
    };
    Ok(DeviceCeiling {
        device,
        read_mib_s: read,
        write_mib_s: write,
        source,
    })
}
