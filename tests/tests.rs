//! The one integration-test binary: topic modules that run the real `fsbench` on temp dirs.

mod util;

mod aged;
mod cli;
mod cliff;
mod cluster;
mod cpu;
mod defaults;
mod env;
mod escaping;
mod estimate;
mod exit_codes;
mod explain;
mod hardening;
mod lab;
mod lab_layers;
mod load;
mod ministat;
mod mpi;
mod netfs;
mod postmark;
mod profile;
mod races;
mod report;
mod run;
mod safety;
mod screenshots;
mod series;
mod series_all;
mod steady;
mod store;
mod suite;
mod tables;
mod tar;
mod tree;
mod uring;
