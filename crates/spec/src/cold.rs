//! How a cold sample is obtained: the method is chosen once per run (the user's command, else
//! drop_caches when this process may write it, else per-file fadvise) and recorded with results.

/// How a cold sample is obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColdMethod {
    /// `sync`, then `3` written to /proc/sys/vm/drop_caches (page cache, dentries, inodes).
    DropCaches,
    /// The user's command, run through `sh -c` in its own process group, killed after the timeout.
    ColdCmd(String, std::time::Duration),
    /// posix_fadvise(DONTNEED) on each of the workload's files after fdatasync.
    Fadvise,
}

impl ColdMethod {
    /// The name recorded in results.
    pub fn name(&self) -> &'static str {
        match self {
            Self::DropCaches => "drop_caches",
            Self::ColdCmd(..) => "cold-cmd",
            Self::Fadvise => "fadvise",
        }
    }

    /// True when the method works file by file (each MPI rank on its own files), false when it
    /// acts on the whole machine (run once per node).
    pub fn per_file(&self) -> bool {
        matches!(self, Self::Fadvise)
    }

    /// The best available method: the user's command when given, else drop_caches when this
    /// process may write it, else fadvise.
    pub fn choose(cold_cmd: Option<&str>, timeout: std::time::Duration) -> Self {
        match cold_cmd {
            Some(cmd) => Self::ColdCmd(cmd.to_string(), timeout),
            None if fsbench_sys::cache::drop_caches_writable() => Self::DropCaches,
            None => Self::Fadvise,
        }
    }
}
