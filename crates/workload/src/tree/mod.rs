//! Synthetic source trees: a deterministic, seeded description of directories and files shaped
//! like real checkouts (Chromium, Firefox, Linux), and writing one to disk. The same profile,
//! scale and seed give the same tree, with the same manifest hash, on every machine.

pub mod index;
mod params;
mod profile;
mod source;
mod spec;
mod write;

pub use params::tree_params;
pub use profile::{PROFILES, Profile};
pub use source::TreeSource;
pub use spec::{Manifest, TreeSpec};
pub use write::{remove_shared_tree, remove_tree, stat_files, write_tree, write_tree_as};
