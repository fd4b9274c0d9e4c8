//! `seq-write`: write one file sequentially in `bs` blocks (dd `of=FILE bs=1M conv=fdatasync`).

use super::common::{self, WritePass};
use crate::io::DataFile;
use crate::params::{ParamDoc, ParamError, Params};
use crate::registry::WorkloadInfo;
use crate::{Context, Headline, Recorder, Workload, WorkloadError};
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "seq-write",
    summary: "sequential write of one file (dd of=FILE conv=fdatasync)",
    params: PARAMS,
    build,
};

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "bs",
        default: "1m",
        help: "block size of each write",
    },
    ParamDoc {
        key: "size",
        default: "256m",
        help: "bytes written per sample",
    },
    ParamDoc {
        key: "fsync",
        default: "end",
        help: "end (one fdatasync, timed), each (after every write) or none",
    },
    ParamDoc {
        key: "direct",
        default: "false",
        help: "O_DIRECT: true, false or auto (when supported)",
    },
    ParamDoc {
        key: "data",
        default: "random",
        help: "random (incompressible, seeded) or zero",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of the random data",
    },
];

struct SeqWrite {
    size: u64,
    pass: WritePass,
    /// Why `direct=auto` uses buffered I/O on this target.
    note: Option<String>,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = p.raw().contains_key("bs");
    let bs = p.positive_size("bs", "1m")?;
    let size = p.positive_size("size", "256m")?;
    let bs = common::fit_bs(p, bs_given, bs, size)?;
    let fsync = common::fsync_param(p, "end")?;
    let direct = common::direct_param(p, "false")?;
    common::check_direct_bs(direct, bs)?;
    let pattern = common::data_param(p)?;
    let seed = p.u64("seed", "42")?;
    Ok(Box::new(SeqWrite {
        size,
        pass: WritePass {
            bs,
            direct,
            fsync,
            pattern,
            seed,
        },
        note: None,
    }))
}

impl SeqWrite {
    fn file(&self, ctx: &Context) -> Result<DataFile, WorkloadError> {
        DataFile::resolve(ctx, "seq-write.dat", self.size, true)
    }
}

impl Workload for SeqWrite {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        let r = super::direct_check::resolve(&file, self.pass.direct, self.pass.bs)?;
        self.pass.direct = r.direct;
        self.note = r.note;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.note.iter().cloned().collect()
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        common::write_pass(ctx, rec, &file, &self.pass)
    }

    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf> {
        self.file(ctx).map(|f| vec![f.path]).unwrap_or_default()
    }

    fn writes(&self) -> bool {
        true
    }

    fn space_needed(&self) -> u64 {
        self.size
    }

    fn headline(&self) -> Headline {
        Headline::Throughput
    }

    fn supports_device(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CancelToken;
    use crate::testutil::Harness;

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
}
