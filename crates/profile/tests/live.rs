//! The profiler on this machine (root only): a sample of small writes and reads records on-CPU
//! stacks attributed to this process and its off-CPU time by reason.

use fsbench_profile::{Scope, collect, reduce};
use std::io::Write;

fn work(dir: &std::path::Path) {
    for i in 0..200 {
        let p = dir.join(format!("f{i}"));
        let mut f = std::fs::File::create(&p).unwrap();
        f.write_all(&[7u8; 8192]).unwrap();
        f.sync_all().unwrap();
        let _ = std::fs::read(&p).unwrap();
    }
}

#[test]
fn a_sample_of_writes_and_fsyncs_records_this_process() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("ignored: needs root (system-wide perf events)");
        return;
    }
    fsbench_profile::prepare().expect("--profile can run as root here");
    let p = fsbench_profile::prepared().unwrap();
    let running = p.start().unwrap();
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    work(dir.path());
    let own = std::process::id();
    let scope = Scope {
        own_pid: own,
        ignored_tids: vec![running.drainer_tid()],
        ..Default::default()
    };
    let rec = running.stop(p, &[own]);
    if let Ok(path) = std::env::var("FSBENCH_PROFILE_FIXTURE") {
        std::fs::write(path, serde_json::to_string(&rec).unwrap()).unwrap();
    }
    let prof = reduce::reduce(&rec, &scope);
    assert!(prof.on_cpu_samples + prof.idle_samples > 0, "{prof:?}");
    assert!(
        prof.who.iter().any(|w| w.who == "fsbench"),
        "{:?}",
        prof.who
    );
    assert!(!prof.off_cpu.is_empty(), "fsync sleeps: {:?}", prof.off_cpu);
    let _ = collect::now_ns();
}
