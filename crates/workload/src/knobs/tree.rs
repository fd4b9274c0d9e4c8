//! The `profile`, `scale` and `seed` parameters shared by every generated-tree workload.

use crate::params::{ParamError, Params};
use fsbench_tree::{Profile, TreeSpec};

/// Reads `profile`, `scale` and `seed` and generates the spec (shared with walk and friends).
pub fn tree_params(
    p: &mut Params,
    default_profile: &str,
    default_scale: &str,
) -> Result<(TreeSpec, u64), ParamError> {
    let name = p.string("profile", default_profile);
    let profile = Profile::find(&name).ok_or_else(|| ParamError {
        key: "profile".into(),
        message: format!("unknown profile '{name}': use one of {}", Profile::names()),
    })?;
    let scale_text = p.string("scale", default_scale);
    let scale: f64 = scale_text
        .parse()
        .ok()
        .filter(|s: &f64| (0.0001..=10.0).contains(s))
        .ok_or_else(|| ParamError {
            key: "scale".into(),
            message: format!("invalid scale '{scale_text}': use a number from 0.0001 to 10"),
        })?;
    let seed = p.u64("seed", "42")?;
    let spec = TreeSpec::generate(&profile, scale, seed);
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
