//! The tables of a run, built once from its record as typed [`Table`]s: results, times and CPU
//! (with the FUSE daemon's CPU and the device's counters when measured), what bounded each
//! result, MPI ranks, scaling, comparisons, and the seed studies' layouts. Terminal, Markdown and
//! HTML all draw these, so every format shows the same tables.

pub mod bound;
pub mod calls;
pub mod comparisons;
pub mod load;
pub mod profile;
pub mod ranks;
pub mod results;
pub mod scaling;
pub mod sequential;
pub mod times;

use crate::names::CellNames;
use crate::table::Table;
use fsbench_model::{CacheState, ResultEntry, RunRecord};

/// The standard tables of `record`, in the order every format shows them (a table with no rows
/// is left out): results, times and CPU, bound by, ranks, one per scaling sweep.
pub fn standard(record: &RunRecord, names: &CellNames) -> Vec<Table> {
    let measured = record.results.iter().any(|r| !r.samples.is_empty());
    let mut out = Vec::new();
    if measured {
        out.push(results::table(record, names));
        out.push(times::table(record, names));
        out.extend(bound::table(record, names));
        out.extend(profile::tables(record, names));
        out.extend(calls::tables(record, names));
        out.extend(load::open_loop(record, names));
        out.extend(load::curve(record, names));
        out.extend(crate::tables::ranks::table(record, names));
    }
    out.extend(record.scaling.iter().map(scaling::table));
    out
}

/// A share in percent (`12%`), or `-` when not measured.
pub fn pct_or_dash(v: Option<f64>) -> String {
    v.filter(|p| p.is_finite())
        .map(|p| format!("{p:.0}%"))
        .unwrap_or_else(|| "-".into())
}

/// The mean of metric `name` in `r`; `None` when the cell has no such metric.
pub fn mean_of(r: &ResultEntry, name: &str) -> Option<f64> {
    r.summary
        .get(name)
        .map(|s| s.mean)
        .filter(|v| v.is_finite())
}

/// The cache state with how it was reached and the residency before the samples
/// (`cold (drop_caches) 0%`, `warm 100%`).
pub fn cache_label(r: &ResultEntry) -> String {
    let res = r
        .cache
        .resident_pct
        .map(|p| format!(" {p:.0}%"))
        .unwrap_or_default();
    if r.cache.state == CacheState::Cold {
        format!("cold ({}){res}", r.cache.method)
    } else {
        format!("warm{res}")
    }
}
