//! `null`: does no I/O. Measures fsbench's own per-operation overhead and drives end-to-end tests
//! deterministically (fio's null engine).

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use std::path::PathBuf;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "null",
    summary: "no I/O: records `ops` empty operations (fsbench's own overhead)",
    params: PARAMS,
    build,
    shared: false,
};

/// `ops`: empty operations per sample.
const OPS: Knob<u64> = crate::knob::count(
    fsbench_model::param::OPS,
    "1000",
    "empty operations per sample",
)
.scaled(crate::Scale::Count);

/// `sleep`: time slept per sample.
const SLEEP: Knob<u64> = Knob::new(
    fsbench_model::param::SLEEP,
    "0s",
    "sleep this long per sample (for signal tests)",
    Params::duration,
);

const PARAMS: &[ParamDoc] = &[OPS.doc(), SLEEP.doc()];

struct Null {
    ops: u64,
    sleep_ns: u64,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    Ok(Box::new(Null {
        ops: OPS.read(p)?,
        sleep_ns: SLEEP.read(p)?,
    }))
}

impl Workload for Null {
    fn prepare(&mut self, _ctx: &Context) -> Result<(), WorkloadError> {
        Ok(())
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let mut t = rec.now_ns();
        for i in 0..self.ops {
            if i % 4096 == 0 {
                ctx.cancel.check()?;
            }
            t = rec.op_done(t, 0);
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_nanos(self.sleep_ns);
        while std::time::Instant::now() < deadline {
            ctx.cancel.check()?;
            std::thread::sleep(
                std::time::Duration::from_millis(5)
                    .min(deadline.saturating_duration_since(std::time::Instant::now())),
            );
        }
        Ok(())
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        Vec::new()
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: false,
            supports_device: true,
            ..Caps::base(Headline::Iops)
        }
    }
}
