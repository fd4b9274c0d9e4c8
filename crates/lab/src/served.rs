//! What the kinds served from simulated hosts (`glusterfs`, `sshfs`) build alike: one ext4 loop
//! image per server host (`KIND/serverN.img`, made before the hosts so that the loop devices
//! are detached after the hosts ended), the hosts and their links ([`super::simhost`]), each
//! brick mounted inside its server at `KIND/serverN` with tmpfs over the directories its
//! daemons keep state in, the client's FUSE mount at `KIND/fuse`, and the record
//! ([`fsbench_model::NetLabInfo`]).

use super::error::Error;
use super::simhost::{self, Host};
use super::undo::Undo;
use super::{Building, loopfs, text};
use fsbench_model::{NetLabInfo, ServerHost};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The hosts of one served target: the client and each server with its record.
pub(crate) struct Served {
    /// The client host (the switch).
    pub client: Host,
    /// The server hosts, each with its record.
    pub servers: Vec<(Host, ServerHost)>,
}

/// Builds the images, the hosts and their links; in each server mounts tmpfs over `state`
/// (directories its daemons write: their state stays in the host), makes `mkdirs` (inside those)
/// and mounts its brick at `KIND/serverN`. The brick's directory served is `KIND/serverN/SUB`.
pub(crate) fn hosts(
    b: &mut Building,
    state: &[&str],
    mkdirs: &[&str],
    sub: &str,
) -> Result<Served, Error> {
    let net = b.net.unwrap_or_default();
    let n = net.replica.max(1) as usize;
    let mut devices = Vec::new();
    for i in 1..=n {
        let (image, dev) = loopfs::image_named(b, &format!("{}.img", simhost::server_name(i)))?;
        b.run("mkfs.ext4", &[loopfs::EXT4, &[dev.as_str()]].concat())?;
        devices.push((image, dev));
    }
    let (client, hosts) = simhost::start_all(b, n, net.rtt_us)?;
    let mut servers = Vec::new();
    for (i, (host, (image, dev))) in hosts.into_iter().zip(devices).enumerate() {
        for dir in state {
            let name = format!("fsbench-lab-{}", host.name);
            host.run(b, "mount", &["-t", "tmpfs", "-o", "mode=0755", &name, dir])?;
        }
        for dir in mkdirs {
            host.run(b, "mkdir", &["-p", dir])?;
        }
        let point = b.mkdir(&host.name)?;
        host.run(b, "mount", &[&dev, text(&point)])?;
        let brick = point.join(sub);
        host.run(b, "mkdir", &[text(&brick)])?;
        servers.push((
            host,
            ServerHost {
                name: simhost::server_name(i + 1),
                address: simhost::server_address(i + 1),
                brick: text(&brick).to_string(),
                image: text(&image).to_string(),
                loop_device: Some(dev),
                daemons: Vec::new(),
            },
        ));
    }
    Ok(Served { client, servers })
}

/// Mounts the client's FUSE filesystem at `KIND/fuse`: runs `program args MOUNTPOINT` in the
/// client host in a session of its own (its helpers, such as sshfs's ssh, must outlive the
/// command) until it succeeds, then waits until the mount is there.
pub(crate) fn mount_client(
    b: &mut Building,
    client: &Host,
    program: &str,
    args: &[&str],
) -> Result<PathBuf, Error> {
    let mnt = b.mkdir("fuse")?;
    b.undo(Undo::Unmount {
        point: mnt.clone(),
        fuse: true,
    });
    let mut all = args.to_vec();
    all.push(text(&mnt));
    // Retried: a daemon that just started may still reset the first connection.
    let all = with_path(program, &all)?;
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    client.run_until_ok(b, "setsid", &all, |_| true)?;
    let deadline = Instant::now() + Duration::from_secs(90);
    let mounted = || {
        fsbench_envinfo::mounts()
            .iter()
            .any(|m| std::path::Path::new(&m.mount_point) == mnt)
    };
    while !mounted() {
        if Instant::now() > deadline {
            return Err(Error::ToolOutput {
                program: program.to_string(),
                missing: "no mount",
                output: format!("{} was not mounted within 90 s", mnt.display()),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(mnt)
}

/// `PATH-OF-PROGRAM args`.
fn with_path(program: &str, args: &[&str]) -> Result<Vec<String>, Error> {
    let path = super::tool::require(program)?;
    let mut all = vec![text(&path).to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    Ok(all)
}

/// What a served target is: what is exported, with which options, by which versions, and the
/// server daemon's port (where its round trips are timed).
pub(crate) struct Export {
    /// What the client mounts (`10.79.0.11:/fsbench`, `root@10.79.0.11:DIR`).
    pub export: String,
    /// Volume or daemon options.
    pub options: Vec<String>,
    /// Server and client versions.
    pub versions: Vec<String>,
    /// The first server's daemon's TCP port (glusterd 24007, sshd 22).
    pub port: u16,
}

/// Records the served target in `b.info.net`: the hosts, what is exported with which options,
/// the versions, and the round-trip time set and measured (fsbench's own TCP connects from
/// the client to the first server's daemon, [`super::rtt`]).
pub(crate) fn record(b: &mut Building, served: &Served, e: Export) {
    let Export {
        export,
        options,
        versions,
        port,
    } = e;
    let rtt_set_ms = b.net.and_then(|n| n.rtt_us).map(|us| us as f64 / 1000.0);
    let first = std::net::SocketAddr::from((simhost::server_ip(1), port));
    let (rtt_measured_ms, rtt_how) = match super::rtt::measure(served.client.init, first) {
        Ok((ms, how)) => (Some(ms), how),
        Err(why) => (None, format!("not measured: {why}")),
    };
    b.info.options = options.join(",");
    b.info.net = Some(NetLabInfo {
        servers: served.servers.iter().map(|(_, s)| s.clone()).collect(),
        client_address: simhost::client_address(),
        export,
        options,
        versions,
        rtt_set_ms,
        rtt_measured_ms,
        rtt_how,
    });
}

/// The version `program VERSION_ARG` prints, run on this machine: the line naming the program
/// (sshfs also prints its FUSE library's and fusermount3's, in no fixed order), else the first;
/// empty when it prints none.
pub(crate) fn version(b: &mut Building, program: &str, arg: &str) -> String {
    b.run(program, &[arg])
        .map(|out| version_line(&out, program).to_string())
        .unwrap_or_default()
}

/// The line of `out` that names `program` (any case), else its first line, trimmed.
fn version_line<'a>(out: &'a str, program: &str) -> &'a str {
    let lower = program.to_lowercase();
    out.lines()
        .find(|l| l.to_lowercase().starts_with(&lower))
        .or_else(|| out.lines().next())
        .unwrap_or("")
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_line_names_the_program() {
        let sshfs = "fusermount3 version: 3.14.0\nSSHFS version 3.7.3\nFUSE library version 3.14.0";
        assert_eq!(version_line(sshfs, "sshfs"), "SSHFS version 3.7.3");
        assert_eq!(
            version_line("OpenSSH_9.2p1 Debian", "ssh"),
            "OpenSSH_9.2p1 Debian"
        );
        assert_eq!(version_line("", "x"), "");
    }
}
