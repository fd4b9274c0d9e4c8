//! What the kernel reported during one sample, in time order, with call chains already turned
//! into names: the input of the reduction (and of its tests, as recorded fixtures).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One sample's events, symbolized.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Recording {
    /// Start of the timed region, CLOCK_MONOTONIC ns.
    pub start_ns: u64,
    /// End of the timed region, CLOCK_MONOTONIC ns.
    pub end_ns: u64,
    /// On-CPU sampling frequency per CPU, Hz.
    pub frequency_hz: u64,
    /// CPUs sampled.
    pub cpus: u32,
    /// Records the kernel dropped.
    pub lost: u64,
    /// Frame names; call chains index into this.
    pub frames: Vec<String>,
    /// Thread names as `/proc/TID/comm` gave them when first seen (kernel workers carry their
    /// last workqueue's name there).
    pub comms: BTreeMap<u32, String>,
    /// Events in time order.
    pub events: Vec<Event>,
    /// Names of the devices (`loop4`) whose numbers kernel workers' names carry
    /// (`flush-7:4`), read from `/sys/dev/block` when the sample ended.
    #[serde(default)]
    pub dev_names: BTreeMap<u32, String>,
    /// Parts that could not be recorded, in words.
    pub notes: Vec<String>,
}

/// One event: when, which thread, what.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Event {
    /// CLOCK_MONOTONIC ns.
    pub t: u64,
    /// Process (thread group) id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// What happened.
    pub kind: Kind,
}

/// What an event is. Call chains are innermost first, as indexes into [`Recording::frames`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An on-CPU sample: kernel frames, then user frames (each innermost first).
    Cpu {
        /// Kernel frames.
        kernel: Vec<u32>,
        /// User frames (modules, or `[user]`).
        user: Vec<u32>,
    },
    /// The thread was switched out, with its kernel call chain at the switch.
    Out {
        /// True when it was still runnable (preempted) rather than sleeping.
        runnable: bool,
        /// Kernel frames.
        stack: Vec<u32>,
    },
    /// Thread `next` was switched in.
    In {
        /// The thread switched in.
        next: u32,
    },
    /// The thread began waiting for a contended lock.
    LockBegin {
        /// `lock:contention_begin`'s flags (spin, read, write, rt, percpu, mutex).
        flags: u32,
        /// The lock's address (`lock_addr`); 0 when not recorded.
        #[serde(default)]
        addr: u64,
        /// Kernel frames at the contention.
        stack: Vec<u32>,
    },
    /// The thread took (or gave up) the contended lock at `addr`.
    LockEnd {
        /// The lock's address (`lock_addr`); 0 when not recorded (the innermost wait ends).
        #[serde(default)]
        addr: u64,
    },
    /// The kernel dropped records of the lock or switch events before this point (a full ring
    /// buffer): any open wait's end may be among them.
    Lost,
    /// The thread exited.
    Exit,
    /// A block request was issued to a device.
    Issue {
        /// The device, as a kernel dev_t.
        dev: u32,
        /// First sector.
        sector: u64,
        /// The CPU it was recorded on (in an interrupt, the thread is whichever ran there).
        #[serde(default)]
        cpu: u32,
    },
    /// A block request completed.
    Complete {
        /// The device, as a kernel dev_t.
        dev: u32,
        /// First sector.
        sector: u64,
        /// The CPU it was recorded on (in an interrupt, the thread is whichever ran there).
        #[serde(default)]
        cpu: u32,
    },
    /// A kernel work item was queued (`workqueue:workqueue_queue_work`), by the thread (or in
    /// the interrupt) that recorded it on `cpu`.
    Queue {
        /// The work item's address.
        work: u64,
        /// The CPU it was queued on.
        cpu: u32,
        /// The workqueue's name (`writeback`, `fscrypt_read_queue`, `loop4`).
        workqueue: String,
    },
    /// A kernel worker began a work item (`workqueue:workqueue_execute_start`).
    WorkStart {
        /// The work item's address.
        work: u64,
    },
    /// A writeback worker began or finished writing back for a device
    /// (`writeback:writeback_start`/`writeback_written`, whose `bdi` is named `MAJ:MIN`).
    Writeback {
        /// The device, as a kernel dev_t.
        dev: u32,
    },
    /// Thread `tid` of process `pid` was started by thread `parent_tid` of process `parent`
    /// (a new process when they differ).
    Fork {
        /// The parent process.
        parent: u32,
        /// The parent thread (0 when not recorded).
        #[serde(default)]
        parent_tid: u32,
    },
}

impl Recording {
    /// The name of frame `i`.
    pub fn frame(&self, i: u32) -> &str {
        self.frames
            .get(i as usize)
            .map_or("[unknown]", String::as_str)
    }

    /// Puts events drained buffer by buffer (each CPU's, each thread's) into one time order,
    /// keeping those of the timed region; a lost-records marker found after the region ends is
    /// kept at its end. Events of one time keep their drained order (a marker stays before the
    /// record that revealed it).
    pub fn order(events: &mut Vec<Event>, start_ns: u64, end_ns: u64) {
        for e in events.iter_mut().filter(|e| e.kind == Kind::Lost) {
            e.t = e.t.clamp(start_ns, end_ns);
        }
        events.retain(|e| (start_ns..=end_ns).contains(&e.t));
        events.sort_by_key(|e| e.t);
    }

    /// Wall time of the region, ns.
    pub fn wall_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}
