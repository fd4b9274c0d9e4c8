//! The archive of `tar-extract` and `tar-delete`: `archive=FILE`, or a generated one (`profile`,
//! `scale`, `seed`), and `archive_on`.

use crate::knob::Knob;
use crate::knobs::tree::{self, tree_params};
use crate::params::{ParamError, Params, PathKind};
use fsbench_tree::tarball::{Archive, ArchiveOn, ArchiveSource};

/// `archive`: an existing tarball to use instead of a generated one (only read).
pub const ARCHIVE: Knob<Option<std::path::PathBuf>> = Knob::new(
    "archive",
    "",
    "a tar file to extract (only read); default: a synthetic one",
    |p, k, _| p.existing_path(k, PathKind::File),
);

/// `profile` of the generated archive's tree.
pub const PROFILE: Knob<String> = tree::PROFILE
    .default_to("csail")
    .help_as("tree of the synthetic archive (csail ~76,000 files)");

/// `scale` of the generated archive's tree.
pub const SCALE: Knob<f64> = tree::SCALE
    .default_to("0.01")
    .help_as("scale of the synthetic tree (1 = full size, ~1.8 GiB)");

/// `archive_on`: where the archive is read from.
pub const ARCHIVE_ON: Knob<ArchiveOn> = Knob::new(
    "archive_on",
    "local",
    "where the archive is read from: local (a synthetic one under $TMPDIR, archive= where it is; as the seed kept it on local disk) or target",
    |p, k, d| {
        Ok(match p.choice(k, &["local", "target"], d)? {
            "target" => ArchiveOn::Target,
            _ => ArchiveOn::Local,
        })
    },
);

/// The parameter table of an archive workload (`tar-extract`, `tar-delete`).
pub const DOCS: &[crate::ParamDoc] = &[
    ARCHIVE.doc(),
    PROFILE.doc(),
    SCALE.doc(),
    tree::SEED.help_as("seed of the synthetic tree").doc(),
    ARCHIVE_ON.doc(),
];

/// Reads `archive`, or `profile`, `scale`, `seed` for a generated one, and `archive_on`.
pub fn archive_param(p: &mut Params) -> Result<Archive, ParamError> {
    let source = match ARCHIVE.read(p)? {
        Some(a) => ArchiveSource::File(a),
        None => {
            let (spec, seed) = tree_params(p, PROFILE, SCALE)?;
            ArchiveSource::Generated {
                spec: Box::new(spec),
                seed,
            }
        }
    };
    let on = ARCHIVE_ON.read(p)?;
    Ok(Archive { source, on })
}
