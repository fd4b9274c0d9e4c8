//! `iodepth`, `engine`, `jobs` and `file-per-job`: how many requests are in flight, through
//! which engine, from how many jobs.

use crate::knob::{self, Knob};
use crate::params::{ParamError, Params};
use fsbench_io::queue::{Engine, Jobs, MAX_IODEPTH, MAX_JOBS, Queue};
use fsbench_io::uring;
use fsbench_model::param;

/// `iodepth`: requests in flight per job.
pub const IODEPTH: Knob<u64> = knob::count(
    param::IODEPTH,
    "1",
    "requests in flight per job (fio iodepth); above 1 needs engine=io_uring or auto",
);

/// The engines `engine=` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Psync,
    IoUring,
    Auto,
    Mmap,
}

/// `engine`: how requests are issued.
const ENGINE: Knob<Asked> = Knob::new(
    "engine",
    "psync",
    "psync (pread/pwrite), io_uring, auto (io_uring when the kernel allows it), or mmap (copies to and from a shared mapping; rand-read, rand-write, seq-read)",
    |p, k, d| {
        Ok(
            match p.choice(k, &["psync", "io_uring", "auto", "mmap"], d)? {
                "mmap" => Asked::Mmap,
                "io_uring" => Asked::IoUring,
                "auto" => Asked::Auto,
                _ => Asked::Psync,
            },
        )
    },
);

/// The documentation line of `engine` (its value is read by [`queue_param`] with `iodepth`).
pub const ENGINE_DOC: crate::ParamDoc = ENGINE.doc();

/// `jobs`: parallel jobs.
pub const JOBS: Knob<u64> = knob::count(
    param::JOBS,
    "1",
    "parallel jobs (threads, fio numjobs), started together; figures are their sum",
);

/// `file-per-job`: each job on its own file, or one shared file.
pub const FILE_PER_JOB: Knob<bool> = knob::boolean(
    param::FILE_PER_JOB,
    "true",
    "each job on its own file, or false: one shared file (sequential: a region per job)",
);

/// Reads `iodepth` and `engine`; `engine=auto` is resolved here (probing io_uring once per
/// process) and recorded as the engine chosen.
pub fn queue_param(p: &mut Params) -> Result<Queue, ParamError> {
    let depth = IODEPTH.read(p)?;
    if depth > MAX_IODEPTH {
        return Err(IODEPTH.error(format!(
            "{depth} is more than {MAX_IODEPTH}: use a smaller iodepth or more jobs"
        )));
    }
    let engine = match ENGINE.read(p)? {
        Asked::Mmap => Engine::Mmap,
        Asked::IoUring => match uring::available() {
            Ok(()) => Engine::IoUring,
            Err(why) => {
                let hint = "use engine=psync (iodepth=1) or engine=auto";
                return Err(ENGINE.error(format!("io_uring is unavailable: {why} — {hint}")));
            }
        },
        Asked::Auto => auto_engine(p, depth)?,
        Asked::Psync => Engine::Psync,
    };
    if engine == Engine::Mmap && depth > 1 {
        return Err(IODEPTH.error(format!(
            "iodepth={depth}: engine=mmap copies one request at a time (use jobs={depth})"
        )));
    }
    if engine == Engine::Psync && depth > 1 {
        return Err(IODEPTH.error(format!(
            "iodepth={depth} needs engine=io_uring or engine=auto: \
             psync issues one request at a time (or use jobs={depth} for parallel psync)"
        )));
    }
    Ok(Queue {
        engine,
        depth: depth as u32,
    })
}

/// Refuses `engine=mmap` for a workload that does not map its file.
pub fn refuse_mmap(queue: Queue, workload: &str) -> Result<(), ParamError> {
    if queue.engine == Engine::Mmap {
        return Err(ENGINE.error(format!(
            "{workload} has no mmap engine (rand-read, rand-write and seq-read have) — use engine=psync or io_uring"
        )));
    }
    Ok(())
}

/// `engine=auto`: io_uring when the probe succeeds, else psync (an error at depth > 1).
fn auto_engine(p: &mut Params, depth: u64) -> Result<Engine, ParamError> {
    match uring::available() {
        Ok(()) => {
            ENGINE.record(p, "io_uring");
            Ok(Engine::IoUring)
        }
        Err(why) if depth > 1 => Err(ENGINE.error(format!(
            "engine=auto found no usable io_uring ({why}), and iodepth={depth} needs it"
        ))),
        Err(_) => {
            ENGINE.record(p, "psync");
            Ok(Engine::Psync)
        }
    }
}

/// Reads `jobs` and `file-per-job`. With a user's `file`, the jobs share it
/// (`file-per-job=true` given explicitly is then an error).
pub fn jobs_param(p: &mut Params, user_file: bool) -> Result<Jobs, ParamError> {
    let count = JOBS.read(p)?;
    if count > MAX_JOBS {
        return Err(JOBS.error(format!(
            "{count} is more than {MAX_JOBS}: use fewer jobs or a higher iodepth"
        )));
    }
    let given = FILE_PER_JOB.given(p);
    let mut file_per_job = FILE_PER_JOB.read(p)?;
    if user_file && file_per_job {
        if given {
            return Err(FILE_PER_JOB.error(
                "cannot be true with file=: the jobs share the user's file; \
                 drop file= or set file-per-job=false",
            ));
        }
        file_per_job = false;
        FILE_PER_JOB.record(p, "false");
    }
    Ok(Jobs {
        count: count as u32,
        file_per_job,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_above_one_with_psync_is_refused_with_a_hint() {
        let mut p = Params::parse("iodepth=32,engine=psync").unwrap();
        let e = queue_param(&mut p).unwrap_err();
        assert_eq!(e.key, "iodepth");
        assert!(e.message.contains("engine=io_uring"), "{e}");
        let mut p = Params::parse("iodepth=32").unwrap();
        assert!(queue_param(&mut p).is_err(), "psync is the default engine");
    }

    #[test]
    fn defaults_are_psync_at_depth_one() {
        let mut p = Params::parse("").unwrap();
        assert_eq!(queue_param(&mut p).unwrap(), Queue::PSYNC);
        let mut p = Params::parse("iodepth=0").unwrap();
        assert!(queue_param(&mut p).is_err());
    }

    #[test]
    fn auto_records_the_engine_it_chose() {
        let mut p = Params::parse("engine=auto").unwrap();
        let q = queue_param(&mut p).unwrap();
        let resolved = p.finish(&[IODEPTH.doc(), ENGINE_DOC]).unwrap();
        let want = if uring::available().is_ok() {
            "io_uring"
        } else {
            "psync"
        };
        assert_eq!(resolved["engine"], want);
        assert_eq!(q.uring_flag() == 1.0, want == "io_uring");
    }

    #[test]
    fn user_file_makes_jobs_share_it() {
        let mut p = Params::parse("jobs=4").unwrap();
        assert!(!jobs_param(&mut p, true).unwrap().file_per_job);
        let mut p = Params::parse("jobs=4,file-per-job=true").unwrap();
        assert!(jobs_param(&mut p, true).is_err());
        let mut p = Params::parse("jobs=4").unwrap();
        assert!(jobs_param(&mut p, false).unwrap().file_per_job);
    }
}
