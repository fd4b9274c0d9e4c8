//! Recording one sample: per CPU, a cpu-clock sampler with kernel and user call chains and the
//! tracepoints (sched_switch, lock contention, block requests), enabled just before the timed
//! region and drained every few milliseconds by a thread of their own (so that the ring buffers
//! never fill on a long sample), then symbolized once the sample is over.

use crate::profiler::{Point, Profiler};
use crate::recording::{Event, Kind, Recording};
use crate::symbolize::{Space, Symbolizer};
use perf_event::data::Record as Rec;
use perf_event::events::{Software, Tracepoint};
use perf_event::{Builder, Clock, SampleFlag, Sampler};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How often the drainer empties the ring buffers.
const DRAIN_EVERY: std::time::Duration = std::time::Duration::from_millis(10);

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

impl Profiler {
    /// Opens and enables every event on every CPU and starts the drainer.
    pub fn start(&self) -> std::io::Result<Running> {
        let mut samplers = Vec::new();
        for &cpu in &self.cpus {
            samplers.extend(self.open_cpu(cpu)?);
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

    fn open_cpu(&self, cpu: usize) -> std::io::Result<Vec<(Source, Sampler)>> {
        let mut out = Vec::new();
        let mut b = Builder::new(Software::CPU_CLOCK);
        b.sample_frequency(self.frequency_hz)
            .sample(SampleFlag::TID | SampleFlag::TIME | SampleFlag::CALLCHAIN)
            .task(true);
        out.push((Source::Cpu, open(&mut b, cpu, 1 << 20)?));
        out.push((Source::Switch, self.open_point(&self.switch, cpu, 1 << 20)?));
        if let Some((begin, end)) = &self.locks {
            out.push((Source::LockBegin, self.open_point(begin, cpu, 1 << 19)?));
            out.push((Source::LockEnd, self.open_point(end, cpu, 1 << 18)?));
        }
        if let Some((issue, complete)) = &self.block {
            out.push((Source::Issue, self.open_point(issue, cpu, 1 << 18)?));
            out.push((Source::Complete, self.open_point(complete, cpu, 1 << 18)?));
        }
        Ok(out)
    }

    fn open_point(&self, p: &Point, cpu: usize, bytes: usize) -> std::io::Result<Sampler> {
        let mut b = Builder::new(Tracepoint::with_id(p.id));
        b.sample_period(1)
            .sample(SampleFlag::TID | SampleFlag::TIME | SampleFlag::RAW | SampleFlag::CALLCHAIN);
        b.exclude_callchain_user(true);
        open(&mut b, cpu, bytes)
    }
}

fn open(b: &mut Builder, cpu: usize, bytes: usize) -> std::io::Result<Sampler> {
    b.one_cpu(cpu)
        .any_pid()
        .include_kernel()
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
        std::thread::sleep(DRAIN_EVERY);
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

    /// A switch is two events: the previous thread out (with its stack), the next one in.
    fn switch(&mut self, t: u64, pid: u32, tid: u32, chain: &[u64], raw: &[u8], p: &Profiler) {
        let f = &p.switch.format;
        let state = f.read(raw, "prev_state").unwrap_or(0);
        let next = f.read(raw, "next_pid").unwrap_or(0) as u32;
        let stack = self.split(chain, pid).0;
        // TASK_RUNNING is 0: switched out while runnable (preempted).
        let runnable = state & 0xff == 0;
        self.events.push(Event {
            t,
            pid,
            tid,
            kind: Kind::Out { runnable, stack },
        });
        self.events.push(Event {
            t,
            pid,
            tid,
            kind: Kind::In { next },
        });
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
