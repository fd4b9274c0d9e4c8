//! The archive of `tar-extract` and `tar-delete`: `archive=FILE`, or a generated one (`profile`,
//! `scale`, `seed`), and `archive_on`.

use crate::knobs::tree::tree_params;
use crate::params::{ParamError, Params, PathKind};
use fsbench_tree::tarball::{Archive, ArchiveOn, ArchiveSource};

/// Reads `archive`, or `profile`, `scale`, `seed` for a generated one, and `archive_on`.
pub fn archive_param(p: &mut Params) -> Result<Archive, ParamError> {
    let source = match p.existing_path("archive", PathKind::File)? {
        Some(a) => ArchiveSource::File(a),
        None => {
            let (spec, seed) = tree_params(p, "csail", "0.01")?;
            ArchiveSource::Generated {
                spec: Box::new(spec),
                seed,
            }
        }
    };
    let on = match p.choice("archive_on", &["local", "target"], "local")? {
        "target" => ArchiveOn::Target,
        _ => ArchiveOn::Local,
    };
    Ok(Archive { source, on })
}
