//! Child processes that never outlive fsbench: every command fsbench starts (a `command`
//! workload, `--cold-cmd`, walk workers) runs in its own process group, gets SIGKILL from the
//! kernel if fsbench dies (`PR_SET_PDEATHSIG`, even on SIGKILL of fsbench), is killed as a group
//! on cancellation or timeout, and is listed in a registry that the signal watcher empties before
//! a forced exit.

use crate::CancelToken;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Process groups alive now (their leaders' pids).
static LIVE_GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

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
}

/// Starts `cmd` as the leader of a new process group that dies with fsbench.
pub fn spawn(cmd: &mut Command) -> std::io::Result<GroupChild> {
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
    if let Ok(mut g) = LIVE_GROUPS.lock() {
        g.push(child.id() as i32);
    }
    Ok(GroupChild {
        child,
        reaped: false,
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
        let start = Instant::now();
        let mut pause = Duration::from_micros(20);
        loop {
            match self.child.try_wait() {
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
            if cancel.is_cancelled() {
                self.kill();
                return Err(WaitError::Cancelled);
            }
            if let Some(t) = timeout.filter(|t| start.elapsed() >= *t) {
                self.kill();
                return Err(WaitError::TimedOut(t));
            }
            // Short pauses: the wall time of a `command` sample ends when its exit is seen.
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_micros(200));
        }
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
        if let Ok(mut g) = LIVE_GROUPS.lock() {
            g.retain(|&p| p != self.child.id() as i32);
        }
    }
}

impl Drop for GroupChild {
    fn drop(&mut self) {
        self.kill();
    }
}

fn kill_group(pgid: i32) {
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

/// Kills every live group at once (the signal watcher's last resort before a forced exit).
pub fn kill_all_groups() {
    let groups: Vec<i32> = LIVE_GROUPS
        .lock()
        .map(|mut g| std::mem::take(&mut *g))
        .unwrap_or_default();
    for pgid in groups {
        if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_kills_the_whole_group() {
        let mut c = Command::new("sh");
        c.arg("-c").arg("sleep 30 & sleep 30; wait");
        let mut g = spawn(&mut c).unwrap();
        let pgid = g.child.id() as i32;
        let r = g.wait(&CancelToken::new(), Some(Duration::from_millis(100)));
        assert!(matches!(r, Err(WaitError::TimedOut(_))), "{r:?}");
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            live_members(pgid).is_empty(),
            "group survived: {:?}",
            live_members(pgid)
        );
    }

    /// Pids in process group `pgid` that are not zombies (a killed orphan stays a zombie until
    /// PID 1 reaps it, which in a container may never happen).
    fn live_members(pgid: i32) -> Vec<i32> {
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

    #[test]
    fn cancel_stops_the_wait_and_exit_status_is_returned() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let mut g = spawn(Command::new("sleep").arg("30")).unwrap();
        assert!(matches!(g.wait(&cancel, None), Err(WaitError::Cancelled)));
        let mut g = spawn(Command::new("sh").args(["-c", "exit 4"])).unwrap();
        let s = g.wait(&CancelToken::new(), None).unwrap();
        assert_eq!(s.code(), Some(4));
    }
}
