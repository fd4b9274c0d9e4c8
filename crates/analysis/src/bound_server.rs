//! The bound rules of a target served from simulated hosts (`--lab glusterfs`, `sshfs`), whose
//! samples carry each server host's side (`samples[].servers`): `server` when the busiest server
//! host's processes (its daemons) used most of a CPU; otherwise `network` with the server's
//! share beside the client's when neither side was busy — CSAIL's AFS case, where the server
//! stayed 70–80% idle and the clients loafed while the time went to the wire. A busy client
//! daemon or fsbench itself is left to the general rules (`daemon`, `cpu`).

use fsbench_model::{Bound, BoundBy, ResultEntry};

/// A server host whose processes use this share of one CPU is the limit.
pub const SERVER_CPU_PCT: f64 = 70.0;
/// Neither side is busy while the client's FUSE daemon and fsbench each stay under this share of
/// one CPU (and the server under [`SERVER_CPU_PCT`]).
pub const CLIENT_BUSY_PCT: f64 = 60.0;

/// Each server host's mean CPU over the cell's samples, % of one CPU, in host order.
pub(crate) fn server_shares(e: &ResultEntry) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64, usize)> = Vec::new();
    for s in &e.samples {
        for h in &s.servers {
            let pct = h.cpu_pct(s.wall_ns);
            match out.iter_mut().find(|(n, _, _)| *n == h.host) {
                Some(x) => {
                    x.1 += pct;
                    x.2 += 1;
                }
                None => out.push((h.host.clone(), pct, 1)),
            }
        }
    }
    out.into_iter()
        .map(|(n, sum, k)| (n, sum / k as f64))
        .collect()
}

/// Mean bytes on the wire per sample (both ways, every server's link) and MiB/s of wall time.
pub(crate) fn wire(e: &ResultEntry) -> (f64, f64) {
    let (mut bytes, mut wall) = (0.0, 0.0);
    for s in e.samples.iter().filter(|s| !s.servers.is_empty()) {
        bytes += s
            .servers
            .iter()
            .map(|h| (h.wire_rx_bytes + h.wire_tx_bytes) as f64)
            .sum::<f64>();
        wall += s.wall_ns as f64;
    }
    let n = e.samples.len().max(1) as f64;
    let rate = if wall > 0.0 {
        bytes / wall * 1e9 / (1024.0 * 1024.0)
    } else {
        0.0
    };
    (bytes / n, rate)
}

/// The verdict of a served cell (`None` for any other cell, or when the client side is busy):
/// `own_cpu` is fsbench's thread and `daemon` the client's FUSE daemon, % of one CPU.
pub fn judge(e: &ResultEntry, own_cpu: Option<f64>, daemon: Option<f64>) -> Option<Bound> {
    let shares = server_shares(e);
    let (host, busiest) = shares.iter().max_by(|a, b| a.1.total_cmp(&b.1)).cloned()?;
    let all: Vec<String> = shares.iter().map(|(n, p)| format!("{n} {p:.0}%")).collect();
    let client = format!("client daemon {}, fsbench {}", pct(daemon), pct(own_cpu));
    let (bytes, rate) = wire(e);
    let wire = format!("{bytes:.0} bytes on the wire a sample ({rate:.1} MiB/s)");
    if busiest >= SERVER_CPU_PCT {
        return Some(Bound {
            by: BoundBy::Server,
            evidence: format!(
                "server host {host}'s daemons used {busiest:.0}% of a CPU ({}); {client}; {wire}",
                all.join(", ")
            ),
        });
    }
    let busy = |v: Option<f64>| v.is_some_and(|v| v >= CLIENT_BUSY_PCT);
    if busy(daemon) || busy(own_cpu) {
        return None;
    }
    Some(Bound {
        by: BoundBy::Network,
        evidence: format!(
            "neither side was busy — server CPU {} of one CPU, {client} — so the time went to round trips on the wire; {wire}",
            all.join(", ")
        ),
    })
}

fn pct(v: Option<f64>) -> String {
    v.map_or("?".to_string(), |v| format!("{v:.0}%"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{CpuPair, Sample, ServerSample};

    /// A served cell of three 1 s samples whose server host used `server_pct` of a CPU and
    /// moved 4 MiB each way.
    fn served(server_pct: f64) -> ResultEntry {
        let mut e: ResultEntry = serde_json::from_value(serde_json::json!({
            "target": "glusterfs", "workload": "postmark", "params": {},
            "cache": {"state": "cold", "method": "drop_caches"}, "summary": {}, "samples": [], "headline": "time"
        }))
        .unwrap();
        for _ in 0..3 {
            let mut s: Sample = serde_json::from_value(serde_json::json!({
                "wall_ns": 1_000_000_000u64, "user_ns": 0, "sys_ns": 0, "ops": 1, "bytes": 1, "metrics": {}
            }))
            .unwrap();
            s.servers = vec![ServerSample {
                host: "server1".into(),
                cpu: CpuPair {
                    user_ns: (server_pct * 1e7) as u64,
                    sys_ns: 0,
                },
                wire_rx_bytes: 4 << 20,
                wire_tx_bytes: 4 << 20,
                device: None,
            }];
            e.samples.push(s);
        }
        e
    }

    #[test]
    fn csails_case_both_sides_loafing_is_network_with_the_servers_share() {
        // The seed: the server 70% idle (30% busy) with encryption, the clients loafing.
        let b = judge(&served(30.0), Some(12.0), Some(10.0)).unwrap();
        assert_eq!(b.by, BoundBy::Network);
        assert!(b.evidence.contains("server1 30%"), "{}", b.evidence);
        assert!(b.evidence.contains("8.0 MiB/s"), "{}", b.evidence);
    }

    #[test]
    fn a_busy_server_host_is_the_limit_and_a_busy_client_is_left_to_the_general_rules() {
        let b = judge(&served(95.0), Some(12.0), Some(10.0)).unwrap();
        assert_eq!(b.by, BoundBy::Server);
        assert!(
            b.evidence.contains("server1's daemons used 95%"),
            "{}",
            b.evidence
        );
        assert!(judge(&served(30.0), Some(12.0), Some(85.0)).is_none());
        let mut plain = served(0.0);
        plain.samples.iter_mut().for_each(|s| s.servers.clear());
        assert!(judge(&plain, None, None).is_none());
    }
}
