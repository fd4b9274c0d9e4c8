//! `verify`: whether written blocks are sealed and read back, and read blocks checked.

use crate::knob::Knob;
use crate::params::{ParamError, Params};
use fsbench_io::verify::MIN_BLOCK;

/// `verify`: checksum the blocks written or read.
pub const VERIFY: Knob<bool> = crate::knob::boolean(
    "verify",
    "false",
    "checksum every block written (checked when read back after the sample) or read (in a file fsbench wrote); a mismatch fails the sample with offset, expected and found",
);

/// Reads `verify` (recorded only when given, so results from before it existed stay
/// comparable) and refuses what every workload refuses with it: blocks too small for a header,
/// and a file fsbench did not write (`external`). Each workload adds its engine's limits.
pub fn param(p: &mut Params, bs: u64, external: bool) -> Result<bool, ParamError> {
    let verify = VERIFY.read_if_given(p)?.unwrap_or(false);
    if verify && bs < MIN_BLOCK {
        return Err(refusal(format!(
            "needs bs of at least {MIN_BLOCK} bytes to hold each block's header"
        )));
    }
    if verify && external {
        return Err(refusal(
            "checks a file fsbench wrote; drop file= (or verify)".into(),
        ));
    }
    Ok(verify)
}

/// A `verify` parameter error saying `message`.
pub fn refusal(message: String) -> ParamError {
    VERIFY.error(message)
}
