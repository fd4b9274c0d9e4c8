//! `seq-read`: read one file (or the start of a block device) sequentially in `bs` blocks
//! (dd `if=FILE of=/dev/null bs=1M`). The file is written once, unmeasured, in `prepare`. With
//! `engine=io_uring`, `iodepth` consecutive blocks are in flight (fio `rw=read`); with `jobs=N`,
//! each job reads its own file, or its region of a shared one.

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::knobs::{io, queue};
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::file::{self as iofile, DataPattern};
use fsbench_io::jobs;
use fsbench_io::pace::{self, Pace};
use fsbench_io::passes::{self as common, Direct, SeqJob};
use fsbench_io::queue::{self as ioqueue, Engine, Jobs, Queue};
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "seq-read",
    summary: "sequential read of one file or block device (dd if=FILE of=/dev/null)",
    params: PARAMS,
    build,
    shared: true,
};

const SIZE: Knob<u64> = io::SIZE.help_as("bytes read per sample (capped at a device's size)");

const PARAMS: &[ParamDoc] = &[
    io::FILE.doc(),
    io::BS.help_as("block size of each read").doc(),
    SIZE.doc(),
    io::DIRECT.doc(),
    io::DATA.doc(),
    io::SEED.help_as("seed of the random data").doc(),
    queue::IODEPTH.doc(),
    queue::ENGINE_DOC,
    queue::JOBS.doc(),
    queue::FILE_PER_JOB.doc(),
    io::DEDUPE.doc(),
    crate::knobs::pace::RATE.doc(),
    crate::knobs::pace::ARRIVALS.doc(),
    crate::knobs::pace::THINK.doc(),
    crate::knobs::verify::VERIFY.doc(),
    io::INTERLEAVE.doc(),
];

struct SeqRead {
    file: Option<PathBuf>,
    bs: u64,
    size: u64,
    direct: Direct,
    pattern: DataPattern,
    seed: u64,
    queue: Queue,
    jobs: Jobs,
    /// Each job's pace (`rate=`, `think=`).
    pace: Pace,
    /// Check every block read against the seal fsbench wrote it with.
    verify: bool,
    /// Parts sharing one file take turns block by block.
    interleave: bool,
    /// Why `direct=auto` uses buffered I/O on this target.
    note: Option<String>,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = io::BS.given(p);
    let bs = io::BS.read(p)?;
    let size = SIZE.read(p)?;
    let bs = io::fit_bs(p, bs_given, bs, size)?;
    let direct = io::DIRECT.read(p)?;
    io::check_direct_bs(direct, bs)?;
    let pattern = io::data_param(p)?;
    let seed = io::SEED.read(p)?;
    let file = io::FILE.read(p)?;
    let queue = queue::queue_param(p)?;
    let jobs = queue::jobs_param(p, file.is_some())?;
    io::check_regions(size, bs, jobs)?;
    let pace = crate::knobs::pace::sequential(p, bs, queue, jobs)?;
    let verify = crate::knobs::verify::param(p, bs, file.is_some())?;
    if queue.engine == Engine::Mmap && direct == Direct::On {
        return Err(io::DIRECT.error(
            "a mapping always goes through the page cache — drop direct=true with engine=mmap",
        ));
    }
    if verify && queue.engine == Engine::IoUring {
        return Err(crate::knobs::verify::refusal(
            "checks reads in the psync and mmap loops; use engine=psync or mmap".into(),
        ));
    }
    let interleave = io::interleave_param(p, queue)?;
    Ok(Box::new(SeqRead {
        pace,
        verify,
        interleave,
        file,
        bs,
        size,
        direct,
        pattern,
        seed,
        queue,
        jobs,
        note: None,
    }))
}

impl SeqRead {
    /// What each job reads: its own whole file, or its region of the shared one. With
    /// `--layout shared` every job of every rank reads its region of the rank's segment of one
    /// file.
    fn jobs(&self, ctx: &Context) -> Result<Vec<SeqJob>, WorkloadError> {
        let sharing = ctx.ranks.sharing() && self.file.is_none();
        let own = self.jobs.file_per_job && !sharing;
        let size = if sharing {
            common::shared_size(ctx, self.size)
        } else {
            self.size
        };
        (0..self.jobs.count)
            .map(|k| {
                let name = ioqueue::job_file_name("seq-read.dat", if own { k } else { 0 });
                let file = common::read_file(ctx, self.file.as_deref(), &name, size)?;
                let (range, step) = if own {
                    (0..file.size, self.bs)
                } else if self.interleave {
                    let all = 0..file.size;
                    common::part_of(
                        all,
                        self.bs,
                        common::part_index(ctx, sharing, k, self.jobs),
                        true,
                    )
                } else {
                    let seg = if sharing {
                        common::rank_segment(ctx, self.size)
                    } else {
                        0..file.size
                    };
                    let part = (u64::from(self.jobs.count), u64::from(k));
                    common::part_of(seg, self.bs, part, false)
                };
                Ok(SeqJob {
                    file,
                    range,
                    step,
                    truncate: false,
                })
            })
            .collect()
    }
}

impl Workload for SeqRead {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let jobs = self.jobs(ctx)?;
        if ctx.ranks.sharing() && self.file.is_none() && self.verify {
            return Err(WorkloadError::Unsupported(
                "verify=true reads need a file fsbench sealed whole; use --layout per-rank".into(),
            ));
        }
        if ctx.ranks.sharing() && self.file.is_none() {
            // Each rank writes its own segment of the one file, at the same time.
            common::check_segment(ctx, self.size, self.bs)?;
            let seg = common::rank_segment(ctx, self.size);
            iofile::ensure_segment(ctx, &jobs[0].file, seg, self.pattern, self.seed)?;
            return fsbench_io::direct_check::settle(
                &jobs[0].file,
                &mut self.direct,
                self.bs,
                &mut self.note,
            );
        }
        for job in jobs.iter().take(if self.jobs.file_per_job {
            jobs.len()
        } else {
            1
        }) {
            if self.verify {
                fsbench_io::verify::ensure_sealed_file(
                    ctx,
                    &job.file,
                    self.bs,
                    self.pattern,
                    self.seed,
                )?;
            } else {
                iofile::ensure_file(ctx, &job.file, self.pattern, self.seed)?;
            }
        }
        fsbench_io::direct_check::settle(&jobs[0].file, &mut self.direct, self.bs, &mut self.note)?;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.note.iter().cloned().collect()
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let (bs, direct, queue) = ((self.bs, self.verify), self.direct, self.queue);
        let (pace, seed) = (self.pace.share(ctx.ranks.size), self.seed);
        jobs::run(ctx, rec, self.jobs(ctx)?, |ctx, rec, job| {
            pace::paced(pace, seed, &ctx.cancel, rec, |rec| {
                common::read_job(ctx, rec, &job, bs, direct, queue)
            })
        })
    }

    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf> {
        common::job_paths(self.jobs(ctx))
    }

    fn caps(&self) -> Caps {
        Caps {
            space_needed: match (&self.file, self.jobs.file_per_job) {
                (Some(_), _) => 0,
                (None, true) => self.size * u64::from(self.jobs.count),
                (None, false) => self.size,
            },
            supports_device: true,
            flow: crate::Flow::Read,
            ..Caps::base(Headline::Throughput)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn mmap_reads_the_whole_file_and_verifies_it() {
        let d = Harness::new(build, "bs=64k,size=1m,engine=mmap,verify=true").sample();
        assert_eq!((d.ops, d.bytes), (16, 1 << 20));
        assert_eq!(Harness::metric(&d, "verified_bytes"), 1048576.0);
        assert!(
            Harness::metric(&d, "mmap_minor_faults") + Harness::metric(&d, "mmap_major_faults")
                > 0.0
        );
    }

    #[test]
    fn verify_checks_every_block_and_names_a_corrupted_one() {
        let mut h = Harness::new(build, "bs=64k,size=1m,verify=true");
        let d = h.sample();
        assert_eq!(Harness::metric(&d, "verified_bytes"), 1048576.0);
        let path = h.dir.path().join("seq-read.dat");
        let mut data = std::fs::read(&path).unwrap();
        data[5 * 65536 + 100] ^= 1;
        std::fs::write(&path, data).unwrap();
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        let e = h.workload.run(&h.ctx, &mut rec).unwrap_err().to_string();
        assert!(e.contains("offset 327680") && e.contains("checksum"), "{e}");
    }

    #[test]
    fn reads_the_prepared_file_completely() {
        let mut h = Harness::new(build, "bs=64k,size=200k");
        for _ in 0..2 {
            let d = h.sample();
            assert_eq!((d.bytes, d.ops), (200 * 1024, 4));
        }
    }

    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn io_uring_reads_every_block_once_at_each_depth() {
        for depth in [1, 4, 32] {
            let params = format!("bs=64k,size=200k,engine=io_uring,iodepth={depth}");
            let d = Harness::new(build, &params).sample();
            assert_eq!((d.bytes, d.ops), (200 * 1024, 4), "{params}");
            assert_eq!(d.latency.unwrap().count, 4);
            assert_eq!(Harness::metric(&d, "engine_io_uring"), 1.0);
        }
    }

    #[test]
    fn jobs_read_their_own_files_or_regions_of_one() {
        let mut h = Harness::new(build, "bs=4k,size=64k,jobs=3");
        let d = h.sample();
        assert_eq!((d.bytes, d.ops), (3 * 64 * 1024, 48));
        assert_eq!(d.latency.unwrap().count, 48);
        assert!(Harness::metric(&d, "job_mib_s_min") <= Harness::metric(&d, "job_mib_s_max"));
        assert_eq!(h.workload.cache_files(&h.ctx).len(), 3);
        assert_eq!(h.workload.caps().space_needed, 3 * 64 * 1024);
        let mut h = Harness::new(build, "bs=4k,size=64k,jobs=3,file-per-job=false");
        let d = h.sample();
        assert_eq!((d.bytes, d.ops), (64 * 1024, 16));
        assert_eq!(h.workload.cache_files(&h.ctx).len(), 1);
        assert_eq!(h.workload.caps().space_needed, 64 * 1024);
    }

    #[test]
    fn shared_regions_cover_the_file_once() {
        for (size, bs, jobs) in [(64 * 1024, 4096, 3), (10_000, 4096, 2), (5, 1, 5)] {
            let mut next = 0;
            for k in 0..jobs {
                let r = common::region(size, bs, jobs, k);
                assert_eq!(r.start, next);
                assert!(r.start % bs == 0 && r.end > r.start, "{r:?}");
                next = r.end;
            }
            assert_eq!(next, size);
        }
        let mut p = Params::parse("bs=4k,size=8k,jobs=3,file-per-job=false").unwrap();
        assert!(build(&mut p).is_err());
    }
}
