//! What to run, said once: the [`RunSpec`] that the command line and suite files both produce
//! (suites are read straight into it, never turned back into flags), and its validation into a
//! [`plan::Plan`] of targets × workloads × cache states. Every input error is found here, before
//! anything is written, as a one-line [`fsbench_model::Failure`].
#![warn(missing_docs)]

pub mod checks;
pub mod cold;
pub mod lab;
pub mod plan;
pub mod precondition;
mod run_spec;
pub mod suite;

pub use run_spec::{
    CacheChoice, Order, RunSpec, Session, TargetSpec, WorkloadRequest, parse_cold_timeout,
    parse_interval, parse_max_time,
};
