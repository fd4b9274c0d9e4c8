//! SIGKILL at random points of lab runs leaves nothing mounted, attached or running, with no
//! `fsbench clean` (issue 45): a round per lab kinds and phase (24, each a test of its own),
//! over ext4, ext4-fscrypt, gocryptfs, bindfs, glusterfs and sshfs, each killed while the lab is
//! being built, while it prepares, mid-sample or while it tears down. The run's mount namespace goes with its last process, its FUSE
//! daemons and simulated hosts with their PID namespaces, its loop devices with autoclear; what
//! is left is the lab's scratch of images on disk, which the next run names and `clean` removes.

use crate::lab::{LabDir, assert_nothing_left_running, assert_torn_down, clean_lab};
use std::io::BufRead;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// Where a round kills the run.
#[derive(Debug, Clone, Copy)]
enum Phase {
    Building,
    Preparing,
    Sampling,
    TearingDown,
}

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

/// Kills `child` a random time (up to `most` ms) after its phase's line; returns whether it was
/// still running when killed (a run may end before a teardown kill lands).
fn kill_in(
    child: &mut Child,
    lines: &Receiver<String>,
    phase: Phase,
    most: u64,
    rng: &mut Rng,
) -> bool {
    let line = phase.trigger().0;
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

/// One round: a lab run of `kinds` killed in `phase`, then checked. Returns whether the kill
/// landed on a live run.
fn round(label: &str, kinds: &str, phase: Phase, most_ms: u64, rng: &mut Rng) -> bool {
    let lab = LabDir::new();
    let (mut child, lines) = start(&lab.path(), kinds);
    let alive = kill_in(&mut child, &lines, phase, most_ms, rng);
    eprintln!("{label}: {kinds}, {phase:?} within {most_ms} ms, killed while running: {alive}");
    assert_nothing_left_running(&lab.path());
    let text = clean_lab(&lab.path());
    for undone in ["unmounted", "detached", "ended", "closed"] {
        assert!(
            !text.contains(undone),
            "{label} ({kinds}, {phase:?}) left work for clean: {text}"
        );
    }
    assert_torn_down(&lab.path());
    alive
}

/// One round killed in `phase` on `kinds`, at a random point of the phase; the kill must land on
/// a live run. The Building, Preparing and Sampling windows lie inside phases that last longer
/// than the window on any machine (the sample sleeps 2 s). A teardown's length is the
/// machine's: when a kill comes after the run ended, the round is run again with half the window
/// (down to 10 ms), so on a machine of any speed the kill lands inside the teardown.
fn killed_in(phase: Phase, kinds: &str) {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(45, |d| d.as_nanos() as u64)
        | 1;
    let mut rng = Rng(seed);
    let mut most = phase.trigger().1;
    let label = format!("seed {seed}");
    while !round(&label, kinds, phase, most, &mut rng) {
        assert!(
            matches!(phase, Phase::TearingDown) && most > 10,
            "{label}: a kill within {most} ms of {phase:?} came after {kinds}'s run ended"
        );
        most /= 2;
    }
}

/// A test per lab kinds killed in `$phase`, in a module named after the phase: every kind meets
/// every phase, 24 rounds in all, one per test (they run in parallel under nextest, each well
/// inside the time budget).
macro_rules! sigkill_tests {
    ($phase_mod:ident, $phase:expr) => {
        mod $phase_mod {
            use super::{Phase, killed_in};

            sigkill_tests!(@one ext4_and_ext4_fscrypt, $phase, "ext4,ext4-fscrypt");
            sigkill_tests!(@one gocryptfs_and_bindfs, $phase, "gocryptfs,bindfs");
            sigkill_tests!(@one glusterfs, $phase, "glusterfs");
            sigkill_tests!(@one sshfs, $phase, "sshfs");
            sigkill_tests!(@one ext4_fscrypt_and_gocryptfs, $phase, "ext4-fscrypt,gocryptfs");
            sigkill_tests!(@one bindfs_and_sshfs, $phase, "bindfs,sshfs");
        }
    };
    (@one $name:ident, $phase:expr, $kinds:expr) => {
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
        fn $name() {
            killed_in($phase, $kinds);
        }
    };
}

sigkill_tests!(while_the_lab_is_built, Phase::Building);
sigkill_tests!(while_the_workload_prepares, Phase::Preparing);
sigkill_tests!(mid_sample, Phase::Sampling);
sigkill_tests!(while_the_lab_is_torn_down, Phase::TearingDown);
