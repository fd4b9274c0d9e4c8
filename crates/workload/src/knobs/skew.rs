//! `dist`: which blocks (or files) requests pick.

use crate::params::{ParamDoc, ParamError, Params};
use fsbench_io::skew::{Dist, parse_dist};

/// Documentation of `dist`.
pub const DIST_DOC: ParamDoc = ParamDoc {
    key: "dist",
    default: "uniform",
    help: "which offsets are chosen: uniform, zipf:THETA (e.g. 1.2), pareto:H (0<H<1, e.g. 0.2) or normal:SIGMA (stddev, % of the range); the note says what share a cache of part of the range would serve",
};

/// Reads `dist` (recorded only when given, so results from before it existed stay comparable).
pub fn dist_param(p: &mut Params) -> Result<Dist, ParamError> {
    if !p.raw().contains_key("dist") {
        return Ok(Dist::Uniform);
    }
    let text = p.string("dist", "uniform");
    parse_dist(&text).map_err(|message| ParamError {
        key: "dist".into(),
        message,
    })
}
