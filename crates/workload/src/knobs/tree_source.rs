//! Where a tree workload's tree comes from: generated into the scratch (profile, scale, seed) or
//! an existing directory that is only ever read (`tree=PATH`).

use crate::knob::Knob;
use crate::knobs::tree::{SCALE, SEED};
use crate::params::{ParamError, Params};
use crate::{Context, WorkloadError};
use fsbench_model::param;
use fsbench_tree::{Manifest, TreeSpec, write_tree};
use std::path::PathBuf;

/// `tree`: the tree a workload reads, generated or an existing directory (read only).
pub const TREE: Knob<String> = crate::knob::text(
    param::TREE,
    param::GENERATED,
    "generated, or an existing directory (read only)",
);

/// The tree of a workload.
pub enum TreeSource {
    /// Generated into `tree/` of the scratch during `prepare`.
    Generated {
        /// The tree.
        spec: Box<TreeSpec>,
        /// Seed of its contents.
        seed: u64,
    },
    /// A user's tree, read only.
    Existing(PathBuf),
}

impl TreeSource {
    /// Reads `tree` (and, for a generated one, `profile`, `scale`, `seed`).
    pub fn from_params(
        p: &mut Params,
        profile: Knob<String>,
        scale: Knob<f64>,
    ) -> Result<Self, ParamError> {
        let tree = TREE.read(p)?;
        if tree == param::GENERATED {
            let (spec, seed) = crate::knobs::tree::tree_params(p, profile, scale)?;
            return Ok(Self::Generated {
                spec: Box::new(spec),
                seed,
            });
        }
        if let Some(key) = [profile.key, SCALE.key, SEED.key]
            .into_iter()
            .find(|k| p.optional(k).is_some())
        {
            return Err(ParamError {
                key: key.into(),
                message: "applies only to tree=generated".into(),
            });
        }
        let path = PathBuf::from(&tree);
        if !path.is_dir() {
            return Err(TREE.error(format!(
                "'{tree}' is not an existing directory: give a directory to read, or tree=generated"
            )));
        }
        p.input(TREE.key, &path);
        Ok(Self::Existing(path))
    }

    /// The tree's root directory.
    pub fn root(&self, ctx: &Context) -> Result<PathBuf, WorkloadError> {
        match self {
            Self::Existing(p) => Ok(p.clone()),
            Self::Generated { .. } => ctx.scratch().map(|d| d.join("tree")).ok_or_else(|| {
                WorkloadError::Unsupported("this workload needs a directory target".into())
            }),
        }
    }

    /// Writes a generated tree; checks an existing one is a directory.
    pub fn prepare(&self, ctx: &Context) -> Result<PathBuf, WorkloadError> {
        let root = self.root(ctx)?;
        match self {
            Self::Generated { spec, seed } => {
                std::fs::create_dir(&root).map_err(|e| WorkloadError::io("mkdir", &root, e))?;
                write_tree(spec, &root, *seed, &ctx.cancel)?;
            }
            Self::Existing(p) if p.is_dir() => {}
            Self::Existing(p) => {
                return Err(WorkloadError::Invalid(format!(
                    "tree={} is not a directory",
                    p.display()
                )));
            }
        }
        Ok(root)
    }

    /// True when prepare writes (a generated tree).
    pub fn writes(&self) -> bool {
        matches!(self, Self::Generated { .. })
    }

    /// Space a generated tree needs (its bytes plus a block per entry).
    /// Inodes the generated tree needs (nothing for an existing one).
    pub fn inodes_needed(&self) -> u64 {
        match self {
            Self::Generated { spec, .. } => {
                let m: Manifest = spec.manifest();
                m.files + m.dirs
            }
            Self::Existing(_) => 0,
        }
    }

    /// Bytes the generated tree needs (nothing for an existing one).
    pub fn space_needed(&self) -> u64 {
        match self {
            Self::Generated { spec, .. } => {
                let m: Manifest = spec.manifest();
                m.bytes + (m.files + m.dirs) * 4096
            }
            Self::Existing(_) => 0,
        }
    }
}
