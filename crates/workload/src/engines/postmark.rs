//! `postmark`: a faithful PostMark 1.51 (Debian's `postmark` 1.53) as a workload. One sample is
//! one complete postmark execution in a directory of the scratch: create the pool, run the
//! transactions, delete everything, so each sample starts from and leaves an empty directory.
//! The same configuration and seed give the same files, sizes and operations as the real program
//! (`fsbench_postmark::engine`), but every operation is timed in nanoseconds instead of
//! postmark's whole seconds.
//!
//! Headline: wall time of the whole execution (lower is better). That is what the CSAIL study
//! compared (postmark's total seconds), and with its configuration the pool creation and final
//! deletion dominate; `transactions_per_s` alone would judge a filesystem on a phase the study
//! itself found insignificant. Transaction rate, per-kind counts and latencies are metrics.

use fsbench_postmark::engine::{Config, Location, OpKind, OpLog, Outcome, config, run_skewed};

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use rustix::fd::AsFd;
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "postmark",
    summary: "PostMark 1.51 mail-server load, operation for operation (create pool, transactions, delete)",
    params: PARAMS,
    build,
    shared: false,
};

/// The largest value of postmark's counters.
const MAX: i64 = config::MAX_INT as i64;

/// `number`: the base pool of files.
const NUMBER: Knob<i64> = Knob::new(
    "number",
    "500",
    "base pool of files (postmark's `set number`)",
    int::<1, { config::MAX_NUMBER as i64 }>,
)
.scaled(crate::Scale::Count);
/// `size_low`: the smallest file.
const SIZE_LOW: Knob<u32> = Knob::new(
    "size_low",
    "500",
    "smallest file size (`set size L H`; sizes like 1m accepted)",
    size,
);
/// `size_high`: the bound of file sizes.
const SIZE_HIGH: Knob<u32> = Knob::new(
    "size_high",
    "10000",
    "file size bound: new files are below it, appends stop at it",
    size,
);
/// `seed` of postmark's own generator.
const SEED: Knob<i64> = Knob::new(
    crate::knobs::io::SEED.key,
    "42",
    "seed of postmark's generator (1 .. 2147483647)",
    int::<1, MAX>,
);
/// `transactions`: how many.
const TRANSACTIONS: Knob<i64> = Knob::new(
    "transactions",
    "500",
    "transactions, each a read-or-append plus a create-or-delete",
    int::<1, MAX>,
)
.scaled(crate::Scale::Count);
/// `subdirectories` to spread the files over.
const SUBDIRECTORIES: Knob<i64> = Knob::new(
    "subdirectories",
    "0",
    "subdirectories s0.. to spread files over (used when > 1)",
    int::<0, MAX>,
);
/// `read`: the read block size.
const READ: Knob<u32> = Knob::new("read", "512", "read block size", size);
/// `write`: the write block size.
const WRITE: Knob<u32> = Knob::new("write", "512", "write block size", size);
/// `buffering`: stdio-style buffered I/O.
const BUFFERING: Knob<bool> = crate::knob::boolean(
    "buffering",
    "true",
    "stdio-style buffered I/O (true) or plain read/write of the block size",
);
/// `bias_read`: read over append.
const BIAS_READ: Knob<i64> = Knob::new(
    "bias_read",
    "5",
    "chance in 10 of read over append; -1 disables both",
    int::<-1, 10>,
);
/// `bias_create`: create over delete.
const BIAS_CREATE: Knob<i64> = Knob::new(
    "bias_create",
    "5",
    "chance in 10 of create over delete; -1 disables both",
    int::<-1, 10>,
);

const PARAMS: &[ParamDoc] = &[
    NUMBER.doc(),
    SIZE_LOW.doc(),
    SIZE_HIGH.doc(),
    SEED.doc(),
    TRANSACTIONS.doc(),
    SUBDIRECTORIES.doc(),
    READ.doc(),
    WRITE.doc(),
    BUFFERING.doc(),
    BIAS_READ.doc(),
    BIAS_CREATE.doc(),
    crate::knobs::skew::DIST
        .help_as("which files transactions read, append to and delete: uniform (postmark's), zipf:THETA, pareto:H or normal:SIGMA over the file table (postmark's own sequence is then no longer reproduced)")
        .doc(),
];

/// Name of the directory in the scratch where the files live.
const WORK_DIR: &str = "postmark";

struct Postmark {
    cfg: Config,
    /// `dist=`: how transactions choose their files.
    dist: fsbench_io::skew::Dist,
}

/// A whole number from `MIN` to `MAX`.
fn int<const MIN: i64, const MAX: i64>(
    p: &mut Params,
    key: &'static str,
    default: &str,
) -> Result<i64, ParamError> {
    let v = p.string(key, default);
    match v.trim().parse::<i64>() {
        Ok(n) if (MIN..=MAX).contains(&n) => Ok(n),
        _ => Err(ParamError {
            key: key.to_string(),
            message: format!("invalid value '{v}': use a whole number from {MIN} to {MAX}"),
        }),
    }
}

/// A size in bytes within postmark's limit.
fn size(p: &mut Params, key: &'static str, default: &str) -> Result<u32, ParamError> {
    let n = p.positive_size(key, default)?;
    u32::try_from(n)
        .ok()
        .filter(|n| *n <= config::MAX_SIZE)
        .ok_or_else(|| ParamError {
            key: key.to_string(),
            message: format!(
                "must be at most {} bytes (postmark's limit)",
                config::MAX_SIZE
            ),
        })
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let cfg = Config {
        number: NUMBER.read(p)? as u32,
        size_low: SIZE_LOW.read(p)?,
        size_high: SIZE_HIGH.read(p)?,
        seed: SEED.read(p)? as u32,
        transactions: TRANSACTIONS.read(p)? as u32,
        subdirectories: SUBDIRECTORIES.read(p)? as u32,
        read_block: READ.read(p)?,
        write_block: WRITE.read(p)?,
        buffering: BUFFERING.read(p)?,
        bias_read: BIAS_READ.read(p)? as i32,
        bias_create: BIAS_CREATE.read(p)? as i32,
    };
    if cfg.size_high < cfg.size_low {
        return Err(SIZE_HIGH.error(format!(
            "{} is below size_low ({}): give size_high >= size_low",
            cfg.size_high, cfg.size_low
        )));
    }
    let dist = crate::knobs::skew::dist_param(p)?;
    Ok(Box::new(Postmark { cfg, dist }))
}

/// Count, total latency and bytes of one kind of operation, for per-kind metrics.
#[derive(Debug, Clone, Copy, Default)]
struct KindTotals {
    ops: u64,
    total_ns: u64,
}

/// Feeds the sample's recorder (one histogram for all operations) and per-kind totals.
struct RecorderLog<'a> {
    rec: &'a mut dyn Recorder,
    kinds: [KindTotals; 4],
}

impl OpLog for RecorderLog<'_> {
    fn now_ns(&mut self) -> u64 {
        self.rec.now_ns()
    }

    fn op(&mut self, kind: OpKind, start_ns: u64, bytes: u64) -> u64 {
        let now = self.rec.op_done(start_ns, bytes);
        let k = &mut self.kinds[kind as usize];
        k.ops += 1;
        k.total_ns += now.saturating_sub(start_ns);
        now
    }
}

impl Postmark {
    fn work_dir(ctx: &Context) -> Result<PathBuf, WorkloadError> {
        ctx.scratch()
            .map(|d| d.join(WORK_DIR))
            .ok_or_else(|| WorkloadError::Unsupported("postmark needs a directory target".into()))
    }
}

fn report(rec: &mut dyn Recorder, out: &Outcome, kinds: &[KindTotals; 4]) {
    let m = out.marks;
    rec.phase(
        fsbench_model::param::PHASE_CREATE,
        m.t_start_ns - m.start_ns,
    );
    rec.phase(
        fsbench_model::param::PHASE_TRANSACTIONS,
        m.t_end_ns - m.t_start_ns,
    );
    rec.phase(fsbench_model::param::PHASE_DELETE, m.end_ns - m.t_end_ns);
    let c = &out.counts;
    let tx_s = (m.t_end_ns - m.t_start_ns).max(1) as f64 / 1e9;
    rec.metric(
        fsbench_model::metric::TRANSACTIONS_PER_S,
        out.transactions_done as f64 / tx_s,
    );
    rec.metric(fsbench_model::metric::FILES_CREATED, c.files_created as f64);
    rec.metric(fsbench_model::metric::FILES_READ, c.files_read as f64);
    rec.metric(
        fsbench_model::metric::FILES_APPENDED,
        c.files_appended as f64,
    );
    rec.metric(fsbench_model::metric::FILES_DELETED, c.files_deleted as f64);
    rec.metric(fsbench_model::metric::DELETED_ALONE, c.deleted_alone as f64);
    rec.metric(fsbench_model::metric::BYTES_READ, c.bytes_read as f64);
    rec.metric(fsbench_model::metric::BYTES_WRITTEN, c.bytes_written as f64);
    rec.metric(
        fsbench_model::metric::OUT_OF_FILES,
        if out.out_of_files { 1.0 } else { 0.0 },
    );
    for kind in OpKind::ALL {
        let k = kinds[kind as usize];
        rec.metric(&format!("{}_ops", kind.name()), k.ops as f64);
        if k.ops > 0 {
            let mean = k.total_ns as f64 / k.ops as f64;
            rec.metric(&format!("{}_mean_ns", kind.name()), mean);
        }
    }
}

impl Workload for Postmark {
    fn notes(&self) -> Vec<String> {
        let slots = 2 * u64::from(self.cfg.number);
        fsbench_io::skew::Picker::new(self.dist, slots, u64::from(self.cfg.seed))
            .note("file slots")
            .into_iter()
            .collect()
    }

    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let dir = Self::work_dir(ctx)?;
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                Err(WorkloadError::io("mkdir", dir, e))
            }
            _ => Ok(()),
        }
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let path = Self::work_dir(ctx)?;
        let dir = std::fs::File::open(&path).map_err(|e| WorkloadError::io("open", &path, e))?;
        let locs = [Location {
            dir: dir.as_fd(),
            path: &path,
            weight: 1,
        }];
        let mut log = RecorderLog {
            rec,
            kinds: [KindTotals::default(); 4],
        };
        let out = run_skewed(&self.cfg, &locs, &mut log, &ctx.cancel, self.dist)?;
        report(log.rec, &out, &log.kinds);
        Ok(())
    }

    fn cleanup(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let dir = Self::work_dir(ctx)?;
        fsbench_io::fsops::remove_all(&dir)
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        Vec::new() // every file is created during the sample
    }

    fn caps(&self) -> Caps {
        let avg = (u64::from(self.cfg.size_low) + u64::from(self.cfg.size_high)) / 2;
        Caps {
            writes: true,
            // The pool at its expected size; transactions keep it about there (creates ≈ deletes).
            space_needed: u64::from(self.cfg.number) * (avg + 4096),
            // The pool plus what transactions may create, plus the subdirectories.
            inodes_needed: u64::from(self.cfg.number)
                + u64::from(self.cfg.transactions)
                + u64::from(self.cfg.subdirectories)
                + 1,
            size_knob: NUMBER.key,
            ..Caps::base(Headline::Wall)
        }
    }
}

#[cfg(test)]
mod tests;
