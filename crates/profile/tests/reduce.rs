//! The reduction on a recorded sample: a cold QD1 `rand-read` on lab gocryptfs (150 ms of it,
//! recorded on the development machine, trimmed to fsbench's and the daemon's events, the
//! target's device and a few others' on-CPU samples).

use fsbench_model::profile as p;
use fsbench_profile::{Recording, Scope, reduce};

fn fixture() -> (Recording, Scope) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gocryptfs-cold-rand-read.json"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let s = &v["scope"];
    let num = |x: &serde_json::Value| x.as_u64().unwrap() as u32;
    let scope = Scope {
        own_pid: num(&s["own_pid"]),
        daemon_pids: s["daemon_pids"]
            .as_array()
            .unwrap()
            .iter()
            .map(num)
            .collect(),
        ignored_tids: s["ignored_tids"]
            .as_array()
            .unwrap()
            .iter()
            .map(num)
            .collect(),
        device: Some((
            num(&s["device"][0]),
            s["device"][1].as_str().unwrap().to_string(),
        )),
        chain: vec![(
            num(&s["device"][0]),
            s["device"][1].as_str().unwrap().to_string(),
        )],
        runner_tid: s["runner_tid"].as_u64().map_or(0, |t| t as u32),
        server_pids: Vec::new(),
    };
    (
        serde_json::from_value(v["recording"].clone()).unwrap(),
        scope,
    )
}

#[test]
fn fsbench_waits_on_fuse_round_trips_and_the_daemon_reads_the_device() {
    let (rec, scope) = fixture();
    let prof = reduce::reduce(&rec, &scope, None);
    let largest = prof.off_cpu.iter().max_by_key(|(_, ns)| **ns).unwrap();
    assert_eq!(largest.0, p::REASON_FUSE, "{:?}", prof.off_cpu);
    assert!(*largest.1 > rec.wall_ns() / 2, "{:?}", prof.off_cpu);
    assert!(
        prof.daemon_off_cpu.contains_key(p::REASON_DEVICE),
        "{:?}",
        prof.daemon_off_cpu
    );
    let who: Vec<&str> = prof.who.iter().map(|w| w.who.as_str()).collect();
    assert!(
        who.contains(&"fsbench") && who.contains(&"daemon gocryptfs"),
        "{who:?}"
    );
    let device = prof.device.as_ref().expect("loop0's requests");
    assert!(device.requests > 0 && device.mean_ns > 0.0);
    assert_eq!(
        device.histogram.iter().map(|b| b.count).sum::<u64>(),
        device.requests
    );
}

#[test]
fn every_folded_stack_starts_with_who_ran_it_and_counts_every_busy_sample() {
    let (rec, scope) = fixture();
    let prof = reduce::reduce(&rec, &scope, None);
    let whos: Vec<&str> = prof.who.iter().map(|w| w.who.as_str()).collect();
    for stack in prof.on_cpu.keys() {
        let who = stack.split(';').next().unwrap();
        assert!(whos.contains(&who), "{stack}");
    }
    assert_eq!(prof.on_cpu.values().sum::<u64>(), prof.on_cpu_samples);
    assert_eq!(
        prof.who.iter().map(|w| w.samples).sum::<u64>(),
        prof.on_cpu_samples
    );
    // The daemon reading the backing file, outermost first.
    assert!(
        prof.on_cpu
            .keys()
            .any(|s| s.starts_with("daemon gocryptfs;") && s.contains("__x64_sys_pread64;")),
        "{:?}",
        prof.on_cpu.keys().take(5).collect::<Vec<_>>()
    );
}

#[test]
fn a_measuring_thread_that_reads_itself_keeps_its_waits_and_every_share_has_a_role() {
    let (rec, scope) = fixture();
    let prof = reduce::reduce(&rec, &scope, None);
    // QD1 on the measuring thread, no workers: its idle waits are the cell's, not a helper's.
    assert!(
        prof.off_cpu.contains_key(p::REASON_OTHER),
        "{:?}",
        prof.off_cpu
    );
    assert!(prof.helper_off_cpu.is_empty(), "{:?}", prof.helper_off_cpu);
    let role = |who: &str| prof.who.iter().find(|w| w.who == who).map(|w| w.role);
    assert_eq!(role("fsbench"), Some(p::Role::Cell));
    assert_eq!(role("daemon gocryptfs"), Some(p::Role::Cell));
    // The other engineers' compiler, by its command.
    assert_eq!(role("rustc"), Some(p::Role::Neighbour), "{:?}", prof.who);
    assert!(prof.who.iter().all(|w| w.who != "other"), "{:?}", prof.who);
}
