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

/// A drain that found this many records comes back after [`DRAIN_BUSY`] instead: a FUSE walk
/// switches so often that its buffers fill in well under [`DRAIN_EVERY`] on a busy machine.
const BUSY_DRAIN_RECORDS: u64 = 5_000;
const DRAIN_BUSY: std::time::Duration = std::time::Duration::from_millis(5);

/// How many times larger fsbench's own thread's switch and lock buffers are than a daemon
/// thread's, over all CPUs together: its workers and children (inheriting its events) all write
/// into them. A FUSE walk at four workers switches about 100,000 times a second, each switch with
/// its call chain: 512 KiB per CPU lost most of them between two drains on 2 CPUs; 8 MiB per CPU
/// kept them (with 8 MiB for lock begins and 2 MiB for ends: 36 MiB in all on any number of CPUs).
const OWN_BUFFERS: usize = 32;

/// The scale of fsbench's own buffers per CPU on `cpus` CPUs: a power of two, at least 1.
fn own_scale(cpus: usize) -> usize {
    let s = (OWN_BUFFERS / cpus.max(1)).max(1);
    1 << s.ilog2()
}

/// What each ring buffer carries.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    Cpu,
    Switch,
    LockBegin,
    LockEnd,
    Issue,
    Complete,
    Queue,
    WorkStart,
    /// One of the writeback tracepoints, by its index in [`crate::profiler::WorkPoints`].
    Writeback(usize),
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
    /// Records read so far.
    records: u64,
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
        let on = |cpu: usize| move |(src, s)| (src, cpu as u32, s);
        for &cpu in &self.cpus {
            samplers.extend(self.open_cpu(cpu)?.into_iter().map(on(cpu)));
        }
        let me = rustix::thread::gettid().as_raw_nonzero().get() as u32;
        for &tid in std::iter::once(&me).chain(watch) {
            // fsbench's thread carries the events of every worker and child it starts.
            let scale = if tid == me {
                own_scale(self.cpus.len())
            } else {
                1
            };
            for &cpu in &self.cpus {
                // A daemon thread that ended since it was listed is simply not watched.
                match self.open_thread(tid, cpu, scale) {
                    Ok(s) => samplers.extend(s.into_iter().map(on(cpu))),
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
        for (_, _, s) in &mut samplers {
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

    /// The system-wide events of one CPU: on-CPU samples, the block requests (completions
    /// run in interrupts, on no thread of interest) and the kernel's work items with what ties
    /// them to a device.
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
        if let Some(w) = &self.works {
            let points = [(Source::Queue, &w.queue), (Source::WorkStart, &w.start)];
            let writeback = w.writeback.iter().enumerate();
            let writeback = writeback.map(|(i, p)| (Source::Writeback(i), p));
            for (src, p) in points.into_iter().chain(writeback) {
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
    fn open_thread(
        &self,
        tid: u32,
        cpu: usize,
        scale: usize,
    ) -> std::io::Result<Vec<(Source, Sampler)>> {
        let mut out = Vec::new();
        let mut b = point(&self.switch, true);
        b.context_switch(true).sample_id_all(true);
        b.observe_pid(tid as i32).one_cpu(cpu).inherit(true);
        out.push((Source::Switch, open(&mut b, scale << 19)?));
        if let Some((begin, end)) = &self.locks {
            // A begin carries its call chain: four times an end's bytes.
            let parts = [
                (Source::LockBegin, begin, true, scale << 19),
                (Source::LockEnd, end, false, scale << 17),
            ];
            for (src, p, chain, bytes) in parts {
                let mut b = point(p, chain);
                b.observe_pid(tid as i32).one_cpu(cpu).inherit(true);
                out.push((src, open(&mut b, bytes)?));
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

/// One ring buffer and whether it lost records not yet marked in the events.
struct Buffer {
    src: Source,
    cpu: u32,
    sampler: Sampler,
    lost_unmarked: bool,
}

fn drain_until(stop: &AtomicBool, samplers: Vec<(Source, u32, Sampler)>, p: &Profiler) -> Drained {
    let mut d = Drained::default();
    let mut buffers: Vec<Buffer> = samplers
        .into_iter()
        .map(|(src, cpu, sampler)| Buffer {
            src,
            cpu,
            sampler,
            lost_unmarked: false,
        })
        .collect();
    while !stop.load(Ordering::Acquire) {
        let before = d.records;
        for b in &mut buffers {
            d.drain(b, p);
        }
        // Woken early by `stop`; back soon when the buffers are filling fast.
        let busy = d.records - before >= BUSY_DRAIN_RECORDS;
        std::thread::park_timeout(if busy { DRAIN_BUSY } else { DRAIN_EVERY });
    }
    for b in &mut buffers {
        let _ = b.sampler.disable();
    }
    for b in &mut buffers {
        d.drain(b, p);
        if b.lost_unmarked {
            // Nothing came after the loss: it lies before the region's end.
            d.mark_lost(u64::MAX);
        }
    }
    d
}

/// Call-chain context markers (`PERF_CONTEXT_*`) are the top 4095 values.
const MARKER_MIN: u64 = (-4095i64) as u64;
const CONTEXT_USER: u64 = (-512i64) as u64;
const CONTEXT_KERNEL: u64 = (-128i64) as u64;

impl Drained {
    /// Empties one ring buffer. Lost records carry no time: the loss is marked at the time of
    /// the buffer's next record (what ended there may have been lost before it).
    fn drain(&mut self, b: &mut Buffer, p: &Profiler) {
        while let Some(r) = b.sampler.next_record() {
            self.records += 1;
            if r.ty() == RECORD_SWITCH {
                self.switch_record(r.misc() & MISC_SWITCH_OUT != 0, &r.to_contiguous());
                continue;
            }
            match r.parse_record() {
                Ok(Rec::Sample(sample)) => {
                    if std::mem::take(&mut b.lost_unmarked) {
                        self.mark_lost(sample.time().unwrap_or(u64::MAX));
                    }
                    self.sample((b.src, b.cpu), &sample, p);
                }
                Ok(Rec::Lost(l)) => {
                    self.lost += l.lost;
                    b.lost_unmarked |= b.src != Source::Cpu;
                }
                Ok(Rec::Fork(f)) => self.events.push(Event {
                    t: f.time,
                    pid: f.pid,
                    tid: f.tid,
                    kind: Kind::Fork {
                        parent: f.ppid,
                        parent_tid: f.ptid,
                    },
                }),
                Ok(Rec::Exit(x)) => self.events.push(Event {
                    t: x.time,
                    pid: x.pid,
                    tid: x.tid,
                    kind: Kind::Exit,
                }),
                _ => {}
            }
        }
    }

    /// Records that events were lost before `t`.
    fn mark_lost(&mut self, t: u64) {
        self.events.push(Event {
            t,
            pid: 0,
            tid: 0,
            kind: Kind::Lost,
        });
    }

    fn sample(
        &mut self,
        (src, cpu): (Source, u32),
        s: &perf_event::data::Sample<'_>,
        p: &Profiler,
    ) {
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
            Source::Switch => {
                // Its name tells a helper thread (`fsbench-ticker`) that may never be sampled.
                self.learn_comm(pid, tid);
                return self.switch(t, pid, tid, chain, raw, p);
            }
            Source::LockBegin => {
                let begin = p.locks.as_ref().map(|l| &l.0);
                let flags = field(begin, raw, "flags");
                let stack = self.split(chain, pid).0;
                Kind::LockBegin {
                    flags: flags as u32,
                    addr: field(begin, raw, "lock_addr"),
                    stack,
                }
            }
            Source::LockEnd => Kind::LockEnd {
                addr: field(p.locks.as_ref().map(|l| &l.1), raw, "lock_addr"),
            },
            Source::Issue | Source::Complete => {
                let point = p.block.as_ref().map(|b| match src {
                    Source::Issue => &b.0,
                    _ => &b.1,
                });
                let dev = field(point, raw, "dev") as u32;
                let sector = field(point, raw, "sector");
                match src {
                    Source::Issue => Kind::Issue { dev, sector, cpu },
                    _ => Kind::Complete { dev, sector, cpu },
                }
            }
            Source::Queue | Source::WorkStart | Source::Writeback(_) => {
                match work_kind((src, cpu), raw, p) {
                    Some(kind) => kind,
                    None => return,
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

/// The names of the devices whose numbers kernel workers' names carry (`flush-7:4` → `loop4`,
/// from the `/sys/dev/block/7:4` link), and of those the recorded requests and writeback
/// records name (a work item tied to a device is named after it).
fn device_names(comms: &BTreeMap<u32, String>, events: &[Event]) -> BTreeMap<u32, String> {
    let by_name = comms.values().filter_map(|c| match crate::roles::tie(c)? {
        crate::roles::Tie::Dev(d) => Some(d),
        crate::roles::Tie::Name(_) => None,
    });
    let by_record = events.iter().filter_map(|e| match e.kind {
        Kind::Issue { dev, .. } | Kind::Complete { dev, .. } | Kind::Writeback { dev } => Some(dev),
        _ => None,
    });
    let devs: std::collections::BTreeSet<u32> = by_name.chain(by_record).collect();
    let name = |d: u32| {
        let (major, minor) = crate::device::major_minor(d);
        let link = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}")).ok()?;
        Some((d, link.file_name()?.to_str()?.to_string()))
    };
    devs.into_iter().filter_map(name).collect()
}

/// A work item's event from its raw record; `None` for a writeback record of a device not
/// named `MAJ:MIN` (a FUSE or btrfs `bdi`, which serves no block device).
fn work_kind((src, cpu): (Source, u32), raw: &[u8], p: &Profiler) -> Option<Kind> {
    let w = p.works.as_ref()?;
    Some(match src {
        Source::Queue => Kind::Queue {
            work: w.queue.format.read(raw, "work").unwrap_or(0),
            cpu,
            workqueue: w
                .queue
                .format
                .read_str(raw, "workqueue")
                .unwrap_or_default(),
        },
        Source::WorkStart => Kind::WorkStart {
            work: w.start.format.read(raw, "work").unwrap_or(0),
        },
        Source::Writeback(i) => {
            let bdi = w.writeback.get(i)?.format.read_str(raw, "name")?;
            Kind::Writeback {
                dev: crate::roles::dev_of(&bdi)?,
            }
        }
        _ => return None,
    })
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
        Recording::order(&mut d.events, self.start_ns, end_ns);
        let kernel = crate::kallsyms::Kallsyms::get();
        let mut names = Symbolizer::new(kernel, processes);
        let frames = d.addrs.iter().map(|&(sp, a)| names.name(sp, a)).collect();
        let dev_names = device_names(&d.comms, &d.events);
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
            dev_names,
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

    #[test]
    fn own_buffers_share_one_budget_over_the_cpus() {
        assert_eq!(own_scale(2), 16);
        assert_eq!(own_scale(3), 8);
        assert_eq!(own_scale(64), 1);
        assert_eq!(own_scale(0), 32);
    }
}
