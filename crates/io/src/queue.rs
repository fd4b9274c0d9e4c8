//! How the data workloads issue their requests: the `engine` (`psync`: one positional read or
//! write at a time, as fsbench always did; `io_uring`: up to `iodepth` requests in flight through
//! one ring per job; `auto`: io_uring when this kernel allows it), and how many parallel `jobs`
//! run, each on its own file (`file-per-job=true`) or all on one shared file. Parsed once, here,
//! so every workload spells and checks these parameters the same way.

/// Largest `iodepth` accepted (requests in flight per job).
pub const MAX_IODEPTH: u64 = 1024;

/// Largest `jobs` accepted (threads per sample).
pub const MAX_JOBS: u64 = 256;

/// The engine that issues requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// One `pread`/`pwrite` at a time (queue depth 1).
    Psync,
    /// io_uring, `iodepth` requests in flight.
    IoUring,
    /// Copies to and from a shared mapping of the file (queue depth 1; the I/O is page faults).
    Mmap,
}

/// Engine and queue depth of one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queue {
    /// The engine.
    pub engine: Engine,
    /// Requests in flight (1 for psync).
    pub depth: u32,
}

impl Queue {
    /// psync at depth 1: what fsbench did before engines existed.
    pub const PSYNC: Queue = Queue {
        engine: Engine::Psync,
        depth: 1,
    };

    /// The `engine_io_uring` metric: 1 when requests go through io_uring.
    pub fn uring_flag(self) -> f64 {
        if self.engine == Engine::IoUring {
            1.0
        } else {
            0.0
        }
    }
}

/// Parallel jobs of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Jobs {
    /// Number of jobs (threads); 1 runs on the caller's thread.
    pub count: u32,
    /// Each job on its own file; false: all on one file.
    pub file_per_job: bool,
}

/// The data file name of job `job`: job 0 keeps `name` (so `jobs=1` uses the file it always
/// did), job k gets `stem.k.ext`.
pub fn job_file_name(name: &str, job: u32) -> String {
    if job == 0 {
        return name.to_string();
    }
    match name.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}.{job}.{ext}"),
        None => format!("{name}.{job}"),
    }
}

/// The seed of job `job`: job 0 keeps `seed` (so `jobs=1` draws the offsets it always did); the
/// others get distinct streams, so jobs on a shared file do not read the same blocks in lockstep.
pub fn job_seed(seed: u64, job: u32) -> u64 {
    if job == 0 {
        seed
    } else {
        seed ^ u64::from(job).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_zero_keeps_the_name_and_seed() {
        assert_eq!(job_file_name("rand-io.dat", 0), "rand-io.dat");
        assert_eq!(job_file_name("rand-io.dat", 3), "rand-io.3.dat");
        assert_eq!(job_file_name("data", 2), "data.2");
        assert_eq!(job_seed(42, 0), 42);
        assert_ne!(job_seed(42, 1), job_seed(42, 2));
    }
}
