//! The fallback for metrics the catalogue does not list: names carry their unit as a suffix
//! (`_mib_s`, `_ns`, `_pct`, `_per_s`).

use crate::Better;
use crate::catalogue::Unit;

/// Unit and better direction of the metric `name`, from its suffix alone.
pub fn by_suffix(name: &str) -> (Unit, Better) {
    if name.ends_with("_mib_s") {
        (Unit::MibPerS, Better::Higher)
    } else if name == "iops" {
        (Unit::Iops, Better::Higher)
    } else if name.ends_with("_per_s") {
        (Unit::PerS("/s"), Better::Higher)
    } else if name.ends_with("_ns") || name.contains("_ns_per_") {
        (Unit::Ns, Better::Lower)
    } else if name.ends_with("_pct") {
        (Unit::Pct, Better::Lower)
    } else {
        (Unit::Count, Better::Higher)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_give_units() {
        let label = |n: &str| (by_suffix(n).0.label(), by_suffix(n).1);
        assert_eq!(label("throughput_mib_s"), ("MiB/s", Better::Higher));
        assert_eq!(label("lat_p50_ns"), ("ns", Better::Lower));
        assert_eq!(label("iops"), ("IOPS", Better::Higher));
        assert_eq!(label("files_per_s"), ("/s", Better::Higher));
        assert_eq!(label("cpu_pct").0, "%");
        assert_eq!(label("files").0, "");
        assert_eq!(label("sys_ns_per_entry"), ("ns", Better::Lower));
    }
}
