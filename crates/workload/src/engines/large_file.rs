//! `large-file`: write one large file sequentially, then read it back (the large-file MB/s study).
//! `size=2x-ram` sizes the file from physical memory so the page cache cannot hold it.

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::knobs::io;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::file::DataFile;
use fsbench_io::passes::{self as common, FsyncPolicy, WritePass};
use fsbench_model::metric;
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "large-file",
    summary: "sequential write then read of one large file (size=2x-ram defeats the page cache)",
    params: PARAMS,
    build,
    shared: false,
};

/// `size`: bytes, or a multiple of physical memory.
const SIZE: Knob<u64> = Knob::new(
    io::SIZE.key,
    "2x-ram",
    "file size: bytes (4g) or a multiple of RAM (2x-ram)",
    |p, k, d| {
        let text = p.string(k, d);
        let size = parse_large_size(&text, physical_ram()).ok_or_else(|| ParamError {
            key: k.into(),
            message: format!(
                "invalid size '{text}': use a size (4g) or a multiple of RAM (2x-ram)"
            ),
        })?;
        if size == 0 {
            return Err(ParamError {
                key: k.into(),
                message: "must be greater than 0".into(),
            });
        }
        p.record(k, fsbench_model::units::format_size(size));
        Ok(size)
    },
)
.scaled(crate::Scale::Bytes);

/// `evict`: drop the file's pages between its write and its read.
const EVICT: Knob<bool> = crate::knob::boolean(
    "evict",
    "true",
    "drop the file's cached pages between write and read",
);

const PARAMS: &[ParamDoc] = &[
    SIZE.doc(),
    io::BS.help_as("block size of each read and write").doc(),
    io::DIRECT.doc(),
    EVICT.doc(),
    io::DATA.doc(),
    io::SEED.help_as("seed of the random data").doc(),
    io::DEDUPE.doc(),
];

struct LargeFile {
    size: u64,
    bs: u64,
    evict: bool,
    pass: WritePass,
    /// Why `direct=auto` uses buffered I/O on this target.
    note: Option<String>,
}

/// Parses `N x-ram` (`2x-ram`) against `ram` bytes, or a plain size; `None` when it is
/// neither.
fn parse_large_size(text: &str, ram: u64) -> Option<u64> {
    match text.strip_suffix("x-ram") {
        Some(k) => k
            .parse::<f64>()
            .ok()
            .filter(|k| k.is_finite() && *k > 0.0)
            .map(|k| (k * ram as f64) as u64),
        None => fsbench_model::units::parse_size(text).ok(),
    }
}

fn physical_ram() -> u64 {
    let info = rustix::system::sysinfo();
    info.totalram as u64 * info.mem_unit.max(1) as u64
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let size = SIZE.read(p)?;
    let bs = io::BS.read(p)?;
    let direct = io::DIRECT.read(p)?;
    io::check_direct_bs(direct, bs)?;
    let evict = EVICT.read(p)?;
    let pattern = io::data_param(p)?;
    let seed = io::SEED.read(p)?;
    let pass = WritePass {
        bs,
        direct,
        fsync: FsyncPolicy::End,
        pattern,
        seed,
        seal: None,
    };
    Ok(Box::new(LargeFile {
        size,
        bs,
        evict,
        pass,
        note: None,
    }))
}

impl LargeFile {
    fn file(&self, ctx: &Context) -> Result<DataFile, WorkloadError> {
        DataFile::resolve(ctx, "large-file.dat", self.size, true)
    }
}

fn mib_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 / (1 << 20) as f64 / (ns as f64 / 1e9)
    }
}

impl Workload for LargeFile {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        fsbench_io::direct_check::settle(
            &file,
            &mut self.pass.direct,
            self.pass.bs,
            &mut self.note,
        )?;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.note.iter().cloned().collect()
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let file = self.file(ctx)?;
        let t0 = rec.now_ns();
        common::write_pass(ctx, rec, &file, &self.pass)?;
        let t1 = rec.now_ns();
        if self.evict && !file.external {
            let f = fsbench_io::file::open_read(&file, false)?;
            let _ = rustix::fs::fadvise(&f, 0, None, rustix::fs::Advice::DontNeed);
        }
        let t2 = rec.now_ns();
        common::read_pass(ctx, rec, &file, self.bs, self.pass.direct)?;
        let t3 = rec.now_ns();
        rec.phase(fsbench_model::param::PHASE_WRITE, t1 - t0);
        rec.phase(fsbench_model::param::PHASE_READ, t3 - t2);
        rec.metric(
            fsbench_model::metric::WRITE_MIB_S,
            mib_per_s(file.size, t1 - t0),
        );
        rec.metric(
            fsbench_model::metric::READ_MIB_S,
            mib_per_s(file.size, t3 - t2),
        );
        Ok(())
    }

    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf> {
        self.file(ctx).map(|f| vec![f.path]).unwrap_or_default()
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: true,
            space_needed: self.size,
            // The Disk Speed Test's gauge: each phase's peak and where it settles, from the series.
            also_shown: &[
                metric::WRITE_MIB_S,
                metric::WRITE_PEAK_MIB_S,
                metric::WRITE_SUSTAINED_MIB_S,
                metric::READ_PEAK_MIB_S,
                metric::READ_SUSTAINED_MIB_S,
            ],
            supports_device: true,
            flow: crate::Flow::WriteThenRead,
            ..Caps::base(Headline::Metric {
                name: fsbench_model::metric::READ_MIB_S,
                unit: "MiB/s",
                higher_is_better: true,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn multiple_of_ram_is_resolved() {
        assert_eq!(parse_large_size("2x-ram", 1000), Some(2000));
        assert_eq!(parse_large_size("0.5x-ram", 1000), Some(500));
        assert_eq!(parse_large_size("4k", 1000), Some(4096));
        assert!(parse_large_size("zx-ram", 1000).is_none());
    }

    #[test]
    fn writes_then_reads_the_file() {
        let d = Harness::new(build, "size=1m,bs=64k").sample();
        assert_eq!((d.bytes, d.ops), (2 << 20, 32));
        assert!(Harness::metric(&d, "read_mib_s") > 0.0);
        let phases: Vec<&str> = d.phases.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(phases, ["fsync", "write", "read"]);
    }
}
