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

/// True while a run checks its inputs, before it has registered what a forced exit writes.
static SETTLING: AtomicBool = AtomicBool::new(false);

/// How long a forced exit waits for a run still checking its inputs to register its last words
/// (a few milliseconds of parsing; bounded in case it is stuck).
const SETTLE_WAIT: Duration = Duration::from_secs(2);

/// Held from the handlers' installation until the run's last words are registered: a second
/// signal meanwhile waits for them, so that the JSON asked for is still written. Dropping it (or
/// an early error return) ends the wait.
pub struct Settling(());

impl Settling {
    /// Starts the stretch.
    pub fn begin() -> Self {
        SETTLING.store(true, Ordering::SeqCst);
        Self(())
    }
}

impl Drop for Settling {
    fn drop(&mut self) {
        SETTLING.store(false, Ordering::SeqCst);
    }
}

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
    let deadline = std::time::Instant::now() + SETTLE_WAIT;
    while SETTLING.load(Ordering::SeqCst) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    release_all();
    crate::errln!("fsbench: error: interrupted — scratch removed");
    std::process::exit(130);
}
