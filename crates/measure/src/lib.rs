//! Measurement for fsbench: clocks, CPU usage from the OS, and the `Recorder` that a workload feeds
//! one operation at a time. This crate knows time, not work: it never learns which workload runs.
#![warn(missing_docs)]

pub mod aggregate;
mod clock;
mod cpu;
pub mod diskstats;
pub mod histo;
pub mod live;
mod machine;
pub mod memory;
pub mod netstats;
mod overhead;
pub mod proctree;
mod recorder;
pub mod series;
pub mod servers;
pub mod ticker;

pub use clock::{Clock, FakeClock, MonotonicClock};
pub use cpu::{CpuTimes, ProcessCounters, thread_faults};
pub use live::{LiveRate, Rate};
pub use machine::{
    CpuDelta, CpuSnapshot, MachineCpuNs, MachineTicks, clock_ticks_per_s, parse_pid_stat,
    parse_proc_stat,
};
pub use overhead::{Overhead, measure_overhead};
pub use proctree::TreeWatch;
pub use recorder::{
    LatencyStats, ProgressPoint, Recorder, SampleData, SampleRecorder, TRACE_POINTS, latency_stats,
    spread,
};
pub use series::{RawSeries, SeriesPoint};
pub use ticker::{Counter, Ticker, merge_ticked};
