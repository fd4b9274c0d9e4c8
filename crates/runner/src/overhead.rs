//! fsbench's own cost, measured at the start of every run where it matters most: 4 KiB reads from
//! the page cache (a memfd, so no disk is touched), the cheapest operation any workload times.
//! The same read loop runs bare and with every read recorded through the `Recorder` (clock read +
//! histogram insert); the difference is the overhead a workload's numbers carry. The recorder's
//! isolated cost (back-to-back calls, nothing to overlap with) is reported beside it.

use fsbench_measure::{Recorder, SampleRecorder, measure_overhead};
use fsbench_model::OverheadInfo;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::Instant;

const FILE_PAGES: u64 = 256;
/// Reads per loop: about 2 ms of a loop on a VM, shorter than a scheduler tick, so most loops
/// run uninterrupted and a preempted one is an outlier the median drops.
const READS: u64 = 2_000;
/// Pairs of loops (bare, then recorded). Many short pairs, each compared with its own bare
/// loop, resist drift and preemption better than a few long ones: 9 pairs of 20,000 reads
/// (360,000 reads, 0.35 s before every run, in every test's run too) measured no more steadily.
const ROUNDS: usize = 25;

/// Measures the recorded and bare read loops (interleaved rounds) and their difference: the
/// median of each round's difference, and the bare loops' median as the reference read.
pub fn measure() -> OverheadInfo {
    let recorder_only_ns = measure_overhead(50_000).per_op_ns;
    let Some(file) = memfd() else {
        return OverheadInfo {
            recorder_only_ns,
            ..OverheadInfo::default()
        };
    };
    let mut buf = vec![0u8; 4096];
    let (mut bare, mut added) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let b = bare_loop(&file, &mut buf);
        added.push(recorded_loop(&file, &mut buf) - b);
        bare.push(b);
    }
    let b = median(&mut bare);
    let per_op_ns = median(&mut added).max(0.0);
    OverheadInfo {
        per_op_ns,
        reference_read_ns: b,
        pct_of_4k_cached_read: if b > 0.0 { per_op_ns * 100.0 / b } else { 0.0 },
        recorder_only_ns,
    }
}

fn memfd() -> Option<File> {
    let fd = rustix::fs::memfd_create("fsbench-overhead", rustix::fs::MemfdFlags::CLOEXEC).ok()?;
    let file = File::from(fd);
    file.write_all_at(&vec![7u8; (FILE_PAGES * 4096) as usize], 0)
        .ok()?;
    Some(file)
}

/// Offsets walk the file with a stride so consecutive reads touch different pages.
#[inline]
fn offset(i: u64) -> u64 {
    (i * 97 % FILE_PAGES) * 4096
}

fn bare_loop(file: &File, buf: &mut [u8]) -> f64 {
    let t = Instant::now();
    for i in 0..READS {
        let _ = file.read_at(buf, offset(i));
    }
    t.elapsed().as_nanos() as f64 / READS as f64
}

fn recorded_loop(file: &File, buf: &mut [u8]) -> f64 {
    let mut rec = SampleRecorder::new();
    rec.start();
    let rec: &mut dyn Recorder = &mut rec;
    let t = Instant::now();
    let mut now = rec.now_ns();
    for i in 0..READS {
        let n = file.read_at(buf, offset(i)).unwrap_or(0);
        now = rec.op_done(now, n as u64);
    }
    t.elapsed().as_nanos() as f64 / READS as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
