//! `rand-read` and `rand-write`: `bs`-sized reads or writes at seeded random aligned offsets of
//! one file (fio `rw=randread|randwrite`, psync, queue depth 1), for `ops` operations or a
//! `duration`.

use super::common::{self, Direct, FsyncPolicy, Offsets};
use crate::io::{self, AlignedBuf, DataFile, DataPattern};
use crate::params::{ParamDoc, ParamError, Params};
use crate::registry::WorkloadInfo;
use crate::{Context, Headline, Recorder, Workload, WorkloadError};
use std::path::PathBuf;

/// Registry entry of `rand-read`.
pub const READ_INFO: WorkloadInfo = WorkloadInfo {
    name: "rand-read",
    summary: "random reads of bs at aligned offsets of one file (fio randread, QD1)",
    params: PARAMS,
    build: build_read,
};

/// Registry entry of `rand-write`.
pub const WRITE_INFO: WorkloadInfo = WorkloadInfo {
    name: "rand-write",
    summary: "random writes of bs at aligned offsets of one file (fio randwrite, QD1)",
    params: PARAMS,
    build: build_write,
};

/// Registry entry of `seek-rate`.
pub const SEEK_INFO: WorkloadInfo = WorkloadInfo {
    name: "seek-rate",
    summary: "back-to-back random reads for a duration (ioping -R): requests per second",
    params: SEEK_PARAMS,
    build: build_seek,
};

const SEEK_PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "file",
        default: "",
        help: "read this existing file instead of one fsbench writes (never modified)",
    },
    ParamDoc {
        key: "bs",
        default: "4k",
        help: "size of each read",
    },
    ParamDoc {
        key: "size",
        default: "64m",
        help: "working set: offsets fall in 0..size",
    },
    ParamDoc {
        key: "duration",
        default: "3s",
        help: "length of each sample",
    },
    ParamDoc {
        key: "direct",
        default: "auto",
        help: "O_DIRECT: true, false or auto (when supported)",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of offsets and data",
    },
];

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "file",
        default: "",
        help: "rand-read: read this existing file instead of one fsbench writes (never modified)",
    },
    ParamDoc {
        key: "bs",
        default: "4k",
        help: "size of each operation",
    },
    ParamDoc {
        key: "size",
        default: "256m",
        help: "file size: offsets fall in 0..size",
    },
    ParamDoc {
        key: "ops",
        default: "size/bs",
        help: "operations per sample",
    },
    ParamDoc {
        key: "duration",
        default: "",
        help: "run for this long per sample instead of a count (e.g. 5s)",
    },
    ParamDoc {
        key: "direct",
        default: "false",
        help: "O_DIRECT: true, false or auto (when supported)",
    },
    ParamDoc {
        key: "fsync",
        default: "end",
        help: "rand-write: end, each or none",
    },
    ParamDoc {
        key: "data",
        default: "random",
        help: "random (incompressible) or zero",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of offsets and data",
    },
];

/// How long a sample lasts.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Ops(u64),
    Duration(u64),
}

struct RandIo {
    file: Option<PathBuf>,
    write: bool,
    bs: u64,
    size: u64,
    stop: Stop,
    direct: Direct,
    fsync: FsyncPolicy,
    pattern: DataPattern,
    seed: u64,
    offsets: Offsets,
    /// Why `direct=auto` uses buffered I/O on this target.
    note: Option<String>,
}

fn build_read(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    build(p, false)
}

fn build_write(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    build(p, true)
}

fn build_seek(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = p.raw().contains_key("bs");
    let bs = p.positive_size("bs", "4k")?;
    let size = p.positive_size("size", "64m")?;
    let bs = common::fit_bs(p, bs_given, bs, size)?;
    let duration = p.positive_duration("duration", "3s")?;
    let direct = common::direct_param(p, "auto")?;
    common::check_direct_bs(direct, bs)?;
    let seed = p.u64("seed", "42")?;
    let offsets = Offsets::new(seed, size, bs);
    let file = common::file_param(p)?;
    Ok(Box::new(RandIo {
        file,
        write: false,
        bs,
        size,
        stop: Stop::Duration(duration),
        direct,
        fsync: FsyncPolicy::None,
        pattern: DataPattern::Random,
        seed,
        offsets,
        note: None,
    }))
}

fn build(p: &mut Params, write: bool) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = p.raw().contains_key("bs");
    let bs = p.positive_size("bs", "4k")?;
    let size = p.positive_size("size", "256m")?;
    let bs = common::fit_bs(p, bs_given, bs, size)?;
    let stop = match p.optional("duration") {
        Some(d) => {
            p.record("duration", d.clone());
            let ns = crate::units::parse_duration(&d).map_err(|m| ParamError {
                key: "duration".into(),
                message: m,
            })?;
            if ns == 0 {
                return Err(ParamError {
                    key: "duration".into(),
                    message: "must be longer than 0 (0 would measure nothing)".into(),
                });
            }
            Stop::Duration(ns)
        }
        None => Stop::Ops(p.count("ops", &(size / bs).to_string())?),
    };
    let direct = common::direct_param(p, "false")?;
    common::check_direct_bs(direct, bs)?;
    let fsync = common::fsync_param(p, "end")?;
    let pattern = common::data_param(p)?;
    let seed = p.u64("seed", "42")?;
    let offsets = Offsets::new(seed, size, bs);
    let file = if write { None } else { common::file_param(p)? };
    Ok(Box::new(RandIo {
        file,
        write,
        bs,
        size,
        stop,
        direct,
        fsync,
        pattern,
        seed,
        offsets,
        note: None,
    }))
}

impl RandIo {
    fn file(&self, ctx: &Context) -> Result<DataFile, WorkloadError> {
        if self.write {
            DataFile::resolve(ctx, "rand-io.dat", self.size, true)
        } else {
            common::read_file(ctx, self.file.as_deref(), "rand-io.dat", self.size)
        }
    }

    fn open(&self, file: &DataFile) -> Result<(std::fs::File, bool), WorkloadError> {
        if self.write {
            common::open_write(file, self.direct, false)
        } else {
            common::open_read(file, self.direct)
        }
    }

    /// The measured loop: one positional read or write per operation, one clock read each.
    fn io_loop(
        &mut self,
        ctx: &Context,
        rec: &mut dyn Recorder,
        file: &DataFile,
    ) -> Result<(), WorkloadError> {
        let (f, used_direct) = self.open(file)?;
        rec.metric("direct_used", if used_direct { 1.0 } else { 0.0 });
        let mut buf = AlignedBuf::new(self.bs as usize);
        self.pattern.fill(buf.as_mut_slice(), self.seed ^ 0x5eed);
        let (max_ops, deadline) = match self.stop {
            Stop::Ops(n) => (n, u64::MAX),
            Stop::Duration(d) => (u64::MAX, rec.now_ns().saturating_add(d)),
        };
        let op_name = if self.write { "write" } else { "read" };
        let mut t = rec.now_ns();
        let mut i = 0u64;
        while i < max_ops && t < deadline {
            if i % io::CANCEL_EVERY == 0 {
                ctx.cancel.check()?;
            }
            let off = self.offsets.next_offset();
            let result = if self.write {
                self.pattern.stamp(buf.as_mut_slice(), i);
                io::pwrite_full(&f, buf.as_slice(), off).map(|()| self.bs as usize)
            } else {
                io::pread_full(&f, buf.as_mut_slice(), off)
            };
            let n = result.map_err(|e| WorkloadError::io(op_name, &file.path, e))?;
            if self.write && self.fsync == FsyncPolicy::Each {
                io::sync_data(&f, &file.path)?;
            }
            t = rec.op_done(t, n as u64);
            i += 1;
        }
        if self.write && self.fsync == FsyncPolicy::End {
            io::sync_data(&f, &file.path)?;
            let end = rec.now_ns();
            rec.phase("fsync", end - t);
        }
        Ok(())
    }
}

impl Workload for RandIo {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        // Offsets must stay inside the file actually used (a user's file or a device may be smaller).
        self.offsets = Offsets::new(self.seed, file.size, self.bs);
        io::ensure_file(ctx, &file, self.pattern, self.seed)?;
        let r = super::direct_check::resolve(&file, self.direct, self.bs)?;
        self.direct = r.direct;
        self.note = r.note;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.note.iter().cloned().collect()
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        self.io_loop(ctx, rec, &file)
    }

    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf> {
        self.file(ctx).map(|f| vec![f.path]).unwrap_or_default()
    }

    fn writes(&self) -> bool {
        self.write
    }

    fn space_needed(&self) -> u64 {
        if self.file.is_some() { 0 } else { self.size }
    }

    fn headline(&self) -> Headline {
        Headline::Iops
    }

    fn supports_device(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn seek_rate_reads_back_to_back() {
        let d = Harness::new(build_seek, "size=64k,duration=20ms,direct=false").sample();
        assert!(d.ops > 0);
    }

    #[test]
    fn size_smaller_than_block_is_refused() {
        let mut p = Params::parse("bs=8k,size=4k").unwrap();
        assert!(build_read(&mut p).is_err());
    }
}
