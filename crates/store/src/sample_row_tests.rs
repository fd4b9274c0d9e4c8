//! The compact sample row: exact round trips, the metric names kept once, what it leaves to
//! JSON, damage refused, and the bytes of versions 1 and 2 frozen.

use super::*;

fn full() -> Sample {
    let mut s = Sample::new(34_875, 1_000, 37_000, 1000, 4096);
    s.metrics = BTreeMap::from([
        ("cpu_pct".to_string(), 106.093_189_964_157_7),
        ("iops".to_string(), 28_673_835.125_448_03),
        ("lat_p99_ns".to_string(), 50.0),
    ]);
    s.latency = Some(LatencySummary {
        count: 1000,
        min_ns: 20,
        mean_ns: 33.443,
        stddev_ns: 11.394_944_098_151_6,
        p50_ns: 30,
        p90_ns: 40,
        p99_ns: 50,
        p999_ns: 150,
        max_ns: 310,
    });
    s.phases = BTreeMap::from([("create".to_string(), 12_345)]);
    s.resident_pct = Some(0.5);
    s.outlier = true;
    s.machine = Some(MachineCpu {
        cpus: 2,
        user_ns: 1,
        sys_ns: 2,
        iowait_ns: 3,
        irq_ns: 4,
        idle_ns: 5,
        steal_ns: 6,
        context_switches: 7,
    });
    s.daemon = Some(CpuPair {
        user_ns: 8,
        sys_ns: 9,
    });
    s.process = Some(ProcessCounts {
        major_faults: 1,
        voluntary_switches: 2,
        involuntary_switches: 3,
    });
    s.devices = vec![DeviceIo {
        name: "vda".into(),
        read_bytes: 4096,
        write_bytes: 0,
        read_ios: 1,
        write_ios: 0,
        io_ticks_ms: 3,
        queue_ms: 4,
    }];
    s.series = vec![SeriesPoint {
        t_ns: 34_875,
        ops: 1000,
        bytes: 0,
        lat_p50_ns: Some(30),
        lat_p99_ns: None,
        lat_max_ns: Some(310),
    }];
    s.series_interval_ns = Some(2_000_000);
    s.peak_rss_kib = Some(187_432);
    s
}

fn columns(s: &Sample) -> Columns {
    Columns {
        wall_ns: s.wall_ns,
        user_ns: s.user_ns,
        sys_ns: s.sys_ns,
        ops: s.ops,
        bytes: s.bytes,
    }
}

fn names(s: &Sample) -> Vec<String> {
    s.metrics.keys().cloned().collect()
}

#[test]
fn a_sample_round_trips_exactly_with_its_values_alone() {
    let s = full();
    let row = encode(&s, &names(&s), true).unwrap();
    let json = serde_json::to_string(&s).unwrap();
    assert!(
        row.len() * 3 < json.len(),
        "{} bytes for {}",
        row.len(),
        json.len()
    );
    assert_eq!(decode(&row, Some(&names(&s)), columns(&s)), Some(s.clone()));
    // Values alone cannot be read without the names they belong to.
    assert_eq!(decode(&row, None, columns(&s)), None);
    assert_eq!(decode(&row, Some(&names(&s)[..2]), columns(&s)), None);
}

#[test]
fn other_metric_names_are_kept_with_their_values() {
    let s = full();
    let row = encode(&s, &["iops".to_string()], true).unwrap();
    assert_eq!(
        decode(&row, Some(&["x".to_string()]), columns(&s)),
        Some(s.clone())
    );
    assert_eq!(decode(&row, None, columns(&s)), Some(s));
}

#[test]
fn a_series_in_its_own_column_is_left_out() {
    let s = full();
    let row = encode(&s, &names(&s), false).unwrap();
    let back = decode(&row, Some(&names(&s)), columns(&s)).unwrap();
    assert!(back.series.is_empty());
    assert_eq!(back.series_interval_ns, None);
}

#[test]
fn samples_of_hosts_servers_or_off_cpu_are_left_to_json() {
    let mut s = full();
    s.off_cpu.insert("io".into(), 5);
    assert_eq!(encode(&s, &names(&s), true), None);
}

#[test]
fn damaged_or_foreign_rows_are_refused() {
    let s = full();
    let n = names(&s);
    let row = encode(&s, &n, true).unwrap();
    assert_eq!(
        decode(&row[..row.len() - 1], Some(&n), columns(&s)),
        None,
        "truncated"
    );
    let mut longer = row.clone();
    longer.push(0);
    assert_eq!(
        decode(&longer, Some(&n), columns(&s)),
        None,
        "trailing bytes"
    );
    let mut other = row;
    other[0] = 3;
    assert_eq!(
        decode(&other, Some(&n), columns(&s)),
        None,
        "another version"
    );
    assert_eq!(decode(&[], Some(&n), columns(&s)), None);
}

/// Version 2's bytes, as stored in databases: if this fails, the format changed — give it a
/// new version and keep reading this one.
#[test]
fn version_2_bytes_are_frozen() {
    let s = full();
    let row = encode(&s, &names(&s), true).unwrap();
    let hex: String = row.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, FROZEN_2, "the row format of version 2 changed");
}

/// Rows of version 1 (before `peak_rss_kib`) are still read, without it.
#[test]
fn version_1_rows_are_read_without_peak_memory() {
    let s = full();
    let bytes: Vec<u8> = (0..FROZEN.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&FROZEN[i..i + 2], 16).unwrap())
        .collect();
    let back = decode(&bytes, Some(&names(&s)), columns(&s)).unwrap();
    let mut want = s;
    want.peak_rss_kib = None;
    assert_eq!(back, want);
}

const FROZEN_2: &str = "020003db170ad3f6855a40cbd501b272587b41000000000000494001e8071462105839b4b84040619ee21c36ca26401e28329601b6020106637265617465b96001000000000000e03f010102010203040506070108090101020301037664618020000100030401bb9002e80700011e0001b6020180897a01a8b80b";

const FROZEN: &str = "010003db170ad3f6855a40cbd501b272587b41000000000000494001e8071462105839b4b84040619ee21c36ca26401e28329601b6020106637265617465b96001000000000000e03f010102010203040506070108090101020301037664618020000100030401bb9002e80700011e0001b6020180897a";
