//! `latency`: single requests separated by an idle `interval` (ioping): each request meets an idle
//! device, so its time is the latency a lone access sees. The first request is a warm-up and is
//! not counted, as in ioping. Reports min/avg/max/mdev and percentiles. `engine=io_uring` sends
//! the same lone requests through a ring of depth 1 (only depth 1: at depth a request meets a
//! busy device, which is `rand-read:iodepth=N`'s question, not ioping's).

use crate::info::WorkloadInfo;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::file::{self as io, AlignedBuf, DataFile, DataPattern};
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

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "file",
        default: "",
        help: "read this existing file instead of one fsbench writes (never modified)",
    },
    ParamDoc {
        key: "count",
        default: "100",
        help: "requests per sample (after one uncounted warm-up)",
    },
    ParamDoc {
        key: "interval",
        default: "10ms",
        help: "idle time between requests (ioping -i)",
    },
    ParamDoc {
        key: "bs",
        default: "4k",
        help: "request size (ioping -s)",
    },
    ParamDoc {
        key: "size",
        default: "1m",
        help: "working set: offsets fall in 0..size (ioping -S)",
    },
    ParamDoc {
        key: "direct",
        default: "auto",
        help: "O_DIRECT (ioping -D): true, false (cached, ioping -C) or auto",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of offsets and data",
    },
    ParamDoc {
        key: "iodepth",
        default: "1",
        help: "only 1: ioping times lone requests (rand-read:iodepth=N for latency at depth)",
    },
    crate::knobs::queue::ENGINE_DOC,
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
    let count = p.count("count", "100")?;
    let interval_ns = p.duration("interval", "10ms")?;
    let bs_given = p.raw().contains_key("bs");
    let bs = p.positive_size("bs", "4k")?;
    let size = p.positive_size("size", "1m")?;
    let bs = crate::knobs::io::fit_bs(p, bs_given, bs, size)?;
    let direct = crate::knobs::io::direct_param(p, "auto")?;
    crate::knobs::io::check_direct_bs(direct, bs)?;
    let seed = p.u64("seed", "42")?;
    let offsets = Offsets::new(seed, size, bs);
    let file = crate::knobs::io::file_param(p)?;
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
    if p.raw()
        .get(fsbench_model::param::IODEPTH)
        .is_some_and(|d| d.trim() != "1")
    {
        return Err(ParamError {
            key: "iodepth".into(),
            message: "latency times lone requests on an idle device (ioping), so only 1; \
                      use rand-read:iodepth=N,engine=io_uring for latency at depth"
                .into(),
        });
    }
    let q = crate::knobs::queue::queue_param(p)?;
    crate::knobs::queue::refuse_mmap(q, "latency")?;
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
            io::pread_full(f, buf.as_mut_slice(), off)
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
        io::ensure_file(ctx, &file, DataPattern::Random, self.seed)?;
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
