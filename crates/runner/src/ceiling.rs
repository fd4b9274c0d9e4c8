//! A device's ceiling: how fast it reads and writes when nothing caches above it. Measured
//! through a target's filesystem with direct I/O (O_DIRECT, 1 MiB requests, one at a time, the
//! write flushed with fdatasync), in a scratch directory fsbench creates, guards and removes —
//! never on the raw device. Any later result whose data had to come from the device and moved
//! faster than this came from a cache above it (`analysis::plausible`).

use fsbench_io::file::{AlignedBuf, pread_full, pwrite_full};
use fsbench_model::{DeviceCeiling, EngineResult, Failure, TargetInfo};
use fsbench_scratch::Scratch;
use fsbench_sys::cleanup::Cleanup;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Instant;

/// Bytes written then read back by default: long enough that a device's small write cache
/// cannot hold it all, short enough to take seconds.
pub const DEFAULT_BYTES: u64 = 256 << 20;

const BLOCK: usize = 1 << 20;

/// A probe's result, MiB/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probed {
    /// Direct sequential read.
    pub read_mib_s: f64,
    /// Direct sequential write, fdatasync included.
    pub write_mib_s: f64,
}

/// Why the device's ceiling could not be probed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProbeError {
    /// Its scratch could not be made or removed.
    Scratch(fsbench_scratch::ScratchError),
    /// The directory takes no direct I/O: no device under it to probe.
    NoDirect(std::path::PathBuf),
    /// A call on the probe file failed.
    Io {
        /// `write`, `flush` or `read`.
        what: &'static str,
        /// The probe file.
        file: std::path::PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Scratch(e) => f.write_str(&e.message),
            Self::NoDirect(dir) => write!(
                f,
                "{} does not accept direct I/O (tmpfs, some FUSE daemons): there is no device to probe under it",
                dir.display()
            ),
            Self::Io { what, file, source } => {
                write!(
                    f,
                    "cannot {what} the probe file {}: {source}",
                    file.display()
                )
            }
        }
    }
}

impl std::error::Error for ProbeError {}

/// Probes the device under `dir` with `bytes` of direct I/O in a guarded scratch `.fsbench-<id>`.
pub fn probe(dir: &Path, id: &str, bytes: u64, cleanup: &Cleanup) -> Result<Probed, ProbeError> {
    let scratch = Scratch::create_guarded(dir, id, cleanup).map_err(ProbeError::Scratch)?;
    let got = measure(&scratch.path().join("ceiling"), bytes.max(BLOCK as u64));
    scratch.remove().map_err(ProbeError::Scratch)?;
    got
}

fn measure(file: &Path, bytes: u64) -> Result<Probed, ProbeError> {
    let io = |what: &'static str| {
        move |source: std::io::Error| ProbeError::Io {
            what,
            file: file.to_path_buf(),
            source,
        }
    };
    let direct_refused = |e: std::io::Error| {
        if e.raw_os_error() == Some(libc::EINVAL) {
            ProbeError::NoDirect(file.parent().map_or(file, |p| p).to_path_buf())
        } else {
            io("write")(e)
        }
    };
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_DIRECT)
        .open(file)
        .map_err(direct_refused)?;
    let mut buf = AlignedBuf::new(BLOCK);
    for (i, b) in buf.as_mut_slice().iter_mut().enumerate() {
        // Not zeros: a device or host that compresses or deduplicates zeros would flatter itself.
        *b = (i.wrapping_mul(2_654_435_761) >> 13) as u8;
    }
    let blocks = bytes / BLOCK as u64;
    let t = Instant::now();
    for i in 0..blocks {
        pwrite_full(&f, buf.as_slice(), i * BLOCK as u64).map_err(direct_refused)?;
    }
    f.sync_data().map_err(io("flush"))?;
    let write_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for i in 0..blocks {
        pread_full(&f, buf.as_mut_slice(), i * BLOCK as u64).map_err(io("read"))?;
    }
    let read_s = t.elapsed().as_secs_f64();
    let mib = (blocks * BLOCK as u64) as f64 / 1_048_576.0;
    Ok(Probed {
        read_mib_s: mib / read_s.max(1e-9),
        write_mib_s: mib / write_s.max(1e-9),
    })
}

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
    pub fn from_args(probe: bool, given: Option<&str>) -> EngineResult<Self> {
        let Some(text) = given else {
            return Ok(if probe { Self::Probe } else { Self::None });
        };
        let bad = || {
            Failure::input(format!(
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

/// The ceiling of the deepest device under `t`: measured in a scratch under `path`, or given.
/// The ceiling of the deepest device under `t` (at `path`, a directory when `is_dir`): given,
/// or probed through a scratch in `path` (registered in `cleanup`).
pub fn device_ceiling(
    t: &TargetInfo,
    path: &Path,
    is_dir: bool,
    how: Ceiling,
    cleanup: &Cleanup,
) -> EngineResult<DeviceCeiling> {
    let Some(device) = fsbench_envinfo::io_devices(t).pop() else {
        return Err(Failure::input(format!(
            "no block device under {} ({}): there is no device ceiling to measure",
            path.display(),
            t.fs_type
        )));
    };
    let (read, write, source) = match how {
        Ceiling::Given { read, write } => (
            read,
            write,
            format!("given {}", crate::record::now_rfc3339()),
        ),
        _ if !is_dir => {
            return Err(Failure::input(format!(
                "{} is a device: --probe measures through a filesystem — give a directory on it (fsbench never writes to a raw device here)",
                path.display()
            )));
        }
        _ => {
            let id = format!("ceiling-{}", std::process::id());
            let p = probe(path, &id, DEFAULT_BYTES, cleanup)
                .map_err(|e| Failure::input(e.to_string()))?;
            (
                p.read_mib_s,
                p.write_mib_s,
                format!("probed {}", crate::record::now_rfc3339()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_leaves_nothing_and_says_why_direct_io_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let cleanup = Cleanup::new();
        match probe(d.path(), "ceiling-test", 4 << 20, &cleanup) {
            Ok(p) => assert!(p.read_mib_s > 0.0 && p.write_mib_s > 0.0),
            Err(e) => assert!(e.to_string().contains("direct I/O"), "{e}"),
        }
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
