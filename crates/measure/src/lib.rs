//! Measurement for fsbench: clocks, CPU usage from the OS, and the `Recorder` that a workload feeds
//! one operation at a time. This crate knows time, not work: it never learns which workload runs.
#![warn(missing_docs)]

mod clock;
mod cpu;
mod overhead;
mod recorder;

pub use clock::{Clock, FakeClock, MonotonicClock};
pub use cpu::CpuTimes;
pub use overhead::{Overhead, measure_overhead};
pub use recorder::{LatencyStats, Recorder, SampleData, SampleRecorder};
