//! The server side of a lab target served from simulated hosts (`--lab glusterfs`, `sshfs`),
//! read around each sample like the block devices: per server host the CPU of every process in
//! its PID namespace (its daemons: `glusterd`, `glusterfsd`, `sshd`, `sftp-server`; with what
//! its init reaped), the bytes on its link (`/proc/INIT/net/dev`, the host's own network
//! namespace), and its brick's loop device. The hosts are found by their init's marker
//! arguments (`bash -c REAPER fsbench-lab-host DIR NAME`, [`fsbench_model::HOST_MARKER`]), DIR
//! being the lab target's directory, the parent of its mount point.

use super::diskstats::{self, DiskStat};
use fsbench_model::{CpuPair, HOST_MARKER, ServerSample};
use std::path::Path;

/// One server host to read around each sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerWatch {
    /// Its name (`server1`).
    pub host: String,
    /// Its init's pid.
    pub init: i32,
    /// Its brick's loop device (`loop4`), when found.
    pub device: Option<String>,
}

/// One reading of a server host.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerReading {
    /// User and system clock ticks of its processes (and what its init reaped).
    pub ticks: (u64, u64),
    /// (received, sent) bytes on its link.
    pub wire: (u64, u64),
    /// Its brick device's counters.
    pub disk: Option<DiskStat>,
}

/// The server hosts behind the lab mount at `mount_point` (`DIR/fuse`), in name order; empty
/// for any other mount.
pub fn find(mount_point: &Path) -> Vec<ServerWatch> {
    let Some(dir) = mount_point.parent() else {
        return Vec::new();
    };
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out: Vec<ServerWatch> = rd
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let args = fsbench_sys::process::cmdline(pid);
            match args.as_slice() {
                [bash, c, _, marker, d, name]
                    if bash.ends_with("bash")
                        && c == "-c"
                        && marker == HOST_MARKER
                        && Path::new(d) == dir
                        && name.starts_with("server") =>
                {
                    Some(ServerWatch {
                        host: name.clone(),
                        init: pid,
                        device: loop_of(&dir.join(format!("{name}.img"))),
                    })
                }
                _ => None,
            }
        })
        .collect();
    out.sort_by(|a, b| a.host.cmp(&b.host));
    out
}

/// Reads every host now (a host that is gone reads as zeros).
pub fn read(hosts: &[ServerWatch]) -> Vec<ServerReading> {
    hosts
        .iter()
        .map(|h| ServerReading {
            ticks: ticks_of(h.init),
            wire: std::fs::read_to_string(format!("/proc/{}/net/dev", h.init))
                .ok()
                .and_then(|t| super::netstats::parse_net_dev(&t))
                .unwrap_or_default(),
            disk: h.device.as_ref().and_then(|d| {
                let stat = std::fs::read_to_string(format!("/sys/class/block/{d}/stat")).ok()?;
                diskstats::parse_stat(&stat)
            }),
        })
        .collect()
}

/// What each host did between two readings, with `ticks_per_s` clock ticks a second.
pub fn delta(
    hosts: &[ServerWatch],
    before: &[ServerReading],
    after: &[ServerReading],
    ticks_per_s: u64,
) -> Vec<ServerSample> {
    let ns = |t: u64| t.saturating_mul(1_000_000_000) / ticks_per_s.max(1);
    hosts
        .iter()
        .zip(before.iter().zip(after))
        .map(|(h, (b, a))| ServerSample {
            host: h.host.clone(),
            cpu: CpuPair {
                user_ns: ns(a.ticks.0.saturating_sub(b.ticks.0)),
                sys_ns: ns(a.ticks.1.saturating_sub(b.ticks.1)),
            },
            wire_rx_bytes: a.wire.0.saturating_sub(b.wire.0),
            wire_tx_bytes: a.wire.1.saturating_sub(b.wire.1),
            device: h
                .device
                .as_ref()
                .zip(b.disk.zip(a.disk))
                .and_then(|(d, (b, a))| {
                    diskstats::delta(&[(d.clone(), b)], &[(d.clone(), a)]).pop()
                }),
        })
        .collect()
}

/// The client's wire bytes, (received, sent): what the servers sent and received on their
/// links, summed.
pub fn client_wire(readings: &[ServerReading]) -> (u64, u64) {
    readings
        .iter()
        .fold((0, 0), |(r, s), h| (r + h.wire.1, s + h.wire.0))
}

/// User and system ticks of every process in `init`'s PID namespace, plus what `init` reaped.
fn ticks_of(init: i32) -> (u64, u64) {
    let Ok(ns) = std::fs::read_link(format!("/proc/{init}/ns/pid")) else {
        return (0, 0);
    };
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return (0, 0);
    };
    let mut total = stat_ticks(init, true);
    for pid in rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok()) {
        if pid != init && std::fs::read_link(format!("/proc/{pid}/ns/pid")).ok() == Some(ns.clone())
        {
            let (u, s) = stat_ticks(pid, false);
            total = (total.0 + u, total.1 + s);
        }
    }
    total
}

/// utime and stime of `pid` (with cutime and cstime when `reaped`), ticks.
fn stat_ticks(pid: i32, reaped: bool) -> (u64, u64) {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|t| parse_ticks(&t, reaped))
        .unwrap_or_default()
}

/// utime and stime (plus cutime and cstime when `reaped`) of a `/proc/PID/stat` text.
fn parse_ticks(stat: &str, reaped: bool) -> Option<(u64, u64)> {
    let rest = stat.rsplit_once(") ")?.1;
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|x| x.parse().ok())
        .collect();
    let [u, s, cu, cs] = f[..] else { return None };
    Some(if reaped { (u + cu, s + cs) } else { (u, s) })
}

/// The loop device (`loop4`) whose backing file is `image`.
fn loop_of(image: &Path) -> Option<String> {
    let rd = std::fs::read_dir("/sys/block").ok()?;
    rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("loop"))
        .find(|n| {
            std::fs::read_to_string(format!("/sys/block/{n}/loop/backing_file"))
                .is_ok_and(|b| Path::new(b.trim_end()) == image)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_read_after_the_command_name() {
        let stat = "42 (glusterfsd (x)) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 20 10 20 0 8 0 100";
        assert_eq!(parse_ticks(stat, false), Some((7, 3)));
        assert_eq!(parse_ticks(stat, true), Some((27, 13)));
        assert_eq!(parse_ticks("1 (x) S 1", false), None);
    }

    #[test]
    fn a_sample_takes_the_difference_and_the_client_sees_the_servers_mirrored() {
        let hosts = [ServerWatch {
            host: "server1".into(),
            init: 1,
            device: None,
        }];
        let b = ServerReading {
            ticks: (10, 5),
            wire: (100, 50),
            disk: None,
        };
        let a = ServerReading {
            ticks: (60, 30),
            wire: (1100, 250),
            disk: None,
        };
        let d = delta(&hosts, &[b], &[a], 100);
        assert_eq!(d[0].cpu.user_ns, 500_000_000);
        assert_eq!(d[0].cpu.sys_ns, 250_000_000);
        assert_eq!((d[0].wire_rx_bytes, d[0].wire_tx_bytes), (1000, 200));
        assert_eq!(client_wire(&[a, a]), (500, 2200));
        assert!(find(Path::new("/")).is_empty());
    }
}
