//! The one integration-test binary: topic modules that run the real `fsbench` on temp dirs.

mod util;

mod aged;
mod cli;
mod cliff;
mod cluster;
mod cpu;
mod defaults;
mod env;
mod estimate;
mod explain;
mod hardening;
mod lab;
mod lab_layers;
mod load;
mod ministat;
mod mpi;
mod postmark;
mod profile;
mod report;
mod run;
mod safety;
mod screenshots;
mod series;
mod steady;
mod store;
mod suite;
mod tables;
mod tar;
mod tree;
mod uring;
