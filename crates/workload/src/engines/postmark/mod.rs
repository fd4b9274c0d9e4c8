//! `postmark`: the mail-server benchmark, replayed faithfully (same random draws, names, sizes and
//! operation order as postmark 1.51/1.53, so the counts equal Debian postmark's), with
//! nanosecond timing per phase and per operation instead of postmark's whole seconds.

mod config;
mod engine;
mod rng;

pub use config::PmConfig;
pub use engine::{KINDS, PmCounts, PmOpTimes, PmTimes, run};
pub use rng::PmRng;

use crate::params::{ParamDoc, ParamError, Params};
use crate::registry::WorkloadInfo;
use crate::{Context, Headline, Recorder, Workload, WorkloadError};
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "postmark",
    summary: "postmark 1.51's small-file mail-server workload, same counts, nanosecond timers",
    params: PARAMS,
    build,
};

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "number",
        default: "500",
        help: "base number of files (set number)",
    },
    ParamDoc {
        key: "size_low",
        default: "500",
        help: "smallest file (set size L H)",
    },
    ParamDoc {
        key: "size_high",
        default: "10000",
        help: "largest file",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "random seed",
    },
    ParamDoc {
        key: "transactions",
        default: "500",
        help: "transactions",
    },
    ParamDoc {
        key: "subdirectories",
        default: "0",
        help: "subdirectories (used when > 1)",
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
        help: "stdio buffered I/O (true) or plain read/write",
    },
    ParamDoc {
        key: "bias_read",
        default: "5",
        help: "read vs append, 0..10 (-1 disables)",
    },
    ParamDoc {
        key: "bias_create",
        default: "5",
        help: "create vs delete, 0..10 (-1 disables)",
    },
];

fn bias(p: &mut Params, key: &str) -> Result<i64, ParamError> {
    let v = p.string(key, "5");
    v.parse::<i64>()
        .ok()
        .filter(|b| (-1..=10).contains(b))
        .ok_or_else(|| ParamError {
            key: key.into(),
            message: format!("invalid bias '{v}': use -1..10"),
        })
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let size_low = p.positive_size("size_low", "500")?;
    let cfg = PmConfig {
        number: p.u64("number", "500")?.max(1),
        size_low,
        size_high: p.positive_size("size_high", "10000")?.max(size_low),
        seed: p.u64("seed", "42")? as u32,
        transactions: p.u64("transactions", "500")?,
        subdirectories: p.u64("subdirectories", "0")?,
        read_bs: p.positive_size("read", "512")?,
        write_bs: p.positive_size("write", "512")?,
        buffered: p.bool("buffering", "true")?,
        bias_read: bias(p, "bias_read")?,
        bias_create: bias(p, "bias_create")?,
    };
    Ok(Box::new(Postmark { cfg }))
}

struct Postmark {
    cfg: PmConfig,
}

impl Workload for Postmark {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        ctx.scratch()
            .map(|_| ())
            .ok_or_else(|| WorkloadError::Unsupported("postmark needs a directory target".into()))
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let dir = ctx.scratch().ok_or_else(|| {
            WorkloadError::Unsupported("postmark needs a directory target".into())
        })?;
        let (c, t, ops) = run(&self.cfg, dir, rec, &ctx.cancel)?;
        if c.out_of_files {
            return Err(WorkloadError::Invalid(
                "postmark ran out of files: increase number or decrease transactions".into(),
            ));
        }
        rec.phase("create", t.ns[1] - t.ns[0]);
        rec.phase("transactions", t.ns[2] - t.ns[1]);
        rec.phase("delete", t.ns[3] - t.ns[2]);
        let tx_s = (t.ns[2] - t.ns[1]).max(1) as f64 / 1e9;
        rec.metric("transactions_per_s", self.cfg.transactions as f64 / tx_s);
        for (name, v) in [
            ("created", c.created),
            ("read", c.read),
            ("appended", c.appended),
            ("deleted", c.deleted),
            ("bytes_read", c.bytes_read),
            ("bytes_written", c.bytes_written),
        ] {
            rec.metric(name, v as f64);
        }
        for (k, kind) in KINDS.iter().enumerate() {
            if ops.count[k] > 0 {
                rec.metric(
                    &format!("{kind}_mean_ns"),
                    ops.total_ns[k] as f64 / ops.count[k] as f64,
                );
            }
        }
        Ok(())
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        Vec::new()
    }

    fn writes(&self) -> bool {
        true
    }

    fn space_needed(&self) -> u64 {
        2 * self.cfg.number * self.cfg.size_high
    }

    fn headline(&self) -> Headline {
        Headline::Metric {
            name: "transactions_per_s",
            unit: "tx/s",
            higher_is_better: true,
        }
    }

    fn cold_needs_global(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn counts_balance_and_the_directory_ends_empty() {
        let mut h = Harness::new(
            build,
            "number=20,transactions=50,size_high=2000,subdirectories=3",
        );
        let d = h.sample();
        let m = |n| Harness::metric(&d, n);
        assert_eq!(m("created"), m("deleted"));
        assert!(m("read") + m("appended") <= 50.0);
        assert_eq!(std::fs::read_dir(h.dir.path()).unwrap().count(), 0);
    }
}
