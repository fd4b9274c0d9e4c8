//! Lock waits from `lock:contention_begin/end` named: by kind (from the begin's flags) and by
//! the caller frames above the lock's own code. Their pairing is [`crate::pairing`]'s.

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
}
