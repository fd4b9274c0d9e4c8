//! Test harness for engines: a temp directory, a built and prepared workload, and samples.

use crate::params::{ParamError, Params};
use crate::{CancelToken, Context, Workload};
use fsbench_measure::{SampleData, SampleRecorder};

/// A workload prepared in its own temp directory.
pub struct Harness {
    /// The temp directory (the workload's scratch).
    pub dir: tempfile::TempDir,
    /// The context handed to the workload.
    pub ctx: Context,
    /// The workload.
    pub workload: Box<dyn Workload>,
}

impl Harness {
    /// Builds the workload from `params` with `build` and prepares it.
    pub fn new(
        build: fn(&mut Params) -> Result<Box<dyn Workload>, ParamError>,
        params: &str,
    ) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let ctx = Context::dir(dir.path(), CancelToken::new());
        let mut p = Params::parse(params).expect("test params parse");
        let mut workload = build(&mut p).expect("test params build");
        workload.prepare(&ctx).expect("prepare");
        Self { dir, ctx, workload }
    }

    /// Takes one sample.
    pub fn sample(&mut self) -> SampleData {
        let mut rec = SampleRecorder::new();
        rec.start();
        self.workload.run(&self.ctx, &mut rec).expect("run");
        rec.finish()
    }

    /// The value of a recorded metric.
    pub fn metric(d: &SampleData, name: &str) -> f64 {
        d.metrics
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .expect("metric recorded")
    }
}
