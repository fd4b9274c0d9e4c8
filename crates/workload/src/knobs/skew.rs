//! `dist`: which blocks (or files) requests pick.

use crate::knob::Knob;
use crate::params::{ParamError, Params};
use fsbench_io::skew::{Dist, parse_dist};

/// `dist`: the distribution of the offsets (or files) requests pick.
pub const DIST: Knob<String> = crate::knob::text(
    "dist",
    "uniform",
    "which offsets are chosen: uniform, zipf:THETA (e.g. 1.2), pareto:H (0<H<1, e.g. 0.2) or normal:SIGMA (stddev, % of the range); the note says what share a cache of part of the range would serve",
);

/// Reads `dist` (recorded only when given, so results from before it existed stay comparable).
pub fn dist_param(p: &mut Params) -> Result<Dist, ParamError> {
    match DIST.read_if_given(p)? {
        None => Ok(Dist::Uniform),
        Some(text) => parse_dist(&text).map_err(|message| DIST.error(message)),
    }
}
