//! The MPI side (feature `mpi`): collectives on `MPI_COMM_WORLD`, the phase barrier that gives
//! up when a sample is cancelled, and the abort messages of a failing rank.
//!
//! The phase barrier is point-to-point through rank 0 (arrive, then release) rather than
//! `MPI_Ibarrier`, so that a rank can stop waiting without leaving a collective half-done: each
//! report after a sample carries how many arrivals and releases each rank sent and received,
//! and the ones still in flight are received then. MPI is initialised with
//! `MPI_THREAD_MULTIPLE` when the library offers it, for the abort watcher thread; without it
//! there is no watcher and aborts are noticed only at phase barriers and at the end of a sample.
//!
//! No wait spins: every collective is started non-blocking and tested with short sleeps between
//! tests ([`gently`]). Open MPI's blocking collectives poll at 100% of a CPU, and a rank that
//! ended its sample first then takes the CPU from a rank still measuring on the same core (on
//! simulated hosts each host's daemon binds its first rank to core 0: a 20 ms sample of one rank
//! took minutes beside the other's wait).

use crate::Watcher;
use crate::wire::{Outcome, Report};
use fsbench_io::{CancelToken, RankSync, WorkloadError};
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::{Count, Threading};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Tag of a rank's arrival at a phase barrier (sent to rank 0).
const TAG_ARRIVE: i32 = 0x5fb1;
/// Tag of rank 0's release of a phase barrier (sent to every other rank).
const TAG_RELEASE: i32 = 0x5fb2;
/// Tag of a failing rank's request to end the sample (sent to every other rank).
const TAG_ABORT: i32 = 0x5fb3;

/// How often waiting loops look at their messages and tokens.
const POLL: Duration = Duration::from_micros(50);

/// The longest sleep between two tests of a collective that has not completed: a rank leaves a
/// barrier at most this late after the last one arrived (the phase barrier's own poll is 50 µs).
const GENTLE_MAX: Duration = Duration::from_micros(100);

/// Waits for `request` to complete without spinning: tests it (which also moves MPI's progress
/// on), sleeping between tests from 5 µs, doubling up to [`GENTLE_MAX`].
fn gently<'a, D: ?Sized, S: Scope<'a>>(mut request: Request<'a, D, S>) {
    let mut nap = Duration::from_micros(5);
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => request = pending,
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(GENTLE_MAX);
    }
}

/// Where this process sits in the job.
pub struct Place {
    /// World rank.
    pub rank: usize,
    /// World size.
    pub size: usize,
    /// Rank among the ranks on this node.
    pub node_rank: usize,
    /// Ranks on this node.
    pub node_size: usize,
    /// This node's name (`MPI_Get_processor_name`: the host name).
    pub host: String,
}

/// An initialised MPI job; MPI is finalised when it drops.
pub struct Mpi {
    _universe: Universe,
    multiple: bool,
    rank: usize,
    size: usize,
    phases: Arc<Phases>,
}

fn world() -> SimpleCommunicator {
    SimpleCommunicator::world()
}

impl Mpi {
    /// Initialises MPI (asking for `MPI_THREAD_MULTIPLE`) and finds this rank's node.
    pub fn init() -> Result<(Self, Place), crate::JoinError> {
        let (universe, provided) = mpi::initialize_with_threading(Threading::Multiple)
            .ok_or(crate::JoinError::AlreadyInitialised)?;
        let w = universe.world();
        let (rank, size) = (w.rank() as usize, w.size() as usize);
        let node = w.split_shared(rank as i32);
        let place = Place {
            rank,
            size,
            node_rank: node.rank() as usize,
            node_size: node.size() as usize,
            host: mpi::environment::processor_name().unwrap_or_default(),
        };
        drop(node);
        let multiple = provided == Threading::Multiple;
        let mpi = Self {
            _universe: universe,
            multiple,
            rank,
            size,
            phases: Arc::new(Phases {
                rank,
                size,
                counts: Mutex::new(Counts::default()),
            }),
        };
        Ok((mpi, place))
    }

    /// Waits until every rank has called it (`MPI_Ibarrier` on the world, waited for gently).
    pub fn barrier(&self) {
        gently(world().immediate_barrier());
    }

    /// Rank 0's `text` on every rank (what the other ranks pass is ignored): its length, then
    /// its bytes.
    pub fn broadcast(&self, text: &str) -> String {
        let w = world();
        let root = w.process_at_rank(0);
        let mut len = text.len() as u64;
        mpi::request::scope(|scope| gently(root.immediate_broadcast_into(scope, &mut len)));
        if len == 0 {
            return String::new();
        }
        let mut buf = if self.rank == 0 {
            text.as_bytes().to_vec()
        } else {
            vec![0u8; len as usize]
        };
        mpi::request::scope(|scope| gently(root.immediate_broadcast_into(scope, &mut buf[..])));
        String::from_utf8_lossy(&buf).into_owned()
    }

    /// Every rank's `bytes`, in rank order, on every rank (lengths may differ, empty included).
    pub fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let w = world();
        // Never an empty buffer: an empty slice's dangling pointer is 0x1, which Open MPI reads
        // as MPI_IN_PLACE. Every message gets one leading byte, dropped on receipt.
        let mut framed = Vec::with_capacity(bytes.len() + 1);
        framed.push(b'#');
        framed.extend_from_slice(bytes);
        let bytes = &framed[..];
        let len = bytes.len() as Count;
        let mut lens = vec![0 as Count; self.size];
        mpi::request::scope(|scope| {
            gently(w.immediate_all_gather_into(scope, &len, &mut lens[..]))
        });
        let displs: Vec<Count> = lens
            .iter()
            .scan(0, |acc, &x| {
                let d = *acc;
                *acc += x;
                Some(d)
            })
            .collect();
        let total: usize = lens.iter().map(|&l| l as usize).sum();
        let mut buf = vec![0u8; total];
        {
            let mut part = PartitionMut::new(&mut buf[..], &lens[..], &displs[..]);
            mpi::request::scope(|scope| {
                gently(w.immediate_all_gather_varcount_into(scope, bytes, &mut part));
            });
        }
        lens.iter()
            .zip(&displs)
            .map(|(&l, &d)| buf[d as usize + 1..(d + l) as usize].to_vec())
            .collect()
    }

    /// The phase barrier, shared with the workloads of this rank.
    pub fn phases(&self) -> Arc<Phases> {
        Arc::clone(&self.phases)
    }

    /// A thread that cancels `cancel` as soon as an abort message is waiting (not received:
    /// `end_sample` receives it). `None`-like (a stopped watcher) without thread support.
    pub fn watch_aborts(&self, cancel: CancelToken) -> Watcher {
        let stop = Arc::new(AtomicBool::new(false));
        if !self.multiple {
            return Watcher { stop, handle: None };
        }
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("fsbench-mpi-abort".into())
            .spawn(move || {
                let w = world();
                while !flag.load(Ordering::SeqCst) {
                    if w.any_process()
                        .immediate_probe_with_tag(TAG_ABORT)
                        .is_some()
                    {
                        cancel.cancel();
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
            .ok();
        Watcher { stop, handle }
    }

    /// Asks every other rank to end the current sample (this rank failed).
    pub fn send_aborts(&self) {
        let w = world();
        for r in (0..self.size).filter(|&r| r != self.rank) {
            w.process_at_rank(r as i32)
                .send_with_tag(&(self.rank as u64), TAG_ABORT);
        }
    }

    /// Ends a sample on this rank: stops `watcher`, gathers every rank's report (its outcome,
    /// whether it sent aborts, its barrier counts), then receives what is still in flight to
    /// it, so that the next sample starts with no message left over. The reports, in rank order.
    pub fn end_sample(
        &self,
        watcher: Option<Watcher>,
        outcome: Outcome,
        sent_abort: bool,
    ) -> Vec<Report> {
        if let Some(w) = watcher {
            w.stop();
        }
        let counts = std::mem::take(&mut *self.phases.lock());
        let mine = Report {
            barriers_entered: counts.entered,
            releases_received: counts.releases_received,
            arrivals_received: counts.arrivals_received,
            releases_sent: counts.releases_sent,
            ..Report::new(outcome, sent_abort)
        };
        let reports: Vec<Report> = self
            .all_gather(&mine.to_bytes())
            .iter()
            .enumerate()
            .map(|(r, b)| Report::from_bytes(b, r))
            .collect();
        self.settle(&reports);
        reports
    }

    /// Receives every message of the sample still in flight to this rank.
    fn settle(&self, reports: &[Report]) {
        let w = world();
        let aborts = reports
            .iter()
            .enumerate()
            .filter(|(r, rep)| *r != self.rank && rep.sent_abort)
            .count();
        for _ in 0..aborts {
            let _ = w.any_process().receive_with_tag::<u64>(TAG_ABORT);
        }
        if self.rank == 0 {
            let sent: u64 = reports.iter().skip(1).map(|r| r.barriers_entered).sum();
            for _ in reports[0].arrivals_received..sent {
                let _ = w.any_process().receive_with_tag::<u64>(TAG_ARRIVE);
            }
        } else {
            let me = &reports[self.rank];
            for _ in me.releases_received..reports[0].releases_sent {
                let _ = w.process_at_rank(0).receive_with_tag::<u64>(TAG_RELEASE);
            }
        }
    }
}

/// Message counters of the phase barrier during one sample.
#[derive(Debug, Default)]
pub struct Counts {
    entered: u64,
    releases_received: u64,
    arrivals_received: u64,
    releases_sent: u64,
}

/// The phase barrier handed to workloads.
#[derive(Debug)]
pub struct Phases {
    rank: usize,
    size: usize,
    counts: Mutex<Counts>,
}

impl Phases {
    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn aborted(&self, w: &SimpleCommunicator, cancel: &CancelToken) -> bool {
        cancel.is_cancelled()
            || w.any_process()
                .immediate_probe_with_tag(TAG_ABORT)
                .is_some()
    }
}

impl RankSync for Phases {
    fn barrier(&self, cancel: &CancelToken) -> Result<(), WorkloadError> {
        let w = world();
        let phase = {
            let mut c = self.lock();
            c.entered += 1;
            c.entered
        };
        if self.rank != 0 {
            w.process_at_rank(0).send_with_tag(&phase, TAG_ARRIVE);
            loop {
                if w.process_at_rank(0)
                    .immediate_probe_with_tag(TAG_RELEASE)
                    .is_some()
                {
                    let _ = w.process_at_rank(0).receive_with_tag::<u64>(TAG_RELEASE);
                    self.lock().releases_received += 1;
                    return Ok(());
                }
                if self.aborted(&w, cancel) {
                    return Err(WorkloadError::Interrupted);
                }
                std::thread::sleep(POLL);
            }
        }
        // Rank 0: wait for everyone's arrival at this phase, then release them.
        loop {
            let arrived = self.lock().arrivals_received;
            if arrived >= phase * (self.size as u64 - 1) {
                break;
            }
            if w.any_process()
                .immediate_probe_with_tag(TAG_ARRIVE)
                .is_some()
            {
                let _ = w.any_process().receive_with_tag::<u64>(TAG_ARRIVE);
                self.lock().arrivals_received += 1;
                continue;
            }
            if self.aborted(&w, cancel) {
                return Err(WorkloadError::Interrupted);
            }
            std::thread::sleep(POLL);
        }
        for r in 1..self.size {
            w.process_at_rank(r as i32)
                .send_with_tag(&phase, TAG_RELEASE);
        }
        self.lock().releases_sent += 1;
        Ok(())
    }
}
