//! The io_uring engine: one ring per job keeps up to `iodepth` reads or writes in flight on one
//! file. Each request is stamped when it is queued and timed when its completion is reaped, so
//! its latency runs from submission to completion as fio reports it; the requests come from a
//! [`Source`], in the same order (same offsets for a seed) as the psync loops issue them.
//!
//! Timing, and how it matches fio's total latency (`lat` = slat + clat): fio reads the clock for
//! each request when its SQE has been prepared (`start_time`, set in `get_io_u`), and once per
//! batch of reaped completions (`icd.time`, after `io_getevents` returns). Here every request is
//! stamped by its own clock reading, taken just before its SQE is built (so its latency includes
//! building it, a few ns, and its wait in the submission queue until the batch is submitted), and
//! the completions reaped by one `io_uring_enter` share the clock reading taken when it returns:
//! with `IORING_SETUP_DEFER_TASKRUN` (which fio 3.33+ also sets) completions are posted to the
//! ring only inside that call, so that reading is when they became visible. A request's stamp is
//! never older than the reaping of the completions before it: recording those is fsbench's own
//! work, not the request's.
//!
//! The ring's buffers are registered (`IORING_REGISTER_BUFFERS`, `READ_FIXED`/`WRITE_FIXED`) and
//! so is the file, when the kernel lets us; both save a page-pinning or file lookup per request.
//! The loop is written by hand because it is the measured hot path: no allocation, one clock
//! read per request and one per batch of completions, one histogram insert per request.

use crate::file::{AlignedBuf, CANCEL_EVERY};
use crate::{Context, Recorder, WorkloadError};
use io_uring::{IoUring, opcode, types};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where a job's requests come from: the psync loops' offset streams, handed out one by one.
pub trait Source {
    /// Request number `i`: its offset and length, or `None` when the sample has issued enough.
    /// For writes, `buf` (the free request buffer) may be stamped for this block first.
    fn next(&mut self, i: u64, buf: &mut [u8]) -> Option<(u64, usize)>;
}

/// Whether this process may use io_uring: a ring can be set up (no seccomp filter or
/// `kernel.io_uring_disabled` forbids it) and the kernel knows the opcodes used. Probed once.
pub fn available() -> Result<(), Unavailable> {
    static PROBE: OnceLock<Result<(), Unavailable>> = OnceLock::new();
    PROBE.get_or_init(probe).clone()
}

/// Why this process cannot use io_uring. The probe's answer is kept for the process's life, so
/// it holds the OS error's words, not the error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unavailable {
    /// io_uring_setup is not implemented.
    #[error("the kernel has no io_uring (ENOSYS)")]
    NoKernelSupport,
    /// The sysctl forbids it.
    #[error("sysctl kernel.io_uring_disabled={0} forbids it")]
    Disabled(String),
    /// EPERM without the sysctl: a seccomp filter, a container's policy.
    #[error("io_uring is forbidden here (a seccomp filter?): {0}")]
    Forbidden(String),
    /// Another failure of io_uring_setup.
    #[error("cannot set up an io_uring: {0}")]
    Setup(String),
    /// The opcodes could not be listed.
    #[error("cannot list the kernel's io_uring opcodes: {0}")]
    Probe(String),
    /// An opcode fsbench uses is missing.
    #[error("the kernel's io_uring lacks IORING_OP_{0}")]
    Lacks(&'static str),
}

fn probe() -> Result<(), Unavailable> {
    let ring = IoUring::new(2).map_err(|e| refusal(&e))?;
    let mut probe = io_uring::Probe::new();
    ring.submitter()
        .register_probe(&mut probe)
        .map_err(|e| Unavailable::Probe(e.to_string()))?;
    let needed = [
        (opcode::Read::CODE, "READ"),
        (opcode::Write::CODE, "WRITE"),
        (opcode::ReadFixed::CODE, "READ_FIXED"),
        (opcode::WriteFixed::CODE, "WRITE_FIXED"),
    ];
    match needed.iter().find(|(code, _)| !probe.is_supported(*code)) {
        Some((_, name)) => Err(Unavailable::Lacks(name)),
        None => Ok(()),
    }
}

/// Why setting up a ring failed, in words.
fn refusal(e: &std::io::Error) -> Unavailable {
    let sysctl = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    match e.raw_os_error() {
        Some(libc::ENOSYS) => Unavailable::NoKernelSupport,
        Some(libc::EPERM) if !sysctl.is_empty() && sysctl != "0" => Unavailable::Disabled(sysctl),
        Some(libc::EPERM) => Unavailable::Forbidden(e.to_string()),
        _ => Unavailable::Setup(e.to_string()),
    }
}

/// One request slot: its buffer, and while in flight, when it was queued and its length.
struct Slot {
    buf: AlignedBuf,
    stamp_ns: u64,
    len: u32,
}

/// What a ring does and on which file.
#[derive(Debug, Clone, Copy)]
pub struct RingSpec<'a> {
    /// Requests in flight at most.
    pub depth: u32,
    /// Size of each request buffer.
    pub bs: usize,
    /// Writes (true) or reads.
    pub write: bool,
    /// The file, for error messages.
    pub path: &'a Path,
}

/// An io_uring with `depth` request slots on one open file. Dropping it first waits for the
/// requests still in flight, so no buffer is freed while the kernel may use it.
pub struct Ring {
    ring: IoUring,
    slots: Vec<Slot>,
    free: Vec<u32>,
    inflight: u32,
    fd: RawFd,
    fixed_file: bool,
    fixed_bufs: bool,
    write: bool,
    path: PathBuf,
}

/// Set up rings with these kernel flags when they are known (6.1): the ring is used by the thread
/// that made it, and completions are processed when that thread asks for them.
fn setup(depth: u32) -> std::io::Result<IoUring> {
    IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(depth)
        .or_else(|_| IoUring::new(depth))
}

impl Ring {
    /// A ring for `spec` on `file` (kept open by the caller while the ring lives). Write buffers
    /// are filled by `fill` once; each request may then stamp its block.
    pub fn new(
        file: &std::fs::File,
        spec: RingSpec<'_>,
        fill: impl Fn(&mut [u8]),
    ) -> Result<Ring, WorkloadError> {
        let ring = setup(spec.depth)
            .map_err(|e| WorkloadError::Unsupported(format!("engine=io_uring: {}", refusal(&e))))?;
        let slots = (0..spec.depth)
            .map(|_| {
                let mut buf = AlignedBuf::new(spec.bs);
                fill(buf.as_mut_slice());
                Slot {
                    buf,
                    stamp_ns: 0,
                    len: 0,
                }
            })
            .collect();
        let mut r = Ring {
            ring,
            slots,
            free: (0..spec.depth).rev().collect(),
            inflight: 0,
            fd: file.as_raw_fd(),
            fixed_file: false,
            fixed_bufs: false,
            write: spec.write,
            path: spec.path.to_path_buf(),
        };
        r.fixed_file = USE_FIXED_FILE && r.ring.submitter().register_files(&[r.fd]).is_ok();
        r.fixed_bufs = USE_FIXED_BUFFERS && r.register_buffers().is_ok();
        Ok(r)
    }

    /// Registered buffers and file in use: (buffers, file).
    pub fn registered(&self) -> (bool, bool) {
        (self.fixed_bufs, self.fixed_file)
    }

    /// Pins the slots' buffers in the kernel (fails past RLIMIT_MEMLOCK for non-root users; the
    /// ring then uses plain READ/WRITE).
    #[allow(unsafe_code)]
    fn register_buffers(&mut self) -> std::io::Result<()> {
        let iovecs: Vec<libc::iovec> = self
            .slots
            .iter_mut()
            .map(|s| libc::iovec {
                iov_base: s.buf.as_mut_slice().as_mut_ptr().cast(),
                iov_len: s.buf.as_slice().len(),
            })
            .collect();
        // SAFETY: the buffers belong to `self.slots`, which is never resized and is dropped after
        // the ring (or leaked when in-flight requests cannot be drained, see `Drop`), so the
        // registered memory outlives its registration.
        unsafe { self.ring.submitter().register_buffers(&iovecs) }
    }

    /// Issues requests from `src` until it runs dry or the clock passes `deadline_ns`, keeping
    /// up to `depth` in flight, and records each one's latency; returns after the last is reaped,
    /// with the clock reading that reaped it (the last reading when nothing was issued).
    pub fn run(
        &mut self,
        ctx: &Context,
        rec: &mut dyn Recorder,
        src: &mut dyn Source,
        deadline_ns: u64,
    ) -> Result<u64, WorkloadError> {
        let mut issued = 0u64;
        let mut more = true;
        let mut t = 0;
        let mut reaped_at = None;
        loop {
            while more && !self.free.is_empty() {
                if issued % CANCEL_EVERY == 0 {
                    ctx.cancel.check()?;
                }
                // The request's own stamp, read after the completions before it were recorded.
                t = rec.now_ns();
                more = t < deadline_ns && self.queue_next(src, issued, t);
                issued += u64::from(more);
            }
            if self.inflight == 0 {
                return Ok(reaped_at.unwrap_or(t));
            }
            self.submit_and_wait()?;
            // One clock read per batch: it ends every request reaped now.
            let now = rec.now_ns();
            reaped_at = Some(now);
            self.reap(rec, now)?;
        }
    }

    /// Queues the next request of `src` in a free slot, stamped `t`; false when `src` is done.
    fn queue_next(&mut self, src: &mut dyn Source, i: u64, t: u64) -> bool {
        let slot = *self
            .free
            .last()
            .expect("invariant: called with a free slot");
        let s = &mut self.slots[slot as usize];
        let Some((off, len)) = src.next(i, s.buf.as_mut_slice()) else {
            return false;
        };
        let len = len.min(s.buf.as_slice().len()) as u32;
        s.stamp_ns = t;
        s.len = len;
        self.free.pop();
        if self.write {
            self.push_write(slot, off, len);
        } else {
            self.push_read(slot, off, len);
        }
        self.inflight += 1;
        true
    }

    /// Queues a read of `len` bytes at `off` into slot `slot`'s buffer.
    #[allow(unsafe_code)]
    fn push_read(&mut self, slot: u32, off: u64, len: u32) {
        let ptr = self.slots[slot as usize].buf.as_mut_slice().as_mut_ptr();
        let e = match (self.fixed_bufs, self.fixed_file) {
            (true, true) => opcode::ReadFixed::new(types::Fixed(0), ptr, len, slot as u16)
                .offset(off)
                .build(),
            (true, false) => opcode::ReadFixed::new(types::Fd(self.fd), ptr, len, slot as u16)
                .offset(off)
                .build(),
            (false, true) => opcode::Read::new(types::Fixed(0), ptr, len)
                .offset(off)
                .build(),
            (false, false) => opcode::Read::new(types::Fd(self.fd), ptr, len)
                .offset(off)
                .build(),
        };
        // SAFETY: the buffer is slot `slot`'s, taken off the free list by the caller and not
        // touched again until this request's completion is reaped (`reap` puts it back);
        // `Drop` reaps every request in flight before the buffers are freed.
        let pushed = unsafe { self.ring.submission().push(&e.user_data(u64::from(slot))) };
        pushed.expect("invariant: no more requests in flight than submission entries");
    }

    /// Queues a write of the first `len` bytes of slot `slot`'s buffer at `off`.
    #[allow(unsafe_code)]
    fn push_write(&mut self, slot: u32, off: u64, len: u32) {
        let ptr = self.slots[slot as usize].buf.as_slice().as_ptr();
        let e = match (self.fixed_bufs, self.fixed_file) {
            (true, true) => opcode::WriteFixed::new(types::Fixed(0), ptr, len, slot as u16)
                .offset(off)
                .build(),
            (true, false) => opcode::WriteFixed::new(types::Fd(self.fd), ptr, len, slot as u16)
                .offset(off)
                .build(),
            (false, true) => opcode::Write::new(types::Fixed(0), ptr, len)
                .offset(off)
                .build(),
            (false, false) => opcode::Write::new(types::Fd(self.fd), ptr, len)
                .offset(off)
                .build(),
        };
        // SAFETY: as for reads: the slot's buffer stays allocated and unmodified (it is off the
        // free list) until the completion is reaped, and `Drop` reaps all before freeing.
        let pushed = unsafe { self.ring.submission().push(&e.user_data(u64::from(slot))) };
        pushed.expect("invariant: no more requests in flight than submission entries");
    }

    /// Submits what is queued and waits for at least one completion (retrying on EINTR), in one
    /// `io_uring_enter`. fio 3.33 makes two calls (submit with `min_complete` 0, then wait for
    /// one); doing the same here was measured no faster (2-vCPU VM, tmpfs QD1 and QD8, 4
    /// alternating 2 s runs each: 20.2k and 15.9k IOPS for two-call variants against 19.2k for
    /// one call at QD1, 120k and 117k against 120k at QD8) and costs a system call per batch when
    /// the submitter and the worker share a CPU.
    fn submit_and_wait(&mut self) -> Result<(), WorkloadError> {
        loop {
            match self.ring.submit_and_wait(1) {
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(WorkloadError::io("io_uring_enter", &self.path, e)),
            }
        }
    }

    /// Reaps every completion: frees its slot and records its latency (`now_ns` - its stamp);
    /// the first failed request is returned as the error once all are reaped.
    fn reap(&mut self, rec: &mut dyn Recorder, now_ns: u64) -> Result<(), WorkloadError> {
        let mut failed: Option<std::io::Error> = None;
        for cqe in self.ring.completion() {
            let slot = cqe.user_data() as u32;
            self.free.push(slot);
            self.inflight -= 1;
            let s = &self.slots[slot as usize];
            let res = cqe.result();
            if res < 0 {
                failed.get_or_insert(std::io::Error::from_raw_os_error(-res));
            } else if self.write && (res as u32) < s.len {
                failed.get_or_insert(std::io::Error::new(
                    std::io::ErrorKind::WriteZero,
                    format!("short write: {res} of {} bytes", s.len),
                ));
            } else {
                rec.op_latency(now_ns.saturating_sub(s.stamp_ns), res as u64);
            }
        }
        match failed {
            None => Ok(()),
            Some(e) => Err(WorkloadError::io(self.op(), &self.path, e)),
        }
    }

    fn op(&self) -> &'static str {
        if self.write { "write" } else { "read" }
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        while self.inflight > 0 {
            let waited = self.ring.submit_and_wait(1);
            for _ in self.ring.completion() {
                self.inflight -= 1;
            }
            if let Err(e) = waited {
                if e.kind() != std::io::ErrorKind::Interrupted {
                    // The kernel may still use the buffers: leak them rather than free them.
                    std::mem::forget(std::mem::take(&mut self.slots));
                    return;
                }
            }
        }
    }
}

/// Register the slots' buffers (`READ_FIXED`/`WRITE_FIXED`). Measured on the development VM
/// (CPU time per 4 KiB random read, median of 3 one-second samples): buffered from tmpfs,
/// 1.45 µs instead of 2.0 µs at QD32 and 2.05 µs instead of 2.2–2.6 µs at QD1; O_DIRECT on a
/// loop device, no difference beyond noise. Kept. Nor do the registrations set fsbench apart from
/// fio (which does not register by default): on tmpfs at QD1, unpinned, fsbench without them was
/// no faster (17.9k against 20.0k IOPS) and fio with `--fixedbufs --registerfiles` no slower
/// (33.9k against 32.8k), 4 alternating 2 s runs each.
const USE_FIXED_BUFFERS: bool = true;

/// Register the file (`IOSQE_FIXED_FILE`). Measured as above: no difference beyond noise for one
/// job (a single-threaded process already skips the file reference count); kept because parallel
/// jobs make the process multi-threaded, where every plain request takes and drops a reference.
const USE_FIXED_FILE: bool = true;

/// A [`Source`] of exactly one request (the `latency` workload at depth 1).
pub struct One(pub Option<(u64, usize)>);

impl Source for One {
    fn next(&mut self, _i: u64, _buf: &mut [u8]) -> Option<(u64, usize)> {
        self.0.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CancelToken;
    use fsbench_measure::SampleRecorder;
    use std::cell::Cell;
    use std::rc::Rc;

    struct Blocks {
        n: u64,
        bs: usize,
    }

    impl Source for Blocks {
        fn next(&mut self, i: u64, _buf: &mut [u8]) -> Option<(u64, usize)> {
            (i < self.n).then(|| ((i % 4) * self.bs as u64, self.bs))
        }
    }

    /// A temporary directory holding a file of four 4 KiB blocks, opened for reading.
    fn four_block_file() -> (tempfile::TempDir, std::path::PathBuf, std::fs::File) {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("f");
        std::fs::write(&path, vec![7u8; 4 * 4096]).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        (d, path, f)
    }

    /// A ring of `depth` 4 KiB reads of `f`.
    fn read_ring(f: &std::fs::File, path: &std::path::Path, depth: u32) -> Ring {
        let spec = RingSpec {
            depth,
            bs: 4096,
            write: false,
            path,
        };
        Ring::new(f, spec, |_| {}).unwrap()
    }

    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn every_request_is_reaped_and_timed_at_each_depth() {
        let (d, path, f) = four_block_file();
        let ctx = Context::dir(d.path(), CancelToken::new());
        for depth in [1, 2, 8, 32] {
            let mut ring = read_ring(&f, &path, depth);
            let mut rec = SampleRecorder::new();
            rec.start();
            let mut src = Blocks { n: 100, bs: 4096 };
            ring.run(&ctx, &mut rec, &mut src, u64::MAX).unwrap();
            let s = rec.finish();
            assert_eq!((s.ops, s.bytes), (100, 100 * 4096), "depth {depth}");
            assert_eq!(s.latency.unwrap().count, 100);
            assert_eq!(ring.free.len(), depth as usize);
        }
    }

    /// A recorder on a virtual clock: each reading advances it by 1 ns, and recording a latency
    /// costs `record_cost_ns` of it (a slow reap).
    struct Virtual {
        now: Rc<Cell<u64>>,
        record_cost_ns: u64,
        latencies: Vec<u64>,
    }

    impl Recorder for Virtual {
        fn now_ns(&mut self) -> u64 {
            let t = self.now.get();
            self.now.set(t + 1);
            t
        }
        fn op_done(&mut self, start_ns: u64, bytes: u64) -> u64 {
            let t = self.now_ns();
            self.op_latency(t - start_ns, bytes);
            t
        }
        fn add_ops(&mut self, _ops: u64, _bytes: u64) {}
        fn op_latency(&mut self, latency_ns: u64, _bytes: u64) {
            self.latencies.push(latency_ns);
            self.now.set(self.now.get() + self.record_cost_ns);
        }
        fn merge_ops(
            &mut self,
            _: &hdrhistogram::Histogram<u64>,
            _: u64,
            _: u64,
            _: Option<&fsbench_measure::RawSeries>,
        ) {
        }
        fn phase(&mut self, _name: &str, _elapsed_ns: u64) {}
        fn metric(&mut self, _name: &str, _value: f64) {}
    }

    /// `n` reads of 4 KiB, each taking `prep_cost_ns` of the virtual clock to prepare.
    struct SlowBlocks {
        now: Rc<Cell<u64>>,
        n: u64,
        prep_cost_ns: u64,
    }

    impl Source for SlowBlocks {
        fn next(&mut self, i: u64, _buf: &mut [u8]) -> Option<(u64, usize)> {
            if i >= self.n {
                return None;
            }
            self.now.set(self.now.get() + self.prep_cost_ns);
            Some(((i % 4) * 4096, 4096))
        }
    }

    /// Runs `n` reads at `depth` on the virtual clock; the latencies recorded, sorted.
    fn virtual_latencies(depth: u32, n: u64, prep_cost_ns: u64, record_cost_ns: u64) -> Vec<u64> {
        let (d, path, f) = four_block_file();
        let ctx = Context::dir(d.path(), CancelToken::new());
        let mut ring = read_ring(&f, &path, depth);
        let now = Rc::new(Cell::new(1_000));
        let mut rec = Virtual {
            now: now.clone(),
            record_cost_ns,
            latencies: Vec::new(),
        };
        let mut src = SlowBlocks {
            now,
            n,
            prep_cost_ns,
        };
        ring.run(&ctx, &mut rec, &mut src, u64::MAX).unwrap();
        rec.latencies.sort_unstable();
        rec.latencies
    }

    /// Recording the completions of one batch is fsbench's work: the requests queued after it
    /// are stamped when they are queued, not when the batch was reaped.
    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn a_request_is_not_charged_for_reaping_the_ones_before_it() {
        // Depth 1: one completion per wait; stamp and completion are consecutive readings.
        assert_eq!(virtual_latencies(1, 5, 0, 1_000_000), vec![1; 5]);
    }

    /// Each request runs from its own stamp, taken as its SQE is built: in a batch, the first
    /// queued waits for the others to be built (it is in the queue meanwhile), the last does not.
    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn each_request_of_a_batch_has_its_own_stamp() {
        let ms = 1_000_000;
        let lat = virtual_latencies(4, 4, ms, 0);
        assert_eq!(lat.len(), 4);
        for (k, l) in lat.iter().enumerate() {
            let queued_for = (k as u64 + 1) * ms; // its own preparation and the later ones'
            assert!(
                (queued_for..queued_for + 1_000).contains(l),
                "latency {k}: {l} ns, want {queued_for} ns and a few clock readings"
            );
        }
    }

    #[test]
    #[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
    fn a_failed_request_is_an_error_naming_the_file() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        let f = std::fs::File::open(&path).unwrap(); // read-only: writes fail with EBADF
        let spec = RingSpec {
            depth: 4,
            bs: 512,
            write: true,
            path: &path,
        };
        let mut ring = Ring::new(&f, spec, |_| {}).unwrap();
        let mut rec = SampleRecorder::new();
        let ctx = Context::dir(d.path(), CancelToken::new());
        let e = ring
            .run(&ctx, &mut rec, &mut Blocks { n: 10, bs: 512 }, u64::MAX)
            .unwrap_err();
        assert!(e.to_string().contains("write failed on"), "{e}");
    }
}
