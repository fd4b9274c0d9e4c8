//! Processes: is the owner of a scratch still alive (pid and start time, so a reused pid is not
//! mistaken for it), and this host's name.

/// This host's name, written in scratch markers: a scratch on a filesystem shared between
/// hosts (MPI ranks on a network filesystem) is judged stale only on the host that made it.
pub fn host_name() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// True when process `pid` exists and, when `ticks` is known, started at that time.
pub fn owner_alive(pid: u32, ticks: Option<u64>) -> bool {
    match process_start_ticks(pid) {
        None => false,
        // A live process with another start time is a reused pid: the owner is gone.
        Some(now) => ticks.is_none_or(|t| t == 0 || t == now),
    }
}

/// Start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat).
pub fn process_start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// The executable `name` in a directory of the search path (`$PATH`, as `exec` searches it),
/// if any. The one place outside the binary that reads an environment variable: finding a
/// program is the operating system's convention, not a setting of fsbench.
pub fn find_program(name: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The arguments of process `pid` (empty when it is gone).
pub fn cmdline(pid: i32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| {
            raw.split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}
