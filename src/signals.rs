//! SIGINT, SIGTERM and SIGHUP: the first one asks the running workload to stop (it returns
//! `Interrupted`, the scratch is removed as the stack unwinds, exit 130). If the workload does not
//! stop within a grace period, or a second signal arrives, the watcher kills every child process
//! group, writes the run's last words (the JSON with status `interrupted`), removes every live
//! scratch itself and exits 130.

use fsbench_workload::CancelToken;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long a workload gets to notice cancellation before the watcher forces the exit.
const GRACE: Duration = Duration::from_secs(10);

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// What to write before a forced exit (the run's JSON marked `interrupted`), set by the run.
type LastWords = Box<dyn FnOnce() + Send>;
static LAST_WORDS: Mutex<Option<LastWords>> = Mutex::new(None);

/// Replaces what the watcher writes before a forced exit.
pub fn set_last_words(f: LastWords) {
    if let Ok(mut w) = LAST_WORDS.lock() {
        *w = Some(f);
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

fn force_exit() -> ! {
    let lines = fsbench_runner::lifecycle::release_all(|| {
        let words = LAST_WORDS.lock().ok().and_then(|mut w| w.take());
        if let Some(f) = words {
            f();
        }
    });
    for line in lines {
        crate::errln!("{line}");
    }
    crate::errln!("fsbench: error: interrupted — scratch removed");
    std::process::exit(130);
}
