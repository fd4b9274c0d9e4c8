//! MPI across simulated hosts (issue 25): `tests/cluster/simcluster.sh` makes N hosts out of
//! namespaces (their own hostname, network, mount table and processes, on a bridge in a switch
//! namespace) and Open MPI starts its daemons in them through that script as `plm_rsh_agent`.
//! These tests run `mpirun --hostfile` across 2–3 such hosts × 2 ranks and check what only
//! matters across hosts: one node leader and one cache drop per host, each host's name in its
//! ranks' scratch markers, the ranks table grouped by host, a target seen by one host only
//! refused with the host named, the space check on a filesystem every host writes to, and that a
//! lost host or a Ctrl-C leaves nothing anywhere. They need root, Open MPI and iproute2.

use crate::mpi::{json, mpi_fsbench, signal, text};
use crate::util;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The cluster script.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cluster/simcluster.sh")
}

/// What the hosts must see besides the cluster's directory, wherever the checkout lives (each
/// host has its own /tmp, which would hide a checkout under /tmp): the checkout (mpirun's working
/// directory, the MPI build in `target/mpi`) and the target directory (the binary when the tests
/// are built with `--features mpi`, the cluster's directory).
fn seen() -> std::ffi::OsString {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory");
    std::env::join_paths([Path::new(env!("CARGO_MANIFEST_DIR")), target])
        .expect("paths without ':'")
}

/// A simulated cluster, held while this lives: dropping it closes the supervisor's stdin, which
/// tears everything down.
pub(crate) struct SimCluster {
    dir: tempfile::TempDir,
    supervisor: Child,
    hosts: usize,
}

impl SimCluster {
    /// `hosts` hosts sharing `dir/shared` (bind-mounted into each), or a tmpfs of `shared_size`
    /// there (seen only inside the cluster).
    pub(crate) fn up(hosts: usize, shared_size: Option<&str>) -> Self {
        // In the target directory, which the hosts see (see `seen`).
        let dir = tempfile::Builder::new()
            .prefix("simcluster")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("cluster dir");
        std::fs::create_dir(dir.path().join("shared")).unwrap();
        let mut c = Command::new(script());
        c.arg("up")
            .arg(dir.path())
            .arg(hosts.to_string())
            .arg(dir.path().join("shared"))
            .env("SIMCLUSTER_SEE", seen())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(size) = shared_size {
            c.env("SIMCLUSTER_SHARED_SIZE", size);
        }
        let mut supervisor = c.spawn().expect("start simcluster.sh");
        let mut line = String::new();
        std::io::BufReader::new(supervisor.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "ready", "simcluster.sh up failed");
        Self {
            dir,
            supervisor,
            hosts,
        }
    }

    /// The cluster's directory (hostfile, hosts).
    pub(crate) fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The results database directory of the cluster's runs (its own: other tests store runs
    /// in the shared one at the same time).
    pub(crate) fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// How many runs the cluster's database holds.
    pub(crate) fn stored_runs(&self) -> usize {
        let out = util::fsbench()
            .env("XDG_DATA_HOME", self.data())
            .args(["history", "--export-json", "-"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        v.as_array().map_or(0, Vec::len)
    }

    /// The directory every host sees.
    pub(crate) fn shared(&self) -> PathBuf {
        self.dir.path().join("shared")
    }

    /// `CMD...` inside host `host`'s namespaces (`head` is where mpirun runs).
    pub(crate) fn exec(&self, host: &str) -> Command {
        let mut c = Command::new(script());
        c.arg("exec").arg(self.dir()).arg(host);
        c
    }

    /// The output of `sh -c CMD` on `host`.
    pub(crate) fn sh(&self, host: &str, cmd: &str) -> String {
        let out = self.exec(host).args(["sh", "-c", cmd]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `mpirun` on the head with `per_host` ranks on each host, its daemons started in the hosts
    /// by the script, its traffic kept on the cluster's bridge, then `bin`.
    pub(crate) fn mpirun(&self, bin: &Path, per_host: usize) -> Command {
        let subnet = "10.77.0.0/24";
        let mut c = self.exec("head");
        c.env("SIMCLUSTER_DIR", self.dir())
            .args([
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
                // The hosts share this machine's CPUs: each host's daemon would bind its first
                // rank to core 0, every host's to the same core.
                "--bind-to",
                "none",
                "--hostfile",
            ])
            .arg(self.dir().join("hostfile"))
            .arg("-n")
            .arg((per_host * self.hosts).to_string())
            .arg("--map-by")
            .arg(format!("ppr:{per_host}:node"))
            .arg("--mca")
            .arg("plm_rsh_agent")
            .arg(format!("{} rsh", script().display()))
            .args(["--mca", "plm_rsh_no_tree_spawn", "1"])
            .args(["--mca", "btl", "self,vader,tcp"])
            .args(["--mca", "btl_tcp_if_include", subnet])
            .args(["--mca", "oob_tcp_if_include", subnet])
            .args(["-x", "NO_COLOR=1", "-x"])
            .arg(format!("XDG_DATA_HOME={}", self.data().display()))
            .arg(bin);
        c
    }

    /// The pid (here) of the init of `host`.
    pub(crate) fn init_of(&self, host: &str) -> Option<u32> {
        let want = format!("simcluster:{}:{host}", self.dir().display());
        pids().into_iter().find(|&p| arg0(p) == want)
    }

    /// The pids (here) of the Open MPI daemons running on `host`.
    pub(crate) fn daemons_on(&self, host: &str) -> Vec<u32> {
        let Some(init) = self.init_of(host) else {
            return Vec::new();
        };
        let uts = |p: u32| std::fs::read_link(format!("/proc/{p}/ns/uts")).ok();
        let host_uts = uts(init);
        pids()
            .into_iter()
            .filter(|&p| {
                let comm = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
                comm.trim() == "orted" && uts(p) == host_uts
            })
            .collect()
    }

    /// Every process of the cluster (its hosts' inits and what runs in their namespaces).
    pub(crate) fn processes(&self) -> Vec<u32> {
        let marker = format!("simcluster:{}:", self.dir().display());
        let inits: Vec<u32> = pids()
            .into_iter()
            .filter(|&p| arg0(p).starts_with(&marker))
            .collect();
        let net = |p: u32| std::fs::read_link(format!("/proc/{p}/ns/net")).ok();
        let nets: Vec<_> = inits.iter().filter_map(|&p| net(p)).collect();
        pids()
            .into_iter()
            .filter(|&p| inits.contains(&p) || net(p).is_some_and(|n| nets.contains(&n)))
            .collect()
    }
}

impl Drop for SimCluster {
    fn drop(&mut self) {
        drop(self.supervisor.stdin.take());
        let _ = self.supervisor.wait();
    }
}

fn pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .collect()
}

fn arg0(pid: u32) -> String {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let first = cmdline.split(|&b| b == 0).next().unwrap_or_default();
    String::from_utf8_lossy(first).into_owned()
}

/// The network links of this (the tests') namespace.
fn links_here() -> Vec<String> {
    util::entries(Path::new("/sys/class/net"))
}

/// Waits up to 90 s for `done` (a liveness bound for a loaded machine, not a timing).
fn wait_for(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_ip,
        fsbench_tool_unshare,
        fsbench_tool_nsenter
    )),
    ignore = "needs root, ip, unshare and nsenter (apt-get install iproute2 util-linux)"
)]
fn simulated_cluster_leaves_nothing_after_sigkill_or_a_closed_stdin() {
    let links = links_here();
    for how in ["SIGKILL of the supervisor", "stdin closed"] {
        let mut c = SimCluster::up(2, None);
        assert_eq!(
            c.sh(
                "sim1",
                "hostname; ip -o -4 addr show dev eth0 | grep -c 10.77.0.11"
            ),
            "sim1\n1\n",
            "{how}"
        );
        let inits = [c.init_of("head"), c.init_of("sim1"), c.init_of("sim2")];
        assert!(inits.iter().all(Option::is_some), "{how}: {inits:?}");
        // Nothing in this namespace: the links are in the switch's and the hosts'.
        assert_eq!(links_here(), links, "{how}: links added here");
        let shared_mounts = |p: &Path| {
            std::fs::read_to_string("/proc/self/mountinfo")
                .unwrap()
                .lines()
                .filter(|l| l.contains(&*p.to_string_lossy()))
                .count()
        };
        assert_eq!(shared_mounts(&c.shared()), 0, "{how}: a mount here");
        let all = c.processes();
        assert!(all.len() >= 3, "{how}: {all:?}");
        if how.starts_with("SIGKILL") {
            signal(c.supervisor.id(), rustix::process::Signal::KILL);
        } else {
            drop(c.supervisor.stdin.take());
        }
        wait_for("the cluster's processes to end", || {
            all.iter()
                .all(|p| !Path::new(&format!("/proc/{p}")).exists() || arg0(*p).is_empty())
        });
        assert_eq!(c.processes(), Vec::<u32>::new(), "{how}");
        assert_eq!(links_here(), links, "{how}");
        let _ = c.supervisor.wait();
    }
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mpirun,
        fsbench_tool_mpicc,
        fsbench_tool_ip,
        fsbench_tool_unshare,
        fsbench_tool_nsenter,
        fsbench_tool_setsid
    )),
    ignore = "needs root, mpirun, mpicc, ip, unshare, nsenter, setsid (apt-get install openmpi-bin libopenmpi-dev libclang-dev iproute2 util-linux)"
)]
fn three_hosts_one_leader_and_one_drop_per_host_markers_and_ranks_by_host() {
    let bin = mpi_fsbench();
    let c = SimCluster::up(3, None);
    for layout in ["per-rank", "shared"] {
        let shared = c.shared();
        let log = c.dir().join(format!("drops-{layout}"));
        let file = c.dir().join(format!("run-{layout}.json"));
        // Run by each host's leader before each cold sample: its host, then every marker there.
        let cold = format!(
            "for m in {}/.fsbench-*/.fsbench-scratch; do echo \"$(hostname) $m $(grep host= $m)\"; done >>{}",
            shared.display(),
            log.display()
        );
        let before = c.stored_runs();
        let out = c
            .mpirun(bin, 2)
            .args(["run", "--runs", "2", "--cache", "cold", "--layout", layout])
            .args(["--cold-cmd", &cold])
            .args([
                "-w",
                "seq-write:size=2m,bs=1m",
                "-w",
                "tree-create:scale=0.02",
            ])
            .arg("-t")
            .arg(&shared)
            .arg("--json")
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{layout}: {}", text(&out));
        assert_eq!(c.stored_runs(), before + 1, "{layout}: one stored run");
        assert!(util::entries(&shared).is_empty(), "{layout}: scratch left");
        check_drops_and_markers(&std::fs::read_to_string(&log).unwrap(), layout);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("per host") && stdout.contains("3 hosts"),
            "{stdout}"
        );
        for h in ["sim1", "sim2", "sim3"] {
            assert!(
                stdout.contains(&format!("┆ {h} ")),
                "{layout}: no row for {h}: {stdout}"
            );
        }
        let v = json(&file);
        for r in v["results"].as_array().unwrap() {
            for s in r["samples"].as_array().unwrap() {
                let hosts = s["hosts"].as_array().unwrap();
                let names: Vec<&str> = hosts.iter().map(|h| h["host"].as_str().unwrap()).collect();
                assert_eq!(names, ["sim1", "sim2", "sim3"], "{layout}");
                assert!(
                    hosts
                        .iter()
                        .all(|h| h["ranks"] == 2 && h["machine"].is_object())
                );
                let bytes: u64 = hosts.iter().map(|h| h["bytes"].as_u64().unwrap()).sum();
                assert_eq!(
                    bytes,
                    s["bytes"].as_u64().unwrap(),
                    "{layout}: hosts add up"
                );
            }
        }
    }
}

/// Each line of `log`: the host whose leader ran the cold command, a marker, its `host=` line.
/// 2 workloads × 2 cold samples: 4 drops on each of the 3 hosts, never more (each drop lists
/// every scratch: 6 per-rank ones, or rank 0's shared one); and every marker names the host of
/// the rank that made it (ranks 0–1 on sim1, 2–3 on sim2, 4–5 on sim3; the shared one rank 0's).
fn check_drops_and_markers(log: &str, layout: &str) {
    let per_drop = if layout == "per-rank" { 6 } else { 1 };
    for host in ["sim1", "sim2", "sim3"] {
        let lines = log
            .lines()
            .filter(|l| l.starts_with(&format!("{host} ")))
            .count();
        assert_eq!(lines, 4 * per_drop, "{layout}: drops on {host}:\n{log}");
    }
    assert_eq!(
        log.lines().count(),
        3 * 4 * per_drop,
        "{layout}: only the hosts' leaders:\n{log}"
    );
    for line in log.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 3, "{layout}: {line}");
        let scratch = Path::new(f[1])
            .parent()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let want = match scratch.rsplit_once("-r") {
            Some((_, k)) if layout == "per-rank" => {
                format!("sim{}", k.parse::<usize>().unwrap() / 2 + 1)
            }
            _ => "sim1".to_string(),
        };
        assert_eq!(f[2], format!("host={want}"), "{layout}: {line}");
    }
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mpirun,
        fsbench_tool_mpicc,
        fsbench_tool_ip,
        fsbench_tool_unshare,
        fsbench_tool_nsenter,
        fsbench_tool_setsid
    )),
    ignore = "needs root, mpirun, mpicc, ip, unshare, nsenter, setsid (apt-get install openmpi-bin libopenmpi-dev libclang-dev iproute2 util-linux)"
)]
fn a_target_one_host_cannot_see_is_refused_before_work_naming_the_host() {
    let bin = mpi_fsbench();
    let c = SimCluster::up(2, None);
    // Per-rank: the directory exists on sim1 only. Shared: each host has its own /tmp/local, so
    // sim2 cannot see rank 0's scratch.
    for (layout, setup) in [
        ("per-rank", "mkdir /tmp/local"),
        ("shared", "mkdir /tmp/local"),
    ] {
        c.sh("sim1", setup);
        if layout == "shared" {
            c.sh("sim2", setup);
        }
        let out = c
            .mpirun(bin, 2)
            .args(["run", "--no-store", "--cache", "warm", "--layout", layout])
            .args(["-w", "seq-write:size=1m", "-t", "/tmp/local"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{layout}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("rank 2 on sim2: "), "{layout}: {}", text(&out));
        assert_eq!(err.matches("fsbench: error:").count(), 1, "{layout}: {err}");
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("prepared"),
            "{layout}: work began"
        );
        for h in ["sim1", "sim2"] {
            assert_eq!(
                c.sh(h, "ls -A /tmp/local 2>/dev/null"),
                "",
                "{layout}: scratch left on {h}"
            );
        }
        c.sh("sim1", "rmdir /tmp/local");
        c.sh("sim2", "rmdir /tmp/local 2>/dev/null");
    }
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mpirun,
        fsbench_tool_mpicc,
        fsbench_tool_ip,
        fsbench_tool_unshare,
        fsbench_tool_nsenter,
        fsbench_tool_setsid
    )),
    ignore = "needs root, mpirun, mpicc, ip, unshare, nsenter, setsid (apt-get install openmpi-bin libopenmpi-dev libclang-dev iproute2 util-linux)"
)]
fn the_space_check_counts_every_hosts_ranks_on_a_shared_filesystem() {
    let bin = mpi_fsbench();
    // 64 MiB shared by 2 hosts × 2 ranks of 24 MiB each: 96 MiB do not fit, although one host's
    // two ranks (48 MiB) would.
    let c = SimCluster::up(2, Some("64m"));
    let out = c
        .mpirun(bin, 2)
        .args([
            "run",
            "--no-store",
            "--cache",
            "warm",
            "-w",
            "seq-write:size=24m",
            "-t",
        ])
        .arg(c.shared())
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs 96.0 MiB free"), "{}", text(&out));
    assert_eq!(c.sh("sim2", &format!("ls -A {}", c.shared().display())), "");
}

/// A long per-rank run on the shared target, once every rank's scratch is there.
fn long_run(c: &SimCluster, bin: &Path, layout: &str) -> Child {
    let child = c
        .mpirun(bin, 2)
        .args(["run", "--no-store", "--runs", "100000", "--cache", "warm"])
        .args(["--layout", layout, "-w", "seq-write:size=8m", "-t"])
        .arg(c.shared())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = child;
    let want = if layout == "shared" { 1 } else { 4 };
    let deadline = Instant::now() + Duration::from_secs(180);
    while util::entries(&c.shared()).len() != want {
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!(
                "{layout}: the ranks never started: {}",
                text(&child.wait_with_output().unwrap())
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(1500));
    child
}

/// mpirun failed, naming `host` when given; then nothing of the run is left on any host.
fn assert_nothing_left(c: &SimCluster, mpirun: Child, host: Option<&str>, what: &str) {
    let out = mpirun.wait_with_output().unwrap();
    assert!(!out.status.success(), "{what}: {:?}", out.status);
    let err = String::from_utf8_lossy(&out.stderr);
    if let Some(h) = host {
        assert!(err.contains(&format!("on node {h}")), "{what}: {err}");
    }
    // The ranks' command lines (`-t SHARED`; the cluster's own processes name SHARED too).
    let needle = format!("-t\0{}", c.shared().display());
    let deadline = Instant::now() + Duration::from_secs(90);
    while !util::entries(&c.shared()).is_empty() || !util::processes_mentioning(&needle).is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "{what}: left: scratch {:?}, ranks {:?}; mpirun said: {err}",
            util::entries(&c.shared()),
            util::processes_mentioning(&needle)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    for h in ["sim1", "sim2"] {
        assert_eq!(
            c.daemons_on(h),
            Vec::<u32>::new(),
            "{what}: a daemon left on {h}"
        );
    }
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mpirun,
        fsbench_tool_mpicc,
        fsbench_tool_ip,
        fsbench_tool_unshare,
        fsbench_tool_nsenter,
        fsbench_tool_setsid
    )),
    ignore = "needs root, mpirun, mpicc, ip, unshare, nsenter, setsid (apt-get install openmpi-bin libopenmpi-dev libclang-dev iproute2 util-linux)"
)]
fn sigkill_of_one_hosts_daemon_ends_the_run_everywhere_and_leaves_no_scratch() {
    let bin = mpi_fsbench();
    let c = SimCluster::up(2, None);
    let child = long_run(&c, bin, "per-rank");
    let daemons = c.daemons_on("sim2");
    assert_eq!(daemons.len(), 1, "one daemon on sim2: {daemons:?}");
    // sim2's ranks die with their daemon, without cleaning: their guards remove their scratches;
    // mpirun ends sim1's ranks, which remove theirs.
    signal(daemons[0], rustix::process::Signal::KILL);
    assert_nothing_left(&c, child, Some("sim2"), "SIGKILL of sim2's daemon");
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mpirun,
        fsbench_tool_mpicc,
        fsbench_tool_ip,
        fsbench_tool_unshare,
        fsbench_tool_nsenter,
        fsbench_tool_setsid
    )),
    ignore = "needs root, mpirun, mpicc, ip, unshare, nsenter, setsid (apt-get install openmpi-bin libopenmpi-dev libclang-dev iproute2 util-linux)"
)]
fn ctrl_c_on_mpirun_across_hosts_leaves_no_scratch_and_no_rank() {
    let bin = mpi_fsbench();
    let c = SimCluster::up(2, None);
    for layout in ["per-rank", "shared"] {
        let child = long_run(&c, bin, layout);
        signal(child.id(), rustix::process::Signal::INT);
        assert_nothing_left(&c, child, None, layout);
    }
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mpirun,
        fsbench_tool_mpicc,
        fsbench_tool_ip,
        fsbench_tool_unshare,
        fsbench_tool_nsenter,
        fsbench_tool_setsid,
        fsbench_tool_glusterd,
        fsbench_tool_glusterfs,
        fsbench_dev_fuse
    )),
    ignore = "needs root, mpirun, mpicc, iproute2, util-linux, glusterfs-server, glusterfs-client and /dev/fuse"
)]
fn ranks_on_two_client_hosts_share_one_glusterfs_volume() {
    // IOR's and mdtest's shared-filesystem case: each client host mounts the one volume served
    // by another host, and the ranks run on the clients (bench/simcluster-glusterfs.sh).
    let bin = mpi_fsbench();
    let _alone = crate::util::alone();
    // In /tmp, which each host has its own of: the script lets the hosts see it when told
    // (SIMCLUSTER_SEE), wherever it lies (a target directory beside a clone in /tmp too).
    let out_dir = util::temp_dir();
    let json = out_dir.path().join("r.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/simcluster-glusterfs.sh");
    let out = Command::new(&script)
        .args([
            "2",
            "1",
            "--",
            "--runs",
            "2",
            "--cache",
            "warm",
            "--no-store",
            "-q",
        ])
        .args(["-w", "rand-read:size=4m,ops=500", "--json"])
        .arg(&json)
        .env("FSBENCH", bin)
        .env("SIMCLUSTER_SEE", out_dir.path())
        .env("XDG_DATA_HOME", util::data_home())
        .output()
        .expect("run the script");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let cell = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["target"] == "glusterfs")
        .expect("a glusterfs cell");
    let hosts: Vec<&str> = cell["samples"][0]["hosts"]
        .as_array()
        .expect("ranks grouped by host")
        .iter()
        .filter_map(|h| h["host"].as_str())
        .collect();
    assert_eq!(hosts.len(), 2, "two client hosts: {hosts:?}");
    assert_ne!(hosts[0], hosts[1]);
    assert_eq!(
        cell["samples"][0]["metrics"]["ranks"], 2.0,
        "{}",
        cell["samples"][0]["metrics"]
    );
}
