//! SIGKILL at random points of lab runs leaves nothing mounted, attached or running, with no
//! `fsbench clean` (issue 45): twenty rounds over ext4, ext4-fscrypt, gocryptfs, bindfs,
//! glusterfs and sshfs, each killed while the lab is being built, while it prepares, mid-sample
//! or while it tears down. The run's mount namespace goes with its last process, its FUSE
//! daemons and simulated hosts with their PID namespaces, its loop devices with autoclear; what
//! is left is the lab's scratch of images on disk, which the next run names and `clean` removes.

use crate::lab::{LabDir, assert_nothing_left_running, assert_torn_down, clean_lab};
use std::io::BufRead;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// The lab kinds of each round, in turn.
const KINDS: &[&str] = &[
    "ext4,ext4-fscrypt",
    "gocryptfs,bindfs",
    "glusterfs",
    "sshfs",
    "ext4-fscrypt,gocryptfs",
    "bindfs,sshfs",
];

/// Where a round kills the run.
#[derive(Debug, Clone, Copy)]
enum Phase {
    Building,
    Preparing,
    Sampling,
    TearingDown,
}

const PHASES: [Phase; 4] = [
    Phase::Building,
    Phase::Preparing,
    Phase::Sampling,
    Phase::TearingDown,
];

impl Phase {
    /// The start of the run's standard error line that announces the phase, and the most
    /// milliseconds to wait after it before the kill (a random point within).
    fn trigger(self) -> (&'static str, u64) {
        match self {
            // Printed before the first target is built (the lab's own mount namespace).
            Self::Building => ("lab: its mounts are this run's own", 3000),
            // After the lab is built and probed: the workload's file is being written.
            Self::Preparing => ("estimated time:", 400),
            // The null workload's sample sleeps for 2 s.
            Self::Sampling => ("null prepared on", 1800),
            // After the run, before the lab is torn down.
            Self::TearingDown => ("took ", 300),
        }
    }
}

/// A small xorshift generator: the kill points of a seed can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Starts a lab run of `kinds` in `lab` whose standard error lines arrive on the receiver.
fn start(lab: &std::path::Path, kinds: &str) -> (Child, Receiver<String>) {
    let mut child = crate::util::command()
        .args(["run", "--lab", kinds, "--cache", "warm", "--runs", "1"])
        .args(["--warmup", "0", "--no-store", "-w", "seq-read:size=16m"])
        .args(["-w", "null:ops=1,sleep=2s", "--lab-dir"])
        .arg(lab)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fsbench");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Kills `child` a random time (up to the phase's bound) after its phase's line; returns
/// whether it was still running when killed (a run may end before a teardown kill lands).
fn kill_in(child: &mut Child, lines: &Receiver<String>, phase: Phase, rng: &mut Rng) -> bool {
    let (line, most) = phase.trigger();
    let seen = lines
        .iter()
        .take_while(|_| child.try_wait().ok().flatten().is_none())
        .any(|l| l.starts_with(line));
    assert!(seen, "the run never reached {phase:?} ('{line}')");
    std::thread::sleep(Duration::from_millis(rng.below(most)));
    let alive = child.try_wait().ok().flatten().is_none();
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    alive
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mkfs_ext4,
        fsbench_ext4_encryption,
        fsbench_tool_gocryptfs,
        fsbench_tool_bindfs,
        fsbench_tool_glusterd,
        fsbench_tool_sshd,
        fsbench_tool_sshfs,
        fsbench_tool_unshare,
        fsbench_tool_nsenter,
        fsbench_tool_ip,
        fsbench_dev_fuse
    )),
    ignore = "needs root, mkfs.ext4, ext4 with fscrypt, gocryptfs, bindfs, glusterfs-server, glusterfs-client, openssh-server, sshfs, iproute2 and /dev/fuse"
)]
fn twenty_sigkills_at_random_points_of_lab_runs_leave_nothing_without_clean() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(45, |d| d.as_nanos() as u64)
        | 1;
    let mut rng = Rng(seed);
    let mut killed_running = 0;
    for round in 0..20 {
        // Each pass over the kinds starts one phase later: every kind meets every phase.
        let phase = PHASES[(round + round / KINDS.len()) % PHASES.len()];
        let kinds = KINDS[round % KINDS.len()];
        let lab = LabDir::new();
        let (mut child, lines) = start(&lab.path(), kinds);
        let alive = kill_in(&mut child, &lines, phase, &mut rng);
        killed_running += usize::from(alive);
        eprintln!("round {round}: {kinds}, {phase:?}, killed while running: {alive} (seed {seed})");
        assert_nothing_left_running(&lab.path());
        let text = clean_lab(&lab.path());
        for undone in ["unmounted", "detached", "ended", "closed"] {
            assert!(
                !text.contains(undone),
                "round {round} ({kinds}, {phase:?}, seed {seed}) left work for clean: {text}"
            );
        }
        assert_torn_down(&lab.path());
    }
    // Most kills land while the run is alive (a teardown kill may come after a quick end).
    assert!(
        killed_running >= 15,
        "only {killed_running} of 20 rounds killed a running run"
    );
}
