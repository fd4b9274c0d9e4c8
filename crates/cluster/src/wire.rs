//! What each rank tells the others after a sample (gathered by every rank, so every rank takes
//! the same decisions): how its sample ended, its raw data, and the counters that let the ranks
//! settle the messages still in flight when a sample ended early.

use fsbench_measure::{ProgressPoint, SampleData};
use serde::{Deserialize, Serialize};

/// How one rank's sample ended.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub enum Outcome {
    /// Measured.
    Ok(Box<RankSample>),
    /// This rank failed; the message says what and where.
    Failed(String),
    /// A signal stopped this rank.
    Interrupted,
    /// The sample was ended because another rank failed.
    Aborted,
}

/// One rank's measured sample, as raw as it was recorded.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RankSample {
    /// Wall time of the sample on this rank.
    pub wall_ns: u64,
    /// User CPU of this rank.
    pub user_ns: u64,
    /// System CPU of this rank.
    pub sys_ns: u64,
    /// Operations done.
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Named phases and their times.
    pub phases: Vec<(String, u64)>,
    /// The workload's named metrics.
    pub metrics: Vec<(String, f64)>,
    /// Progress trace: (ns since start, ops, bytes).
    pub progress: Vec<(u64, u64, u64)>,
    /// Latency histogram (HdrHistogram V2, deflated, base64), if any latency was recorded.
    pub hist: Option<String>,
    /// The sample's time series, with each interval's latency buckets.
    #[serde(default)]
    pub series: fsbench_measure::RawSeries,
    /// Share of the workload's pages cached before the sample on this rank.
    pub resident_pct: Option<f64>,
    /// The host this rank ran on (MPI's processor name).
    #[serde(default)]
    pub host: String,
    /// True on its node's leader (the lowest rank there): its machine and device counters are
    /// the host's.
    #[serde(default)]
    pub leader: bool,
    /// The machine's CPU over the sample, as this rank read it.
    #[serde(default)]
    pub machine: Option<fsbench_model::MachineCpu>,
    /// The block devices under the target over the sample, as this rank read them.
    #[serde(default)]
    pub devices: Vec<fsbench_model::DeviceIo>,
}

impl RankSample {
    /// The wire form of a recorded sample and its encoded histogram.
    pub fn new(d: &SampleData, hist: Option<String>, resident_pct: Option<f64>) -> Self {
        Self {
            wall_ns: d.wall_ns,
            user_ns: d.user_ns,
            sys_ns: d.sys_ns,
            ops: d.ops,
            bytes: d.bytes,
            phases: d.phases.clone(),
            metrics: d.metrics.clone(),
            progress: d
                .progress
                .iter()
                .map(|p| (p.at_ns, p.ops, p.bytes))
                .collect(),
            hist,
            series: d.series.clone(),
            resident_pct,
            host: String::new(),
            leader: false,
            machine: None,
            devices: Vec::new(),
        }
    }

    /// The progress trace as points.
    pub fn progress_points(&self) -> Vec<ProgressPoint> {
        self.progress
            .iter()
            .map(|&(at_ns, ops, bytes)| ProgressPoint { at_ns, ops, bytes })
            .collect()
    }
}

/// A rank's report after a sample: its outcome and its message counters.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// How the sample ended on this rank.
    pub outcome: Outcome,
    /// Whether this rank told the others to end the sample (it failed first-hand).
    pub sent_abort: bool,
    /// Phase barriers this rank entered during the sample.
    pub barriers_entered: u64,
    /// Phase barrier releases this rank received (ranks other than 0).
    pub releases_received: u64,
    /// Arrivals rank 0 received (rank 0 only).
    pub arrivals_received: u64,
    /// Releases rank 0 sent to each other rank (rank 0 only).
    pub releases_sent: u64,
}

impl Report {
    /// A report with no barrier messages (one process alone, or before any phase barrier).
    pub fn new(outcome: Outcome, sent_abort: bool) -> Self {
        Self {
            outcome,
            sent_abort,
            barriers_entered: 0,
            releases_received: 0,
            arrivals_received: 0,
            releases_sent: 0,
        }
    }

    /// Serialized for the gather.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("invariant: a report always serializes")
    }

    /// Parsed from the gather; a report that does not parse is a failure of that rank.
    pub fn from_bytes(bytes: &[u8], rank: usize) -> Self {
        serde_json::from_slice(bytes).unwrap_or_else(|e| {
            let why = format!("rank {rank} sent an unreadable report: {e}");
            Self::new(Outcome::Failed(why), false)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_round_trip_and_garbage_is_a_failure() {
        let r = Report {
            outcome: Outcome::Failed("x".into()),
            sent_abort: true,
            barriers_entered: 2,
            releases_received: 1,
            arrivals_received: 0,
            releases_sent: 0,
        };
        assert_eq!(Report::from_bytes(&r.to_bytes(), 1), r);
        let bad = Report::from_bytes(b"{", 3);
        assert!(matches!(bad.outcome, Outcome::Failed(m) if m.contains("rank 3")));
    }
}
