//! SIGINT, SIGTERM and SIGHUP: the first one asks the running workload to stop (it returns
//! `Interrupted`, the scratch is removed as the stack unwinds, exit 130). If the workload does not
//! stop within a grace period, or a second signal arrives, the watcher releases the process's
//! cleanup registry ([`cleanup`]: child process groups killed, the run's last words written —
//! the JSON with status `interrupted`, the store's mark —, labs torn down, scratches removed)
//! and exits 130.

use fsbench_sys::cleanup::Cleanup;
use fsbench_workload::CancelToken;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long a workload gets to notice cancellation before the watcher forces the exit.
const GRACE: Duration = Duration::from_secs(10);

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The process's one cleanup registry. The engine gets clones of it; it is process-wide only
/// because the signal watcher and the panic hook, which release it, have no other way to it.
pub fn cleanup() -> &'static Cleanup {
    static CLEANUP: OnceLock<Cleanup> = OnceLock::new();
    CLEANUP.get_or_init(|| {
        let cleanup = Cleanup::new();
        // The guard outlives a SIGKILL of fsbench: it kills the child groups still running.
        cleanup.set_group_watcher((crate::guard::watch_group, crate::guard::forget_group));
        cleanup
    })
}

/// Releases the registry (see [`Cleanup::release_all`]) and shows its lines.
pub fn release_all() {
    for line in cleanup().release_all() {
        crate::errln!("{line}");
    }
}

/// True once a terminating signal was received.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Starts the watcher thread; `cancel` is set on the first signal.
pub fn install(cancel: CancelToken) -> std::io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("fsbench-signals".into())
        .spawn(move || {
            for _ in signals.forever() {
                if INTERRUPTED.swap(true, Ordering::SeqCst) {
                    force_exit();
                }
                cancel.cancel();
                std::thread::spawn(|| {
                    std::thread::sleep(GRACE);
                    force_exit();
                });
            }
        })?;
    Ok(())
}

/// Releases everything and exits 130, once: a second caller (the grace timer and a second signal
/// at the same moment) waits for the first to end the process, since two threads in `exit` at
/// once race on its handlers.
fn force_exit() -> ! {
    static EXITING: AtomicBool = AtomicBool::new(false);
    if EXITING.swap(true, Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    release_all();
    crate::errln!("fsbench: error: interrupted — scratch removed");
    std::process::exit(130);
}
