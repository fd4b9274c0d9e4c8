//! The kernel's CPU and I/O counters as text: the whole machine's (`/proc/stat`), one process's
//! (`/proc/PID/stat`, `/proc/PID/io`), its children (`/proc/PID/task/TID/children`), and the
//! clock-tick rate they count in. Parsing is `fsbench_measure`'s; only the reading is
//! platform-specific.

/// The text of `/proc/stat`, when readable.
pub fn machine_stat() -> Option<String> {
    std::fs::read_to_string("/proc/stat").ok()
}

/// The text of `/proc/PID/stat`, when the process exists and is readable.
pub fn process_stat(pid: i32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()
}

/// A task's CPU clock, one reading of its `/proc/TID/schedstat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedstat {
    /// ns the task ran on a CPU.
    pub ran_ns: u64,
    /// ns it waited for a CPU while runnable.
    pub waited_ns: u64,
    /// Times it got a CPU.
    pub arrivals: u64,
}

impl Schedstat {
    /// The three fields of a schedstat file's text; `None` when it is not one.
    pub fn parse(text: &str) -> Option<Self> {
        let mut f = text.split_ascii_whitespace().map(|x| x.parse::<u64>().ok());
        Some(Self {
            ran_ns: f.next()??,
            waited_ns: f.next()??,
            arrivals: f.next()??,
        })
    }

    /// The calling thread's (`/proc/thread-self/schedstat`); `None` when unreadable (a kernel
    /// without `CONFIG_SCHED_INFO`).
    pub fn of_this_thread() -> Option<Self> {
        Self::parse(&std::fs::read_to_string("/proc/thread-self/schedstat").ok()?)
    }
}

/// The text of `/proc/PID/io` (the process's I/O counters, its reaped children's included),
/// when the process exists and may be read.
pub fn process_io(pid: i32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/io")).ok()
}

/// The texts of `/proc/PID/task/TID/children` of every thread of the process (space-separated
/// pids), concatenated; empty when it is gone or the kernel lacks the file.
pub fn process_children(pid: i32) -> String {
    let mut out = String::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(t.path().join("children")) {
            out.push_str(&text);
            out.push(' ');
        }
    }
    out
}

/// Clock ticks per second of `/proc` (`sysconf(_SC_CLK_TCK)`), 100 when it cannot be read.
pub fn clock_ticks_per_s() -> u64 {
    // SAFETY: sysconf only reads a constant of the C library; it has no memory arguments.
    #[allow(unsafe_code)]
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(hz).ok().filter(|&h| h > 0).unwrap_or(100)
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_machine_and_this_process_can_be_read() {
        assert!(super::machine_stat().is_some_and(|t| t.starts_with("cpu ")));
        assert!(super::process_stat(std::process::id() as i32).is_some());
        assert!(super::clock_ticks_per_s() > 0);
        let me = std::process::id() as i32;
        assert!(super::process_io(me).is_some_and(|t| t.contains("syscr")));
        let mut child = std::process::Command::new("sleep")
            .arg("1")
            .spawn()
            .unwrap();
        let kids = super::process_children(me);
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            kids.split_whitespace().any(|p| p == child.id().to_string()),
            "{kids}"
        );
    }
}
