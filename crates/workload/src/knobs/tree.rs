//! The `profile`, `scale` and `seed` parameters shared by every generated-tree workload.

use crate::knob::Knob;
use crate::params::{ParamError, Params};
use fsbench_tree::{Profile, TreeSpec};

/// `profile`: the shape of a generated tree (each workload declares its default).
pub const PROFILE: Knob<String> =
    crate::knob::text("profile", "chromium", "profile of the generated tree");

/// `scale`: a generated tree's size relative to its profile (1 = the profile's full size).
pub const SCALE: Knob<f64> = Knob::new("scale", "0.1", "scale of the generated tree", |p, k, d| {
    let text = p.string(k, d);
    text.parse()
        .ok()
        .filter(|s: &f64| (0.0001..=10.0).contains(s))
        .ok_or_else(|| ParamError {
            key: k.into(),
            message: format!("invalid scale '{text}': use a number from 0.0001 to 10"),
        })
})
.scaled(crate::Scale::Factor);

/// `seed` of a generated tree's names, sizes and contents.
pub const SEED: Knob<u64> = crate::knobs::io::SEED.help_as("seed of the generated tree");

/// Reads `profile`, `scale` and `seed` and generates the spec (shared with walk and friends).
pub fn tree_params(
    p: &mut Params,
    profile: Knob<String>,
    scale: Knob<f64>,
) -> Result<(TreeSpec, u64), ParamError> {
    let name = profile.read(p)?;
    let found = Profile::find(&name).ok_or_else(|| {
        profile.error(format!(
            "unknown profile '{name}': use one of {}",
            Profile::names()
        ))
    })?;
    let scale = scale.read(p)?;
    let seed = SEED.read(p)?;
    let spec = TreeSpec::generate(&found, scale, seed);
    let m = spec.manifest();
    p.record(
        "manifest",
        format!(
            "files={} dirs={} bytes={} hash={:016x}",
            m.files, m.dirs, m.bytes, m.hash
        ),
    );
    Ok((spec, seed))
}
