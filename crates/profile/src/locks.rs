//! Lock waits from `lock:contention_begin/end`: paired per thread (innermost first, as they
//! nest: a rwsem's slow path contends on its spinlock), named by kind and by the caller frames
//! above the lock's own code.

use fsbench_model::profile::LockWait;
use std::collections::{BTreeMap, HashMap};

/// How many caller frames name a lock's call site.
const CALLER_FRAMES: usize = 3;

/// The kind of lock from `contention_begin`'s flags (`LCB_F_*` in the kernel's
/// `trace/events/lock.h`).
pub fn kind(flags: u32) -> &'static str {
    const SPIN: u32 = 1;
    const READ: u32 = 2;
    const WRITE: u32 = 4;
    const RT: u32 = 8;
    const PERCPU: u32 = 16;
    const MUTEX: u32 = 32;
    match flags {
        f if f & PERCPU != 0 => "percpu-rwsem",
        f if f & RT != 0 => "rtmutex",
        f if f & MUTEX != 0 => "mutex",
        f if f & SPIN != 0 && f & (READ | WRITE) != 0 => "rwlock",
        f if f & SPIN != 0 => "spinlock",
        f if f & WRITE != 0 => "rwsem-write",
        f if f & READ != 0 => "rwsem-read",
        _ => "lock",
    }
}

/// The caller of a lock: the frames above the lock's slow path, innermost first.
pub fn caller<'a>(frames: impl IntoIterator<Item = &'a str>) -> String {
    let internal = |f: &str| {
        f.contains("slowpath")
            || [
                "__pv_", "queued_", "osq_", "rwsem_", "__rwsem", "__mutex", "trace_",
            ]
            .iter()
            .any(|p| f.starts_with(p))
    };
    let shown: Vec<&str> = frames
        .into_iter()
        .skip_while(|f| internal(f))
        .take(CALLER_FRAMES)
        .collect();
    shown.join(" <- ")
}

/// Waits being timed, per thread, innermost last.
#[derive(Debug, Default)]
pub struct Pairing {
    open: HashMap<u32, Vec<(u64, String, String)>>,
    total: BTreeMap<(String, String), (u64, u64)>,
}

impl Pairing {
    /// Thread `tid` began waiting at `t` for a lock of `kind` called from `caller`.
    pub fn begin(&mut self, tid: u32, t: u64, kind: &str, caller: String) {
        self.open
            .entry(tid)
            .or_default()
            .push((t, kind.to_string(), caller));
    }

    /// Thread `tid`'s innermost wait ended at `t`.
    pub fn end(&mut self, tid: u32, t: u64) {
        if let Some((t0, kind, caller)) = self.open.get_mut(&tid).and_then(Vec::pop) {
            let e = self.total.entry((kind, caller)).or_default();
            e.0 += t.saturating_sub(t0);
            e.1 += 1;
        }
    }

    /// The waits by kind and caller, longest first.
    pub fn finish(self) -> Vec<LockWait> {
        let mut v: Vec<LockWait> = self
            .total
            .into_iter()
            .map(|((kind, caller), (wait_ns, count))| LockWait {
                kind,
                caller,
                wait_ns,
                count,
            })
            .collect();
        v.sort_by_key(|w| std::cmp::Reverse(w.wait_ns));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caller_starts_above_the_slow_path() {
        let chain = [
            "rwsem_down_write_slowpath",
            "down_write",
            "open_last_lookups",
            "path_openat",
            "do_filp_open",
        ];
        assert_eq!(
            caller(chain),
            "down_write <- open_last_lookups <- path_openat"
        );
        assert_eq!(kind(4), "rwsem-write");
        assert_eq!(kind(1), "spinlock");
        assert_eq!(kind(32), "mutex");
    }

    #[test]
    fn nested_waits_pair_innermost_first() {
        let mut p = Pairing::default();
        p.begin(1, 100, "rwsem-write", "down_write".into());
        p.begin(1, 110, "spinlock", "_raw_spin_lock".into());
        p.end(1, 120);
        p.end(1, 300);
        p.end(1, 400); // unmatched: ignored
        let w = p.finish();
        assert_eq!(w[0].kind, "rwsem-write");
        assert_eq!((w[0].wait_ns, w[0].count), (200, 1));
        assert_eq!((w[1].wait_ns, w[1].count), (10, 1));
    }
}
