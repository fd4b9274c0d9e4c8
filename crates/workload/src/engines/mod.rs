//! One module per workload. Each exposes `INFO` (name, parameters, builder) for the registry.

pub mod command;
pub mod common;
pub mod curve;
pub mod direct_check;
pub mod jobs;
pub mod large_file;
pub mod latency;
pub mod local_archive;
pub mod null;
pub mod null_build;
pub mod pace;
pub mod postmark;
pub mod queue;
pub mod rand_io;
pub mod seq_read;
pub mod seq_write;
pub mod skew;
pub mod status_scan;
pub mod tar_io;
pub mod tarball;
pub mod tree_create;
pub mod untar;
pub mod uring;
pub mod verify;
pub mod walk;
pub mod walk_procs;
