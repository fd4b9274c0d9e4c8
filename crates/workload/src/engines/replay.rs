//! `replay`: a program's filesystem calls, recorded once by `fsbench record`, made again on any
//! target. Before each sample (untimed) the trace's start state is rebuilt in the scratch
//! (`replay/`: directories, files of their exact sizes with `data=` content, symlinks confined
//! to the scratch), and synced; a trace that changes nothing under its root is rebuilt once. The
//! sample makes the calls under the recorded root, one thread per recorded
//! thread, in the order `order=` asks and at the pace `pace=` asks. A call whose result differs
//! from the recorded one (ENOENT where it succeeded, a short read) is counted per kind; above 1%
//! of the calls the cell says so, naming the first few. The program's calls outside its root
//! that only read files still as recorded on this machine (its libraries, its configuration:
//! its start-up) are made too, read-only, so that a cold replay pays for them as the program
//! did. Nothing is executed but the calls, and nothing is written outside the scratch.

mod breakdown;
mod calls;
mod exec;
mod jobs;
mod state;

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::file::DataPattern;
use fsbench_model::metric as k;
use fsbench_trace::Trace;
use fsbench_trace::concurrency::Concurrency;
use fsbench_trace::plan::{Order, Plan};
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "replay",
    summary: "replay a trace of `fsbench record` (trace=FILE): its start state rebuilt, its calls made again, one thread per recorded thread",
    params: PARAMS,
    build,
    shared: false,
};

/// `trace`: the trace file.
const TRACE: Knob<Option<PathBuf>> = Knob::new(
    "trace",
    "-",
    "a trace written by fsbench record -o FILE (required)",
    |p, k, _| p.existing_path(k, crate::PathKind::File),
)
.suite_file();

/// `order`: which calls wait for which.
const ORDER: Knob<Order> = Knob::new(
    "order",
    "resource",
    "resource (calls on one path or open file keep their recorded order across threads, the rest run concurrently), thread (each thread its own order) or strict (all in recorded order)",
    |p, k, d| {
        Ok(match p.choice(k, &["resource", "thread", "strict"], d)? {
            "thread" => Order::Thread,
            "strict" => Order::Strict,
            _ => Order::Resource,
        })
    },
);

/// `pace`: as fast as possible, or the recorded gaps.
const PACE: Knob<bool> = Knob::new(
    "pace",
    "afap",
    "afap (as fast as possible: the filesystem's limit) or trace (each thread keeps its recorded gaps between calls, the program's own time, tracing's cost taken out)",
    |p, k, d| Ok(p.choice(k, &["afap", AS_RECORDED], d)? == AS_RECORDED),
);

/// `outside`: whether the program's read-only calls outside its root are made.
const OUTSIDE: Knob<bool> = Knob::new(
    "outside",
    OUTSIDE_READ,
    "replay (the program's calls outside its root that only read files still as recorded here — its libraries, its configuration: its start-up — are made too, read-only, so a cold replay loads them as the program did) or skip (only the calls under the root)",
    |p, k, d| Ok(p.choice(k, &[OUTSIDE_READ, "skip"], d)? == OUTSIDE_READ),
);

/// `calls`: whether each call is timed.
const CALLS: Knob<bool> = Knob::new(
    "calls",
    CALLS_TIMED,
    "time (each call timed: the sample's latencies, its time by call kind and its slowest calls) or off (only the sample's wall time: what timing each call costs)",
    |p, k, d| Ok(p.choice(k, &[CALLS_TIMED, "off"], d)? == CALLS_TIMED),
);

/// `calls=`'s value that times each call.
const CALLS_TIMED: &str = "time";

/// `outside=`'s value that replays the reads outside the root.
const OUTSIDE_READ: &str = "replay";

/// `pace=`'s value for the recorded gaps.
const AS_RECORDED: &str = "trace";

/// `speed`: how much faster than recorded a paced replay runs.
const SPEED: Knob<String> = crate::knob::text(
    "speed",
    "1",
    "with pace=trace: the gaps divided by this (2: twice as fast)",
);

const PARAMS: &[ParamDoc] = &[
    TRACE.doc(),
    ORDER.doc(),
    PACE.doc(),
    SPEED.doc(),
    OUTSIDE.doc(),
    CALLS.doc(),
    crate::knobs::io::DATA.doc(),
    crate::knobs::io::SEED.doc(),
];

/// Largest trace read.
const MAX_TRACE: u64 = 4 << 30;

/// Share of diverged calls from which a cell says so, percent.
const DIVERGED_PCT: f64 = 1.0;

/// Divergences kept by their text, to name in the cell's note.
const NAMED: usize = 3;

struct Replay {
    trace: Arc<Trace>,
    plan: Arc<Plan>,
    /// With pace=trace: the gaps are divided by this.
    speed: Option<f64>,
    data: DataPattern,
    seed: u64,
    /// The replay's root in the scratch, set in `prepare`.
    root: Option<PathBuf>,
    /// Per call, a symlink's confined target (set in `prepare`).
    links: Arc<BTreeMap<u32, PathBuf>>,
    rebuilt: state::Rebuilt,
    /// The start state is in place and no replayed call changes it: not rebuilt again.
    standing: bool,
    /// What the program read outside its root, what of it the replay makes again, and what is
    /// no longer as recorded here (`None` without such calls).
    outside: Option<String>,
    /// How concurrent the program's replayed calls were when recorded.
    recorded_together: Concurrency,
    /// The last sample's mappings, unmapped after it (untimed).
    maps: calls::Mappings,
    /// Each call is timed (`calls=time`).
    timed: bool,
    /// The last sample's spans, made into its time by call kind after it (untimed).
    spans: Vec<jobs::Span>,
    /// CLOCK_MONOTONIC when the last sample's replay started, ns (its spans count from it).
    mono_start_ns: u64,
    log: DivergenceLog,
}

/// Divergences over the samples, for the cell's note.
#[derive(Default)]
struct DivergenceLog {
    over: usize,
    by_kind: BTreeMap<&'static str, u64>,
    named: Vec<String>,
    worst_pct: f64,
    /// Per sample, how concurrent the replay's calls were.
    together: Vec<Concurrency>,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let path = TRACE.read(p)?.ok_or_else(|| {
        TRACE.error("is required: give trace=FILE, recorded with `fsbench record -o FILE -- CMD`")
    })?;
    let bytes = fsbench_sys::infile::read_regular(&path, MAX_TRACE)
        .map_err(|e| TRACE.error(format!("cannot read {}: {e}", path.display())))?;
    let trace = fsbench_trace::decode(&bytes)
        .map_err(|e| TRACE.error(format!("{} {e}", path.display())))?;
    // The trace by content, beside its path: two runs that replayed different traces under one
    // name never compare.
    p.record(fsbench_model::param::TRACE_ID, trace_id(&bytes));
    let order = ORDER.read(p)?;
    let paced = PACE.read(p)?;
    let speed_text = SPEED.read(p)?;
    let speed: f64 = speed_text
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s > 0.0)
        .ok_or_else(|| SPEED.error(format!("'{speed_text}' is not a positive number")))?;
    if !paced && speed_text != "1" {
        return Err(SPEED.error("applies to pace=trace — add pace=trace or drop speed"));
    }
    let data = crate::knobs::io::data_param(p)?;
    let seed = crate::knobs::io::SEED.read(p)?;
    let summary = fsbench_trace::Summary::of(&trace);
    let overhead = summary
        .measured_overhead_ns
        .unwrap_or(trace.call_overhead_ns);
    // The calls made: every one under the root, and outside it those that only read files
    // still as recorded on this machine (the program's start-up, which a cold run pays for).
    let replayed = match OUTSIDE.read(p)? {
        true => fsbench_trace::outside::replayable(&trace),
        false => fsbench_trace::plan::inside(&trace),
    };
    let plan = fsbench_trace::plan::plan_replaying(&trace, order, overhead, &replayed);
    let outside = outside_note(&trace, &replayed);
    let recorded_together = fsbench_trace::concurrency::recorded(&trace, &replayed);
    Ok(Box::new(Replay {
        trace: Arc::new(trace),
        plan: Arc::new(plan),
        speed: paced.then_some(speed),
        data,
        seed,
        root: None,
        links: Arc::new(BTreeMap::new()),
        rebuilt: state::Rebuilt::default(),
        standing: false,
        outside,
        recorded_together,
        maps: calls::Mappings::default(),
        timed: CALLS.read(p)?,
        spans: Vec::new(),
        mono_start_ns: 0,
        log: DivergenceLog::default(),
    }))
}

impl Workload for Replay {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let scratch = ctx.scratch().ok_or_else(|| {
            WorkloadError::Invalid("replay needs a directory target, not a device".into())
        })?;
        let root = scratch.join("replay");
        let recorded_root = self.trace.root.as_bytes();
        let mut links = BTreeMap::new();
        for (i, c) in self.trace.calls.iter().enumerate() {
            if let (false, fsbench_trace::model::Op::Symlink { path, target }) = (c.outside, &c.op)
            {
                let link = &self.trace.paths[*path as usize];
                links.insert(
                    i as u32,
                    fsbench_trace::confine::confined(link, target, recorded_root, &root).0,
                );
            }
        }
        self.links = Arc::new(links);
        self.root = Some(root);
        Ok(())
    }

    fn before_sample(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let root = self.root.clone().expect("prepared");
        ctx.cancel.check()?;
        // A trace that changes nothing but files of its own it removes again (`git status`
        // and its index.lock) finds its tree as the last sample left it: rebuilt once, so that a warm sample is warm in every cache, a FUSE daemon's and
        // a network client's too, as the program's own tree is between its runs.
        if self.standing {
            return Ok(());
        }
        self.rebuilt = state::rebuild(&self.trace, &root, self.data, self.seed, &ctx.cancel)?;
        self.standing = fsbench_trace::model::leaves_as_found(&self.trace);
        // The rebuilt files (and the removal of the last sample's) written out before the
        // timer: a program's tree is at rest when it starts, not 30 MB of dirty pages that
        // writeback would flush during the sample.
        let dir = std::fs::File::open(&root).map_err(|e| WorkloadError::io("open", &root, e))?;
        rustix::fs::syncfs(&dir)
            .map_err(|e| WorkloadError::io("syncfs", &root, std::io::Error::from(e)))?;
        Ok(())
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let root = self.root.clone().expect("prepared");
        let shared = Shared {
            trace: self.trace.clone(),
            plan: self.plan.clone(),
            links: self.links.clone(),
            done: (0..self.trace.calls.len())
                .map(|_| AtomicU32::new(exec::PENDING))
                .collect(),
            fds: (0..self.trace.calls.len())
                .map(|_| AtomicI32::new(-1))
                .collect(),
            root_fd: exec::open_root(&root)?,
            root,
            speed: self.speed,
            timed: self.timed,
            data: self.data,
            seed: self.seed,
        };
        let threads = self.plan.threads.len();
        let start = Instant::now();
        self.mono_start_ns = monotonic_ns();
        // Every thread times its calls on its own clock, even alone: the sample's latencies are
        // recorded from the spans after the sample (a live recorder's histogram and series cost
        // a single-threaded grep -r 3-4% of its replay).
        let outcomes: Vec<Result<exec::Outcome, WorkloadError>> = if threads <= 1 {
            (0..threads)
                .map(|t| {
                    let mut clock = jobs::ThreadClock::since(start);
                    exec::run_thread(&shared, t, start, &ctx.cancel, &mut clock)
                })
                .collect()
        } else {
            std::thread::scope(|s| {
                let shared = &shared;
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        s.spawn(move || {
                            let mut clock = jobs::ThreadClock::since(start);
                            exec::run_thread(shared, t, start, &ctx.cancel, &mut clock)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(WorkloadError::Invalid("a replay thread panicked".into()))
                        })
                    })
                    .collect()
            })
        };
        let end_ns = start.elapsed().as_nanos() as u64;
        // What the program left open its exit closed, in its time; what follows (recording the
        // threads' spans, how concurrent they were) is the replay's own and not timed.
        shared.close_all();
        rec.stop_clock();
        let mut total = exec::Outcome::default();
        for o in outcomes {
            total.add(o?);
        }
        self.maps.take(&mut total.maps);
        jobs::record(&mut total.spans, end_ns, rec);
        if self.timed {
            let together =
                fsbench_trace::concurrency::of_spans(total.spans.iter().map(|s| (s.start, s.end)));
            rec.metric(k::REPLAY_CONCURRENCY, together.mean);
            self.log.together.push(together);
        } else {
            rec.add_ops(total.untimed.0, total.untimed.1);
        }
        self.spans = std::mem::take(&mut total.spans);
        let calls = self.plan.calls() as f64;
        let pct = if calls > 0.0 {
            total.diverged as f64 * 100.0 / calls
        } else {
            0.0
        };
        rec.metric(k::REPLAY_CALLS, calls);
        rec.metric(k::REPLAY_THREADS, threads as f64);
        rec.metric(k::REPLAY_DIVERGED, total.diverged as f64);
        rec.metric(k::REPLAY_DIVERGED_PCT, pct);
        if pct > DIVERGED_PCT {
            self.log.over += 1;
            self.log.worst_pct = self.log.worst_pct.max(pct);
            for (kind, n) in &total.by_kind {
                *self.log.by_kind.entry(kind).or_default() += n;
            }
            for n in total.named {
                if self.log.named.len() < NAMED && !self.log.named.contains(&n) {
                    self.log.named.push(n);
                }
            }
        }
        Ok(())
    }

    fn after_sample(&mut self, _ctx: &Context) -> Result<Vec<(String, f64)>, WorkloadError> {
        self.maps = calls::Mappings::default();
        Ok(Vec::new())
    }

    fn call_windows(&self) -> Option<fsbench_model::calls::CallWindows> {
        (self.timed && !self.spans.is_empty())
            .then(|| breakdown::windows(&self.trace, &self.spans, self.mono_start_ns))
    }

    fn call_times(&mut self) -> Option<fsbench_model::CallTimes> {
        let spans = std::mem::take(&mut self.spans);
        (self.timed && !spans.is_empty()).then(|| breakdown::of(&self.trace, &spans))
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        let Some(root) = &self.root else {
            return Vec::new();
        };
        self.trace
            .start
            .iter()
            .filter(|e| e.kind == fsbench_trace::model::FileKind::File)
            .map(|e| {
                root.join(std::ffi::OsStr::from_bytes(
                    &self.trace.paths[e.path as usize],
                ))
            })
            .collect()
    }

    fn caps(&self) -> Caps {
        let files = &self.trace.start;
        Caps {
            writes: true,
            space_needed: files.iter().map(|e| e.size).sum::<u64>(),
            inodes_needed: files.len() as u64,
            cold_needs_global: true,
            reads_tree: true,
            mixed_rate: true,
            also_shown: &[k::REPLAY_CALLS, k::REPLAY_DIVERGED_PCT],
            ..Caps::base(Headline::Wall)
        }
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = self.rebuilt.notes();
        let mmaps = self
            .trace
            .calls
            .iter()
            .filter(|c| !c.outside && matches!(c.op, fsbench_trace::model::Op::Mmap { .. }))
            .count();
        if mmaps > 0 {
            notes.push(format!("{mmaps} mappings of files are replayed as reads of the mapped ranges (an approximation: the program may have touched less, or later)"));
        }
        notes.extend(self.outside.clone());
        notes.extend(self.together_note());
        if self.log.over > 0 {
            let kinds: Vec<String> = self
                .log
                .by_kind
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            notes.push(format!(
                "the replay diverged from the recording (up to {:.1}% of a sample's calls: {}); first: {} — the target behaves differently from where it was recorded (a missing file, a permission), so the replay is not the same work",
                self.log.worst_pct,
                kinds.join(", "),
                self.log.named.join("; ")
            ));
        }
        notes
    }
}

impl Replay {
    /// How concurrent the replay's calls were against the program's, when the program ran more
    /// than one thread: threads in a call at once, on average and at most.
    fn together_note(&self) -> Option<String> {
        let was = self.recorded_together;
        let samples = &self.log.together;
        if self.plan.threads.len() < 2 || samples.is_empty() {
            return None;
        }
        let mean = samples.iter().map(|c| c.mean).sum::<f64>() / samples.len() as f64;
        let max = samples.iter().map(|c| c.max).max().unwrap_or(0);
        Some(format!(
            "threads in a call at once: the program {:.2} on average (at most {}) as recorded, the replay {:.2} (at most {})",
            was.mean, was.max, mean, max
        ))
    }
}

/// The cell's note on the program's calls outside its root that only read (its start-up: the
/// binary's libraries, its configuration): how many, on how many files, how many of them the
/// replay makes again (`replayed`: read-only, on the files still as recorded), and which files
/// are no longer as recorded on this machine (the first few named): their calls are not made,
/// so a cold replay does not pay for loading them as the program did.
fn outside_note(trace: &Trace, replayed: &[bool]) -> Option<String> {
    use fsbench_trace::outside;
    let n = outside::count(trace);
    if n.read_only == 0 {
        return None;
    }
    let made: Vec<&fsbench_trace::model::Call> = trace
        .calls
        .iter()
        .zip(replayed)
        .filter(|(c, r)| c.outside && **r)
        .map(|(c, _)| c)
        .collect();
    let read_mib = made.iter().map(|c| c.op.bytes(c.result).0).sum::<u64>() as f64 / 1048576.0;
    let read = outside::read_only_paths(trace);
    let mut changed = Vec::new();
    for f in trace
        .outside_files
        .iter()
        .filter(|f| read.contains(&f.path))
    {
        let abs = &trace.paths[f.path as usize];
        if let Some(why) = outside::divergence(f.found.as_ref(), outside::as_path(abs)) {
            changed.push(format!("{} ({why})", String::from_utf8_lossy(abs)));
        }
    }
    let mut note = format!(
        "outside its root the program made {} calls that only read, on {} paths ({} there when recorded): its start-up; ",
        n.read_only, n.files, n.found,
    );
    note += &match made.len() {
        0 => "the replay makes none of them, so a cold replay does not pay for loading them as the program did".to_string(),
        m => format!(
            "the replay makes {m} of them again, read-only ({read_mib:.1} MiB read or mapped), so a cold replay loads them as the program did"
        ),
    };
    if !changed.is_empty() {
        note += &format!(
            "; {} of those paths differ on this machine from the recording and are not read: {}",
            changed.len(),
            changed
                .iter()
                .take(NAMED)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    if n.kernels + n.changing > 0 {
        note += &format!(
            "; not replayed: {} calls on /proc, /sys or /dev and {} that change something outside the root",
            n.kernels, n.changing
        );
    }
    Some(note)
}

/// What every replay thread shares.
pub(crate) struct Shared {
    trace: Arc<Trace>,
    plan: Arc<Plan>,
    links: Arc<BTreeMap<u32, PathBuf>>,
    /// Per call, whether it is made (`exec::PENDING`, `exec::SLEEPER`, `exec::DONE`).
    done: Vec<AtomicU32>,
    /// Per open call, its descriptor in the replay (-1: not open).
    fds: Vec<AtomicI32>,
    root_fd: std::os::fd::OwnedFd,
    root: PathBuf,
    speed: Option<f64>,
    /// Each call is timed (`calls=time`).
    timed: bool,
    data: DataPattern,
    seed: u64,
}

impl Shared {
    /// Closes what the replay left open (a program's files it never closed, or closed by exit).
    fn close_all(&self) {
        for fd in &self.fds {
            let f = fd.swap(-1, Ordering::AcqRel);
            if f >= 0 {
                exec::close(f);
            }
        }
    }
}

/// A trace file's identity: its FNV-1a 64-bit hash, 16 hex digits (not a security hash: two
/// recordings that differ in any byte differ in it but for a 1 in 2^64 chance).
fn trace_id(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// CLOCK_MONOTONIC now, ns: the clock of a profile's events (`Instant` reads it too).
fn monotonic_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// How long a replay thread waits in one piece before it looks at the cancel token again.
pub(crate) const WAIT_SLICE: Duration = Duration::from_millis(2);
