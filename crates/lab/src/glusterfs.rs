//! GlusterFS served from simulated hosts (`--lab glusterfs`, `glusterfs:replica=N`): each server
//! host runs `glusterd` with its state in tmpfs inside the host (never the machine's
//! `/var/lib/glusterd`) and one brick on its own ext4 loop image; server1 makes the others its
//! peers, creates volume `fsbench` (distributed with one brick, replicated over N) and starts
//! it, and the client mounts it with the `glusterfs` FUSE client over the simulated network.
//! Bricks are given by address: glusterd refuses loopback addresses.

use super::error::Error;
use super::served::{self, Served};
use super::simhost;
use super::{Building, text};
use std::path::PathBuf;

/// glusterd's management port (the volfile server the client asks first).
const GLUSTERD_PORT: u16 = 24007;
/// The volume's name.
const VOLUME: &str = "fsbench";
/// Where packages install geo-replication's daemon, `gsyncd` (Debian's, then Fedora's).
/// Inside each server host (its own mount namespace) a stand-in is bound over it
/// ([`gsyncd_stand_in`]): glusterd writes its geo-replication settings at start-up with 26 runs
/// of the Python daemon (0.3 s each here) before it answers, and runs it again for CLI commands;
/// that was most of a server's start-up. The lab's volume never replicates across sites.
/// glusterd refuses to start when `gsyncd` is there but fails, so the stand-in succeeds.
const GSYNCD: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/glusterfs/gsyncd",
    "/usr/libexec/glusterfs/gsyncd",
];
/// Where glusterd, the bricks and the CLI keep state, logs and sockets inside a server host.
const STATE: &[&str] = &["/var/lib/glusterd", "/var/log/glusterfs", "/run"];

/// Builds the servers, the volume and the client mount; returns the mount point.
pub fn build(b: &mut Building) -> Result<PathBuf, Error> {
    let served = served::hosts(b, STATE, &["/run/gluster"], "brick")?;
    let mut versions = vec![served::version(b, "glusterfs", "--version")];
    versions.dedup();
    let stand_in = match GSYNCD.iter().find(|p| std::path::Path::new(p).is_file()) {
        Some(gsyncd) => Some((gsyncd, gsyncd_stand_in(b)?)),
        None => None,
    };
    for (host, _) in &served.servers {
        if let Some((gsyncd, stand_in)) = &stand_in {
            host.run(b, "mount", &["--bind", "-o", "ro", text(stand_in), gsyncd])?;
        }
        host.daemon(b, "glusterd", &["-p", "/run/gluster/glusterd.pid"])?;
        host.run_until_ok(b, "gluster", &["--mode=script", "pool", "list"], |_| true)?;
    }
    let (first, _) = &served.servers[0];
    for (_, s) in &served.servers[1..] {
        first.run(
            b,
            "gluster",
            &["--mode=script", "peer", "probe", &s.address],
        )?;
    }
    let peers = served.servers.len();
    first.run_until_ok(b, "gluster", &["--mode=script", "pool", "list"], |out| {
        out.lines().filter(|l| l.contains("Connected")).count() == peers
    })?;
    let mut create = vec!["--mode=script", "volume", "create", VOLUME];
    let replica = peers.to_string();
    if peers > 1 {
        create.extend(["replica", &replica]);
    }
    let bricks: Vec<String> = served
        .servers
        .iter()
        .map(|(_, s)| format!("{}:{}", s.address, s.brick))
        .collect();
    create.extend(bricks.iter().map(String::as_str));
    create.push("force");
    first.run(b, "gluster", &create)?;
    first.run(b, "gluster", &["--mode=script", "volume", "start", VOLUME])?;
    let info = first.run(b, "gluster", &["--mode=script", "volume", "info", VOLUME])?;
    let log = b.dir.join("client.log");
    let server = simhost::server_address(1);
    let args = [
        &format!("--volfile-server={server}"),
        &format!("--volfile-id={VOLUME}"),
        &format!("--log-file={}", text(&log)),
    ];
    let args: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
    let mnt = served::mount_client(b, &served.client, "glusterfs", &args)?;
    let mut served: Served = served;
    for (_, s) in &mut served.servers {
        s.daemons = vec!["glusterd".into(), "glusterfsd".into()];
    }
    let mut options = volume_options(&info);
    options.extend(args.iter().map(|a| a.to_string()));
    let export = served::Export {
        export: format!("{server}:/{VOLUME}"),
        options,
        versions,
        port: GLUSTERD_PORT,
    };
    served::record(b, &served, export);
    Ok(mnt)
}

/// Writes the stand-in for `gsyncd` in this kind's directory: it says it is gsyncd when asked
/// its version (glusterd checks the word) and succeeds at every setting, doing nothing.
fn gsyncd_stand_in(b: &Building) -> Result<PathBuf, Error> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = b.dir.join("gsyncd");
    let script = "#!/bin/sh\n# fsbench lab: geo-replication is off in this host (glusterd's settings are not kept)\n\
                  [ \"$1\" = --version ] && echo 'gsyncd (fsbench lab stand-in: geo-replication off)'\n\
                  exit 0\n";
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o755)
        .open(&path)
        .and_then(|mut f| f.write_all(script.as_bytes()))
        .map_err(|e| Error::io("write", path.clone(), e))?;
    Ok(path)
}

/// The volume's type, transport and reconfigured options from `gluster volume info`
/// (`Type: Replicate`, `Transport-type: tcp`, `performance.client-io-threads: off`).
fn volume_options(info: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut options = false;
    for line in info.lines().map(str::trim) {
        if line.starts_with("Options Reconfigured") {
            options = true;
            continue;
        }
        let wanted = line.starts_with("Type:") || line.starts_with("Transport-type:");
        if (wanted || options) && line.contains(':') {
            out.push(line.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_volume_info_gives_type_transport_and_options() {
        let info = "Volume Name: fsbench\nType: Replicate\nVolume ID: 1-2\nStatus: Created\nNumber of Bricks: 1 x 2 = 2\nTransport-type: tcp\nBricks:\nBrick1: 10.79.0.11:/x/brick\nOptions Reconfigured:\ncluster.granular-entry-heal: on\nperformance.client-io-threads: off";
        assert_eq!(
            volume_options(info),
            [
                "Type: Replicate",
                "Transport-type: tcp",
                "cluster.granular-entry-heal: on",
                "performance.client-io-threads: off"
            ]
        );
    }
}
