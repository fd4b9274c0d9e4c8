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

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "number",
        default: "500",
        help: "base pool of files (postmark's `set number`)",
    },
    ParamDoc {
        key: "size_low",
        default: "500",
        help: "smallest file size (`set size L H`; sizes like 1m accepted)",
    },
    ParamDoc {
        key: "size_high",
        default: "10000",
        help: "file size bound: new files are below it, appends stop at it",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of postmark's generator (1 .. 2147483647)",
    },
    ParamDoc {
        key: "transactions",
        default: "500",
        help: "transactions, each a read-or-append plus a create-or-delete",
    },
    ParamDoc {
        key: "subdirectories",
        default: "0",
        help: "subdirectories s0.. to spread files over (used when > 1)",
    },
    ParamDoc {
        key: "read",
        default: "512",
        help: "read block size",
    },
    ParamDoc {
        key: "write",
        default: "512",
        help: "write block size",
    },
    ParamDoc {
        key: "buffering",
        default: "true",
        help: "stdio-style buffered I/O (true) or plain read/write of the block size",
    },
    ParamDoc {
        key: "bias_read",
        default: "5",
        help: "chance in 10 of read over append; -1 disables both",
    },
    ParamDoc {
        key: "bias_create",
        default: "5",
        help: "chance in 10 of create over delete; -1 disables both",
    },
    ParamDoc {
        key: "dist",
        default: "uniform",
        help: "which files transactions read, append to and delete: uniform (postmark's), zipf:THETA, pareto:H or normal:SIGMA over the file table (postmark's own sequence is then no longer reproduced)",
    },
];

/// Name of the directory in the scratch where the files live.
const WORK_DIR: &str = "postmark";

struct Postmark {
    cfg: Config,
    /// `dist=`: how transactions choose their files.
    dist: fsbench_io::skew::Dist,
}

fn int(p: &mut Params, key: &str, default: &str, min: i64, max: i64) -> Result<i64, ParamError> {
    let v = p.string(key, default);
    match v.trim().parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(ParamError {
            key: key.to_string(),
            message: format!("invalid value '{v}': use a whole number from {min} to {max}"),
        }),
    }
}

fn size(p: &mut Params, key: &str, default: &str) -> Result<u32, ParamError> {
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
    let max = i64::from(config::MAX_INT);
    let cfg = Config {
        number: int(p, "number", "500", 1, i64::from(config::MAX_NUMBER))? as u32,
        size_low: size(p, "size_low", "500")?,
        size_high: size(p, "size_high", "10000")?,
        seed: int(p, "seed", "42", 1, max)? as u32,
        transactions: int(p, "transactions", "500", 1, max)? as u32,
        subdirectories: int(p, "subdirectories", "0", 0, max)? as u32,
        read_block: size(p, "read", "512")?,
        write_block: size(p, "write", "512")?,
        buffering: p.bool("buffering", "true")?,
        bias_read: int(p, "bias_read", "5", -1, 10)? as i32,
        bias_create: int(p, "bias_create", "5", -1, 10)? as i32,
    };
    if cfg.size_high < cfg.size_low {
        return Err(ParamError {
            key: "size_high".into(),
            message: format!(
                "{} is below size_low ({}): give size_high >= size_low",
                cfg.size_high, cfg.size_low
            ),
        });
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
    rec.phase("create", m.t_start_ns - m.start_ns);
    rec.phase("transactions", m.t_end_ns - m.t_start_ns);
    rec.phase("delete", m.end_ns - m.t_end_ns);
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
            size_knob: "number",
            ..Caps::base(Headline::Wall)
        }
    }
}

#[cfg(test)]
mod tests;
