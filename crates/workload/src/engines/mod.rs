//! One module per registered workload, each exposing `INFO` (name, parameters, builder) for the
//! registry; `rand_io` and `tar_io` are the engines that two or three of them share.

pub mod command;
pub mod fx;
pub mod large_file;
pub mod latency;
pub mod null;
pub mod null_build;
pub mod postmark;
mod rand_io;
pub mod rand_read;
pub mod rand_write;
pub mod replay;
pub mod seek_rate;
pub mod seq_read;
pub mod seq_write;
pub mod status_scan;
pub mod tar_delete;
pub mod tar_extract;
mod tar_io;
pub mod tree_create;
pub mod walk;
