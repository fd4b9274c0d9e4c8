//! `seq-write`: write one file sequentially in `bs` blocks (dd `of=FILE bs=1M conv=fdatasync`).
//! With `engine=io_uring`, `iodepth` consecutive blocks are in flight (fio `rw=write`); with
//! `jobs=N`, each job writes its own file, or its region of a shared one.

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::knobs::{io, queue};
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::file::DataFile;
use fsbench_io::jobs;
use fsbench_io::pace::{self, Pace};
use fsbench_io::passes::{self as common, Direct, SeqJob, WritePass};
use fsbench_io::queue::{self as ioqueue, Jobs, Queue};
use fsbench_model::metric as k;
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "seq-write",
    summary: "sequential write of one file (dd of=FILE conv=fdatasync)",
    params: PARAMS,
    build,
    shared: true,
};

const SIZE: Knob<u64> = io::SIZE.help_as("bytes written per sample");

/// `remove`: when the previous sample's file goes.
const REMOVE: Knob<bool> = Knob::new(
    "remove",
    "inside",
    "inside: the previous sample's file is truncated by the timed open (dd); before: \
     removed before the sample, untimed, and created anew inside it (IOR)",
    |p, k, d| Ok(p.choice(k, &["inside", "before"], d)? == "before"),
);

const PARAMS: &[ParamDoc] = &[
    io::BS.help_as("block size of each write").doc(),
    SIZE.doc(),
    io::FSYNC.doc(),
    io::DIRECT.doc(),
    io::DATA.doc(),
    io::SEED.help_as("seed of the random data").doc(),
    REMOVE.doc(),
    queue::IODEPTH.doc(),
    queue::ENGINE_DOC,
    queue::JOBS.doc(),
    queue::FILE_PER_JOB.doc(),
    io::DEDUPE.doc(),
    io::INTERLEAVE.doc(),
    crate::knobs::verify::VERIFY.doc(),
    crate::knobs::pace::RATE.doc(),
    crate::knobs::pace::ARRIVALS.doc(),
    crate::knobs::pace::THINK.doc(),
];

struct SeqWrite {
    size: u64,
    pass: WritePass,
    queue: Queue,
    jobs: Jobs,
    /// Remove the previous sample's files before the sample, outside the timing (IOR).
    remove_before: bool,
    /// Why `direct=auto` uses buffered I/O on this target.
    note: Option<String>,
    /// Each job's pace (`rate=`, `think=`).
    pace: Pace,
    /// Parts sharing one file take turns block by block.
    interleave: bool,
    /// Seal every block and read them back after each sample.
    verify: bool,
    /// Samples run so far (each verified sample's tag).
    samples: u64,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = io::BS.given(p);
    let bs = io::BS.read(p)?;
    let size = SIZE.read(p)?;
    let bs = io::fit_bs(p, bs_given, bs, size)?;
    let fsync = io::FSYNC.read(p)?;
    let direct = io::DIRECT.read(p)?;
    io::check_direct_bs(direct, bs)?;
    let pattern = io::data_param(p)?;
    let seed = io::SEED.read(p)?;
    let queue = queue::queue_param(p)?;
    queue::refuse_mmap(queue, INFO.name)?;
    io::check_fsync_engine(fsync, queue)?;
    let jobs = queue::jobs_param(p, false)?;
    io::check_regions(size, bs, jobs)?;
    let remove_before = REMOVE.read(p)?;
    let pace = crate::knobs::pace::sequential(p, bs, queue, jobs)?;
    let interleave = crate::knobs::io::interleave_param(p, queue)?;
    let verify = crate::knobs::verify::param(p, bs, false)?;
    if verify && queue.engine != ioqueue::Engine::Psync {
        return Err(crate::knobs::verify::refusal(
            "seals blocks in the psync loop — use engine=psync, or drop verify".into(),
        ));
    }
    Ok(Box::new(SeqWrite {
        verify,
        samples: 0,
        pace,
        interleave,
        size,
        pass: WritePass {
            bs,
            direct,
            fsync,
            pattern,
            seed,
            seal: None,
        },
        queue,
        jobs,
        remove_before,
        note: None,
    }))
}

impl SeqWrite {
    fn file(&self, ctx: &Context, job: u32) -> Result<DataFile, WorkloadError> {
        let name = ioqueue::job_file_name("seq-write.dat", job);
        DataFile::resolve(ctx, &name, common::shared_size(ctx, self.size), true)
    }

    /// What each job writes: its own file, truncated as it opens it, or its region of the
    /// shared one (truncated once by `run`). With `--layout shared` every job of every rank
    /// writes its region of the rank's segment of one file, created by rank 0 before the sample.
    fn jobs(&self, ctx: &Context) -> Result<Vec<SeqJob>, WorkloadError> {
        let own = self.jobs.file_per_job && !ctx.ranks.sharing();
        (0..self.jobs.count)
            .map(|k| {
                let file = self.file(ctx, if own { k } else { 0 })?;
                let bs = self.pass.bs;
                let (range, step) = if own {
                    (0..file.size, bs)
                } else if self.interleave {
                    let part = common::part_index(ctx, ctx.ranks.sharing(), k, self.jobs);
                    common::part_of(0..file.size, bs, part, true)
                } else {
                    let seg = common::rank_segment(ctx, file.size.min(self.size));
                    common::part_of(seg, bs, (u64::from(self.jobs.count), u64::from(k)), false)
                };
                Ok(SeqJob {
                    file,
                    range,
                    step,
                    truncate: own,
                })
            })
            .collect()
    }
}

impl Workload for SeqWrite {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        common::check_segment(ctx, self.size, self.pass.bs)?;
        let file = self.file(ctx, 0)?;
        fsbench_io::direct_check::settle(
            &file,
            &mut self.pass.direct,
            self.pass.bs,
            &mut self.note,
        )?;
        Ok(())
    }

    fn before_sample(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        // Shared layout: rank 0 empties the one file before the ranks meet at the sample's
        // barrier; no rank may truncate it inside the sample, where the others are writing.
        if ctx.ranks.sharing() && ctx.ranks.rank == 0 {
            common::open_for_write(&self.file(ctx, 0)?, Direct::Off, true)?;
        }
        if self.remove_before && !ctx.ranks.sharing() {
            for job in self.jobs(ctx)? {
                if job.file.external {
                    continue;
                }
                match std::fs::remove_file(&job.file.path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(WorkloadError::io("unlink", &job.file.path, e));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.note.iter().cloned().collect()
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let jobs = self.jobs(ctx)?;
        if !self.jobs.file_per_job && !ctx.ranks.sharing() {
            // One truncation for all the jobs, inside the sample as a lone job's open(O_TRUNC).
            common::open_for_write(&jobs[0].file, Direct::Off, true)?;
        }
        self.samples += 1;
        let mut pass = self.pass;
        pass.seal = self.verify.then_some(self.samples);
        let queue = self.queue;
        let pace = self.pace.share(ctx.ranks.size);
        jobs::run(ctx, rec, jobs, |ctx, rec, job| {
            pace::paced(pace, pass.seed, &ctx.cancel, rec, |rec| {
                common::write_job(ctx, rec, &job, &pass, queue)
            })
        })
    }

    fn after_sample(&mut self, ctx: &Context) -> Result<Vec<(String, f64)>, WorkloadError> {
        if !self.verify {
            return Ok(Vec::new());
        }
        let mut checked = 0;
        for job in self.jobs(ctx)? {
            let part = (job.range.clone(), job.step);
            checked += fsbench_io::verify::read_back_range(
                ctx,
                &job.file,
                part,
                self.pass.bs,
                self.samples,
            )?;
        }
        Ok(vec![(k::VERIFIED_BYTES.into(), checked as f64)])
    }

    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf> {
        common::job_paths(self.jobs(ctx))
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: true,
            // Per rank; with --layout shared every rank checks room for its own segment (the
            // ranks' segments together are the file).
            space_needed: match self.jobs.file_per_job {
                true => self.size * u64::from(self.jobs.count),
                false => self.size,
            },
            supports_device: true,
            flow: crate::Flow::Write {
                durable: self.pass.fsync != common::FsyncPolicy::None,
            },
            ..Caps::base(Headline::Throughput)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CancelToken;
    use crate::testutil::Harness;

    #[test]
    fn verified_writes_are_read_back_and_a_lost_block_is_named() {
        for params in [
            "bs=4k,size=64k,verify=true",
            "bs=4k,size=64k,verify=true,jobs=3,file-per-job=false,interleave=true",
        ] {
            let mut h = Harness::new(build, params);
            h.sample();
            let m = h.workload.after_sample(&h.ctx).unwrap();
            assert_eq!(m[0].1, 65536.0, "{params}");
        }
        let mut h = Harness::new(build, "bs=4k,size=64k,verify=true");
        h.sample();
        // Block 7 as an earlier sample left it: a lost write.
        let path = h.dir.path().join("seq-write.dat");
        let old = std::fs::read(&path).unwrap();
        h.sample();
        let mut now = std::fs::read(&path).unwrap();
        now[7 * 4096..8 * 4096].copy_from_slice(&old[7 * 4096..8 * 4096]);
        std::fs::write(&path, now).unwrap();
        let e = h.workload.after_sample(&h.ctx).unwrap_err().to_string();
        assert!(
            e.contains("offset 28672") && e.contains("expected write #2, found write #1"),
            "{e}"
        );
    }

    #[test]
    fn writes_exactly_size_bytes_in_blocks() {
        let mut h = Harness::new(build, "bs=4k,size=10000,fsync=each");
        let d = h.sample();
        assert_eq!((d.bytes, d.ops), (10000, 3));
        assert_eq!(
            std::fs::metadata(h.dir.path().join("seq-write.dat"))
                .unwrap()
                .len(),
            10000
        );
    }

    #[test]
    fn zero_data_is_zero() {
        let mut h = Harness::new(build, "bs=4k,size=8k,data=zero");
        h.sample();
        let bytes = std::fs::read(h.dir.path().join("seq-write.dat")).unwrap();
        assert!(bytes.iter().all(|&b| b == 0));
    }

    #[test]
    fn cancelled_write_stops_with_interrupted() {
        let mut h = Harness::new(build, "bs=4k,size=1m");
        h.ctx.cancel = CancelToken::new();
        h.ctx.cancel.cancel();
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        assert!(matches!(
            h.workload.run(&h.ctx, &mut rec),
            Err(WorkloadError::Interrupted)
        ));
    }

    fn written(params: &str) -> (fsbench_measure::SampleData, Vec<u8>) {
        let mut h = Harness::new(build, params);
        let d = h.sample();
        let bytes = std::fs::read(h.dir.path().join("seq-write.dat")).unwrap();
        (d, bytes)
    }

    #[test]
    fn io_uring_and_shared_jobs_write_what_one_psync_pass_writes() {
        let (_, want) = written("bs=4k,size=10000");
        let mut cases = vec![
            "bs=4k,size=10000,jobs=2,file-per-job=false".to_string(),
            "bs=4k,size=10000,jobs=2,file-per-job=false,interleave=true".to_string(),
            "bs=4k,size=10000,jobs=3,file-per-job=false,interleave=true".to_string(),
        ];
        if fsbench_io::uring::available().is_ok() {
            for depth in [1, 2, 8] {
                cases.push(format!("bs=4k,size=10000,engine=io_uring,iodepth={depth}"));
            }
            cases.push(
                "bs=4k,size=10000,engine=io_uring,iodepth=4,jobs=3,file-per-job=false".into(),
            );
        }
        for params in cases {
            let (d, got) = written(&params);
            assert_eq!((d.bytes, d.ops), (10000, 3), "{params}");
            assert_eq!(d.latency.unwrap().count, 3);
            assert!(got == want, "{params}: different file content");
        }
    }

    #[test]
    fn file_per_job_writes_one_file_each_and_needs_the_space() {
        let mut h = Harness::new(build, "bs=4k,size=8k,jobs=3");
        let d = h.sample();
        assert_eq!((d.bytes, d.ops), (3 * 8192, 6));
        for name in ["seq-write.dat", "seq-write.1.dat", "seq-write.2.dat"] {
            assert_eq!(
                std::fs::metadata(h.dir.path().join(name)).unwrap().len(),
                8192
            );
        }
        assert_eq!(h.workload.caps().space_needed, 3 * 8192);
    }

    #[test]
    fn remove_before_takes_the_old_file_away_before_the_sample() {
        let mut h = Harness::new(build, "bs=4k,size=8k,remove=before");
        h.sample();
        let path = h.dir.path().join("seq-write.dat");
        h.workload.before_sample(&h.ctx).unwrap();
        assert!(!path.exists(), "the previous sample's file is still there");
        let d = h.sample();
        assert_eq!(d.bytes, 8192);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 8192);
    }

    #[test]
    fn fsync_each_with_io_uring_is_refused() {
        let mut p = Params::parse("fsync=each,engine=io_uring").unwrap();
        if fsbench_io::uring::available().is_ok() {
            assert_eq!(build(&mut p).err().unwrap().key, "fsync");
        }
    }
}
