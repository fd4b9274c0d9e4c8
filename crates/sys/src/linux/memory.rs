//! Peak memory: the largest resident set of fsbench itself since a mark (the kernel's `VmHWM`,
//! reset by writing `5` to `/proc/self/clear_refs`), and of the child processes reaped since
//! then (each one's `ru_maxrss`, read from the zombie before it is reaped, which covers the
//! child and the descendants it reaped). `getrusage(RUSAGE_CHILDREN)` cannot serve per sample: its `ru_maxrss` is the
//! largest child of the process's whole life and never goes down.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The largest resident set of a child reaped since [`mark`], KiB (0: none).
static CHILDREN_PEAK_KIB: AtomicU64 = AtomicU64::new(0);

/// Starts a new measurement: resets fsbench's own high-water mark to its current resident set
/// and forgets the children reaped so far. False when the kernel refused the reset (the own
/// peak then covers the process's life so far and [`own_peak_kib`] must not be used).
pub fn mark() -> bool {
    CHILDREN_PEAK_KIB.store(0, Ordering::Relaxed);
    let files = proc_files().lock().unwrap_or_else(PoisonError::into_inner);
    files
        .clear_refs
        .as_ref()
        .is_some_and(|f| f.write_at(b"5", 0).is_ok())
}

/// fsbench's own largest resident set since [`mark`], KiB (`VmHWM`); `None` when unreadable.
pub fn own_peak_kib() -> Option<u64> {
    let files = proc_files().lock().unwrap_or_else(PoisonError::into_inner);
    let mut buf = [0u8; 4096];
    let n = files.status.as_ref()?.read_at(&mut buf, 0).ok()?;
    vm_hwm_kib(&String::from_utf8_lossy(&buf[..n]))
}

/// `/proc/self/clear_refs` and `/proc/self/status`, opened once: a sample's mark and reading
/// then cost about 4 µs (opening them each time took 7 µs, 3% of a run of 10,000 `null`
/// samples). `/proc/self` is the process, whichever thread opened them.
struct ProcFiles {
    clear_refs: Option<File>,
    status: Option<File>,
}

fn proc_files() -> &'static Mutex<ProcFiles> {
    static FILES: OnceLock<Mutex<ProcFiles>> = OnceLock::new();
    FILES.get_or_init(|| {
        Mutex::new(ProcFiles {
            clear_refs: File::options()
                .write(true)
                .open("/proc/self/clear_refs")
                .ok(),
            status: File::open("/proc/self/status").ok(),
        })
    })
}

/// The largest resident set of any child reaped since [`mark`], KiB; `None` when none was.
pub fn children_peak_kib() -> Option<u64> {
    Some(CHILDREN_PEAK_KIB.load(Ordering::Relaxed)).filter(|&k| k > 0)
}

/// Records an exited child's largest resident set (its `ru_maxrss`, KiB), read before it is reaped.
pub(crate) fn child_exited(max_rss_kib: u64) {
    CHILDREN_PEAK_KIB.fetch_max(max_rss_kib, Ordering::Relaxed);
}

/// `VmHWM` of a `/proc/PID/status` text, KiB.
fn vm_hwm_kib(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_high_water_mark_is_read_from_status() {
        let status = "Name:\tx\nVmPeak:\t  10 kB\nVmHWM:\t    5120 kB\nVmRSS:\t 4000 kB\n";
        assert_eq!(vm_hwm_kib(status), Some(5120));
        assert_eq!(vm_hwm_kib("Name:\tx\n"), None);
    }

    #[test]
    fn a_mark_resets_the_peak_that_memory_touched_before_it_raised() {
        let big = vec![1u8; 64 << 20];
        std::hint::black_box(&big);
        let before = own_peak_kib().expect("VmHWM");
        assert!(before >= 64 << 10, "{before} KiB after touching 64 MiB");
        drop(big);
        if mark() {
            let after = own_peak_kib().expect("VmHWM");
            assert!(
                after < before,
                "{after} KiB not below {before} KiB after the reset"
            );
        }
    }
}
