//! The classifier on recorded counters: this machine's lab runs (numbers copied from the runs
//! that `docs/methodology.md` shows) and the seeds' own published figures.

use super::bound::{Facts, classify};
use fsbench_model::{
    Better, BoundBy, CacheInfo, CacheState, CryptoImpl, DeviceIo, EncryptionLayer, FuseInfo,
    MetricSummary, ResultEntry, Sample, ScalingVerdict, TargetInfo,
};

fn summary(v: f64) -> MetricSummary {
    MetricSummary {
        n: 3,
        min: v,
        max: v,
        median: v,
        mean: v,
        stddev: 0.0,
        ci95: None,
        unit: String::new(),
        better: Better::Higher,
    }
}

/// A cold cell with `metrics` as every sample's and the summary's values, and devices whose
/// busiest had I/O in flight `busy_pct` of a 100 ms sample.
fn cell(metrics: &[(&str, f64)], busy_pct: Option<f64>, params: &[(&str, &str)]) -> ResultEntry {
    let mut s: Sample = serde_json::from_value(serde_json::json!({
        "wall_ns": 100_000_000u64, "user_ns": 0, "sys_ns": 0, "ops": 2000, "bytes": 8_192_000, "metrics": {}
    }))
    .unwrap();
    for (k, v) in metrics {
        s.metrics.insert((*k).into(), *v);
    }
    if let Some(b) = busy_pct {
        s.devices = vec![
            DeviceIo {
                name: "loop0".into(),
                io_ticks_ms: b as u64,
                ..DeviceIo::default()
            },
            DeviceIo {
                name: "vda".into(),
                io_ticks_ms: (b / 2.0) as u64,
                ..DeviceIo::default()
            },
        ];
    }
    ResultEntry {
        target: "t".into(),
        workload: "w".into(),
        params: params
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect(),
        sweep: Default::default(),
        cache: CacheInfo {
            state: CacheState::Cold,
            method: "drop_caches".into(),
            resident_pct: Some(0.0),
        },
        headline: "iops".into(),
        also_shown: Vec::new(),
        samples: vec![s],
        summary: metrics
            .iter()
            .map(|(k, v)| ((*k).into(), summary(*v)))
            .collect(),
        precision_reached: None,
        steady: None,
        warnings: Vec::new(),
        error: None,
        bound: None,
        profile: None,
    }
}

fn target(fs: &str) -> TargetInfo {
    TargetInfo {
        fs_type: fs.into(),
        ..TargetInfo::default()
    }
}

fn judge(
    e: &ResultEntry,
    t: Option<&TargetInfo>,
    scaling: Option<ScalingVerdict>,
) -> (BoundBy, String) {
    let b = classify(&Facts {
        entry: e,
        target: t,
        cpus: 2,
        overhead_per_op_ns: 60.0,
        scaling,
        implausible: None,
    })
    .expect("a cell with samples is judged");
    (b.by, b.evidence)
}

#[test]
fn cold_random_reads_on_lab_ext4_are_device_bound() {
    // Recorded: 18.6k IOPS, loop0 busy 75%, fsbench 26% CPU, 95% of the bytes from the device.
    let e = cell(
        &[
            ("cpu_pct", 26.0),
            ("served_by_device_pct", 95.0),
            ("lat_p50_ns", 54_300.0),
        ],
        Some(75.0),
        &[("iodepth", "1"), ("jobs", "1")],
    );
    let (by, why) = judge(&e, Some(&target("ext4")), None);
    assert_eq!(by, BoundBy::Device, "{why}");
    assert!(why.contains("75%"), "{why}");
}

#[test]
fn a_device_that_read_more_than_was_asked_says_so_and_what_it_moved() {
    // Recorded on lab ext4: 32 MiB of 4 KiB random reads, the device read 188.5 MiB (589%).
    let e = cell(
        &[
            ("cpu_pct", 15.0),
            ("served_by_device_pct", 589.0),
            ("device_read_bytes", 197_656_576.0),
            ("device_write_bytes", 0.0),
        ],
        Some(85.0),
        &[("iodepth", "1"), ("jobs", "1")],
    );
    let (by, why) = judge(&e, Some(&target("ext4")), None);
    assert_eq!(by, BoundBy::Device, "{why}");
    assert!(why.contains("5.9x the bytes the workload read"), "{why}");
    assert!(!why.contains("589%"), "{why}");
    assert!(why.contains("moved 1885.0 MiB/s"), "{why}");
}

#[test]
fn anything_on_tmpfs_is_cache_bound() {
    let e = cell(&[("cpu_pct", 99.0)], None, &[]);
    let (by, why) = judge(&e, Some(&target("tmpfs")), None);
    assert_eq!(by, BoundBy::Cache);
    assert!(why.contains("memory"), "{why}");
}

fn fscrypt_target() -> TargetInfo {
    let mut t = target("ext4");
    t.stack.encryption.push(EncryptionLayer {
        kind: fsbench_model::EncryptionKind::Fscrypt,
        implementation: Some(CryptoImpl {
            algorithm: "xts(aes)".into(),
            driver: "xts(ecb(aes-fixed-time))".into(),
            software: true,
            cpu_has_aes: true,
            source: "kernel log".into(),
        }),
        ..EncryptionLayer::default()
    });
    t
}

#[test]
fn cold_buffered_reads_on_fscrypt_are_crypto_bound_and_name_the_software_cipher() {
    // Recorded: 55.9 MiB/s, fsbench 2% CPU, machine sys 81% of 2 CPUs (the decryption runs in
    // kernel workers), loop1 busy 53%.
    let e = cell(
        &[
            ("cpu_pct", 2.0),
            ("machine_sys_pct", 81.0),
            ("machine_user_pct", 0.5),
            ("served_by_device_pct", 100.0),
        ],
        Some(53.0),
        &[],
    );
    let (by, why) = judge(&e, Some(&fscrypt_target()), None);
    assert_eq!(by, BoundBy::Crypto, "{why}");
    assert!(
        why.contains("aes-fixed-time") && why.contains("software"),
        "{why}"
    );
}

#[test]
fn an_encrypted_volume_whose_cpu_loafs_is_not_blamed_on_the_cipher() {
    let e = cell(
        &[
            ("cpu_pct", 10.0),
            ("machine_sys_pct", 10.0),
            ("machine_user_pct", 1.0),
            ("served_by_device_pct", 100.0),
        ],
        Some(95.0),
        &[],
    );
    assert_eq!(judge(&e, Some(&fscrypt_target()), None).0, BoundBy::Device);
}

fn fuse_target(subtype: &str) -> TargetInfo {
    let mut t = target(&format!("fuse.{subtype}"));
    t.stack.fuse = Some(FuseInfo {
        subtype: subtype.into(),
        ..FuseInfo::default()
    });
    t
}

#[test]
fn small_writes_on_gocryptfs_are_daemon_bound() {
    // Recorded: seq-write bs=4k, 54 MiB/s, the daemon at 72% of a CPU, device busy 6%.
    let e = cell(
        &[("cpu_pct", 31.0), ("daemon_cpu_pct", 72.0)],
        Some(6.0),
        &[],
    );
    let (by, why) = judge(&e, Some(&fuse_target("gocryptfs")), None);
    assert_eq!(by, BoundBy::Daemon);
    assert!(why.contains("72%"), "{why}");
}

#[test]
fn a_single_threaded_daemons_round_trips_are_the_daemon_too() {
    // Recorded: bindfs seq-write bs=4k, daemon 40%, fsbench 33%, device busy 2%.
    let e = cell(
        &[
            ("cpu_pct", 33.0),
            ("daemon_cpu_pct", 40.0),
            ("lat_p50_ns", 101_600.0),
        ],
        Some(2.0),
        &[],
    );
    let (by, why) = judge(&e, Some(&fuse_target("bindfs")), None);
    assert_eq!(by, BoundBy::Daemon);
    assert!(why.contains("round trips"), "{why}");
}

#[test]
fn qd1_with_an_idle_device_is_latency_bound() {
    let e = cell(
        &[
            ("cpu_pct", 20.0),
            ("served_by_device_pct", 100.0),
            ("lat_p50_ns", 200_000.0),
        ],
        Some(10.0),
        &[("iodepth", "1")],
    );
    assert_eq!(judge(&e, Some(&target("ext4")), None).0, BoundBy::Latency);
}

#[test]
fn a_device_that_served_nothing_left_it_to_a_cache() {
    let e = cell(
        &[("cpu_pct", 40.0), ("served_by_device_pct", 0.5)],
        Some(1.0),
        &[],
    );
    let (by, why) = judge(&e, Some(&target("xfs")), None);
    assert_eq!(by, BoundBy::Cache, "{why}");
}

#[test]
fn the_readdir_seeds_walks_are_lock_bound() {
    // The seed: 12 walks of a 250,000-file tree, -j 1: real 523 s, user 73 s, sys 231 s;
    // -j 12: real 172 s, user 114 s, sys 1423 s (sys per entry up 6x while only 3x faster).
    let entries = 12.0 * 250_000.0;
    let point = |workers, real: f64, user: f64, sys: f64| crate::scaling::Point {
        workers,
        work: entries,
        wall_ns: real * 1e9,
        user_ns: user * 1e9,
        sys_ns: sys * 1e9,
        machine_sys_pct: None,
        daemon_cpu_pct: None,
    };
    let (_, verdict) = crate::scaling::analyse(
        &[
            point(1, 523.44, 73.397, 230.687),
            point(12, 172.209, 114.053, 1422.808),
        ],
        12,
    )
    .expect("two points");
    assert!(
        matches!(verdict, crate::scaling::Verdict::LockContention { .. }),
        "{verdict:?}"
    );
    let e = cell(
        &[("cpu_pct", 100.0), ("sys_ns_per_entry", 474_000.0)],
        None,
        &[],
    );
    let (by, why) = judge(
        &e,
        Some(&target("apfs")),
        Some(ScalingVerdict::LockContention),
    );
    assert_eq!(by, BoundBy::Lock);
    assert!(why.contains("lock-contention"), "{why}");
}

#[test]
fn the_csail_afs_study_is_network_bound_although_the_cpu_loafs() {
    // The seed: AFS with encryption tenfold slower, yet the server 70% idle (80% without
    // encryption) and the clients loafing.
    let e = cell(&[("cpu_pct", 12.0), ("machine_idle_pct", 70.0)], None, &[]);
    let (by, why) = judge(&e, Some(&target("afs")), None);
    assert_eq!(by, BoundBy::Network);
    assert!(why.contains("round trip"), "{why}");
}

#[test]
fn recording_cost_dominates_tiny_operations() {
    // 2000 operations in 100 ms at 60 ns each is 0.1%: not the harness. 1M in 100 ms is 60%.
    let mut e = cell(&[("cpu_pct", 50.0)], Some(5.0), &[("iodepth", "8")]);
    e.samples[0].ops = 1_000_000;
    assert_eq!(judge(&e, Some(&target("ext4")), None).0, BoundBy::Harness);
}

#[test]
fn nothing_measured_is_unknown_and_says_what_is_missing() {
    let e = cell(&[("iops", 5.0)], None, &[]);
    let (by, why) = judge(&e, None, None);
    assert_eq!(by, BoundBy::Unknown);
    assert!(why.contains("device counters"), "{why}");
}

#[test]
fn parallel_workers_are_cpu_bound_against_the_cpus_they_can_use() {
    // readdir-locks on lab ext4, warm, J=2 on 2 CPUs: 172% of a CPU, device idle.
    let e = cell(
        &[("cpu_pct", 172.0), ("sys_ns", 4.7e8), ("user_ns", 2.6e7)],
        Some(1.0),
        &[("workers", "2")],
    );
    let (by, why) = judge(&e, Some(&target("ext4")), None);
    assert_eq!(by, BoundBy::Cpu, "{why}");
    assert!(
        why.contains("fsbench's 2 busy workers used 172% of a CPU of the 200%"),
        "{why}"
    );
    // The same 72% with 8 workers on 2 CPUs is not saturation.
    let e = cell(&[("cpu_pct", 72.0)], Some(1.0), &[("workers", "8")]);
    let (by, _) = judge(&e, Some(&target("ext4")), None);
    assert_ne!(by, BoundBy::Cpu);
}

#[test]
fn warm_walks_through_a_busy_daemon_are_its_round_trips() {
    // readdir-locks on lab bindfs, warm, J=1: daemon 48% of a CPU, device busy 2%.
    let e = cell(
        &[("cpu_pct", 44.0), ("daemon_cpu_pct", 48.0)],
        Some(2.0),
        &[("workers", "1")],
    );
    let mut e = e;
    e.cache.state = CacheState::Warm;
    let (by, why) = judge(&e, Some(&fuse_target("bindfs")), None);
    assert_eq!(by, BoundBy::Daemon, "{why}");
    assert!(
        why.contains("round trips to the bindfs daemon: the daemon at 48%"),
        "{why}"
    );
}

#[test]
fn a_machine_saturated_by_others_is_cpu_bound_and_says_so() {
    // readdir-locks on lab ext4, J=4, while a build ran: fsbench 94% of 200%, machine 95% busy.
    let e = cell(
        &[
            ("cpu_pct", 94.0),
            ("machine_user_pct", 45.0),
            ("machine_sys_pct", 50.0),
        ],
        Some(3.0),
        &[("workers", "4")],
    );
    let (by, why) = judge(&e, Some(&target("ext4")), None);
    assert_eq!(by, BoundBy::Cpu, "{why}");
    assert!(why.contains("1.9 of 2 CPUs (95%) were busy"), "{why}");
    assert!(why.contains("other processes"), "{why}");
}
