//! The kernel's CPU counters as text: the whole machine's (`/proc/stat`), one process's
//! (`/proc/PID/stat`), and the clock-tick rate they count in. Parsing is `fsbench_measure`'s;
//! only the reading is platform-specific.

/// The text of `/proc/stat`, when readable.
pub fn machine_stat() -> Option<String> {
    std::fs::read_to_string("/proc/stat").ok()
}

/// The text of `/proc/PID/stat`, when the process exists and is readable.
pub fn process_stat(pid: i32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()
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
    }
}
