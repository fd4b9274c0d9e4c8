//! One sample's recording reduced to its profile: folded on-CPU stacks by who ran them, off-CPU
//! time of fsbench's and the daemon's threads by reason, lock waits, the device's requests.

use crate::device::Requests;
use crate::locks::{self, Pairing};
use crate::recording::{Kind, Recording};
use crate::who::{self, Scope, Side, Sides};
use crate::{fold, reason};
use fsbench_model::Profile;
use fsbench_model::profile::WhoShare;
use std::collections::{BTreeMap, HashMap};

/// The state of a pass over a recording's events.
struct Pass<'a> {
    rec: &'a Recording,
    scope: &'a Scope,
    sides: Sides,
    out: Profile,
    switched_out: HashMap<u32, (u64, &'static str, Side)>,
    locks: Pairing,
    requests: Requests,
    who: BTreeMap<String, u64>,
}

/// Reduces one sample's `rec` for `scope`.
pub fn reduce(rec: &Recording, scope: &Scope) -> Profile {
    let mut pass = Pass {
        rec,
        scope,
        sides: Sides::new(scope),
        out: Profile {
            frequency_hz: rec.frequency_hz,
            cpus: rec.cpus,
            samples: 1,
            wall_ns: rec.wall_ns(),
            lost: rec.lost,
            notes: rec.notes.clone(),
            ..Default::default()
        },
        switched_out: HashMap::new(),
        locks: Pairing::default(),
        requests: Requests::default(),
        who: BTreeMap::new(),
    };
    for e in &rec.events {
        pass.event(e.t, e.pid, e.tid, &e.kind);
    }
    pass.finish()
}

impl Pass<'_> {
    fn names(&self, stack: &[u32]) -> Vec<&str> {
        stack.iter().map(|&i| self.rec.frame(i)).collect()
    }

    fn side(&self, pid: u32, tid: u32) -> Option<Side> {
        self.sides
            .of(pid)
            .filter(|_| !self.scope.ignored_tids.contains(&tid))
    }

    fn event(&mut self, t: u64, pid: u32, tid: u32, kind: &Kind) {
        match kind {
            Kind::Cpu { kernel, user } => self.on_cpu(pid, tid, kernel, user),
            Kind::Out { runnable, stack } => {
                if let Some(side) = self.side(pid, tid) {
                    let mut why = reason::reason(self.names(stack), *runnable);
                    // On a FUSE target fsbench's page waits are the daemon's round trips: the
                    // read path's FUSE frames are tail calls, absent from the chain.
                    let fuse = !self.scope.daemon_pids.is_empty();
                    if fuse && side == Side::Fsbench && why == fsbench_model::profile::REASON_DEVICE
                    {
                        why = fsbench_model::profile::REASON_FUSE;
                    }
                    self.switched_out.insert(tid, (t, why, side));
                }
            }
            Kind::In { next } => {
                if let Some((t0, why, side)) = self.switched_out.remove(next) {
                    self.off_cpu(side, why, t.saturating_sub(t0));
                }
            }
            Kind::LockBegin { flags, stack } => {
                if self.side(pid, tid).is_some() {
                    let caller = locks::caller(self.names(stack));
                    self.locks.begin(tid, t, locks::kind(*flags), caller);
                }
            }
            Kind::LockEnd => self.locks.end(tid, t),
            Kind::Issue { dev, sector } => self.device(*dev, *sector, t, true),
            Kind::Complete { dev, sector } => self.device(*dev, *sector, t, false),
            Kind::Fork { parent } => self.sides.fork(pid, *parent),
        }
    }

    fn on_cpu(&mut self, pid: u32, tid: u32, kernel: &[u32], user: &[u32]) {
        if pid == 0 {
            self.out.idle_samples += 1;
            return;
        }
        self.out.on_cpu_samples += 1;
        let who = who::name(self.sides.of(pid), tid, &self.rec.comms);
        let line = fold::line(&who, &self.names(kernel), &self.names(user));
        *self.out.on_cpu.entry(line).or_default() += 1;
        *self.who.entry(who).or_default() += 1;
    }

    fn off_cpu(&mut self, side: Side, why: &'static str, ns: u64) {
        let map = match side {
            Side::Fsbench => &mut self.out.off_cpu,
            Side::Daemon => &mut self.out.daemon_off_cpu,
        };
        *map.entry(why.to_string()).or_default() += ns;
    }

    fn device(&mut self, dev: u32, sector: u64, t: u64, issued: bool) {
        if self.scope.device.as_ref().is_some_and(|(d, _)| *d == dev) {
            match issued {
                true => self.requests.issue(sector, t),
                false => self.requests.complete(sector, t),
            }
        }
    }

    fn finish(mut self) -> Profile {
        // Threads still off the CPU when the sample ended waited until its end.
        let end = self.rec.end_ns;
        for (t0, why, side) in std::mem::take(&mut self.switched_out).into_values() {
            self.off_cpu(side, why, end.saturating_sub(t0));
        }
        fold::cap(&mut self.out.on_cpu, fold::KEEP_STACKS);
        self.out.locks = self.locks.finish();
        if let Some((_, name)) = &self.scope.device {
            self.out.device = self.requests.finish(name, self.rec.wall_ns());
        }
        self.out.who = shares(self.who, self.out.on_cpu_samples);
        self.out
    }
}

/// Samples by who, largest first, with their percent of `busy`.
pub fn shares(by: BTreeMap<String, u64>, busy: u64) -> Vec<WhoShare> {
    let mut v: Vec<WhoShare> = by
        .into_iter()
        .map(|(who, samples)| WhoShare {
            pct: 100.0 * samples as f64 / busy.max(1) as f64,
            who,
            samples,
        })
        .collect();
    v.sort_by(|a, b| b.samples.cmp(&a.samples).then_with(|| a.who.cmp(&b.who)));
    v
}
