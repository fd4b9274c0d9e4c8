//! The fallback for metrics the catalogue does not list: names carry their unit as a suffix
//! (`_mib_s`, `_ns`, `_pct`, `_per_s`).

use crate::Better;

/// Unit label and better direction of the metric `name`, from its suffix alone.
pub fn by_suffix(name: &str) -> (&'static str, Better) {
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
        assert_eq!(by_suffix("throughput_mib_s"), ("MiB/s", Better::Higher));
        assert_eq!(by_suffix("lat_p50_ns"), ("ns", Better::Lower));
        assert_eq!(by_suffix("iops"), ("IOPS", Better::Higher));
        assert_eq!(by_suffix("files_per_s"), ("/s", Better::Higher));
        assert_eq!(by_suffix("cpu_pct").0, "%");
        assert_eq!(by_suffix("files").0, "");
        assert_eq!(by_suffix("sys_ns_per_entry"), ("ns", Better::Lower));
    }
}
