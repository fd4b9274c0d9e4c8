//! The gaps a paced replay (`pace=trace`) keeps before each call: the program's own time
//! between its calls, from the threads' own clocks and the untraced runs (pure); and the calls
//! that waited for other threads (a join, a child's exit), which `plan` makes wait for them.

use crate::model::{StopCost, Trace};
use std::collections::HashMap;

/// A gap in which a thread blocked (it got a CPU more often than its stops explain) and was off
/// its CPU for longer than this was it waiting for something (another thread, a child process,
/// a timer), not for the tracer, whose stops keep a thread waiting about 10 µs, a few hundred
/// when many threads share the one tracer (and up to a few ms: hence the arrivals).
pub const WAITED_NS: u64 = 1_000_000;

/// Per call, the gap a paced replay keeps before it; and the calls that waited for other
/// threads, each with the recorded instant by which what it waited for had happened.
///
/// With the threads' own clocks (traces since format 2): the program's own CPU time (its
/// untraced runs' less its calls', [`program_own`]) spread over the gaps as each gap's share of
/// what the clocks said less each stop's calibrated cost; plus the time it idled. A gap in which
/// the thread blocked for longer than [`WAITED_NS`] while other threads' calls ended was a wait
/// for them: the call waits for their calls that had ended by then (a join; a thread's first
/// call waits likewise for what had ended when the thread began); what came after the last of
/// them is kept as time (a child's sleep, a timer, a pipe from outside).
///
/// Without them: the recorded wall-clock gaps less `overhead_ns` for every call of any thread
/// that started within each (one tracer stops every thread in turn).
///
/// `replayed` says which calls the replay makes (one flag per call): the time of the others
/// stays in the gaps.
pub(crate) fn gaps(
    trace: &Trace,
    overhead_ns: u64,
    replayed: &[bool],
) -> (Vec<u64>, Vec<(u32, u64)>) {
    let clocks = trace
        .stop_cost
        .filter(|_| trace.calls.iter().all(|c| c.before.is_some()));
    let Some(cost) = clocks else {
        return (wall_gaps(trace, overhead_ns, replayed), Vec::new());
    };
    let clocked = Clocked::of(trace, &cost, replayed);
    let gap_ns = spread(
        trace,
        &clocked,
        program_own(trace, &cost, replayed),
        replayed,
    );
    // A wait is for the next replayed call of its thread.
    let n = trace.calls.len();
    let waits = clocked
        .waits
        .into_iter()
        .filter_map(|(i, at)| {
            let t = trace.calls[i as usize].thread;
            (i as usize..n)
                .find(|&j| trace.calls[j].thread == t && replayed[j])
                .map(|j| (j as u32, at))
        })
        .collect();
    (gap_ns, waits)
}

/// The recorded wall-clock gaps less tracing's cost (a trace without the threads' clocks).
fn wall_gaps(trace: &Trace, overhead_ns: u64, replayed: &[bool]) -> Vec<u64> {
    let n = trace.calls.len();
    let mut gap_ns = vec![0u64; n];
    let starts = Starts::of(trace);
    let per_call = if n == 0 {
        0.0
    } else {
        overhead_ns as f64 * (n as u64 + trace.not_files + trace.followed_only) as f64 / n as f64
    };
    let mut last_end: HashMap<u32, u64> = HashMap::new();
    for (i, c) in trace.calls.iter().enumerate().filter(|(i, _)| replayed[*i]) {
        let end = last_end.get(&c.thread).copied().unwrap_or(0);
        let gap = c.start_ns.saturating_sub(end) as f64
            - per_call * (starts.within(end, c.start_ns).max(1) as f64);
        gap_ns[i] = gap.max(0.0) as u64;
        last_end.insert(c.thread, c.start_ns + c.dur_ns);
    }
    gap_ns
}

/// Every call's start (recorded ns), sorted.
struct Starts(Vec<u64>);

impl Starts {
    fn of(trace: &Trace) -> Self {
        let mut v: Vec<u64> = trace.calls.iter().map(|c| c.start_ns).collect();
        v.sort_unstable();
        Starts(v)
    }

    /// Calls that started in (`from`, `to`].
    fn within(&self, from: u64, to: u64) -> u64 {
        let a = self.0.partition_point(|&s| s <= from);
        let b = self.0.partition_point(|&s| s <= to);
        b.saturating_sub(a) as u64
    }
}

/// What the threads' clocks said, per replayed call.
struct Clocked {
    /// The CPU time the thread ran before the call (since its last replayed one, its calls
    /// outside the root included) less the stops' calibrated cost; below 0 when the stops cost
    /// less than the mean.
    own: Vec<f64>,
    /// The time it idled before the call, ns.
    slept: Vec<u64>,
    /// Calls (any, to be moved to their thread's next replayed one) that waited for other
    /// threads, with the recorded instant by which.
    waits: Vec<(u32, u64)>,
}

impl Clocked {
    fn of(trace: &Trace, cost: &StopCost, replayed: &[bool]) -> Self {
        let n = trace.calls.len();
        let mut out = Clocked {
            own: vec![0f64; n],
            slept: vec![0u64; n],
            waits: Vec::new(),
        };
        let ends = Ends::of(trace);
        let mut first = vec![true; trace.threads.len()];
        let mut last_end: HashMap<u32, u64> = HashMap::new();
        let mut gathered: HashMap<u32, (f64, u64)> = HashMap::new();
        let (gap_cost, call_cost) = (cost.gap_cpu_ns as f64, cost.call_cpu_ns as f64);
        for (i, c) in trace.calls.iter().enumerate() {
            let before = c.before.unwrap_or_default();
            let hidden = u64::from(c.hidden);
            let began = trace.threads[c.thread as usize].begun_ns;
            if std::mem::take(&mut first[c.thread as usize]) && began > 0 {
                out.waits.push((i as u32, began));
            }
            let from = last_end.get(&c.thread).copied().unwrap_or(began);
            let acc = gathered.entry(c.thread).or_default();
            acc.0 +=
                before.cpu_ns as f64 - gap_cost * (1 + hidden) as f64 - call_cost * hidden as f64;
            // Off its CPU for long, and given a CPU more often than its stops explain (once
            // after the last call's exit stop, twice for each call not recorded): it blocked. A
            // thread that only queued for the tracer, however long, did not.
            let blocked = before.arrivals > 1 + 2 * hidden;
            if before.off_ns > WAITED_NS && blocked {
                // Other threads' calls that ended in the gap: it waited for them; what came
                // after the last of them, the program idled: kept as time.
                let others = ends.last_of_others(from, c.start_ns, c.thread);
                if others.is_some() {
                    out.waits.push((i as u32, c.start_ns));
                }
                let idle = c
                    .start_ns
                    .saturating_sub(others.unwrap_or(from).max(from))
                    .min(before.off_ns);
                if idle > WAITED_NS {
                    acc.1 += idle.saturating_sub(cost.gap_off_ns * (1 + hidden));
                }
            }
            last_end.insert(c.thread, c.start_ns + c.dur_ns);
            if !replayed[i] {
                // Not replayed: its time is the program's own, like a gap's.
                acc.0 += c.during.unwrap_or_default().cpu_ns as f64 - call_cost;
            } else {
                (out.own[i], out.slept[i]) = std::mem::take(acc);
            }
        }
        out
    }
}

/// The program's own CPU time, ns: its untraced runs' (the least of them: what the machine adds
/// to a run only adds — a build's five runs here took 810 to 1,073 ms of CPU — as the calls
/// made again keep their least round) less what its replayed calls cost, those
/// that only read as made again untraced, the others as traced less what a stop adds to a call
/// in this very run (the traced CPU time of the calls made again less theirs made again, per
/// call; the calibrated cost when fewer than 100 were). `None` without untraced runs that did
/// the traced run's work, or without the calls made again.
fn program_own(trace: &Trace, cost: &StopCost, replayed: &[bool]) -> Option<f64> {
    let repeatable = crate::rerun::repeatable(trace);
    let untraced = least(&trace.untraced_cpu_ns).filter(|_| untraced_did_the_same_work(trace))?;
    let reran = trace.reran_cpu_ns?;
    let during = |c: &crate::model::Call| c.during.unwrap_or_default().cpu_ns;
    let replayed = || trace.calls.iter().enumerate().filter(|(i, _)| replayed[*i]);
    let (traced, n) = replayed()
        .filter(|(i, _)| repeatable[*i])
        .fold((0u64, 0u64), |(t, n), (_, c)| (t + during(c), n + 1));
    let added = if n >= 100 {
        traced.saturating_sub(reran) / n
    } else {
        cost.call_cpu_ns
    };
    let writes: u64 = replayed()
        .filter(|(i, _)| !repeatable[*i])
        .map(|(_, c)| during(c).saturating_sub(added))
        .sum();
    Some(untraced.saturating_sub(reran + writes) as f64)
}

/// Per call, its gap: `program_own` spread over the replayed calls as each one's share of what
/// the clocks said (without it, each thread's clocks less the stops' cost, a stop that cost less
/// than the mean offsetting one that cost more), plus the time idled before it.
fn spread(
    trace: &Trace,
    clocked: &Clocked,
    program_own: Option<f64>,
    replayed: &[bool],
) -> Vec<u64> {
    let mut gap_ns = vec![0u64; trace.calls.len()];
    let own = &clocked.own;
    let replayed = || trace.calls.iter().enumerate().filter(|(i, _)| replayed[*i]);
    // Per thread (or, with `program_own`, over all): the own time to spread, and the weight.
    let mut total: HashMap<Option<u32>, (f64, f64)> = HashMap::new();
    let key = |thread: u32| program_own.is_none().then_some(thread);
    for (i, c) in replayed() {
        let t = total.entry(key(c.thread)).or_default();
        t.0 += own[i];
        t.1 += own[i].max(0.0);
    }
    if let Some(p) = program_own {
        if let Some(t) = total.get_mut(&None) {
            t.0 = p;
        }
    }
    for (i, c) in replayed() {
        let (sum, weight) = total[&key(c.thread)];
        let share = if weight > 0.0 {
            own[i].max(0.0) / weight
        } else {
            0.0
        };
        gap_ns[i] = (sum.max(0.0) * share) as u64 + clocked.slept[i];
    }
    gap_ns
}

/// Every call's end (recorded ns) and thread, by end.
struct Ends(Vec<(u64, u32)>);

impl Ends {
    fn of(trace: &Trace) -> Self {
        let mut v: Vec<(u64, u32)> = trace
            .calls
            .iter()
            .map(|c| (c.start_ns + c.dur_ns, c.thread))
            .collect();
        v.sort_unstable();
        Ends(v)
    }

    /// The latest end in (`from`, `to`] of a call of another thread than `me`.
    fn last_of_others(&self, from: u64, to: u64, me: u32) -> Option<u64> {
        let upto = self.0.partition_point(|&(e, _)| e <= to);
        self.0[..upto]
            .iter()
            .rev()
            .take_while(|&&(e, _)| e > from)
            .find(|&&(_, t)| t != me)
            .map(|&(e, _)| e)
    }
}

/// Whether the untraced runs did the traced run's work: the program leaves its tree as it
/// found it, or a `--prepare` command restored it before each run. (Runs of `tar xf` over the
/// files the last run extracted do other work, and take other CPU time.)
pub fn untraced_did_the_same_work(trace: &Trace) -> bool {
    trace.prepare.is_some() || crate::model::leaves_as_found(trace)
}

/// The least of `v`, `None` when it is empty.
pub(crate) fn least(v: &[u64]) -> Option<u64> {
    v.iter().copied().min()
}
