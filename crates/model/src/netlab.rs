//! Network lab targets served from simulated hosts (`--lab glusterfs`, `--lab sshfs`): the
//! options of such an entry ([`NetSpec`]), what was built ([`NetLabInfo`], one
//! [`ServerHost`] per server) and what each server did during one sample ([`ServerSample`],
//! `samples[].servers`).

use serde::{Deserialize, Serialize};

/// The marker argument of a simulated host's init (`bash -c REAPER fsbench-lab-host DIR
/// NAME`), by which the lab, `fsbench clean` and the measurement find the hosts of a target's
/// lab directory `DIR`.
pub const HOST_MARKER: &str = "fsbench-lab-host";

/// Options of a lab entry served from simulated hosts (`glusterfs:replica=2,rtt=2ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetSpec {
    /// Server hosts, each with one brick (GlusterFS `replica=N`; 1 for sshfs and a plain
    /// distributed volume).
    pub replica: u32,
    /// Round-trip time put on the simulated link, µs (`rtt=2ms`); `None`: the veth as it is.
    pub rtt_us: Option<u64>,
}

impl NetSpec {
    /// Most server hosts a replicated volume may have.
    pub const MAX_REPLICA: u32 = 4;
    /// Longest round-trip time `rtt=` accepts, µs (one second).
    pub const MAX_RTT_US: u64 = 1_000_000;
}

impl Default for NetSpec {
    fn default() -> Self {
        Self {
            replica: 1,
            rtt_us: None,
        }
    }
}

/// How a network lab target was built: its server hosts, the network between them and the
/// client, and the software serving it (`lab.net` in the record).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct NetLabInfo {
    /// The server hosts, in order (the first one is the one the client mounts from).
    pub servers: Vec<ServerHost>,
    /// The client's address on the simulated network (the client's end of the links).
    pub client_address: String,
    /// What is served: the GlusterFS volume (`fsbench`, distributed or replicated) or the
    /// exported directory (sshfs).
    pub export: String,
    /// Volume or daemon options, as given to the server and the client.
    pub options: Vec<String>,
    /// Versions of the server and client software (`glusterfs 10.3`, `OpenSSH_9.2p1`, `SSHFS
    /// version 3.7.3`).
    pub versions: Vec<String>,
    /// Round-trip time put on the links (`tc netem`, half each way), ms; `null` when none.
    #[serde(default)]
    pub rtt_set_ms: Option<f64>,
    /// Round-trip time measured from the client to the first server after building (fsbench's
    /// own TCP connects to the server's daemon, median of ten; `ping` before issue 45), ms;
    /// `null` when it could not be measured.
    #[serde(default)]
    pub rtt_measured_ms: Option<f64>,
    /// How `rtt_measured_ms` was measured (`TCP connect to 10.79.0.11:22, median of 10`), or
    /// why it could not be; empty in records made before fsbench said.
    #[serde(default)]
    pub rtt_how: String,
}

/// One simulated server host: its own network, mount, PID and UTS namespaces, a veth link to
/// the client, and a brick on an ext4 loop image of its own.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ServerHost {
    /// Host name (`glusterfs-server1`).
    pub name: String,
    /// Its address on the simulated network.
    pub address: String,
    /// The directory it serves (the brick or the export), as seen inside the host.
    pub brick: String,
    /// The image backing the brick's ext4.
    pub image: String,
    /// The loop device of that image (`/dev/loop4`), whose counters are the server's device's.
    #[serde(default)]
    pub loop_device: Option<String>,
    /// The daemons serving from it (`glusterd`, `glusterfsd`; `sshd`, `sftp-server`).
    pub daemons: Vec<String>,
}

/// What one server host did during one sample (`samples[].servers`): the CPU of every process of
/// the host (its daemons), the bytes on its link, and its brick device's counters.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ServerSample {
    /// Host name (a [`ServerHost::name`]).
    pub host: String,
    /// CPU of the host's processes over the sample, user and kernel.
    pub cpu: crate::CpuPair,
    /// Bytes the host received on its link (what the client and the other servers sent it).
    pub wire_rx_bytes: u64,
    /// Bytes the host sent on its link.
    pub wire_tx_bytes: u64,
    /// Its brick's block device during the sample; `null` when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<crate::DeviceIo>,
}

impl ServerSample {
    /// The host's CPU in percent of one CPU over `wall_ns`.
    pub fn cpu_pct(&self, wall_ns: u64) -> f64 {
        (self.cpu.user_ns + self.cpu.sys_ns) as f64 * 100.0 / wall_ns.max(1) as f64
    }
}
