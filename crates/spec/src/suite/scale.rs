//! `--scale F` (or a suite's `scale = F`): makes a suite's run smaller by multiplying, in every
//! workload, exactly the parameters whose declaration says how they scale ([`Scale`]; the
//! suite's value, or the workload's default when the suite does not set it), and nothing else:
//!
//! | parameter | rule |
//! |---|---|
//! | `size` | bytes × F, rounded down to a multiple of the workload's largest `bs` (at least 4 KiB), never below one block; `Nx-ram` becomes `(N×F)x-ram` |
//! | `scale` (generated trees) | × F, at least 0.0001 |
//! | `ops`, `count`, `number`, `transactions` | × F, rounded, at least 1 |
//! | `duration` | × F, at least 10 ms |
//!
//! Block sizes, worker counts, walks, seeds, file-size bounds, modes and intervals are kept, so a
//! scaled run measures the same operations on less data.

use super::file::{ParamSpec, WorkloadSpec};
use fsbench_model::units::{format_size, parse_duration, parse_size};
use fsbench_workload::Scale;
use fsbench_workload::knobs::io::BS;

/// Scales every workload of `workloads` by `factor` (1 leaves them as they are).
pub fn apply(workloads: &mut [WorkloadSpec], factor: f64) {
    if factor == 1.0 {
        return;
    }
    for w in workloads {
        scale_workload(w, factor);
    }
}

fn scale_workload(w: &mut WorkloadSpec, factor: f64) {
    let Some(info) = fsbench_workload::find(&w.name) else {
        return;
    };
    let block = w
        .params
        .iter()
        .filter(|p| p.key == BS.key)
        .flat_map(|p| p.values.iter().filter_map(|(v, _)| parse_size(v).ok()))
        .max()
        .unwrap_or(0)
        .max(4096);
    for doc in info.params.iter().filter(|d| d.scale != Scale::Kept) {
        if !w.params.iter().any(|p| p.key == doc.key) {
            if scale_value(doc.scale, doc.default, factor, block).is_none() {
                continue; // a default like `size/bs` or `-` follows the other parameters
            }
            w.params.push(ParamSpec {
                key: doc.key.to_string(),
                key_pos: w.name_pos,
                values: vec![(doc.default.to_string(), w.name_pos)],
            });
        }
        let p = w
            .params
            .iter_mut()
            .find(|p| p.key == doc.key)
            .expect("invariant: present");
        for (v, _) in &mut p.values {
            if let Some(s) = scale_value(doc.scale, v, factor, block) {
                *v = s;
            }
        }
    }
}

/// `value` of a parameter that scales as `scale`, scaled by `factor`; `None` when it is not a number of that kind
/// (left for the workload's own validation to judge).
pub fn scale_value(scale: Scale, value: &str, factor: f64, block: u64) -> Option<String> {
    match scale {
        Scale::Kept => None,
        Scale::Bytes => scale_size(value, factor, block),
        Scale::Factor => {
            let v: f64 = value.parse().ok()?;
            Some(format_float((v * factor).max(0.0001)))
        }
        Scale::Duration => {
            let ns = parse_duration(value).ok()?;
            let scaled = ((ns as f64 * factor) as u64).max(10_000_000);
            Some(format_duration(scaled))
        }
        Scale::Count => {
            let n: u64 = value.parse().ok()?;
            Some(((n as f64 * factor).round() as u64).max(1).to_string())
        }
    }
}

fn scale_size(value: &str, factor: f64, block: u64) -> Option<String> {
    if let Some(k) = value.strip_suffix("x-ram") {
        let k: f64 = k.parse().ok()?;
        return Some(format!("{}x-ram", format_float(k * factor)));
    }
    let bytes = parse_size(value).ok()?;
    let scaled = (bytes as f64 * factor) as u64 / block * block;
    Some(format_size(scaled.max(block).min(bytes.max(1))))
}

/// A float without trailing zeros (`0.025`, `2`).
fn format_float(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn format_duration(ns: u64) -> String {
    match ns {
        n if n % 1_000_000_000 == 0 => format!("{}s", n / 1_000_000_000),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n => format!("{}us", n / 1_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_to_blocks_and_ram_multiples_scale() {
        assert_eq!(
            scale_value(Scale::Bytes, "128m", 0.1, 1 << 20).as_deref(),
            Some("12m")
        );
        assert_eq!(
            scale_value(Scale::Bytes, "64m", 0.001, 4096).as_deref(),
            Some("64k")
        );
        assert_eq!(
            scale_value(Scale::Bytes, "16k", 0.01, 1 << 20).as_deref(),
            Some("16k")
        );
        assert_eq!(
            scale_value(Scale::Bytes, "2x-ram", 0.1, 4096).as_deref(),
            Some("0.2x-ram")
        );
        assert_eq!(scale_value(Scale::Bytes, "size/bs", 0.1, 4096), None);
    }

    #[test]
    fn counts_trees_and_durations_have_floors() {
        assert_eq!(
            scale_value(Scale::Count, "4096", 0.1, 0).as_deref(),
            Some("410")
        );
        assert_eq!(
            scale_value(Scale::Count, "3", 0.01, 0).as_deref(),
            Some("1")
        );
        assert_eq!(
            scale_value(Scale::Factor, "1", 0.1, 0).as_deref(),
            Some("0.1")
        );
        assert_eq!(
            scale_value(Scale::Factor, "0.001", 0.001, 0).as_deref(),
            Some("0.0001")
        );
        assert_eq!(
            scale_value(Scale::Duration, "3s", 0.1, 0).as_deref(),
            Some("300ms")
        );
        assert_eq!(
            scale_value(Scale::Duration, "500ms", 0.001, 0).as_deref(),
            Some("10ms")
        );
    }
}
