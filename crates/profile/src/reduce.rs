//! One sample's recording reduced to its profile: folded on-CPU stacks by who ran them and in
//! which role, off-CPU time by reason of the cell's threads (fsbench's workers and children, the
//! daemons') apart from fsbench's helpers', the cell's lock waits, the device's requests.

use crate::device::Requests;
use crate::locks;
use crate::pairing::Pairing;
use crate::recording::{Kind, Recording};
use crate::roles::{HELPER_WHO, Roles, Tie};
use crate::who::{self, Scope, Side, Sides};
use crate::{fold, reason};
use fsbench_model::Profile;
use fsbench_model::calls::CallWindows;
use fsbench_model::profile::{self as p, Role, WhoShare};
use std::collections::{BTreeMap, HashMap};

/// Whose off-CPU time an interval is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Owner {
    /// The cell's thread, on this side.
    Cell(Side),
    /// fsbench's helper.
    Helper,
}

/// Samples of one `who`, its role and the device it serves.
type WhoTally = BTreeMap<String, (u64, Role, Option<String>)>;

/// The state of a pass over a recording's events.
struct Pass<'a> {
    rec: &'a Recording,
    scope: &'a Scope,
    sides: Sides,
    roles: Roles,
    out: Profile,
    /// Per switched-out thread: since when, why, whose time, and why before a FUSE target's page
    /// waits were called its round trips (a replay's calls outside its root read the host's
    /// disk, not the target).
    switched_out: HashMap<u32, (u64, &'static str, Owner, &'static str)>,
    /// A replay's calls, on which the off-CPU time and lock waits of its threads are put.
    windows: Option<&'a CallWindows>,
    /// Per lock wait of a replay's thread begun (thread, lock): when, and the lock.
    lock_calls: HashMap<(u32, u64), (u64, String)>,
    locks: Pairing,
    requests: Requests,
    who: WhoTally,
}

/// Reduces one sample's `rec` for `scope`; with a replay's `windows`, its threads' off-CPU time
/// and lock waits are also put on the kinds of call they happened in.
pub fn reduce(rec: &Recording, scope: &Scope, windows: Option<&CallWindows>) -> Profile {
    let mut pass = Pass {
        rec,
        scope,
        sides: Sides::new(scope),
        roles: Roles::new(scope, rec),
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
        windows,
        lock_calls: HashMap::new(),
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

    fn comm(&self, tid: u32) -> &str {
        self.rec.comms.get(&tid).map_or("", String::as_str)
    }

    /// The side of a watched thread that is the cell's (not the profiler's, not a helper).
    fn side(&self, pid: u32, tid: u32) -> Option<Side> {
        let side = self
            .sides
            .of(pid)
            .filter(|_| !self.scope.ignored_tids.contains(&tid))?;
        (!self.roles.is_helper(Some(side), pid, tid, self.comm(tid))).then_some(side)
    }

    fn event(&mut self, t: u64, pid: u32, tid: u32, kind: &Kind) {
        match kind {
            Kind::Cpu { kernel, user } => self.on_cpu(t, pid, tid, kernel, user),
            Kind::Out { runnable, stack } => self.out(t, pid, tid, *runnable, stack),
            Kind::In { next } => {
                self.locks.switched_in(*next, t);
                if let Some((t0, why, owner, raw)) = self.switched_out.remove(next) {
                    self.off_cpu(owner, why, t.saturating_sub(t0));
                    self.off_cpu_in_calls(*next, (why, raw), (t0, t));
                }
            }
            Kind::LockBegin { flags, addr, stack } => {
                if self.side(pid, tid).is_some() {
                    let caller = locks::caller(self.names(stack));
                    let kind = locks::kind(*flags);
                    if self.windows.is_some_and(|w| w.by_tid.contains_key(&tid)) {
                        self.lock_calls
                            .insert((tid, *addr), (t, format!("{kind}: {caller}")));
                    }
                    self.locks.begin(tid, t, *addr, kind, caller);
                }
            }
            Kind::LockEnd { addr } => {
                if self.side(pid, tid).is_some() {
                    if let Some((t0, lock)) = self.lock_calls.remove(&(tid, *addr)) {
                        self.lock_in_calls(tid, lock, (t0, t));
                    }
                    self.locks.end(tid, t, *addr);
                }
            }
            Kind::Lost => self.locks.lost(t),
            Kind::Exit => self.locks.exited(tid),
            Kind::Issue { dev, sector, .. } => self.device(*dev, *sector, t, true),
            Kind::Complete { dev, sector, .. } => self.device(*dev, *sector, t, false),
            // Read beforehand (`crate::works`), through the roles.
            Kind::Queue { .. } | Kind::WorkStart { .. } | Kind::Writeback { .. } => {}
            Kind::Fork { parent, parent_tid } => {
                self.sides.fork(pid, *parent);
                let comm = self.rec.comms.get(&tid).map_or("", String::as_str);
                self.roles.fork(tid, *parent_tid, comm);
            }
        }
    }

    /// A watched thread switched out: its reason, and whose time it is.
    fn out(&mut self, t: u64, pid: u32, tid: u32, runnable: bool, stack: &[u32]) {
        let Some(side) = self
            .sides
            .of(pid)
            .filter(|_| !self.scope.ignored_tids.contains(&tid))
        else {
            return;
        };
        let mut why = reason::reason(self.names(stack), runnable);
        let raw = why;
        // On a FUSE target fsbench's page waits are the daemon's round trips: the read path's
        // FUSE frames are tail calls, absent from the chain.
        let fuse = !self.scope.daemon_pids.is_empty();
        if fuse && side == Side::Fsbench && why == p::REASON_DEVICE {
            why = p::REASON_FUSE;
        }
        let helper = self.roles.is_helper(Some(side), pid, tid, self.comm(tid))
            || (side == Side::Fsbench && self.roles.is_helper_wait(tid, why));
        let owner = match helper {
            true => Owner::Helper,
            false => {
                self.locks.switched_out(tid, t, runnable);
                Owner::Cell(side)
            }
        };
        self.switched_out.insert(tid, (t, why, owner, raw));
    }

    fn on_cpu(&mut self, t: u64, pid: u32, tid: u32, kernel: &[u32], user: &[u32]) {
        if pid == 0 {
            self.out.idle_samples += 1;
            return;
        }
        self.out.on_cpu_samples += 1;
        let (who, role, serves) = self.who(t, pid, tid);
        let line = fold::line(&who, &self.names(kernel), &self.names(user));
        *self.out.on_cpu.entry(line).or_default() += 1;
        self.who.entry(who).or_insert((0, role, serves)).0 += 1;
    }

    /// Who ran a sample at `t` of thread `tid`, in which role, serving which device.
    fn who(&self, t: u64, pid: u32, tid: u32) -> (String, Role, Option<String>) {
        let side = self.sides.of(pid);
        let comm = self.comm(tid);
        if self.roles.is_helper(side, pid, tid, comm) || self.scope.ignored_tids.contains(&tid) {
            return (HELPER_WHO.into(), Role::Helper, None);
        }
        if side.is_some() {
            return (who::name(side, tid, &self.rec.comms), Role::Cell, None);
        }
        let (role, tie, item) = self.roles.outsider(tid, comm, t);
        let serves = tie.as_ref().map(|t| self.device_name(t));
        let device = serves.as_deref().unwrap_or_default();
        let name = match who::name(None, tid, &self.rec.comms) {
            _ if !comm.starts_with('[') => who::neighbour(comm),
            // A work item tied to a device: its workqueue (the worker's name shows only the
            // last one it served) and the device tell its roles apart.
            n if item.is_some_and(|it| it.dev.is_some()) => {
                let named = item.and_then(|it| it.workqueue.as_deref());
                let base = named.map_or(n, |wq| format!("kworker {wq}"));
                // `kworker loop4` serving loop4, `kworker dio/vda` serving vda: said once.
                let by_name =
                    named.map_or_else(|| crate::roles::tie(comm), crate::roles::tie_of_workqueue);
                match by_name.is_some_and(|t| self.device_name(&t) == device) {
                    true => base,
                    false => format!("{base} ({device})"),
                }
            }
            // A worker tied by its requests, not its name: the device tells its two roles apart.
            n if crate::roles::tie(comm).is_none() && serves.is_some() => format!("{n} ({device})"),
            n => n,
        };
        (name, role, serves)
    }

    fn device_name(&self, t: &Tie) -> String {
        match t {
            Tie::Name(n) => n.clone(),
            Tie::Dev(d) => self
                .scope
                .chain
                .iter()
                .find(|(dev, _)| dev == d)
                .map_or_else(
                    || {
                        let (major, minor) = crate::device::major_minor(*d);
                        self.rec
                            .dev_names
                            .get(d)
                            .cloned()
                            .unwrap_or_else(|| format!("{major}:{minor}"))
                    },
                    |(_, n)| n.clone(),
                ),
        }
    }

    fn off_cpu(&mut self, owner: Owner, why: &'static str, ns: u64) {
        let map = match owner {
            Owner::Cell(Side::Fsbench) => &mut self.out.off_cpu,
            // Server hosts' threads are not watched; a daemon's side is the nearest.
            Owner::Cell(Side::Daemon | Side::Server) => &mut self.out.daemon_off_cpu,
            Owner::Helper => &mut self.out.helper_off_cpu,
        };
        *map.entry(why.to_string()).or_default() += ns;
    }

    /// Puts thread `tid`'s off-CPU interval `(t0, t1)` on the replay's calls it overlaps, by
    /// reason (time between its calls is no call's).
    fn off_cpu_in_calls(
        &mut self,
        tid: u32,
        (why, raw): (&'static str, &'static str),
        (t0, t1): (u64, u64),
    ) {
        let Some(w) = self.windows else {
            return;
        };
        for (kind, ns) in w.overlaps(tid, t0, t1) {
            let why = match kind == fsbench_model::calls::OUTSIDE_KIND {
                true => raw,
                false => why,
            };
            let e = self.out.by_call.entry(kind.to_string()).or_default();
            *e.off_cpu.entry(why.to_string()).or_default() += ns;
        }
    }

    /// Puts thread `tid`'s wait for `lock` over `(t0, t1)` on the replay's calls it overlaps.
    fn lock_in_calls(&mut self, tid: u32, lock: String, (t0, t1): (u64, u64)) {
        let Some(w) = self.windows else {
            return;
        };
        for (kind, ns) in w.overlaps(tid, t0, t1) {
            let e = self.out.by_call.entry(kind.to_string()).or_default();
            *e.locks.entry(lock.clone()).or_default() += ns;
        }
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
        for (tid, (t0, why, owner, raw)) in std::mem::take(&mut self.switched_out) {
            self.off_cpu(owner, why, end.saturating_sub(t0));
            self.off_cpu_in_calls(tid, (why, raw), (t0, end));
        }
        fold::cap(&mut self.out.on_cpu, fold::KEEP_STACKS);
        let paired = std::mem::take(&mut self.locks).finish(end);
        let lock_off_cpu = [&self.out.off_cpu, &self.out.daemon_off_cpu]
            .iter()
            .filter_map(|m| m.get(p::REASON_LOCK))
            .sum();
        let broken = crate::invariants::check(&paired, lock_off_cpu, self.rec.wall_ns());
        self.out.notes.extend(broken);
        self.out.locks = paired.waits;
        self.out.lock_drops = paired.drops;
        self.out.notes.extend(paired.drops.note());
        if let Some((_, name)) = &self.scope.device {
            self.out.device = self.requests.finish(name, self.rec.wall_ns());
        }
        self.out.who = shares(self.who, self.out.on_cpu_samples);
        self.out
    }
}

/// Samples by who, largest first, with their role and percent of `busy`.
pub fn shares(by: WhoTally, busy: u64) -> Vec<WhoShare> {
    let mut v: Vec<WhoShare> = by
        .into_iter()
        .map(|(who, (samples, role, serves))| WhoShare {
            pct: 100.0 * samples as f64 / busy.max(1) as f64,
            who,
            role,
            serves,
            samples,
        })
        .collect();
    v.sort_by(|a, b| b.samples.cmp(&a.samples).then_with(|| a.who.cmp(&b.who)));
    v
}
