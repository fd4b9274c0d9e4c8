//! Cache control: making a sample cold and measuring how cold it really is. Cold is claimed only
//! when a method ran without error: `drop_caches` (root: sync + /proc/sys/vm/drop_caches), the
//! user's `--cold-cmd`, or `fadvise` (posix_fadvise DONTNEED on the workload's files). Residency
//! (`mincore`) is measured before every sample, so a "cold" sample whose pages stayed cached is
//! reported as such instead of silently measured warm.

pub use fsbench_spec::cold::ColdMethod;
use fsbench_sys::cache as sys;
use fsbench_sys::child::WaitError;
use fsbench_sys::cleanup::Cleanup;
use fsbench_sys::vfork::{Command, Io};
use fsbench_workload::CancelToken;
use std::os::fd::AsFd;
use std::path::PathBuf;

/// Why a sample could not be made cold.
#[derive(Debug)]
#[non_exhaustive]
pub enum ColdError {
    /// drop_caches or fadvise failed.
    Drop(sys::DropError),
    /// `--cold-cmd` could not be started or waited for.
    Spawn(String, std::io::Error),
    /// `--cold-cmd` exited with a failure.
    Failed(String, std::process::ExitStatus),
    /// `--cold-cmd` ran past `--cold-timeout` and was killed.
    TimedOut(String, std::time::Duration),
    /// A signal came while `--cold-cmd` ran.
    Interrupted,
}

impl std::fmt::Display for ColdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Drop(e) => e.fmt(f),
            Self::Spawn(cmd, e) => write!(f, "cannot run --cold-cmd '{cmd}': {e}"),
            Self::Failed(cmd, status) => write!(f, "--cold-cmd '{cmd}' failed with {status}"),
            Self::TimedOut(cmd, t) => write!(
                f,
                "--cold-cmd '{cmd}' did not finish within {} s and was killed — fix the command or raise --cold-timeout",
                t.as_secs_f64()
            ),
            Self::Interrupted => f.write_str("interrupted while running --cold-cmd"),
        }
    }
}

impl std::error::Error for ColdError {}

/// Makes `files` (and, for system-wide methods, everything) cold with `method`.
/// `--cold-cmd` runs registered in `cleanup`.
pub fn apply(
    method: &ColdMethod,
    files: &[PathBuf],
    cancel: &CancelToken,
    cleanup: &Cleanup,
) -> Result<(), ColdError> {
    match method {
        ColdMethod::DropCaches => sys::drop_caches().map_err(ColdError::Drop),
        ColdMethod::ColdCmd(cmd, timeout) => run_cold_cmd(cmd, *timeout, cancel, cleanup),
        ColdMethod::Fadvise => files
            .iter()
            .try_for_each(|f| sys::fadvise_dontneed(f))
            .map_err(ColdError::Drop),
    }
}

/// Runs the user's command in its own process group (killed with fsbench, on Ctrl-C and after
/// `timeout`), its output passed through to fsbench's stderr.
fn run_cold_cmd(
    cmd: &str,
    timeout: std::time::Duration,
    cancel: &CancelToken,
    cleanup: &Cleanup,
) -> Result<(), ColdError> {
    let spawn = |e| ColdError::Spawn(cmd.to_string(), e);
    let mut c = Command::new("sh");
    c.arg("-c").arg(cmd);
    let err = std::io::stderr();
    let mut child = c
        .ready_with([
            Io::Null,
            Io::Borrowed(err.as_fd()),
            Io::Borrowed(err.as_fd()),
        ])
        .and_then(|ready| ready.spawn(cleanup))
        .map_err(spawn)?;
    match child.wait(cancel, Some(timeout)) {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(ColdError::Failed(cmd.to_string(), status)),
        Err(WaitError::TimedOut(t)) => Err(ColdError::TimedOut(cmd.to_string(), t)),
        Err(WaitError::Cancelled) => Err(ColdError::Interrupted),
        Err(WaitError::Io(e)) => Err(spawn(e)),
    }
}

/// Reads `files` once, unmeasured, so a warm cell starts with them cached (a file larger than
/// the page cache stays partly cold: residency shows it).
pub fn prime(files: &[PathBuf]) {
    let mut buf = vec![0u8; 1 << 20];
    for f in files {
        if let Ok(mut file) = std::fs::File::open(f) {
            use std::io::Read;
            while matches!(file.read(&mut buf), Ok(n) if n > 0) {}
        }
    }
}

/// Below this share of its files' pages cached, a warm cell is primed again before its next
/// sample: something else (another program's drop of the caches, memory pressure) evicted them.
pub const WARM_MIN_PCT: f64 = 90.0;

/// Whether a warm cell's files must be read again before its next sample: fewer than
/// [`WARM_MIN_PCT`] of their pages are cached. Never on FUSE, where measuring residency opens
/// the file and so drops its pages (it always reads near 0%): priming there would reread the
/// files through the daemon before every sample for nothing.
pub fn needs_repriming(files: &[PathBuf]) -> bool {
    const FUSE_SUPER_MAGIC: i64 = 0x6573_5546;
    // f_type is i64 here but narrower on other platforms.
    #[allow(clippy::unnecessary_cast)]
    let on_fuse =
        |f: &PathBuf| rustix::fs::statfs(f).is_ok_and(|s| s.f_type as i64 == FUSE_SUPER_MAGIC);
    if files.first().is_none_or(on_fuse) {
        return false;
    }
    resident_pct(files).is_some_and(|r| r < WARM_MIN_PCT)
}

/// Percentage of the pages of `files` resident in the page cache; `None` when there is nothing
/// to measure (no regular, non-empty files).
pub fn resident_pct(files: &[PathBuf]) -> Option<f64> {
    let (mut resident, mut total) = (0u64, 0u64);
    for f in files {
        if let Some((r, t)) = sys::file_residency(f) {
            resident += r;
            total += t;
        }
    }
    (total > 0).then(|| resident as f64 * 100.0 / total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fadvise_makes_a_written_file_mostly_non_resident() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, vec![1u8; 1 << 20]).unwrap();
        let before = resident_pct(std::slice::from_ref(&f)).unwrap();
        apply(
            &ColdMethod::Fadvise,
            std::slice::from_ref(&f),
            &CancelToken::new(),
            &Cleanup::new(),
        )
        .unwrap();
        let after = resident_pct(std::slice::from_ref(&f)).unwrap();
        // tmpfs cannot drop pages (they are the file): only assert where the file was cached.
        assert!(after <= before, "{before} -> {after}");
    }

    #[test]
    fn a_warm_file_evicted_since_its_priming_is_primed_again() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, vec![1u8; 1 << 20]).unwrap();
        let files = [f];
        prime(&files);
        assert!(!needs_repriming(&files), "just primed");
        sys::fadvise_dontneed(&files[0]).unwrap();
        // tmpfs cannot drop pages (they are the file): only assert where the drop worked.
        if resident_pct(&files).unwrap() < WARM_MIN_PCT {
            assert!(needs_repriming(&files));
            prime(&files);
            assert!(!needs_repriming(&files));
        }
        assert!(!needs_repriming(&[]), "nothing to prime");
    }

    #[test]
    fn empty_or_missing_files_have_no_residency() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("empty");
        std::fs::write(&f, b"").unwrap();
        assert_eq!(resident_pct(&[f, dir.path().join("missing")]), None);
    }

    #[test]
    fn failing_or_hanging_cold_cmd_is_an_error() {
        let t = std::time::Duration::from_secs(5);
        let c = CancelToken::new();
        assert!(
            apply(
                &ColdMethod::ColdCmd("exit 3".into(), t),
                &[],
                &c,
                &Cleanup::new()
            )
            .is_err()
        );
        assert!(
            apply(
                &ColdMethod::ColdCmd("true".into(), t),
                &[],
                &c,
                &Cleanup::new()
            )
            .is_ok()
        );
        let short = std::time::Duration::from_millis(100);
        let e = apply(
            &ColdMethod::ColdCmd("sleep 30".into(), short),
            &[],
            &c,
            &Cleanup::new(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("--cold-timeout"), "{e}");
    }
}
