//! Each rule of the table on the evidence that contradicts a verdict (the cases), and
//! on evidence that does not.

use super::*;
use fsbench_model::profile::{DeviceLatency, LockWait, WhoShare};

fn bound(by: BoundBy, evidence: &str) -> Bound {
    Bound {
        by,
        evidence: evidence.into(),
    }
}

/// The glusterfs cell: warm rand-read, cached 100%, 0 bytes on the wire, server 0%.
fn glusterfs_warm() -> Evidence<'static> {
    Evidence {
        warm_cached_pct: Some(100.0),
        wire_bytes: Some(0.0),
        server_cpu: Some(0.0),
        daemon_cpu: Some(0.0),
        reads: true,
        ..Default::default()
    }
}

#[test]
fn a_warm_read_served_from_the_page_cache_is_cache_on_any_filesystem() {
    let network = bound(BoundBy::Network, "neither side was busy");
    let Some((_, Finding::Instead(b))) = first(&network, &glusterfs_warm()) else {
        panic!("the page cache's read must win");
    };
    assert_eq!(b.by, BoundBy::Cache);
    assert!(
        b.evidence.contains("100% of its pages cached"),
        "{}",
        b.evidence
    );
    assert!(b.evidence.contains("0 bytes on the wire"), "{}", b.evidence);
    // Cold, or with the daemon answering round trips, it is not the page cache's.
    let cold = Evidence {
        warm_cached_pct: None,
        ..glusterfs_warm()
    };
    assert!(!matches!(
        first(&network, &cold),
        Some((_, Finding::Instead(_)))
    ));
    let busy_daemon = Evidence {
        daemon_cpu: Some(45.0),
        ..glusterfs_warm()
    };
    assert!(warm_cache(&network, &busy_daemon).is_none());
}

#[test]
fn no_network_with_nothing_on_the_wire_and_an_idle_server() {
    let ev = Evidence {
        warm_cached_pct: None,
        ..glusterfs_warm()
    };
    let network = bound(BoundBy::Network, "x");
    let Some((_, Finding::Contradicts(why))) = first(&network, &ev) else {
        panic!("contradicted");
    };
    assert!(why.contains("0 bytes on the wire"), "{why}");
    let moving = Evidence {
        wire_bytes: Some(8.0 * 1024.0 * 1024.0),
        ..ev
    };
    assert_eq!(first(&network, &moving), None);
}

#[test]
fn no_device_with_the_device_idle() {
    let d = bound(BoundBy::Device, "x");
    let idle = Evidence {
        device_busy: Some(1.0),
        ..Default::default()
    };
    assert!(matches!(
        first(&d, &idle),
        Some((_, Finding::Contradicts(_)))
    ));
    let busy = Evidence {
        device_busy: Some(60.0),
        ..Default::default()
    };
    assert_eq!(first(&d, &busy), None);
    // Requests the profile saw on the device speak for it, whatever its counters.
    let p = Profile {
        device: Some(DeviceLatency {
            requests: 12,
            ..Default::default()
        }),
        ..Default::default()
    };
    let seen = Evidence {
        profile: Some(&p),
        ..idle
    };
    assert_eq!(first(&d, &seen), None);
}

#[test]
fn no_crypto_without_encryption_unless_the_cipher_ran_in_the_cells_threads() {
    let mut p = Profile::default();
    p.on_cpu
        .insert("kworker flush-7:4;aesti_encrypt".into(), 95);
    p.on_cpu
        .insert("fsbench;ext4_buffered_write_iter".into(), 5);
    p.who = vec![
        WhoShare {
            who: "kworker flush-7:4".into(),
            role: Role::Neighbour,
            samples: 95,
            ..Default::default()
        },
        WhoShare {
            who: "fsbench".into(),
            role: Role::Cell,
            samples: 5,
            ..Default::default()
        },
    ];
    let c = bound(BoundBy::Crypto, "x");
    let plain = Evidence {
        profile: Some(&p),
        ..Default::default()
    };
    assert!(matches!(
        first(&c, &plain),
        Some((_, Finding::Contradicts(_)))
    ));
    let encrypted = Evidence {
        encrypted: true,
        ..plain
    };
    assert_eq!(first(&c, &encrypted), None);
    // A cipher the cell ran itself (a user-space encryptor) is its own, on any stack.
    let mut own = p.clone();
    own.on_cpu
        .insert("fsbench;[libcrypto.so.3];aes_gcm_encrypt".into(), 50);
    own.who[1].samples = 55;
    let own_ev = Evidence {
        profile: Some(&own),
        ..Default::default()
    };
    assert_eq!(first(&c, &own_ev), None);
}

#[test]
fn no_wait_above_100_percent_per_thread() {
    let mut p = Profile {
        wall_ns: 1_000,
        ..Default::default()
    };
    p.locks.push(LockWait {
        kind: "mutex".into(),
        caller: "fuse_lock_inode <- fuse_readdir_uncached".into(),
        wait_ns: 15_420,
        threads: 4,
        ..Default::default()
    });
    let ev = Evidence {
        profile: Some(&p),
        ..Default::default()
    };
    let Some((_, Finding::Contradicts(why))) = first(&bound(BoundBy::Lock, "x"), &ev) else {
        panic!("1542% with four threads cannot be");
    };
    assert!(why.contains("1542%") && why.contains("4 threads"), "{why}");
    p.locks[0].wait_ns = 3_500;
    let ev = Evidence {
        profile: Some(&p),
        ..Default::default()
    };
    assert_eq!(first(&bound(BoundBy::Lock, "x"), &ev), None);
}

#[test]
fn a_contradicted_verdict_gives_way_and_one_contradicted_by_everything_is_unknown() {
    let ev = Evidence {
        warm_cached_pct: None,
        device_busy: Some(1.0),
        ..glusterfs_warm()
    };
    // network is set aside, device next is set aside too, latency stands, saying why.
    let mut order = vec![
        bound(BoundBy::Latency, "one request at a time"),
        bound(BoundBy::Device, "the device"),
        bound(BoundBy::Network, "the wire"),
    ];
    let b = settle(&ev, |aside| {
        assert_eq!(aside.len(), 3 - order.len());
        order.pop()
    })
    .unwrap();
    assert_eq!(b.by, BoundBy::Latency);
    assert!(
        b.evidence.contains("not network") && b.evidence.contains("not device"),
        "{}",
        b.evidence
    );
    // Only contradicted verdicts: the last one offered comes back set aside.
    let b = settle(&ev, |aside| match aside.first() {
        None => Some(bound(BoundBy::Network, "the wire")),
        Some(_) => Some(bound(BoundBy::Network, "the wire")),
    })
    .unwrap();
    assert_eq!(b.by, BoundBy::Unknown);
    assert!(
        b.evidence
            .starts_with("the evidence contradicts every verdict: not network"),
        "{}",
        b.evidence
    );
}
