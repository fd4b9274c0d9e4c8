//! Units and directions of metrics, read from their names: names carry their unit as a suffix
//! (`_mib_s`, `_ns`, `_pct`, `_per_s`), so storage and reports never need the workload to know.

use crate::Better;

/// Unit label and better direction of the metric `name`.
pub fn unit_of(name: &str) -> (&'static str, Better) {
    if name.ends_with("_mib_s") {
        ("MiB/s", Better::Higher)
    } else if name == "iops" {
        ("IOPS", Better::Higher)
    } else if name.ends_with("_per_s") {
        ("/s", Better::Higher)
    } else if name.ends_with("_ns") || name.contains("_ns_per_") {
        ("ns", Better::Lower)
    } else if name.ends_with("_pct") {
        ("%", Better::Lower)
    } else {
        ("", Better::Higher)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_give_units() {
        assert_eq!(unit_of("throughput_mib_s"), ("MiB/s", Better::Higher));
        assert_eq!(unit_of("lat_p50_ns"), ("ns", Better::Lower));
        assert_eq!(unit_of("iops"), ("IOPS", Better::Higher));
        assert_eq!(unit_of("files_per_s"), ("/s", Better::Higher));
        assert_eq!(unit_of("cpu_pct").0, "%");
        assert_eq!(unit_of("files").0, "");
        assert_eq!(unit_of("sys_ns_per_entry"), ("ns", Better::Lower));
    }
}
