//! The random-I/O engine of `rand-read`, `rand-write` and `seek-rate`: `bs`-sized reads or writes at seeded random aligned offsets of
//! one file (fio `rw=randread|randwrite`), for `ops` operations or a `duration`: psync at queue
//! depth 1 by default, or io_uring with `iodepth` requests in flight, in `jobs` parallel jobs.
//! Both engines draw the same offsets in the same order for a seed.

use crate::knob::Knob;
use crate::knobs::{io, queue};
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::file::{self as iofile, AlignedBuf, DataFile, DataPattern};
use fsbench_io::jobs;
use fsbench_io::mapped::Mapping;
use fsbench_io::pace::{self, Pace, Rate};
use fsbench_io::passes::{self as common, Direct, FsyncPolicy, Offsets};
use fsbench_io::queue::{self as ioqueue, Engine, Jobs, Queue};
use fsbench_io::uring::{Ring, RingSpec, Source};
use fsbench_io::verify::{self, Journal};
use fsbench_model::metric as k;
use std::path::PathBuf;

const BS: Knob<u64> = io::BS.default_to("4k").help_as("size of each operation");
const SIZE: Knob<u64> = io::SIZE.help_as("file size: offsets fall in 0..size");
const FILE: Knob<Option<PathBuf>> = io::FILE.help_as(
    "rand-read only: read this existing file instead of one fsbench writes (never modified); rand-write always writes a file of its own",
);

/// `ops`: operations per sample.
pub(super) const OPS: Knob<u64> = crate::knob::count(
    fsbench_model::param::OPS,
    "size/bs",
    "operations per sample",
)
.scaled(crate::Scale::Count);

/// `duration`: a sample's length in time instead of a count.
pub(super) const DURATION: Knob<Option<String>> = crate::knob::optional(
    fsbench_model::param::DURATION,
    "run for this long per sample instead of a count (e.g. 5s)",
)
.scaled(crate::Scale::Duration);

/// The parameters of `rand-read` and `rand-write`.
pub(super) const PARAMS: &[ParamDoc] = &[
    FILE.doc(),
    BS.doc(),
    SIZE.doc(),
    OPS.doc(),
    DURATION.doc(),
    io::DIRECT.doc(),
    io::FSYNC.help_as("rand-write: end, each or none").doc(),
    io::DATA.doc(),
    io::SEED.help_as("seed of offsets and data").doc(),
    queue::IODEPTH.doc(),
    queue::ENGINE_DOC,
    queue::JOBS.doc(),
    queue::FILE_PER_JOB.doc(),
    io::DEDUPE.doc(),
    crate::knobs::pace::RATE.doc(),
    crate::knobs::pace::ARRIVALS.doc(),
    crate::knobs::pace::THINK.doc(),
    crate::knobs::verify::VERIFY.doc(),
    crate::knobs::skew::DIST.doc(),
];

/// How long a sample lasts.
#[derive(Debug, Clone, Copy)]
pub(super) enum Stop {
    Ops(u64),
    Duration(u64),
}

/// How every job of a sample does its I/O.
#[derive(Debug, Clone, Copy)]
pub(super) struct RandSpec {
    pub(super) write: bool,
    pub(super) bs: u64,
    pub(super) stop: Stop,
    pub(super) direct: Direct,
    pub(super) fsync: FsyncPolicy,
    pub(super) pattern: DataPattern,
    pub(super) queue: Queue,
    pub(super) pace: Pace,
    /// Seal every block written (checked after the sample) or check every block read.
    pub(super) verify: bool,
    /// Which blocks are chosen.
    pub(super) dist: fsbench_io::skew::Dist,
}

pub(super) struct RandIo {
    file: Option<PathBuf>,
    size: u64,
    seed: u64,
    spec: RandSpec,
    jobs: Jobs,
    /// One offset stream per job, continued from sample to sample.
    offsets: Vec<Offsets>,
    /// With `verify=true` writes: each job's blocks written in the sample, by offset.
    journals: Vec<Journal>,
    /// Samples run so far (the high bits of each verified write's tag).
    samples: u64,
    /// Why `direct=auto` uses buffered I/O on this target.
    note: Option<String>,
}

/// Paced runs last 5 s by default (`size/bs` requests at a modest rate could take minutes).
const PACED_DURATION: &str = "5s";

/// Each phase of `rate=curve` (the probe and every step) lasts `duration`, 1 s by default.
const CURVE_STEP: &str = "1s";

fn stop_param(p: &mut Params, size: u64, bs: u64, pace: &mut Pace) -> Result<Stop, ParamError> {
    if let Rate::Curve(_) = pace.rate {
        if OPS.given(p) {
            return Err(OPS.error(
                "rate=curve runs each step for a time — give duration= (per step), not ops",
            ));
        }
        let step = p.positive_duration(DURATION.key, CURVE_STEP)?;
        pace.rate = Rate::Curve(step);
        // Each phase ends at the first request past its nominal end: a step of slack lets the
        // last one finish on a busy machine.
        return Ok(Stop::Duration(
            step * (fsbench_io::curve::Curve::PHASES + 1),
        ));
    }
    let paced_default = matches!(pace.rate, Rate::PerSecond(_)) && !OPS.given(p);
    if paced_default && !DURATION.given(p) {
        return Ok(Stop::Duration(
            p.positive_duration(DURATION.key, PACED_DURATION)?,
        ));
    }
    if !DURATION.given(p) {
        return Ok(Stop::Ops(OPS.read_or(p, &(size / bs).to_string())?));
    }
    Ok(Stop::Duration(p.positive_duration(DURATION.key, "")?))
}

/// `engine=mmap` goes through the page cache and flushes with `msync` at the end.
fn check_mmap(queue: Queue, direct: Direct, fsync: FsyncPolicy) -> Result<(), ParamError> {
    if queue.engine != Engine::Mmap {
        return Ok(());
    }
    if direct == Direct::On {
        return Err(io::DIRECT.error(
            "a mapping always goes through the page cache — drop direct=true with engine=mmap",
        ));
    }
    if fsync == FsyncPolicy::Each {
        return Err(
            io::FSYNC.error("engine=mmap flushes the mapping once (msync) — use fsync=end or none")
        );
    }
    Ok(())
}

/// `verify=true` (see [`crate::knobs::verify::param`]); reads are checked in the psync and mmap loops, and
/// writes by jobs on their own files.
fn verify_param(
    p: &mut Params,
    bs: u64,
    write: bool,
    external: bool,
    (queue, jobs): (Queue, Jobs),
) -> Result<bool, ParamError> {
    let verify = crate::knobs::verify::param(p, bs, external)?;
    if verify && write && jobs.count > 1 && !jobs.file_per_job {
        return Err(crate::knobs::verify::refusal("checks which write reached each block last; jobs sharing one file race for blocks — use file-per-job=true".into()));
    }
    if verify && !write && queue.engine == Engine::IoUring {
        return Err(crate::knobs::verify::refusal(
            "checks reads in the psync and mmap loops; use engine=psync or mmap (writes verify with any engine)"
                .into(),
        ));
    }
    Ok(verify)
}

/// Builds `rand-read` (or with `write`, `rand-write`) from its parameters.
pub(super) fn build(p: &mut Params, write: bool) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = BS.given(p);
    let bs = BS.read(p)?;
    let size = SIZE.read(p)?;
    let bs = io::fit_bs(p, bs_given, bs, size)?;
    let mut pace = crate::knobs::pace::pace_param(p, bs)?;
    let stop = stop_param(p, size, bs, &mut pace)?;
    let direct = io::DIRECT.read(p)?;
    io::check_direct_bs(direct, bs)?;
    let fsync = io::FSYNC.read(p)?;
    let pattern = io::data_param(p)?;
    let seed = io::SEED.read(p)?;
    let queue = queue::queue_param(p)?;
    if write {
        io::check_fsync_engine(fsync, queue)?;
    }
    crate::knobs::pace::check_engine(&pace, queue)?;
    check_mmap(queue, direct, fsync)?;
    // A mapping never reads around the page cache: record what is done.
    let direct = if queue.engine == Engine::Mmap {
        io::DIRECT.record(p, "false");
        Direct::Off
    } else {
        direct
    };
    let file = if write { None } else { FILE.read(p)? };
    let jobs = queue::jobs_param(p, file.is_some())?;
    let pace = pace.share(jobs.count as usize);
    let verify = verify_param(p, bs, write, file.is_some(), (queue, jobs))?;
    let dist = crate::knobs::skew::dist_param(p)?;
    let spec = RandSpec {
        dist,
        verify,
        write,
        bs,
        stop,
        direct,
        fsync,
        pattern,
        queue,
        pace,
    };
    Ok(Box::new(RandIo::new(file, size, seed, spec, jobs)))
}

impl RandIo {
    pub(super) fn new(
        file: Option<PathBuf>,
        size: u64,
        seed: u64,
        spec: RandSpec,
        jobs: Jobs,
    ) -> Self {
        let offsets = (0..jobs.count)
            .map(|k| {
                let s = ioqueue::job_seed(seed, k);
                Offsets::new(s, size, spec.bs).with_dist(spec.dist, s)
            })
            .collect();
        Self {
            file,
            size,
            seed,
            spec,
            journals: (0..jobs.count).map(|_| Journal::default()).collect(),
            samples: 0,
            jobs,
            offsets,
            note: None,
        }
    }

    /// The data file of each job (the same one repeated when they share it; with `--layout
    /// shared`, one file for every job of every rank, `size` bytes per rank).
    fn files(&self, ctx: &Context) -> Result<Vec<DataFile>, WorkloadError> {
        let sharing = self.sharing(ctx);
        let size = if sharing {
            common::shared_size(ctx, self.size)
        } else {
            self.size
        };
        (0..self.jobs.count)
            .map(|k| {
                let k = if self.jobs.file_per_job && !sharing {
                    k
                } else {
                    0
                };
                let name = ioqueue::job_file_name("rand-io.dat", k);
                if self.spec.write {
                    DataFile::resolve(ctx, &name, size, true)
                } else {
                    common::read_file(ctx, self.file.as_deref(), &name, size)
                }
            })
            .collect()
    }

    /// True when this rank works on its segment of one file shared by every rank.
    fn sharing(&self, ctx: &Context) -> bool {
        ctx.ranks.sharing() && self.file.is_none()
    }
}

impl RandSpec {
    fn open(&self, file: &DataFile) -> Result<(std::fs::File, bool), WorkloadError> {
        if self.write {
            common::open_for_write(file, self.direct, false)
        } else {
            common::open_for_read(file, self.direct)
        }
    }

    /// One job of one sample: `file` at the offsets of `offsets`, with the engine of `queue`.
    fn job(
        &self,
        ctx: &Context,
        rec: &mut dyn Recorder,
        file: &DataFile,
        (offsets, journal): (&mut Offsets, &mut Journal),
        (seed, tag_base): (u64, u64),
    ) -> Result<(), WorkloadError> {
        let (f, used_direct) = self.open(file)?;
        rec.metric(
            fsbench_model::metric::DIRECT_USED,
            if used_direct { 1.0 } else { 0.0 },
        );
        rec.metric(
            fsbench_model::metric::ENGINE_IO_URING,
            self.queue.uring_flag(),
        );
        let (max_ops, deadline) = match self.stop {
            Stop::Ops(n) => (n, u64::MAX),
            Stop::Duration(d) => (u64::MAX, rec.now_ns().saturating_add(d)),
        };
        let mut src = RandSource {
            offsets,
            max_ops,
            bs: self.bs,
            stamp: self.write.then_some(self.pattern),
            seal: (self.write && self.verify).then_some((journal, tag_base)),
        };
        let t = match self.queue.engine {
            Engine::Psync => {
                let mut buf = AlignedBuf::new(self.bs as usize);
                self.pattern.fill(buf.as_mut_slice(), seed ^ 0x5eed);
                // The rate is the run's total: this job's share of it on this rank.
                let pace = self.pace.share(ctx.ranks.size);
                pace::paced(pace, seed, &ctx.cancel, rec, |rec| {
                    let io = |off, buf: &mut AlignedBuf| self.psync_io((file, &f), off, buf);
                    self.request_loop((ctx, rec), file, &mut src, &mut buf, deadline, io)
                })?
            }
            Engine::IoUring => {
                let spec = RingSpec {
                    depth: self.queue.depth,
                    bs: self.bs as usize,
                    write: self.write,
                    path: &file.path,
                };
                let mut ring = Ring::new(&f, spec, |b| self.pattern.fill(b, seed ^ 0x5eed))?;
                ring.run(ctx, rec, &mut src, deadline)?
            }
            Engine::Mmap => {
                let mut buf = AlignedBuf::new(self.bs as usize);
                self.pattern.fill(buf.as_mut_slice(), seed ^ 0x5eed);
                let mut map = Mapping::new(&f, file.size, self.write, &file.path)?;
                let pace = self.pace.share(ctx.ranks.size);
                let (minor, major) = fsbench_measure::thread_faults();
                let t = pace::paced(pace, seed, &ctx.cancel, rec, |rec| {
                    let write = self.write;
                    let io = |off, buf: &mut AlignedBuf| {
                        Ok(match write {
                            true => map.write(off, buf.as_slice()),
                            false => map.read(off, buf.as_mut_slice()),
                        })
                    };
                    self.request_loop((ctx, rec), file, &mut src, &mut buf, deadline, io)
                })?;
                let (minor2, major2) = fsbench_measure::thread_faults();
                rec.metric(k::MMAP_MINOR_FAULTS, minor2.saturating_sub(minor) as f64);
                rec.metric(k::MMAP_MAJOR_FAULTS, major2.saturating_sub(major) as f64);
                if self.write && self.fsync != FsyncPolicy::None {
                    map.sync(&file.path)?;
                }
                t
            }
        };
        if self.write {
            common::finish_write(rec, file, &f, self.fsync, t)?;
        }
        Ok(())
    }

    /// The measured loop of one job: one request per operation through `io` (a positional read
    /// or write, or a copy to or from a mapping), one clock read each (hand-written: it is the
    /// hot path whose cost fsbench's overhead check measures; `io` is inlined per engine).
    fn request_loop(
        &self,
        (ctx, rec): (&Context, &mut dyn Recorder),
        file: &DataFile,
        src: &mut RandSource<'_>,
        buf: &mut AlignedBuf,
        deadline: u64,
        mut io: impl FnMut(u64, &mut AlignedBuf) -> Result<usize, WorkloadError>,
    ) -> Result<u64, WorkloadError> {
        let check_reads = self.verify && !self.write;
        let mut t = rec.now_ns();
        let mut i = 0u64;
        while t < deadline {
            if i % iofile::CANCEL_EVERY == 0 {
                ctx.cancel.check()?;
            }
            let Some((off, _)) = src.next(i, buf.as_mut_slice()) else {
                break;
            };
            let n = io(off, buf)?;
            if check_reads {
                verify::check(buf.as_slice(), off, None)
                    .map_err(|m| verify::mismatch(file, off, &m))?;
            }
            t = rec.op_done(t, n as u64);
            i += 1;
        }
        if check_reads {
            rec.metric(k::VERIFIED_BYTES, (i * self.bs) as f64);
        }
        Ok(t)
    }

    /// One `pread` or `pwrite` (and `fdatasync` with `fsync=each`).
    #[inline]
    fn psync_io(
        &self,
        (file, f): (&DataFile, &std::fs::File),
        off: u64,
        buf: &mut AlignedBuf,
    ) -> Result<usize, WorkloadError> {
        let result = if self.write {
            iofile::pwrite_full(f, buf.as_slice(), off).map(|()| self.bs as usize)
        } else {
            iofile::pread_full(f, buf.as_mut_slice(), off)
        };
        let op_name = if self.write { "pwrite" } else { "pread" };
        let n = result.map_err(|e| WorkloadError::io(op_name, &file.path, e))?;
        if self.write && self.fsync == FsyncPolicy::Each {
            iofile::sync_data(f, &file.path)?;
        }
        Ok(n)
    }
}

/// The requests of one job: `max_ops` offsets from its stream, in order, whatever the engine.
struct RandSource<'a> {
    offsets: &'a mut Offsets,
    max_ops: u64,
    bs: u64,
    /// Stamp each write buffer with its request number (as fsbench always did).
    stamp: Option<DataPattern>,
    /// `verify=true` writes: seal each block with tag `base + request number + 1` and journal it.
    seal: Option<(&'a mut Journal, u64)>,
}

impl Source for RandSource<'_> {
    #[inline]
    fn next(&mut self, i: u64, buf: &mut [u8]) -> Option<(u64, usize)> {
        if i >= self.max_ops {
            return None;
        }
        if let Some(p) = self.stamp {
            p.stamp(buf, i);
        }
        let off = self.offsets.next_offset();
        if let Some((journal, base)) = self.seal.as_mut() {
            let tag = *base + i + 1;
            verify::seal(buf, off, tag);
            journal.wrote(off, tag);
        }
        Some((off, self.bs as usize))
    }
}

impl RandIo {
    /// The bytes this sample's random writes cover, expected (a block written twice reaches the
    /// device once): per file, from the offsets drawn since `before`.
    fn unique_write_bytes(&mut self, before: &[u64]) -> f64 {
        let exact: Option<Vec<u64>> = self.offsets.iter_mut().map(Offsets::take_unique).collect();
        if let Some(unique) = exact {
            // Skewed draws: the blocks counted (jobs on one file: the busiest job's, a floor).
            let blocks = match self.jobs.file_per_job {
                true => unique.iter().sum(),
                false => unique.iter().copied().max().unwrap_or(0),
            };
            return (blocks * self.spec.bs) as f64;
        }
        let drawn = self
            .offsets
            .iter()
            .zip(before)
            .map(|(o, b)| (o.drawn().0 - b, o.drawn().1));
        if self.jobs.file_per_job {
            drawn
                .map(|(n, m)| common::expected_unique_bytes(n, m, self.spec.bs))
                .sum()
        } else {
            // The jobs share one file: their draws land on the same blocks.
            let (n, m) = drawn.fold((0, 0), |(n, m), (dn, dm)| (n + dn, m.max(dm)));
            common::expected_unique_bytes(n, m, self.spec.bs)
        }
    }
}

impl Workload for RandIo {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let files = self.files(ctx)?;
        if self.sharing(ctx) && self.spec.verify && !self.spec.write {
            return Err(WorkloadError::Unsupported(
                "verify=true reads need a file fsbench sealed whole; with --layout shared use verify on rand-write, or --layout per-rank".into(),
            ));
        }
        if self.sharing(ctx) {
            // Every job of this rank draws offsets in the rank's segment, which the rank fills.
            common::check_segment(ctx, self.size, self.spec.bs)?;
            let seg = common::rank_segment(ctx, self.size);
            for k in 0..files.len() {
                let seed = ioqueue::job_seed(self.seed, k as u32) ^ ctx.ranks.rank as u64;
                self.offsets[k] = Offsets::within(seed, seg.clone(), self.spec.bs)
                    .with_dist(self.spec.dist, seed);
            }
            iofile::ensure_segment(ctx, &files[0], seg, self.spec.pattern, self.seed)?;
            return fsbench_io::direct_check::settle(
                &files[0],
                &mut self.spec.direct,
                self.spec.bs,
                &mut self.note,
            );
        }
        for (k, file) in files.iter().enumerate() {
            // Offsets must stay inside the file actually used (a user's file or a device may be
            // smaller).
            let seed = ioqueue::job_seed(self.seed, k as u32);
            self.offsets[k] =
                Offsets::new(seed, file.size, self.spec.bs).with_dist(self.spec.dist, seed);
            if (k == 0 || self.jobs.file_per_job) && self.spec.verify && !self.spec.write {
                verify::ensure_sealed_file(ctx, file, self.spec.bs, self.spec.pattern, self.seed)?;
            } else if k == 0 || self.jobs.file_per_job {
                iofile::ensure_file(ctx, file, self.spec.pattern, self.seed)?;
            }
        }
        fsbench_io::direct_check::settle(
            &files[0],
            &mut self.spec.direct,
            self.spec.bs,
            &mut self.note,
        )?;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        let skew = self.offsets.first().and_then(Offsets::skew_note);
        self.note.iter().cloned().chain(skew).collect()
    }

    fn after_sample(&mut self, ctx: &Context) -> Result<Vec<(String, f64)>, WorkloadError> {
        if !(self.spec.verify && self.spec.write) {
            return Ok(Vec::new());
        }
        let files = self.files(ctx)?;
        let mut checked = 0;
        for (file, journal) in files.iter().zip(self.journals.iter_mut()) {
            checked += journal.read_back(ctx, file, self.spec.bs)?;
        }
        Ok(vec![(k::VERIFIED_BYTES.into(), checked as f64)])
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let files = self.files(ctx)?;
        let spec = self.spec;
        let seed = self.seed;
        self.samples += 1;
        let tag_base = self.samples << 40;
        let before: Vec<u64> = self.offsets.iter().map(|o| o.drawn().0).collect();
        let states: Vec<_> = files
            .into_iter()
            .zip(self.offsets.iter_mut().zip(self.journals.iter_mut()))
            .enumerate()
            .collect();
        jobs::run(ctx, rec, states, |ctx, rec, (k, (file, state))| {
            let seeds = (ioqueue::job_seed(seed, k as u32), tag_base);
            spec.job(ctx, rec, &file, state, seeds)
        })?;

        if spec.write {
            rec.metric(
                fsbench_model::metric::UNIQUE_WRITE_BYTES,
                self.unique_write_bytes(&before),
            );
        }
        Ok(())
    }

    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self
            .files(ctx)
            .map(|fs| fs.into_iter().map(|f| f.path).collect())
            .unwrap_or_default();
        paths.dedup();
        paths
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: self.spec.write,
            space_needed: match (&self.file, self.jobs.file_per_job) {
                (Some(_), _) => 0,
                (None, true) => self.size * u64::from(self.jobs.count),
                (None, false) => self.size,
            },
            supports_device: true,
            flow: match self.spec.write {
                true => crate::Flow::Write {
                    durable: self.spec.fsync != common::FsyncPolicy::None,
                },
                false => crate::Flow::Read,
            },
            ..Caps::base(Headline::Iops)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::rand_read::build_read;
    use crate::engines::rand_write::build_write;
    use crate::engines::seek_rate::build_seek;
    use crate::testutil::Harness;

    #[test]
    fn rand_read_does_the_requested_ops() {
        let d = Harness::new(build_read, "bs=4k,size=64k,ops=100").sample();
        assert_eq!((d.ops, d.bytes), (100, 409_600));
        assert_eq!(d.latency.unwrap().count, 100);
    }

    #[test]
    fn rand_write_keeps_the_file_size() {
        let mut h = Harness::new(build_write, "bs=4k,size=64k,ops=50,fsync=none");
        assert_eq!(h.sample().ops, 50);
        assert_eq!(
            std::fs::metadata(h.dir.path().join("rand-io.dat"))
                .unwrap()
                .len(),
            65536
        );
    }

    #[test]
    fn duration_mode_stops_by_time() {
        let d = Harness::new(build_read, "bs=4k,size=64k,duration=50ms").sample();
        assert!(d.ops > 0);
        assert!(d.wall_ns >= 50_000_000);
    }

    #[test]
    fn a_rate_holds_on_a_cached_file() {
        // Three seconds, so that one late wake-up at the end stays well inside the 2%.
        let d = Harness::new(build_read, "bs=4k,size=1m,rate=2000,ops=6000").sample();
        let iops = d.ops as f64 / (d.wall_ns as f64 / 1e9);
        assert!((iops / 2000.0 - 1.0).abs() < 0.02, "{iops} IOPS");
        assert_eq!(Harness::metric(&d, "rate_iops"), 2000.0);
    }

    #[test]
    fn a_curve_reports_its_steps_and_knee() {
        let d = Harness::new(build_read, "bs=4k,size=1m,rate=curve,duration=100ms").sample();
        let max = Harness::metric(&d, "curve_max_iops");
        let low = Harness::metric(&d, "curve_10_iops");
        let high = Harness::metric(&d, "curve_100_iops");
        assert!(low < high && high <= max * 1.1, "{low} {high} {max}");
        let knee = Harness::metric(&d, "knee_load_pct");
        assert!((10.0..=90.0).contains(&knee), "{knee}");
    }

    /// Flips one byte of `path` at `at`.
    fn corrupt(path: &std::path::Path, at: u64) {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .unwrap();
        let mut b = [0u8; 1];
        f.read_exact_at(&mut b, at).unwrap();
        f.write_all_at(&[b[0] ^ 0x40], at).unwrap();
    }

    #[test]
    fn verified_writes_are_read_back_and_a_corrupted_block_fails() {
        let mut h = Harness::new(build_write, "bs=4k,size=256k,ops=200,verify=true");
        h.sample();
        let m = h.workload.after_sample(&h.ctx).unwrap();
        assert!(m[0].1 > 0.0 && m[0].1 <= 256.0 * 1024.0, "{m:?}");
        h.sample();
        // A block the second sample wrote: its tag's high bits are the sample number.
        let path = h.dir.path().join("rand-io.dat");
        let data = std::fs::read(&path).unwrap();
        let tag = |b: u64| {
            let at = (b * 4096 + 16) as usize;
            u64::from_le_bytes(data[at..at + 8].try_into().unwrap()) >> 40
        };
        let written = (0..64u64)
            .find(|&b| tag(b) == 2)
            .expect("a block of sample 2");
        corrupt(&path, written * 4096 + 1000);
        let e = h.workload.after_sample(&h.ctx).unwrap_err().to_string();
        assert!(e.contains(&format!("offset {}", written * 4096)), "{e}");
        assert!(e.contains("checksum"), "{e}");
    }

    #[test]
    fn verified_reads_check_every_block_and_a_corrupted_one_fails() {
        let mut h = Harness::new(build_read, "bs=4k,size=64k,ops=500,verify=true");
        let d = h.sample();
        assert_eq!(Harness::metric(&d, "verified_bytes"), 500.0 * 4096.0);
        corrupt(&h.dir.path().join("rand-io.dat"), 3 * 4096 + 17);
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        let e = h.workload.run(&h.ctx, &mut rec).unwrap_err().to_string();
        assert!(e.contains("verify failed at offset 12288"), "{e}");
    }

    #[test]
    fn mmap_does_the_requested_ops_in_page_faults_and_writes_verify() {
        for build_fn in [build_read, build_write] {
            let d = Harness::new(build_fn, "bs=4k,size=256k,ops=300,engine=mmap").sample();
            assert_eq!((d.ops, d.bytes), (300, 300 * 4096));
            let faults =
                Harness::metric(&d, "mmap_minor_faults") + Harness::metric(&d, "mmap_major_faults");
            assert!(faults > 0.0, "{faults}");
        }
        let mut h = Harness::new(
            build_write,
            "bs=4k,size=256k,ops=300,engine=mmap,verify=true",
        );
        h.sample();
        let m = h.workload.after_sample(&h.ctx).unwrap();
        assert!(m[0].1 > 0.0);
        let mut p = Params::parse("engine=mmap,fsync=each").unwrap();
        assert_eq!(build_write(&mut p).err().unwrap().key, "fsync");
    }

    #[test]
    fn pacing_at_depth_is_refused() {
        let mut p = Params::parse("rate=100,engine=io_uring,iodepth=4").unwrap();
        let e = build_read(&mut p).err().unwrap();
        assert_eq!(e.key, "rate");
        assert!(e.message.contains("jobs=N"), "{e}");
    }

    #[test]
    fn seek_rate_reads_back_to_back() {
        let d = Harness::new(build_seek, "size=64k,duration=20ms,direct=false").sample();
        assert!(d.ops > 0);
    }

    #[test]
    fn size_smaller_than_block_is_refused() {
        let mut p = Params::parse("bs=8k,size=4k").unwrap();
        assert!(build_read(&mut p).is_err());
    }

    #[test]
    fn psync_does_the_requested_ops() {
        engines_do_the_requested_ops(vec!["engine=psync".to_string()]);
    }

    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn io_uring_at_every_depth_does_the_requested_ops() {
        let cases = [1, 2, 8, 32].map(|d| format!("engine=io_uring,iodepth={d}"));
        engines_do_the_requested_ops(cases.to_vec());
    }

    fn engines_do_the_requested_ops(cases: Vec<String>) {
        for engine in cases {
            for build_fn in [build_read, build_write] {
                let params = format!("bs=4k,size=64k,ops=100,fsync=none,{engine}");
                let d = Harness::new(build_fn, &params).sample();
                assert_eq!((d.ops, d.bytes), (100, 409_600), "{params}");
                assert_eq!(d.latency.unwrap().count, 100, "{params}");
                let flag = Harness::metric(&d, "engine_io_uring");
                assert_eq!(
                    flag,
                    if engine.contains("io_uring") {
                        1.0
                    } else {
                        0.0
                    }
                );
            }
        }
    }

    /// Each write is stamped with its request number, so the file shows which request went to
    /// which block: the same for psync and io_uring at depth means the same offsets, in order.
    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn io_uring_draws_the_offsets_psync_draws() {
        let params = "bs=4k,size=16m,ops=32,fsync=end,seed=7";
        let file = |h: &Harness| std::fs::read(h.dir.path().join("rand-io.dat")).unwrap();
        let mut psync = Harness::new(build_write, params);
        psync.sample();
        for depth in [1, 8, 32] {
            let mut h = Harness::new(
                build_write,
                &format!("{params},engine=io_uring,iodepth={depth}"),
            );
            h.sample();
            assert!(
                file(&h) == file(&psync),
                "depth {depth}: different blocks written"
            );
        }
        let mut d = Harness::new(
            build_read,
            "bs=4k,size=64k,ops=10,engine=io_uring,iodepth=4",
        );
        d.sample();
        let mut p = Harness::new(build_read, "bs=4k,size=64k,ops=10");
        p.sample();
        let next = |h: &mut Harness| {
            let mut rec = fsbench_measure::SampleRecorder::new();
            rec.start();
            h.workload.run(&h.ctx, &mut rec).unwrap();
            rec.finish().ops
        };
        assert_eq!(next(&mut d), next(&mut p));
    }

    #[test]
    fn psync_at_depth_is_refused_with_a_hint() {
        let mut p = Params::parse("iodepth=32,engine=psync").unwrap();
        let e = build_read(&mut p).err().unwrap();
        assert_eq!(e.key, "iodepth");
        assert!(e.message.contains("engine=io_uring"), "{e}");
    }

    #[test]
    fn jobs_add_up_and_report_their_spread() {
        jobs_add_up(vec![
            "jobs=3".to_string(),
            "jobs=3,file-per-job=false".into(),
        ]);
    }

    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn io_uring_jobs_add_up_and_report_their_spread() {
        jobs_add_up(vec!["jobs=2,engine=io_uring,iodepth=8".into()]);
    }

    fn jobs_add_up(cases: Vec<String>) {
        for extra in cases {
            let params = format!("bs=4k,size=64k,ops=50,fsync=none,{extra}");
            let jobs: u64 = if extra.starts_with("jobs=3") { 3 } else { 2 };
            for build_fn in [build_read, build_write] {
                let d = Harness::new(build_fn, &params).sample();
                assert_eq!((d.ops, d.bytes), (50 * jobs, 50 * jobs * 4096), "{params}");
                assert_eq!(d.latency.unwrap().count, 50 * jobs);
                let (lo, hi) = (
                    Harness::metric(&d, "job_iops_min"),
                    Harness::metric(&d, "job_iops_max"),
                );
                assert!(0.0 < lo && lo <= hi, "{params}: {lo} {hi}");
            }
        }
    }
}
