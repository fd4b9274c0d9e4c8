//! The operating-system seam of fsbench. Every Linux-specific call that the engine needs beyond
//! a workload's own syscall loop lives here, behind plain functions, so that a macOS module
//! (F_NOCACHE for direct I/O, `purge` for cold caches) can sit beside the Linux one without the
//! rest of fsbench changing.
#![warn(missing_docs)]

pub mod cache;
pub mod cleanup;
pub mod fscrypt;
pub mod fskind;
pub mod proc;
pub mod process;
pub mod remove;
pub mod residency;
