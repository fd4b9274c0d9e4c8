//! A sample's time by call kind and its slowest calls, from the spans its threads kept. Built
//! after the sample, outside its timed region: knowing where the time went costs the replay
//! only the clock reads around each call, which its latencies take anyway.

use super::jobs::Span;
use fsbench_model::calls::{CallTimes, CallWindows, KindTime, SLOWEST, SlowCall};
use fsbench_trace::kinds::kind;
use fsbench_trace::model::{Op, Trace};
use std::collections::BTreeMap;

/// The path call `i` names (relative to the root, absolute outside it); a call on an open file
/// names the path it was opened by; empty when there is none.
pub fn path(trace: &Trace, i: usize) -> String {
    let op = &trace.calls[i].op;
    let p = match op.file() {
        Some(f) => trace.calls.get(f as usize).and_then(|o| match o.op {
            Op::Open { path, .. } => Some(path),
            _ => None,
        }),
        None => op.paths().first().copied(),
    };
    let Some(bytes) = p.and_then(|p| trace.paths.get(p as usize)) else {
        return String::new();
    };
    match bytes.is_empty() {
        true => ".".into(),
        false => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// The nearest-rank `q` quantile (0..1) of `sorted`.
fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// What `spans` (one sample's calls of `trace`, any order) took, by kind, with the slowest calls.
pub fn of(trace: &Trace, spans: &[Span]) -> CallTimes {
    let dur = |s: &Span| s.end.saturating_sub(s.start);
    // Each span's kind, once (a span naming no call of the trace has none).
    let kinded: Vec<(&Span, &'static str)> = spans
        .iter()
        .filter_map(|s| Some((s, kind(trace.calls.get(s.call as usize)?))))
        .collect();
    let mut by: BTreeMap<&'static str, (Vec<u64>, u64)> = BTreeMap::new();
    for &(s, k) in &kinded {
        let e = by.entry(k).or_default();
        e.0.push(dur(s));
        e.1 += u64::from(s.failed);
    }
    let walls = wall_shares(&kinded, &by.keys().copied().collect::<Vec<_>>());
    let mut kinds: Vec<KindTime> = by
        .into_iter()
        .zip(walls)
        .map(|((kind, (mut ns, errors)), wall_ns)| {
            ns.sort_unstable();
            KindTime {
                kind: kind.into(),
                wall_ns,
                count: ns.len() as u64,
                total_ns: ns.iter().sum(),
                p50_ns: quantile(&ns, 0.5),
                p99_ns: quantile(&ns, 0.99),
                errors,
            }
        })
        .collect();
    kinds.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.kind.cmp(&b.kind)));
    let mut order: Vec<&Span> = spans.iter().collect();
    let n = SLOWEST.min(order.len());
    if n > 0 && n < order.len() {
        order.select_nth_unstable_by(n - 1, |a, b| dur(b).cmp(&dur(a)));
    }
    order.truncate(n);
    order.sort_by(|a, b| dur(b).cmp(&dur(a)).then(a.call.cmp(&b.call)));
    let slowest = order
        .into_iter()
        .map(|s| {
            let call = &trace.calls[s.call as usize];
            SlowCall {
                kind: kind(call).into(),
                path: path(trace, s.call as usize),
                thread: call.thread,
                call: s.call,
                ns: dur(s),
            }
        })
        .collect();
    CallTimes { kinds, slowest }
}

/// Each of `kinds`' part of the wall time (`kinds` sorted; in their order): every instant split
/// equally among the calls in flight then. A sweep over the calls' starts and ends in time order.
fn wall_shares(spans: &[(&Span, &'static str)], kinds: &[&'static str]) -> Vec<u64> {
    // (time, +1 start / -1 end, kind): an end sorts before a start at the same instant.
    let mut events: Vec<(u64, i8, usize)> = Vec::with_capacity(spans.len() * 2);
    for &(s, k) in spans {
        if let Ok(k) = kinds.binary_search(&k) {
            events.push((s.start, 1, k));
            events.push((s.end.max(s.start), -1, k));
        }
    }
    events.sort_unstable();
    let mut active = vec![0u32; kinds.len()];
    let mut in_flight = 0u32;
    let mut share = vec![0f64; kinds.len()];
    let mut prev = events.first().map_or(0, |e| e.0);
    for (t, delta, k) in events {
        if in_flight > 0 && t > prev {
            let each = (t - prev) as f64 / f64::from(in_flight);
            for (s, &n) in share.iter_mut().zip(&active) {
                *s += each * f64::from(n);
            }
        }
        prev = t;
        if delta > 0 {
            active[k] += 1;
            in_flight += 1;
        } else {
            active[k] = active[k].saturating_sub(1);
            in_flight = in_flight.saturating_sub(1);
        }
    }
    share.into_iter().map(|v| v.round() as u64).collect()
}

/// When `spans` ran, per OS thread, on CLOCK_MONOTONIC: `mono_start_ns` is the clock when the
/// replay started, from which the spans count.
pub fn windows(trace: &Trace, spans: &[Span], mono_start_ns: u64) -> CallWindows {
    let mut w = CallWindows::default();
    let mut index: BTreeMap<&'static str, u16> = BTreeMap::new();
    for s in spans {
        let Some(call) = trace.calls.get(s.call as usize) else {
            continue;
        };
        let k = kind(call);
        let next = index.len() as u16;
        let i = *index.entry(k).or_insert_with(|| {
            w.kinds.push(k.to_string());
            next
        });
        w.by_tid.entry(s.tid).or_default().push((
            mono_start_ns + s.start,
            mono_start_ns + s.end,
            i,
        ));
    }
    for v in w.by_tid.values_mut() {
        v.sort_unstable();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_trace::model::{Call, Op, Target, Trace};

    fn call(op: Op, outside: bool) -> Call {
        Call {
            thread: 0,
            start_ns: 0,
            dur_ns: 0,
            op,
            result: 0,
            outside,
            before: None,
            during: None,
            hidden: 0,
        }
    }

    fn trace() -> Trace {
        Trace {
            paths: vec![b"".to_vec(), b"a/b".to_vec(), b"/etc/passwd".to_vec()],
            calls: vec![
                call(
                    Op::Open {
                        path: 1,
                        flags: 0,
                        mode: 0,
                    },
                    false,
                ),
                call(
                    Op::Read {
                        file: 0,
                        offset: None,
                        size: 10,
                    },
                    false,
                ),
                call(
                    Op::Stat {
                        target: Target::Path(0),
                        nofollow: true,
                    },
                    false,
                ),
                call(
                    Op::Stat {
                        target: Target::Path(2),
                        nofollow: false,
                    },
                    true,
                ),
            ],
            ..Trace::default()
        }
    }

    fn span(call: u32, start: u64, end: u64, failed: bool) -> Span {
        Span {
            call,
            tid: 1,
            failed,
            start,
            end,
            bytes: 0,
        }
    }

    #[test]
    fn kinds_sum_every_span_and_the_slowest_name_their_paths() {
        let t = trace();
        let mut spans = vec![
            span(0, 0, 100, false),
            span(1, 100, 1_100, false),
            span(3, 1_100, 1_150, false),
        ];
        // A hundred lstats of the root, 10 to 1,000 ns, one failed.
        for i in 0..100u64 {
            spans.push(span(2, 2_000, 2_010 + i * 10, i == 7));
        }
        let c = of(&t, &spans);
        assert_eq!(c.count(), 103);
        let total: u64 = spans.iter().map(|s| s.end - s.start).sum();
        assert_eq!(c.total_ns(), total);
        assert_eq!(c.kinds[0].kind, "lstat", "{c:?}");
        let lstat = c.kind("lstat").unwrap();
        assert_eq!((lstat.count, lstat.errors), (100, 1));
        assert_eq!((lstat.p50_ns, lstat.p99_ns), (500, 990));
        assert_eq!(c.kind("read").unwrap().total_ns, 1_000);
        assert_eq!(c.kind(fsbench_model::calls::OUTSIDE_KIND).unwrap().count, 1);
        assert_eq!(c.slowest.len(), SLOWEST);
        assert_eq!(
            (c.slowest[0].kind.as_str(), c.slowest[0].path.as_str()),
            ("read", "a/b")
        );
        assert_eq!(c.slowest[1].path, ".");
        assert!(c.slowest.windows(2).all(|w| w[0].ns >= w[1].ns));
    }

    #[test]
    fn the_wall_time_is_shared_by_the_calls_in_flight() {
        let t = trace();
        // An lstat 0..100 alone, then a read 100..300 beside a second lstat 100..200.
        let spans = vec![
            span(2, 0, 100, false),
            span(1, 100, 300, false),
            Span {
                tid: 2,
                ..span(2, 100, 200, false)
            },
        ];
        let c = of(&t, &spans);
        assert_eq!(c.kind("lstat").unwrap().wall_ns, 150);
        assert_eq!(c.kind("read").unwrap().wall_ns, 150);
        assert_eq!(c.kind("lstat").unwrap().total_ns, 200);
    }

    #[test]
    fn windows_are_per_thread_in_time_order_on_the_monotonic_clock() {
        let t = trace();
        let mut spans = vec![span(2, 300, 400, false), span(0, 0, 100, false)];
        spans.push(Span {
            tid: 2,
            ..span(1, 50, 80, false)
        });
        let w = windows(&t, &spans, 1_000);
        assert_eq!(w.by_tid[&1].len(), 2);
        assert_eq!(w.overlaps(1, 1_000, 1_100), vec![("open", 100)]);
        assert_eq!(w.overlaps(1, 1_350, 2_000), vec![("lstat", 50)]);
        assert_eq!(w.overlaps(2, 0, 5_000), vec![("read", 30)]);
    }

    #[test]
    fn no_spans_no_kinds() {
        let c = of(&trace(), &[]);
        assert!(c.kinds.is_empty() && c.slowest.is_empty());
    }
}
