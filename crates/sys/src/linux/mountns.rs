//! A mount namespace of fsbench's own, for its lab: every mount fsbench (and the processes it
//! starts) makes afterwards lives there only, and the kernel detaches them all when the last
//! process in the namespace ends — however fsbench ends, SIGKILL included. Propagation from the
//! machine's namespace is kept one way (`MS_SLAVE`, recursively): mounts and unmounts made
//! outside still reach fsbench (a filesystem unmounted outside is not kept busy by a copy here),
//! while fsbench's own never leave.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once [`enter_own`] succeeded.
static ENTERED: AtomicBool = AtomicBool::new(false);

/// Whether this process moved into a mount namespace of its own ([`enter_own`]).
pub fn entered() -> bool {
    ENTERED.load(Ordering::Relaxed)
}

/// Whether this process has one thread: `unshare(CLONE_NEWNS)` refuses a process whose threads
/// share their filesystem attributes (every thread does).
pub fn single_threaded() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .is_some_and(|n| n.trim() == "1")
    })
}

/// Moves this process into a new mount namespace whose mounts receive the machine's changes
/// but send none back. Must be called while the process has one thread ([`single_threaded`]);
/// needs `CAP_SYS_ADMIN`.
pub fn enter_own() -> io::Result<()> {
    if !single_threaded() {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "a mount namespace can only be entered before fsbench starts a thread",
        ));
    }
    // SAFETY: CLONE_NEWNS unshares no file descriptor table, the only case the safety note of
    // `unshare_unsafe` is about; the process has one thread (checked above).
    #[allow(unsafe_code)]
    unsafe {
        rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNS)?;
    }
    let slave = rustix::mount::MountPropagationFlags::DOWNSTREAM
        | rustix::mount::MountPropagationFlags::REC;
    rustix::mount::mount_change("/", slave)?;
    ENTERED.store(true, Ordering::Relaxed);
    Ok(())
}

/// The mount namespace of process `pid` (`mnt:[4026531841]`), when it can be read.
pub fn of(pid: u32) -> Option<String> {
    std::fs::read_link(format!("/proc/{pid}/ns/mnt"))
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_with_threads_is_refused() {
        // A second thread for as long as the check runs, whatever the harness's threads.
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let other = std::thread::spawn(move || rx.recv());
        assert!(!single_threaded());
        let e = enter_own().unwrap_err();
        drop(tx);
        let _ = other.join();
        assert_eq!(e.kind(), io::ErrorKind::Unsupported, "{e}");
        assert!(of(std::process::id()).is_some_and(|n| n.starts_with("mnt:")));
    }
}
