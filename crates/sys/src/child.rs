//! Child processes that never outlive fsbench: every command fsbench starts runs in its own
//! process group, gets SIGKILL from the kernel if fsbench dies (`PR_SET_PDEATHSIG`, even on
//! SIGKILL of fsbench), is killed as a group on cancellation or timeout, and is registered in
//! the process's cleanup registry ([`crate::cleanup`]), which kills it before a forced exit.
//!
//! [`spawn`] here starts the lab's tools (mkfs, mount helpers, daemons) through
//! `std::process::Command`, which forks fsbench; everything whose time or CPU a sample holds (a
//! `command` workload's program, walk workers, card jobs, `--cold-cmd`) starts through
//! [`crate::vfork`] instead, which copies nothing.

use crate::cancel::CancelToken;
use crate::cleanup::{Cleanup, Registration, Stage};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// How a waited-for child ended, when it did not exit by itself.
#[derive(Debug)]
pub enum WaitError {
    /// The cancel token was set; the group was killed.
    Cancelled,
    /// The deadline passed; the group was killed.
    TimedOut(Duration),
    /// waitpid failed.
    Io(std::io::Error),
}

/// A started child in its own process group; the group is killed when this is dropped unexpectedly.
#[derive(Debug)]
pub struct GroupChild {
    /// The child (its pid is also the group id).
    pub child: Child,
    reaped: bool,
    /// Kills the group if the process must stop before this child is reaped.
    registration: Option<Registration>,
    /// Told when the group ends (its watcher outside the process forgets it).
    cleanup: Cleanup,
}

/// Starts `cmd` as the leader of a new process group that dies with fsbench; `cleanup` kills
/// the group if fsbench must stop before it is reaped.
pub fn spawn(cmd: &mut Command, cleanup: &Cleanup) -> std::io::Result<GroupChild> {
    let parent = rustix::process::getpid();
    cmd.process_group(0);
    // SAFETY: the closure runs in the forked child before exec and only makes two raw system
    // calls (prctl, getppid) and `_exit`, all async-signal-safe; it allocates nothing and takes
    // no lock.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // fsbench died between fork and prctl: do not run orphaned.
            if rustix::process::getppid() != Some(parent) {
                libc::_exit(137);
            }
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    let pgid = child.id() as i32;
    let registration = cleanup.register(Stage::Processes, move || {
        if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        Vec::new()
    });
    cleanup.group_started(pgid);
    Ok(GroupChild {
        child,
        reaped: false,
        registration: Some(registration),
        cleanup: cleanup.clone(),
    })
}

impl GroupChild {
    /// Waits until the child exits, `cancel` is set, or `timeout` passes; the last two kill the
    /// whole group (TERM, then KILL after a short grace) and reap the leader.
    pub fn wait(
        &mut self,
        cancel: &CancelToken,
        timeout: Option<Duration>,
    ) -> Result<ExitStatus, WaitError> {
        self.wait_then(cancel, timeout, &mut || {})
    }

    /// As [`GroupChild::wait`]; once the child has exited, `before_reap` runs while it is
    /// still a zombie, so its `/proc` counters (which hold its reaped children's) can still be
    /// read, and only then is it reaped.
    pub fn wait_then(
        &mut self,
        cancel: &CancelToken,
        timeout: Option<Duration>,
        before_reap: &mut dyn FnMut(),
    ) -> Result<ExitStatus, WaitError> {
        let start = Instant::now();
        let mut pause = Duration::from_micros(20);
        loop {
            let state = self.exited();
            if state == Some(true) {
                self.note_peak_memory();
                before_reap();
            }
            // Running (`Some(false)`): not reaped behind the hook's back.
            let reaped = match state {
                Some(false) => Ok(None),
                _ => self.child.try_wait(),
            };
            match reaped {
                Ok(Some(status)) => {
                    self.finish();
                    return Ok(status);
                }
                Ok(None) => {}
                Err(e) => {
                    self.kill();
                    return Err(WaitError::Io(e));
                }
            }
            if let Some(why) = stop_waiting(cancel, start, timeout) {
                self.kill();
                return Err(why);
            }
            // Short pauses: the wall time of a `command` sample ends when its exit is seen.
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_micros(200));
        }
    }

    /// Records the exited (not yet reaped) child's largest resident set ([`note_peak_memory_of`]).
    fn note_peak_memory(&self) {
        note_peak_memory_of(self.child.id() as i32);
    }

    /// Whether the child has exited, leaving it a zombie (not reaped); `None` when that cannot
    /// be told (then `try_wait` decides).
    fn exited(&self) -> Option<bool> {
        use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
        let pid = Pid::from_raw(self.child.id() as i32)?;
        let opts = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        waitid(WaitId::Pid(pid), opts).ok().map(|s| s.is_some())
    }

    /// Kills the group (TERM, 200 ms grace, KILL) and reaps the leader.
    pub fn kill(&mut self) {
        if self.reaped {
            return;
        }
        kill_group(self.child.id() as i32);
        let _ = self.child.wait();
        self.finish();
    }

    fn finish(&mut self) {
        self.reaped = true;
        // Members that outlived their leader are killed with it.
        if let Some(pgid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
        }
        self.registration = None;
        self.cleanup.group_ended(self.child.id() as i32);
    }
}

impl Drop for GroupChild {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Why a wait for a child must stop now (`cancel` set, or `timeout` since `start` passed);
/// `None` to go on waiting.
pub(crate) fn stop_waiting(
    cancel: &CancelToken,
    start: Instant,
    timeout: Option<Duration>,
) -> Option<WaitError> {
    if cancel.is_cancelled() {
        return Some(WaitError::Cancelled);
    }
    timeout
        .filter(|t| start.elapsed() >= *t)
        .map(WaitError::TimedOut)
}

/// Records exited (not yet reaped) child `pid`'s largest resident set for [`crate::memory`]
/// (its `ru_maxrss` covers the descendants it reaped; [`zombie_rusage`]).
pub(crate) fn note_peak_memory_of(pid: i32) {
    if let Some(ru) = zombie_rusage(pid) {
        crate::memory::child_exited(u64::try_from(ru.ru_maxrss).unwrap_or(0));
    }
}

/// The CPU time (user and system, ns) of exited, not yet reaped child `pid` and of the
/// descendants it reaped: the kernel's precise total (the user/system split alone is sampled
/// by ticks).
pub fn cpu_ns_of_exited(pid: i32) -> Option<u64> {
    user_sys_ns_of_exited(pid).map(|(user, sys)| user + sys)
}

/// The user and system CPU time (ns) of exited, not yet reaped child `pid` and of the
/// descendants it reaped: what `wait4` would report for it (hyperfine's measure of a command).
pub fn user_sys_ns_of_exited(pid: i32) -> Option<(u64, u64)> {
    let ru = zombie_rusage(pid)?;
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    Some((ns(ru.ru_utime), ns(ru.ru_stime)))
}

/// The rusage of exited child `pid`, leaving it to be reaped as before: the raw `waitid`
/// system call with `WNOWAIT` fills a `struct rusage` of the zombie. glibc's `waitid` and
/// rustix's have no rusage argument; reaping it with `wait4` instead would hide the exit from
/// `std`'s `Child`. `None` when it has not exited.
fn zombie_rusage(pid: i32) -> Option<libc::rusage> {
    let mut info = std::mem::MaybeUninit::<libc::siginfo_t>::zeroed();
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: `info` and `ru` are valid, writable, zero-initialised and live across the
    // call; the kernel only writes into them.
    #[allow(unsafe_code)]
    let got = unsafe {
        libc::syscall(
            libc::SYS_waitid,
            libc::P_PID,
            pid as libc::id_t,
            info.as_mut_ptr(),
            flags,
            ru.as_mut_ptr(),
        )
    };
    // SAFETY: both were zero-initialised; on success the kernel filled them. With WNOHANG a
    // child still running leaves `si_pid` 0.
    #[allow(unsafe_code)]
    let (info, ru) = unsafe { (info.assume_init(), ru.assume_init()) };
    #[allow(unsafe_code)]
    let exited = unsafe { info.si_pid() } != 0;
    (got == 0 && exited).then_some(ru)
}

/// Kills process group `pgid`: TERM, 200 ms grace, KILL.
pub(crate) fn kill_group(pgid: i32) {
    let Some(pid) = rustix::process::Pid::from_raw(pgid) else {
        return;
    };
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::TERM);
    let deadline = Instant::now() + Duration::from_millis(200);
    while Instant::now() < deadline {
        if rustix::process::test_kill_process_group(pid).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
}

/// Pids in process group `pgid` that are not zombies (a killed orphan stays a zombie until
/// PID 1 reaps it, which in a container may never happen).
#[cfg(test)]
pub(crate) fn live_members(pgid: i32) -> Vec<i32> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
            let f: Vec<&str> = rest.split_whitespace().collect();
            f.first() != Some(&"Z") && f.get(2).and_then(|g| g.parse().ok()) == Some(pgid)
        })
        .collect()
}

/// [`live_members`] of `pgid` once none is left, or when `limit` has passed (a liveness bound:
/// a killed process ends when the kernel has run its exit, sooner or later on a busy machine).
#[cfg(test)]
pub(crate) fn live_members_within(pgid: i32, limit: Duration) -> Vec<i32> {
    let deadline = Instant::now() + limit;
    loop {
        let left = live_members(pgid);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_kills_the_whole_group() {
        let mut c = Command::new("sh");
        c.arg("-c").arg("sleep 30 & sleep 30; wait");
        let mut g = spawn(&mut c, &Cleanup::new()).unwrap();
        let pgid = g.child.id() as i32;
        let r = g.wait(&CancelToken::new(), Some(Duration::from_millis(100)));
        assert!(matches!(r, Err(WaitError::TimedOut(_))), "{r:?}");
        let left = live_members_within(pgid, Duration::from_secs(10));
        assert!(left.is_empty(), "group survived: {left:?}");
    }

    #[test]
    fn cancel_stops_the_wait_and_exit_status_is_returned() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let mut g = spawn(Command::new("sleep").arg("30"), &Cleanup::new()).unwrap();
        assert!(matches!(g.wait(&cancel, None), Err(WaitError::Cancelled)));
        let mut g = spawn(Command::new("sh").args(["-c", "exit 4"]), &Cleanup::new()).unwrap();
        let s = g.wait(&CancelToken::new(), None).unwrap();
        assert_eq!(s.code(), Some(4));
    }
}
