//! Trees and archives, the material of fsbench's metadata workloads: synthetic source trees (a
//! deterministic, seeded description of directories and files shaped like real checkouts —
//! Chromium, Firefox, Linux — and writing one to disk: the same profile, scale and seed give the
//! same tree, with the same manifest hash, on every machine), the directory walker and its
//! multi-process form, and tarballs with their streaming, confined extraction.
//!
//! Nothing here reads `key=value` parameters: the workloads resolve theirs into a [`TreeSpec`],
//! a [`tarball::Archive`] or a walk's [`walker::StatMode`].
#![warn(missing_docs)]

pub mod index;
pub mod local_archive;
mod profile;
mod spec;
pub mod tarball;
pub mod untar;
pub mod walk_procs;
pub mod walker;
mod write;

pub use profile::{PROFILES, Profile};
pub use spec::{Manifest, TreeSpec};
pub use write::{remove_shared_tree, remove_tree, stat_files, write_tree, write_tree_as};
