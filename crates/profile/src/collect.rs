//! Recording one sample: per CPU, a cpu-clock sampler with kernel and user call chains and the
//! block requests; per watched thread (the one that runs the sample, inherited by the workers and
//! children it starts, and each FUSE daemon thread), `sched_switch` with its call chain and the
//! kernel's context-switch records (when it is switched back in) and the lock contention
//! tracepoints. Watching threads rather than CPUs keeps the cost proportional to the threads
//! that matter, not to the machine's other work. Enabled just before the timed region, drained
//! every few milliseconds by a thread of their own (so that the ring buffers never fill on a
//! long sample), then symbolized once the sample is over.

use crate::profiler::{Point, Profiler};
use crate::recording::{Event, Kind, Recording};
use crate::symbolize::{Space, Symbolizer};
use perf_event::data::Record as Rec;
use perf_event::events::{Software, Tracepoint};
use perf_event::{Builder, Clock, SampleFlag, Sampler};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How often the drainer empties the ring buffers: 50 ms of on-CPU samples (about 50 per CPU) are
/// a few tens of KB, far below the 1 MiB buffers, and waking less often takes less from the
/// measured threads.
const DRAIN_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// What each ring buffer carries.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    Cpu,
    Switch,
    LockBegin,
    LockEnd,
    Issue,
    Complete,
}

/// A recording in progress.
pub struct Running {
    stop: Arc<AtomicBool>,
    drainer: std::thread::JoinHandle<Drained>,
    start_ns: u64,
    drainer_tid: u32,
}

/// What the drainer collected: events whose stacks index `addrs`.
#[derive(Default)]
struct Drained {
    events: Vec<Event>,
    addrs: Vec<(Space, u64)>,
    index: HashMap<(Space, u64), u32>,
    comms: BTreeMap<u32, String>,
    lost: u64,
}

/// CLOCK_MONOTONIC now, ns (the clock the events carry).
pub fn now_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// `PERF_RECORD_SWITCH`, and its misc flag for a switch out.
const RECORD_SWITCH: u32 = 14;
const MISC_SWITCH_OUT: u16 = 0x2000;

impl Profiler {
    /// Opens and enables every event (per CPU, and per thread of `watch`: the calling thread,
    /// whose events its new threads and children inherit, then the daemons' threads) and starts
    /// the drainer.
    pub fn start(&self, watch: &[u32]) -> std::io::Result<Running> {
        let mut samplers = Vec::new();
        for &cpu in &self.cpus {
            samplers.extend(self.open_cpu(cpu)?);
        }
        let me = rustix::thread::gettid().as_raw_nonzero().get() as u32;
        for &tid in std::iter::once(&me).chain(watch) {
            for &cpu in &self.cpus {
                // A daemon thread that ended since it was listed is simply not watched.
                match self.open_thread(tid, cpu) {
                    Ok(s) => samplers.extend(s),
                    Err(e) if tid == me => return Err(e),
                    Err(_) => {}
                }
            }
        }
        let formats = Arc::new(self.clone());
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let start_ns = now_ns();
        for (_, s) in &mut samplers {
            s.enable()?;
        }
        let drainer = std::thread::Builder::new()
            .name("fsbench-profile".into())
            .spawn(move || {
                let _ = tx.send(rustix::thread::gettid().as_raw_nonzero().get() as u32);
                drain_until(&flag, samplers, &formats)
            })?;
        let drainer_tid = rx.recv().unwrap_or(0);
        Ok(Running {
            stop,
            drainer,
            start_ns,
            drainer_tid,
        })
    }

    /// The system-wide events of one CPU: on-CPU samples and the block requests (completions
    /// run in interrupts, on no thread of interest).
    fn open_cpu(&self, cpu: usize) -> std::io::Result<Vec<(Source, Sampler)>> {
        let mut out = Vec::new();
        let mut b = Builder::new(Software::CPU_CLOCK);
        b.sample_frequency(self.frequency_hz)
            .sample(SampleFlag::TID | SampleFlag::TIME | SampleFlag::CALLCHAIN)
            .task(true);
        b.one_cpu(cpu).any_pid();
        out.push((Source::Cpu, open(&mut b, 1 << 20)?));
        if let Some((issue, complete)) = &self.block {
            for (src, p) in [(Source::Issue, issue), (Source::Complete, complete)] {
                let mut b = point(p, false);
                b.one_cpu(cpu).any_pid();
                out.push((src, open(&mut b, 1 << 18)?));
            }
        }
        Ok(out)
    }

    /// The events of one thread (and the threads and processes it starts) on one CPU (the
    /// kernel maps no ring buffer of an inherited event on every CPU): its switches out with
    /// their call chain, its switches back in, its lock contention.
    fn open_thread(&self, tid: u32, cpu: usize) -> std::io::Result<Vec<(Source, Sampler)>> {
        let mut out = Vec::new();
        let mut b = point(&self.switch, true);
        b.context_switch(true).sample_id_all(true);
        b.observe_pid(tid as i32).one_cpu(cpu).inherit(true);
        out.push((Source::Switch, open(&mut b, 1 << 19)?));
        if let Some((begin, end)) = &self.locks {
            let parts = [
                (Source::LockBegin, begin, true),
                (Source::LockEnd, end, false),
            ];
            for (src, p, chain) in parts {
                let mut b = point(p, chain);
                b.observe_pid(tid as i32).one_cpu(cpu).inherit(true);
                out.push((src, open(&mut b, 1 << 17)?));
            }
        }
        Ok(out)
    }
}

/// A tracepoint sampled at every hit: thread, time, raw fields, and the kernel call chain when
/// `chain`.
fn point(p: &Point, chain: bool) -> Builder<'static> {
    let mut b = Builder::new(Tracepoint::with_id(p.id));
    let flags = SampleFlag::TID | SampleFlag::TIME | SampleFlag::RAW;
    match chain {
        true => b.sample(flags | SampleFlag::CALLCHAIN),
        false => b.sample(flags),
    };
    b.sample_period(1).exclude_callchain_user(true);
    b
}

fn open(b: &mut Builder, bytes: usize) -> std::io::Result<Sampler> {
    b.include_kernel()
        .enabled(false)
        .clockid(Clock::MONOTONIC)
        .build()?
        .sampled(bytes)
}

fn drain_until(stop: &AtomicBool, mut samplers: Vec<(Source, Sampler)>, p: &Profiler) -> Drained {
    let mut d = Drained::default();
    while !stop.load(Ordering::Acquire) {
        for (src, s) in &mut samplers {
            d.drain(*src, s, p);
        }
        // Woken early by `stop`.
        std::thread::park_timeout(DRAIN_EVERY);
    }
    for (_, s) in &mut samplers {
        let _ = s.disable();
    }
    for (src, s) in &mut samplers {
        d.drain(*src, s, p);
    }
    d
}

/// Call-chain context markers (`PERF_CONTEXT_*`) are the top 4095 values.
const MARKER_MIN: u64 = (-4095i64) as u64;
const CONTEXT_USER: u64 = (-512i64) as u64;
const CONTEXT_KERNEL: u64 = (-128i64) as u64;

impl Drained {
    fn drain(&mut self, src: Source, s: &mut Sampler, p: &Profiler) {
        while let Some(r) = s.next_record() {
            if r.ty() == RECORD_SWITCH {
                self.switch_record(r.misc() & MISC_SWITCH_OUT != 0, &r.to_contiguous());
                continue;
            }
            match r.parse_record() {
                Ok(Rec::Sample(sample)) => self.sample(src, &sample, p),
                Ok(Rec::Lost(l)) => self.lost += l.lost,
                Ok(Rec::Fork(f)) if f.pid != f.ppid => self.events.push(Event {
                    t: f.time,
                    pid: f.pid,
                    tid: f.tid,
                    kind: Kind::Fork { parent: f.ppid },
                }),
                _ => {}
            }
        }
    }

    fn sample(&mut self, src: Source, s: &perf_event::data::Sample<'_>, p: &Profiler) {
        let (Some(t), Some(pid), Some(tid)) = (s.time(), s.pid(), s.tid()) else {
            return;
        };
        let chain = s.callchain().unwrap_or_default();
        let raw = s.raw().unwrap_or_default();
        let kind = match src {
            Source::Cpu => {
                self.learn_comm(pid, tid);
                let (kernel, user) = self.split(chain, pid);
                Kind::Cpu { kernel, user }
            }
            Source::Switch => return self.switch(t, pid, tid, chain, raw, p),
            Source::LockBegin => {
                let flags = field(p.locks.as_ref().map(|l| &l.0), raw, "flags");
                let stack = self.split(chain, pid).0;
                Kind::LockBegin {
                    flags: flags as u32,
                    stack,
                }
            }
            Source::LockEnd => Kind::LockEnd,
            Source::Issue | Source::Complete => {
                let point = p.block.as_ref().map(|b| match src {
                    Source::Issue => &b.0,
                    _ => &b.1,
                });
                let dev = field(point, raw, "dev") as u32;
                let sector = field(point, raw, "sector");
                match src {
                    Source::Issue => Kind::Issue { dev, sector },
                    _ => Kind::Complete { dev, sector },
                }
            }
        };
        self.events.push(Event { t, pid, tid, kind });
    }

    /// A watched thread switched out, with its stack (`sched_switch`, in its own context).
    fn switch(&mut self, t: u64, pid: u32, tid: u32, chain: &[u64], raw: &[u8], p: &Profiler) {
        let state = p.switch.format.read(raw, "prev_state").unwrap_or(0);
        let stack = self.split(chain, pid).0;
        // TASK_RUNNING is 0: switched out while runnable (preempted).
        let runnable = state & 0xff == 0;
        self.events.push(Event {
            t,
            pid,
            tid,
            kind: Kind::Out { runnable, stack },
        });
    }

    /// The kernel's record of a watched thread switched in (`PERF_RECORD_SWITCH`, then its
    /// sample id: pid, tid, time); its switches out come with their stacks from `sched_switch`.
    fn switch_record(&mut self, out: bool, data: &[u8]) {
        let word = |at: usize| {
            data.get(at..at + 4)?
                .try_into()
                .ok()
                .map(u32::from_ne_bytes)
        };
        let time = data
            .get(8..16)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_ne_bytes);
        if let (false, Some(pid), Some(tid), Some(t)) = (out, word(0), word(4), time) {
            self.events.push(Event {
                t,
                pid,
                tid,
                kind: Kind::In { next: tid },
            });
        }
    }

    /// Kernel and user frames of a call chain, as indexes of unique addresses.
    fn split(&mut self, chain: &[u64], pid: u32) -> (Vec<u32>, Vec<u32>) {
        let (mut kernel, mut user) = (Vec::new(), Vec::new());
        let mut space = Space::Kernel;
        for &a in chain {
            if a >= MARKER_MIN {
                space = match a {
                    CONTEXT_USER => Space::User(pid),
                    CONTEXT_KERNEL => Space::Kernel,
                    _ => space,
                };
                continue;
            }
            let i = self.intern(space, a);
            match space {
                Space::Kernel => kernel.push(i),
                Space::User(_) => user.push(i),
            }
        }
        (kernel, user)
    }

    fn intern(&mut self, space: Space, addr: u64) -> u32 {
        let next = self.addrs.len() as u32;
        *self.index.entry((space, addr)).or_insert_with(|| {
            self.addrs.push((space, addr));
            next
        })
    }

    /// `/proc/TID/comm` of a thread first seen (bracketed for a kernel thread, which has no
    /// command line), read while it runs: a kernel worker's name carries its last workqueue.
    fn learn_comm(&mut self, pid: u32, tid: u32) {
        if pid == 0 || self.comms.contains_key(&tid) {
            return;
        }
        let comm = std::fs::read_to_string(format!("/proc/{tid}/comm")).unwrap_or_default();
        let comm = comm.trim();
        let stat = std::fs::read_to_string(format!("/proc/{tid}/stat")).unwrap_or_default();
        let comm = match is_kthread(&stat) {
            true => format!("[{comm}]"),
            false => comm.to_string(),
        };
        self.comms.insert(tid, comm);
    }
}

/// True when a `/proc/TID/stat` line has `PF_KTHREAD` in its flags (the ninth field).
fn is_kthread(stat: &str) -> bool {
    const PF_KTHREAD: u64 = 0x0020_0000;
    let after_comm = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let flags = after_comm
        .split_whitespace()
        .nth(6)
        .and_then(|f| f.parse::<u64>().ok());
    flags.is_some_and(|f| f & PF_KTHREAD != 0)
}

fn field(p: Option<&Point>, raw: &[u8], name: &str) -> u64 {
    p.and_then(|p| p.format.read(raw, name)).unwrap_or(0)
}

impl Running {
    /// The drainer's thread id (left out of the accounting).
    pub fn drainer_tid(&self) -> u32 {
        self.drainer_tid
    }

    /// Stops recording and returns the sample's events, in time order, symbolized; user frames
    /// are named for `processes` (fsbench and the daemons).
    pub fn stop(self, p: &Profiler, processes: &[u32]) -> Recording {
        let end_ns = now_ns();
        self.stop.store(true, Ordering::Release);
        self.drainer.thread().unpark();
        let mut d = self.drainer.join().unwrap_or_default();
        d.events.retain(|e| (self.start_ns..=end_ns).contains(&e.t));
        d.events.sort_by_key(|e| e.t);
        let kernel = crate::kallsyms::Kallsyms::get();
        let mut names = Symbolizer::new(kernel, processes);
        let frames = d.addrs.iter().map(|&(sp, a)| names.name(sp, a)).collect();
        let mut notes = p.notes.clone();
        if kernel.is_empty() {
            notes.push("kernel frames unnamed: /proc/kallsyms shows no addresses".into());
        }
        Recording {
            start_ns: self.start_ns,
            end_ns,
            frequency_hz: p.frequency_hz,
            cpus: p.cpus.len() as u32,
            lost: d.lost,
            frames,
            comms: d.comms,
            events: d.events,
            notes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_threads_are_told_by_their_flags() {
        assert!(is_kthread("2 (kthreadd) S 0 0 0 0 -1 2129984 0"));
        assert!(!is_kthread(
            "2535 (a) b) R 2452 2452 24498 0 -1 4194304 122"
        ));
        assert!(!is_kthread(""));
    }
}
