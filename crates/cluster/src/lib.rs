//! Many processes running one plan at the same time: the ranks of an MPI job
//! (`mpirun -n N fsbench run ...`). Every rank runs the same plan; they meet at a barrier
//! before every sample; caches are dropped once per node; after each sample every rank gathers
//! every rank's report, so all of them take the same decisions, and rank 0 merges the samples
//! exactly (`merge`) and is the only one that prints and stores. A rank that fails ends the
//! sample on every rank: it tells the others, whose sample token is cancelled by a watcher.
//!
//! Without the cargo feature `mpi`, or outside mpirun, a run is one process ([`Cluster::solo`]),
//! and nothing here does anything. With the feature, MPI comes from the `mpi` crate (Open MPI).

#![warn(missing_docs)]

pub mod merge;
#[cfg(feature = "mpi")]
mod mpi_backend;
pub mod wire;

use fsbench_io::{CancelToken, RankSync};
use std::sync::Arc;
use wire::{Outcome, Report};

/// The ranks of a run, and how to talk to the others.
pub struct Cluster {
    rank: usize,
    size: usize,
    node_leader: bool,
    ranks_on_node: usize,
    /// Every rank's host name, in rank order (empty alone).
    hosts: Vec<String>,
    backend: Backend,
}

enum Backend {
    Solo,
    #[cfg(feature = "mpi")]
    Mpi(mpi_backend::Mpi),
}

/// The environment variables a launcher sets for every rank: Open MPI (`OMPI_COMM_WORLD_*`),
/// MPICH/Hydra and Slurm-PMI (`PMI_*`). The binary reads them and passes them in.
pub const LAUNCHER_VARIABLES: &[&str] = &[
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "PMI_SIZE",
];

/// What the launcher says about this process: (rank, number of ranks), from `env` (a lookup of
/// [`LAUNCHER_VARIABLES`]).
pub fn launched_ranks(env: &dyn Fn(&str) -> Option<String>) -> Option<(usize, usize)> {
    let var = |k: &str| env(k).and_then(|v| v.trim().parse::<usize>().ok());
    let pairs = [
        ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
        ("PMI_RANK", "PMI_SIZE"),
    ];
    pairs.iter().find_map(|(r, s)| Some((var(r)?, var(s)?)))
}

/// True when this fsbench was built with MPI support (the cargo feature `mpi`).
pub const fn built_with_mpi() -> bool {
    cfg!(feature = "mpi")
}

/// Why this process could not join its MPI job.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JoinError {
    /// mpirun started several ranks of a build without MPI: each would run the whole plan.
    NoMpi {
        /// Ranks mpirun started.
        ranks: usize,
    },
    /// MPI was initialised before fsbench asked.
    AlreadyInitialised,
}

impl std::fmt::Display for JoinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoMpi { ranks } => write!(
                f,
                "mpirun started {ranks} ranks, but this fsbench was built without MPI support — \
                 rebuild it with 'cargo build --release --features mpi', or run it without mpirun"
            ),
            Self::AlreadyInitialised => {
                f.write_str("MPI was already initialised in this process — report this as a bug")
            }
        }
    }
}

impl std::error::Error for JoinError {}

impl Cluster {
    /// One process alone.
    pub fn solo() -> Self {
        Self {
            rank: 0,
            size: 1,
            node_leader: true,
            ranks_on_node: 1,
            hosts: Vec::new(),
            backend: Backend::Solo,
        }
    }

    /// Joins the MPI job when mpirun started more than one rank; alone otherwise. An error
    /// (one line, with what to do) when mpirun started several ranks of an fsbench built
    /// without MPI: each would run and store the whole plan on its own.
    /// `env` looks up the launcher's variables ([`LAUNCHER_VARIABLES`]).
    pub fn init(env: &dyn Fn(&str) -> Option<String>) -> Result<Self, JoinError> {
        match launched_ranks(env) {
            Some((_, size)) if size > 1 => Self::init_mpi(size),
            _ => Ok(Self::solo()),
        }
    }

    #[cfg(feature = "mpi")]
    fn init_mpi(_size: usize) -> Result<Self, JoinError> {
        let (mpi, place) = mpi_backend::Mpi::init()?;
        let hosts = mpi
            .all_gather(place.host.as_bytes())
            .iter()
            .map(|h| String::from_utf8_lossy(h).into_owned())
            .collect();
        Ok(Self {
            rank: place.rank,
            size: place.size,
            node_leader: place.node_rank == 0,
            ranks_on_node: place.node_size,
            hosts,
            backend: Backend::Mpi(mpi),
        })
    }

    #[cfg(not(feature = "mpi"))]
    fn init_mpi(size: usize) -> Result<Self, JoinError> {
        Err(JoinError::NoMpi { ranks: size })
    }

    /// This process's rank, from 0.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// How many ranks run the plan.
    pub fn size(&self) -> usize {
        self.size
    }

    /// True for more than one rank.
    pub fn is_parallel(&self) -> bool {
        self.size > 1
    }

    /// True on rank 0: the rank that prints, stores and writes files.
    pub fn is_root(&self) -> bool {
        self.rank == 0
    }

    /// True on the lowest rank of its node: the one that drops the node's caches.
    pub fn is_node_leader(&self) -> bool {
        self.node_leader
    }

    /// Ranks on this node (sharing its filesystems' free space).
    pub fn ranks_on_node(&self) -> usize {
        self.ranks_on_node
    }

    /// The host rank `rank` runs on, as MPI names it (`MPI_Get_processor_name`); empty alone.
    pub fn host_of(&self, rank: usize) -> &str {
        self.hosts.get(rank).map_or("", String::as_str)
    }

    /// How many hosts the ranks run on (1 alone).
    pub fn host_count(&self) -> usize {
        let mut h: Vec<&String> = self.hosts.iter().collect();
        h.sort();
        h.dedup();
        h.len().max(1)
    }

    /// `rank K on HOST` (`rank K` when the host is unknown): how messages name a rank.
    pub fn rank_name(&self, rank: usize) -> String {
        match self.host_of(rank) {
            "" => format!("rank {rank}"),
            h => format!("rank {rank} on {h}"),
        }
    }

    /// Waits for every rank.
    pub fn barrier(&self) {
        match &self.backend {
            Backend::Solo => {}
            #[cfg(feature = "mpi")]
            Backend::Mpi(m) => m.barrier(),
        }
    }

    /// Rank 0's `text` on every rank.
    pub fn broadcast(&self, text: &str) -> String {
        match &self.backend {
            Backend::Solo => text.to_string(),
            #[cfg(feature = "mpi")]
            Backend::Mpi(m) => m.broadcast(text),
        }
    }

    /// Every rank's `bytes`, in rank order, on every rank.
    pub fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        match &self.backend {
            Backend::Solo => vec![bytes.to_vec()],
            #[cfg(feature = "mpi")]
            Backend::Mpi(m) => m.all_gather(bytes),
        }
    }

    /// Every rank's error (or `None`), so that all ranks agree that a step failed and on which
    /// rank: the first failing rank's message, prefixed with its rank and host when parallel
    /// (`rank 2 on node7: ...`).
    pub fn agree(&self, mine: Option<&str>) -> Option<String> {
        if !self.is_parallel() {
            return mine.map(str::to_string);
        }
        let all = self.all_gather(mine.unwrap_or("").as_bytes());
        all.iter().enumerate().find_map(|(r, e)| {
            (!e.is_empty())
                .then(|| format!("{}: {}", self.rank_name(r), String::from_utf8_lossy(e)))
        })
    }

    /// The barrier workloads call between the phases of a sample (`None` when alone).
    pub fn sync(&self) -> Option<Arc<dyn RankSync>> {
        match &self.backend {
            Backend::Solo => None,
            #[cfg(feature = "mpi")]
            Backend::Mpi(m) => Some(m.phases() as Arc<dyn RankSync>),
        }
    }

    /// Starts a sample: a token cancelled by the run's token or when another rank fails.
    pub fn begin_sample(&self, run: &CancelToken) -> SampleScope {
        let cancel = run.child();
        match &self.backend {
            Backend::Solo => SampleScope {
                cancel,
                watcher: None,
            },
            #[cfg(feature = "mpi")]
            Backend::Mpi(m) => {
                let watcher = m.watch_aborts(cancel.clone());
                SampleScope {
                    cancel,
                    watcher: Some(watcher),
                }
            }
        }
    }

    /// This rank failed during the sample: tells every other rank to end it. Returns whether
    /// anyone was told.
    pub fn abort_others(&self) -> bool {
        match &self.backend {
            Backend::Solo => false,
            #[cfg(feature = "mpi")]
            Backend::Mpi(m) => {
                m.send_aborts();
                true
            }
        }
    }

    /// Ends a sample: every rank's report, in rank order, on every rank. Messages still in
    /// flight (aborts, barrier arrivals of a sample that ended early) are received here, so the
    /// next sample starts clean.
    pub fn end_sample(
        &self,
        scope: SampleScope,
        outcome: Outcome,
        sent_abort: bool,
    ) -> Vec<Report> {
        let SampleScope { watcher, .. } = scope;
        match &self.backend {
            Backend::Solo => {
                if let Some(w) = watcher {
                    w.stop();
                }
                vec![Report::new(outcome, sent_abort)]
            }
            #[cfg(feature = "mpi")]
            Backend::Mpi(m) => m.end_sample(watcher, outcome, sent_abort),
        }
    }
}

/// One sample in progress on this rank.
pub struct SampleScope {
    /// The sample's cancel token: give it to the workload for the sample.
    pub cancel: CancelToken,
    watcher: Option<Watcher>,
}

/// The thread that cancels a sample when another rank reports a failure.
pub struct Watcher {
    stop: Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Watcher {
    /// Stops and joins the watcher thread.
    pub fn stop(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solo_is_one_rank_that_agrees_with_itself() {
        let d = Cluster::solo();
        assert!(d.is_root() && !d.is_parallel() && d.is_node_leader());
        assert_eq!(d.broadcast("id"), "id");
        assert_eq!(d.all_gather(b"x"), vec![b"x".to_vec()]);
        assert_eq!(d.agree(Some("boom")).as_deref(), Some("boom"));
        assert_eq!((d.host_of(0), d.host_count()), ("", 1));
        assert_eq!(d.rank_name(0), "rank 0");
        assert!(d.sync().is_none());
        let run = CancelToken::new();
        let s = d.begin_sample(&run);
        run.cancel();
        assert!(s.cancel.is_cancelled());
        let r = d.end_sample(s, Outcome::Interrupted, false);
        assert_eq!(r.len(), 1);
    }
}
