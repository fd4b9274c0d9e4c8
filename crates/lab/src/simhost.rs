//! Simulated hosts of the network lab kinds (`glusterfs`, `sshfs`), on this one kernel: each
//! server host has network, mount, UTS and PID namespaces of its own (its daemons, its brick's
//! mount, tmpfs over the state directories its daemons write), the client host network and PID
//! namespaces only (its FUSE daemon's mount is the caller's, so fsbench measures it). The client
//! namespace is the switch: a bridge `br0` at [`client_address`] with one veth port per server,
//! whose other end is the server's `eth0` at [`server_address`]. With `rtt=` each link gets
//! `tc netem` delay, half each way; on a kernel without `sch_netem` the link is instead a TAP
//! device at each end with fsbench's wire between them (`crate::wire`), which adds the delay in
//! user space. Nothing is created in the caller's network namespace.
//!
//! A host is held by `unshare ... --kill-child -- bash -c REAPER fsbench-lab-host DIR NAME`
//! started by fsbench (a child that dies with it, even on SIGKILL): when the holder ends, the
//! kernel kills every process of the host, and its links, addresses and mounts go with its
//! namespaces. The marker arguments let the teardown and `fsbench clean` find a host by the
//! lab directory (`DIR`, the target's directory in the lab scratch) and its name.

use super::error::Error;
use super::undo::Undo;
use super::{Building, text, tool};
use fsbench_sys::child::{self, GroupChild};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The marker argument of a host's init (`bash -c REAPER MARKER DIR NAME`).
pub(crate) const MARKER: &str = fsbench_model::HOST_MARKER;
/// The client host's name.
pub(crate) const CLIENT: &str = "client";
/// The simulated network, /24.
const SUBNET: &str = "10.79.0";
/// What a host's init runs: waits for children forever, reaping them; exits on TERM.
const REAPER: &str = r#"trap "exit 0" TERM; while :; do sleep 3600 & wait $! || true; done"#;
/// How long a host, a daemon or a mount may take to come up (an ssh handshake under a loaded
/// machine took over 30 s once in a full test run).
const READY: Duration = Duration::from_secs(90);

/// Where other programs' mounts live (temporary directories, removable media, users' runtime
/// directories): a server host's copies of those are detached (see [`drop_foreign_mounts`]).
const FOREIGN_ROOTS: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/dev/shm",
    "/mnt",
    "/media",
    "/run/user",
];

/// The holders of this process's hosts (lab directory, name, holder), ended by [`end`].
static HOLDERS: Mutex<Vec<(PathBuf, String, GroupChild)>> = Mutex::new(Vec::new());

/// The client's address (the bridge in its namespace).
pub(crate) fn client_address() -> String {
    format!("{SUBNET}.1")
}

/// Server `i`'s address (`i` from 1).
pub(crate) fn server_address(i: usize) -> String {
    format!("{SUBNET}.{}", 10 + i)
}

/// Server `i`'s address as an IP address (`i` from 1).
pub(crate) fn server_ip(i: usize) -> std::net::Ipv4Addr {
    std::net::Ipv4Addr::new(10, 79, 0, u8::try_from(10 + i).unwrap_or(u8::MAX))
}

/// Server `i`'s name (`i` from 1).
pub(crate) fn server_name(i: usize) -> String {
    format!("server{i}")
}

/// One running host.
#[derive(Debug, Clone)]
pub(crate) struct Host {
    /// Its name (`client`, `server1`).
    pub name: String,
    /// Its init's pid (as this process sees it).
    pub init: i32,
    /// A server host (own mount and UTS namespaces) rather than the client.
    pub server: bool,
    /// With a network namespace of its own (every simulated host; not a FUSE daemon's holder).
    pub net: bool,
}

impl Host {
    /// Runs `program args` inside the host (recorded): `nsenter` into its namespaces.
    pub fn run(&self, b: &mut Building, program: &str, args: &[&str]) -> Result<String, Error> {
        let all = self.nsenter(program, args)?;
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        b.run("nsenter", &all)
    }

    /// Starts daemon `program args` inside the host (recorded), in a session of its own from
    /// the start (`setsid`): the tool runner kills what is left of the command's process group
    /// when the command ends, which a daemon still between its fork and its own `setsid` would
    /// otherwise be.
    pub fn daemon(&self, b: &mut Building, program: &str, args: &[&str]) -> Result<String, Error> {
        let path = tool::require(program)?;
        let mut all = vec![text(&path)];
        all.extend_from_slice(args);
        self.run(b, "setsid", &all)
    }

    /// Runs `program args` inside the host until it succeeds (at most [`READY`]); only the
    /// attempt that succeeded is recorded.
    pub fn run_until_ok(
        &self,
        b: &mut Building,
        program: &str,
        args: &[&str],
        ok: impl Fn(&str) -> bool,
    ) -> Result<String, Error> {
        let all = self.nsenter(program, args)?;
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let deadline = Instant::now() + READY;
        loop {
            let r = tool::run("nsenter", &all, READY, &b.cleanup);
            match r {
                Ok(out) if ok(&out) => {
                    let nsenter = tool::require("nsenter")?;
                    b.info.commands.push(tool::display(text(&nsenter), &all));
                    return Ok(out);
                }
                Err(Error::NotInstalled { .. }) => return r,
                Ok(_) | Err(_) if Instant::now() < deadline && !b.cleanup.is_closed() => {
                    std::thread::sleep(Duration::from_millis(200));
                }
                Ok(out) => {
                    return Err(Error::ToolOutput {
                        program: program.to_string(),
                        missing: "not what it should have yet",
                        output: tool::last_line(&out).to_string(),
                    });
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// `nsenter -t INIT -n [-m -u] -p -- PROGRAM ARGS` (the program by its full path: sshd
    /// insists on one).
    fn nsenter(&self, program: &str, args: &[&str]) -> Result<Vec<String>, Error> {
        let path = tool::require(program)?;
        let mut all = vec!["-t".to_string(), self.init.to_string()];
        if self.net {
            all.push("-n".into());
        }
        if self.server {
            all.extend(["-m".into(), "-u".into()]);
        }
        all.extend(["-p".into(), "--".into(), text(&path).to_string()]);
        all.extend(args.iter().map(|a| a.to_string()));
        Ok(all)
    }
}

/// The client host and `servers` server hosts of `b`, started and wired (with the link delay of
/// `rtt_us`, if any); the client first.
pub(crate) fn start_all(
    b: &mut Building,
    servers: usize,
    rtt_us: Option<u64>,
) -> Result<(Host, Vec<Host>), Error> {
    let client = start(b, CLIENT, false)?;
    let addr = format!("{}/24", client_address());
    client.run(b, "ip", &["link", "set", "lo", "up"])?;
    client.run(b, "ip", &["link", "add", "br0", "type", "bridge"])?;
    client.run(b, "ip", &["addr", "add", &addr, "dev", "br0"])?;
    client.run(b, "ip", &["link", "set", "br0", "up"])?;
    let mut out = Vec::new();
    for i in 1..=servers {
        let name = server_name(i);
        let host = start(b, &name, true)?;
        drop_foreign_mounts(b, &host)?;
        let port = format!("s{i}");
        let (c, s) = (client.init.to_string(), host.init.to_string());
        // Without netem, a delayed link is two TAP devices and fsbench's wire between them.
        let wire = rtt_us.filter(|_| !crate::probe::has_netem());
        if wire.is_some() {
            client.run(b, "ip", &["tuntap", "add", "dev", &port, "mode", "tap"])?;
            host.run(b, "ip", &["tuntap", "add", "dev", "eth0", "mode", "tap"])?;
        } else {
            let veth = [
                "link", "add", &port, "netns", &c, "type", "veth", "peer", "name", "eth0", "netns",
                &s,
            ];
            b.run("ip", &veth)?;
        }
        client.run(b, "ip", &["link", "set", &port, "master", "br0", "up"])?;
        let addr = format!("{}/24", server_address(i));
        host.run(b, "hostname", &[&format!("{}-{name}", label(b))])?;
        host.run(b, "ip", &["link", "set", "lo", "up"])?;
        host.run(b, "ip", &["addr", "add", &addr, "dev", "eth0"])?;
        host.run(b, "ip", &["link", "set", "eth0", "up"])?;
        if let Some(us) = wire {
            let exe = std::env::current_exe().map_err(|source| Error::ToolIo {
                action: "find",
                program: "fsbench".into(),
                source,
            })?;
            let half = (us / 2).to_string();
            // The wire becomes a daemon once both its ends are attached (an end it cannot
            // attach is this command's error), in a session of its own before this returns.
            let args = [crate::wire::COMMAND, &c, &port, &s, "eth0", &half];
            client.run(b, text(&exe), &args)?;
        } else if let Some(us) = rtt_us {
            let half = format!("{}us", us / 2);
            let netem = |dev| ["qdisc", "add", "dev", dev, "root", "netem", "delay"];
            host.run(b, "tc", &[&netem("eth0")[..], &[half.as_str()]].concat())?;
            client.run(b, "tc", &[&netem(&port)[..], &[half.as_str()]].concat())?;
        }
        out.push(host);
    }
    Ok((client, out))
}

/// Detaches, inside server host `host`, its copies of other programs' mounts under
/// [`FOREIGN_ROOTS`] and the lab directory (another run's lab, a test's loop mount): a new mount
/// namespace copies every mount, and a copy would keep such a filesystem (and its loop device)
/// busy after its owner unmounted it, for as long as the host lives. The mounts on the way to
/// this lab's own directory stay; the detach does not propagate (the namespace is private).
fn drop_foreign_mounts(b: &mut Building, host: &Host) -> Result<(), Error> {
    let text = std::fs::read_to_string(format!("/proc/{}/mountinfo", host.init))
        .map_err(|e| Error::io("read", format!("/proc/{}/mountinfo", host.init), e))?;
    let points: Vec<PathBuf> = text
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .map(|p| PathBuf::from(super::undo::unescape(p)))
        .collect();
    let lab_dir = b.dir.parent().and_then(Path::parent).map(Path::to_path_buf);
    let mut roots: Vec<PathBuf> = FOREIGN_ROOTS.iter().map(PathBuf::from).collect();
    roots.extend(lab_dir.filter(|d| d.parent().is_some()));
    let foreign = foreign(&points, &b.dir, &roots);
    if foreign.is_empty() {
        return Ok(());
    }
    let mut args = vec!["-l"];
    args.extend(foreign.iter().map(|p| text_of(p)));
    host.run(b, "umount", &args).map(drop)
}

/// The mount points of `points` strictly under one of `roots` that are not on the way to `ours`
/// (an ancestor of it, or it), outermost only (detaching one detaches what is under it).
fn foreign(points: &[PathBuf], ours: &Path, roots: &[PathBuf]) -> Vec<PathBuf> {
    let candidates: Vec<&PathBuf> = points
        .iter()
        .filter(|p| roots.iter().any(|r| p.starts_with(r) && *p != r))
        .filter(|p| !ours.starts_with(p))
        .collect();
    let mut out: Vec<PathBuf> = candidates
        .iter()
        .filter(|p| !candidates.iter().any(|q| q != *p && p.starts_with(q)))
        .map(|p| (*p).clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A mount point as text (mountinfo's are UTF-8 after unescaping, lossily).
fn text_of(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

/// The target's label (its directory's name).
fn label(b: &Building) -> String {
    b.dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// A PID namespace holding a local FUSE daemon (`gocryptfs`, `bindfs`), as a host holds its
/// daemons: the daemon runs inside it (`Host::run`; it shares fsbench's network and mounts), and
/// when fsbench ends, however it ends, the holder dies with it and the kernel kills every process
/// in the namespace — so no daemon outlives the run to keep its mount (and fsbench's mount
/// namespace) alive. Its end is recorded to undo.
pub(crate) fn start_daemon_holder(b: &mut Building) -> Result<Host, Error> {
    start_with(b, "daemon", false, false)
}

/// Starts host `name` of `b` and waits for its init; its end is recorded to undo.
fn start(b: &mut Building, name: &str, server: bool) -> Result<Host, Error> {
    start_with(b, name, server, true)
}

/// Starts `name`'s holder (network namespace too when `net`; mount, UTS and `/proc` too for a
/// server) and waits for its init; its end is recorded to undo.
fn start_with(b: &mut Building, name: &str, server: bool, net: bool) -> Result<Host, Error> {
    b.undo(Undo::EndHost {
        dir: b.dir.clone(),
        name: name.to_string(),
    });
    let mut args = vec!["--pid", "--fork", "--kill-child"];
    if net {
        args.insert(0, "--net");
    }
    if server {
        args.extend(["--mount", "--uts", "--mount-proc"]);
    }
    let dir = text(&b.dir).to_string();
    args.extend(["--", "bash", "-c", REAPER, MARKER, &dir, name]);
    let program = tool::require("unshare")?;
    b.info
        .commands
        .push(tool::display(text(&program), &args) + " &");
    let mut cmd = std::process::Command::new(&program);
    cmd.args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let holder = child::spawn(&mut cmd, &b.cleanup).map_err(|source| Error::ToolIo {
        action: "start",
        program: "unshare".into(),
        source,
    })?;
    let pid = holder.child.id() as i32;
    lock().push((b.dir.clone(), name.to_string(), holder));
    let deadline = Instant::now() + READY;
    loop {
        if let Some(init) = child_of(pid).filter(|c| is_host(*c, &b.dir, Some(name))) {
            return Ok(Host {
                name: name.to_string(),
                init,
                server,
                net,
            });
        }
        if Instant::now() > deadline || b.cleanup.is_closed() {
            return Err(Error::ToolOutput {
                program: "unshare".into(),
                missing: "no host",
                output: format!("host {name} did not start"),
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn lock() -> std::sync::MutexGuard<'static, Vec<(PathBuf, String, GroupChild)>> {
    HOLDERS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The first child of `pid`, if any.
fn child_of(pid: i32) -> Option<i32> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The host directory and name of a host init's arguments (`bash -c REAPER MARKER DIR NAME`).
fn host_of(args: &[String]) -> Option<(&str, &str)> {
    match args {
        [bash, c, _, marker, dir, name]
            if bash.ends_with("bash") && c == "-c" && marker == MARKER =>
        {
            Some((dir.as_str(), name.as_str()))
        }
        _ => None,
    }
}

/// True when `pid` is the init of host `name` (any host with `None`) of lab directory `dir`.
fn is_host(pid: i32, dir: &Path, name: Option<&str>) -> bool {
    let args = fsbench_sys::process::cmdline(pid);
    host_of(&args).is_some_and(|(d, n)| Path::new(d) == dir && name.is_none_or(|x| x == n))
}

/// The inits of the hosts whose lab directory lies in `scratch` (a dead run's leftovers):
/// (pid, lab directory, name).
pub(crate) fn inits_in(scratch: &Path) -> Vec<(i32, PathBuf, String)> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let args = fsbench_sys::process::cmdline(pid);
            let (dir, name) = host_of(&args)?;
            let dir = PathBuf::from(dir);
            (dir.parent() == Some(scratch)).then(|| (pid, dir.clone(), name.to_string()))
        })
        .collect()
}

/// Ends host `name` of lab directory `dir`: its holder if this process started it, else its
/// init (a dead run's host) by SIGKILL, which ends every process of the host with it. Waits (5
/// s) until the init is gone.
pub(crate) fn end(dir: &Path, name: &str) -> Result<Option<String>, Error> {
    let held = {
        let mut all = lock();
        let i = all.iter().position(|(d, n, _)| d == dir && n == name);
        i.map(|i| all.remove(i))
    };
    let mut inits: Vec<i32> = inits_in(dir.parent().unwrap_or(dir))
        .into_iter()
        .filter(|(_, d, n)| d == dir && n == name)
        .map(|(p, _, _)| p)
        .collect();
    if let Some((_, _, mut holder)) = held {
        holder.kill();
    }
    for pid in &inits {
        if let Some(p) = rustix::process::Pid::from_raw(*pid) {
            let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while !inits.is_empty() {
        inits.retain(|p| is_host(*p, dir, Some(name)));
        if Instant::now() > deadline {
            return Err(Error::NotUndone {
                what: format!("end simulated host {name}"),
                cause: Box::new(Error::refused(format!("pid {inits:?} did not exit"))),
                fix: format!("kill -9 {inits:?}"),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hosts_init_is_known_by_its_arguments() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let init = args(&[
            "bash",
            "-c",
            REAPER,
            MARKER,
            "/l/.fsbench-lab-1/sshfs",
            "server1",
        ]);
        assert_eq!(host_of(&init), Some(("/l/.fsbench-lab-1/sshfs", "server1")));
        let holder = args(&[
            "unshare", "--net", "--", "bash", "-c", REAPER, MARKER, "/l", "x",
        ]);
        assert_eq!(host_of(&holder), None);
        assert_eq!(
            host_of(&args(&["bash", "-c", "x", "other", "/l", "x"])),
            None
        );
    }

    #[test]
    fn only_other_programs_mounts_are_detached_outermost_first() {
        let p = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        let points = p(&[
            "/",
            "/tmp",
            "/tmp/other-test/mnt",
            "/tmp/other-test/mnt/inner",
            "/tmp/lab",
            "/var/tmp/x/.fsbench-lab-2-9/ext4/mnt",
            "/var/tmp/x/.fsbench-lab-1-5/glusterfs/fuse",
            "/proc",
            "/usr",
        ]);
        let ours = Path::new("/tmp/lab/.fsbench-lab-1-5/glusterfs");
        let roots = p(&["/tmp", "/var/tmp"]);
        assert_eq!(
            foreign(&points, ours, &roots),
            p(&[
                "/tmp/other-test/mnt",
                "/var/tmp/x/.fsbench-lab-1-5/glusterfs/fuse",
                "/var/tmp/x/.fsbench-lab-2-9/ext4/mnt"
            ])
        );
    }
}
