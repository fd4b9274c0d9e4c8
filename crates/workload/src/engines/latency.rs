//! `latency`: single requests separated by an idle `interval` (ioping): each request meets an idle
//! device, so its time is the latency a lone access sees. The first request is a warm-up and is
//! not counted, as in ioping. Reports min/avg/max/mdev and percentiles. `engine=io_uring` sends
//! the same lone requests through a ring of depth 1 (only depth 1: at depth a request meets a
//! busy device, which is `rand-read:iodepth=N`'s question, not ioping's).

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::knobs::{io, queue};
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::file::{self as iofile, AlignedBuf, DataFile, DataPattern};
use fsbench_io::passes::{self as common, Direct, Offsets};
use fsbench_io::queue::{Engine, Queue};
use fsbench_io::uring::{One, Ring, RingSpec};
use std::path::PathBuf;
use std::time::Duration;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "latency",
    summary: "single reads separated by an idle interval (ioping): min/avg/max/mdev, percentiles",
    params: PARAMS,
    build,
    shared: false,
};

/// `count`: requests per sample.
const COUNT: Knob<u64> = crate::knob::count(
    "count",
    "100",
    "requests per sample (after one uncounted warm-up)",
)
.scaled(crate::Scale::Count);

/// `interval`: idle time between requests.
const INTERVAL: Knob<u64> = Knob::new(
    "interval",
    "10ms",
    "idle time between requests (ioping -i)",
    Params::duration,
);

const BS: Knob<u64> = io::BS.default_to("4k").help_as("request size (ioping -s)");
const SIZE: Knob<u64> = io::SIZE
    .default_to("1m")
    .help_as("working set: offsets fall in 0..size (ioping -S)");
const DIRECT: Knob<Direct> = io::DIRECT
    .default_to("auto")
    .help_as("O_DIRECT (ioping -D): true, false (cached, ioping -C) or auto");
const IODEPTH: Knob<u64> = queue::IODEPTH
    .help_as("only 1: ioping times lone requests (rand-read:iodepth=N for latency at depth)");

const PARAMS: &[ParamDoc] = &[
    io::FILE.doc(),
    COUNT.doc(),
    INTERVAL.doc(),
    BS.doc(),
    SIZE.doc(),
    DIRECT.doc(),
    io::SEED.help_as("seed of offsets and data").doc(),
    IODEPTH.doc(),
    queue::ENGINE_DOC,
];

struct Latency {
    file: Option<PathBuf>,
    count: u64,
    interval_ns: u64,
    bs: u64,
    size: u64,
    direct: Direct,
    seed: u64,
    offsets: Offsets,
    queue: Queue,
    /// Why `direct=auto` uses buffered I/O on this target.
    note: Option<String>,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let count = COUNT.read(p)?;
    let interval_ns = INTERVAL.read(p)?;
    let bs_given = BS.given(p);
    let bs = BS.read(p)?;
    let size = SIZE.read(p)?;
    let bs = io::fit_bs(p, bs_given, bs, size)?;
    let direct = DIRECT.read(p)?;
    io::check_direct_bs(direct, bs)?;
    let seed = io::SEED.read(p)?;
    let offsets = Offsets::new(seed, size, bs);
    let file = io::FILE.read(p)?;
    let queue = queue_param(p)?;
    Ok(Box::new(Latency {
        file,
        count,
        interval_ns,
        bs,
        size,
        direct,
        seed,
        offsets,
        queue,
        note: None,
    }))
}

/// `engine` at depth 1 only: a request at depth meets a busy device, not an idle one.
fn queue_param(p: &mut Params) -> Result<Queue, ParamError> {
    if p.raw().get(IODEPTH.key).is_some_and(|d| d.trim() != "1") {
        return Err(IODEPTH.error(
            "latency times lone requests on an idle device (ioping), so only 1; \
             use rand-read:iodepth=N,engine=io_uring for latency at depth",
        ));
    }
    let q = queue::queue_param(p)?;
    queue::refuse_mmap(q, INFO.name)?;
    Ok(q)
}

impl Latency {
    fn file(&self, ctx: &Context) -> Result<DataFile, WorkloadError> {
        common::read_file(ctx, self.file.as_deref(), "latency.dat", self.size)
    }

    /// One uncounted warm-up, then `count` lone preads after an idle `interval` each.
    fn psync_requests(
        &mut self,
        ctx: &Context,
        rec: &mut dyn Recorder,
        file: &DataFile,
        f: &std::fs::File,
    ) -> Result<(), WorkloadError> {
        let mut buf = AlignedBuf::new(self.bs as usize);
        let read = |buf: &mut AlignedBuf, off| {
            iofile::pread_full(f, buf.as_mut_slice(), off)
                .map_err(|e| WorkloadError::io("read", &file.path, e))
        };
        read(&mut buf, self.offsets.next_offset())?; // warm-up, not counted (ioping)
        for _ in 0..self.count {
            self.idle(ctx)?;
            let off = self.offsets.next_offset();
            let t = rec.now_ns();
            let n = read(&mut buf, off)?;
            rec.op_done(t, n as u64);
        }
        Ok(())
    }

    /// The same requests through a ring of depth 1: each timed from submission to completion.
    fn uring_requests(
        &mut self,
        ctx: &Context,
        rec: &mut dyn Recorder,
        file: &DataFile,
        f: &std::fs::File,
    ) -> Result<(), WorkloadError> {
        let spec = RingSpec {
            depth: 1,
            bs: self.bs as usize,
            write: false,
            path: &file.path,
        };
        let mut ring = Ring::new(f, spec, |_| {})?;
        let bs = self.bs as usize;
        let mut warm_up = fsbench_measure::SampleRecorder::new();
        let mut warm = One(Some((self.offsets.next_offset(), bs)));
        ring.run(ctx, &mut warm_up, &mut warm, u64::MAX)?; // not counted (ioping)
        for _ in 0..self.count {
            self.idle(ctx)?;
            let mut one = One(Some((self.offsets.next_offset(), bs)));
            ring.run(ctx, rec, &mut one, u64::MAX)?;
        }
        Ok(())
    }

    fn idle(&self, ctx: &Context) -> Result<(), WorkloadError> {
        let deadline = std::time::Instant::now() + Duration::from_nanos(self.interval_ns);
        loop {
            ctx.cancel.check()?;
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    }
}

impl Workload for Latency {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        self.offsets = Offsets::new(self.seed, file.size, self.bs);
        iofile::ensure_file(ctx, &file, DataPattern::Random, self.seed)?;
        fsbench_io::direct_check::settle(&file, &mut self.direct, self.bs, &mut self.note)?;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.note.iter().cloned().collect()
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        let (f, used_direct) = common::open_for_read(&file, self.direct)?;
        rec.metric(
            fsbench_model::metric::DIRECT_USED,
            if used_direct { 1.0 } else { 0.0 },
        );
        rec.metric(
            fsbench_model::metric::ENGINE_IO_URING,
            self.queue.uring_flag(),
        );
        match self.queue.engine {
            Engine::Psync => self.psync_requests(ctx, rec, &file, &f),
            Engine::IoUring => self.uring_requests(ctx, rec, &file, &f),
            Engine::Mmap => unreachable!("invariant: refused when built"),
        }
    }

    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf> {
        self.file(ctx).map(|f| vec![f.path]).unwrap_or_default()
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: false,
            space_needed: if self.file.is_some() { 0 } else { self.size },
            supports_device: true,
            flow: crate::Flow::Read,
            ..Caps::base(Headline::Latency)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn counts_requests_without_the_warmup() {
        let d = Harness::new(build, "count=5,interval=1ms,direct=false").sample();
        assert_eq!(d.ops, 5);
        assert_eq!(d.latency.unwrap().count, 5);
        assert!(d.wall_ns >= 5_000_000);
    }

    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn io_uring_sends_the_same_lone_requests() {
        let d = Harness::new(build, "count=5,interval=1ms,direct=false,engine=io_uring").sample();
        assert_eq!((d.ops, d.bytes), (5, 5 * 4096));
        assert_eq!(d.latency.unwrap().count, 5);
        assert_eq!(Harness::metric(&d, "engine_io_uring"), 1.0);
    }

    #[test]
    fn depth_above_one_is_refused_with_a_pointer_to_rand_read() {
        let mut p = Params::parse("iodepth=8,engine=io_uring").unwrap();
        let e = build(&mut p).err().unwrap();
        assert!(e.message.contains("rand-read:iodepth"), "{e}");
    }
}
