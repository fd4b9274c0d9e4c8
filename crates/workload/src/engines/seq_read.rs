//! `seq-read`: read one file (or the start of a block device) sequentially in `bs` blocks
//! (dd `if=FILE of=/dev/null bs=1M`). The file is written once, unmeasured, in `prepare`.

use super::common::{self, Direct};
use super::direct_check;
use crate::io::{self, DataFile, DataPattern};
use crate::params::{ParamDoc, ParamError, Params};
use crate::registry::WorkloadInfo;
use crate::{Context, Headline, Recorder, Workload, WorkloadError};
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "seq-read",
    summary: "sequential read of one file or block device (dd if=FILE of=/dev/null)",
    params: PARAMS,
    build,
};

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "file",
        default: "",
        help: "read this existing file instead of one fsbench writes (never modified)",
    },
    ParamDoc {
        key: "bs",
        default: "1m",
        help: "block size of each read",
    },
    ParamDoc {
        key: "size",
        default: "256m",
        help: "bytes read per sample (capped at a device's size)",
    },
    ParamDoc {
        key: "direct",
        default: "false",
        help: "O_DIRECT: true, false or auto (when supported)",
    },
    ParamDoc {
        key: "data",
        default: "random",
        help: "content of the prepared file: random or zero",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of the random data",
    },
];

struct SeqRead {
    file: Option<PathBuf>,
    bs: u64,
    size: u64,
    direct: Direct,
    pattern: DataPattern,
    seed: u64,
    /// Why `direct=auto` uses buffered I/O on this target.
    note: Option<String>,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = p.raw().contains_key("bs");
    let bs = p.positive_size("bs", "1m")?;
    let size = p.positive_size("size", "256m")?;
    let bs = common::fit_bs(p, bs_given, bs, size)?;
    let direct = common::direct_param(p, "false")?;
    common::check_direct_bs(direct, bs)?;
    let pattern = common::data_param(p)?;
    let seed = p.u64("seed", "42")?;
    let file = common::file_param(p)?;
    Ok(Box::new(SeqRead {
        file,
        bs,
        size,
        direct,
        pattern,
        seed,
        note: None,
    }))
}

impl SeqRead {
    fn file(&self, ctx: &Context) -> Result<DataFile, WorkloadError> {
        common::read_file(ctx, self.file.as_deref(), "seq-read.dat", self.size)
    }
}

impl Workload for SeqRead {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        io::ensure_file(ctx, &file, self.pattern, self.seed)?;
        let r = direct_check::resolve(&file, self.direct, self.bs)?;
        self.direct = r.direct;
        self.note = r.note;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.note.iter().cloned().collect()
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        common::read_pass(ctx, rec, &file, self.bs, self.direct)
    }

    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf> {
        self.file(ctx).map(|f| vec![f.path]).unwrap_or_default()
    }

    fn writes(&self) -> bool {
        false
    }

    fn space_needed(&self) -> u64 {
        if self.file.is_some() { 0 } else { self.size }
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
    use crate::testutil::Harness;

    #[test]
    fn reads_the_prepared_file_completely() {
        let mut h = Harness::new(build, "bs=64k,size=200k");
        for _ in 0..2 {
            let d = h.sample();
            assert_eq!((d.bytes, d.ops), (200 * 1024, 4));
        }
    }
}
