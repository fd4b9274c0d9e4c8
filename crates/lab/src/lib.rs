//! Lab targets: throwaway filesystems fsbench builds itself for `fsbench run --lab KIND,...`
//! (tmpfs, ext4/xfs/btrfs on sparse loop images with direct I/O, ext4 with fscrypt, ext4 on
//! dm-crypt, loopback NFS, gocryptfs, bindfs, overlay, and GlusterFS and sshfs served from
//! simulated hosts: `simhost`), records how each was made (`TargetInfo::lab`), and tears down on every exit
//! path. Everything lives in one scratch directory (`.fsbench-lab-*`, with the usual marker) on
//! the current directory's filesystem or `--lab-dir`. An image kind can be aged before it is
//! measured (`--lab ext4:aged`): filled and churned, its fragmentation recorded.
//!
//! The request comes parsed (`fsbench_spec::lab`: each entry a [`LabKind`], how to age it and the
//! target's label); [`request`] checks what this machine can build, [`build`] builds it.
//!
//! Teardown is driven by undo steps recorded while building ([`undo`]), so a signal, a panic or an error
//! at any point undoes exactly what exists: the guard [`Lab`] on normal paths, the process's
//! cleanup registry ([`fsbench_sys::cleanup`]) from the signal watcher and the panic hook. A run killed with
//! SIGKILL runs no code: [`teardown_dead`] (`fsbench clean DIR`) then finds its mounts and loop
//! devices by path, since a lab mounts only at `SCRATCH/LABEL/mnt` and keeps images only at
//! `SCRATCH/LABEL/disk.img` (LABEL: the kind, or an aged kind's label).

#![warn(missing_docs)]

mod ageplan;
mod aging;
mod dmcrypt;
mod error;
mod frag;
mod fscrypt;
mod fuse;
mod glusterfs;
mod loopfs;
mod nfs;
mod overlay;
mod prepare;
pub mod probe;
mod request;
mod rtt;
mod secret;
mod served;
mod simhost;
mod sshfs;
mod teardown;
mod tmpfs;
pub mod tool;
mod undo;
pub mod wire;

pub use error::Error;
pub use request::{DEFAULT_SIZE, LabRequest, request};

use fsbench_model::{EngineResult, Failure};
use fsbench_model::{LabEntry, LabInfo, LabKind, TargetInfo};
use fsbench_scratch::Scratch;
use fsbench_sys::cleanup::{Cleanup, Registration, Stage};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};
use undo::Undo;

/// How one kind of lab target is built, and what it needs.
#[derive(Debug)]
pub struct Recipe {
    /// The kind (its name is the one on the command line and the target's label).
    pub kind: LabKind,
    /// What it builds, one line.
    pub about: &'static str,
    /// Filesystem type the kernel must know (`/proc/filesystems` or a module).
    pub fs: &'static str,
    /// Commands it runs to build and tear down.
    pub tools: &'static [&'static str],
    /// It makes an image file of `--lab-size` (counts against free space).
    pub image: bool,
    /// What it needs of the kernel beyond `fs` (fscrypt, the device-mapper, an NFS server).
    pub needs: &'static [probe::Need],
    build: fn(&mut Building) -> Result<PathBuf, Error>,
}

/// Every lab kind's recipe, in the order `fsbench lab list` shows them.
pub const RECIPES: &[Recipe] = &[
    Recipe {
        kind: LabKind::Tmpfs,
        about: "tmpfs of --lab-size (RAM; cold is meaningless there)",
        fs: "tmpfs",
        tools: &["mount", "umount"],
        image: false,
        needs: &[],
        build: tmpfs::build,
    },
    Recipe {
        kind: LabKind::Ext4,
        about: "ext4 on a sparse loop image, loop direct I/O on",
        fs: "ext4",
        tools: &["mkfs.ext4", "losetup", "mount", "umount"],
        image: true,
        needs: &[],
        build: loopfs::ext4,
    },
    Recipe {
        kind: LabKind::Xfs,
        about: "xfs on a sparse loop image, loop direct I/O on",
        fs: "xfs",
        tools: &["mkfs.xfs", "losetup", "mount", "umount"],
        image: true,
        needs: &[],
        build: loopfs::xfs,
    },
    Recipe {
        kind: LabKind::Btrfs,
        about: "btrfs on a sparse loop image, loop direct I/O on",
        fs: "btrfs",
        tools: &["mkfs.btrfs", "losetup", "mount", "umount"],
        image: true,
        needs: &[],
        build: loopfs::btrfs,
    },
    Recipe {
        kind: LabKind::Ext4Fscrypt,
        about: "ext4 -O encrypt on a loop image; a directory with a v2 policy and a generated key",
        fs: "ext4",
        tools: &["mkfs.ext4", "losetup", "mount", "umount"],
        image: true,
        needs: &[probe::Need::Fscrypt],
        build: fscrypt::build,
    },
    Recipe {
        kind: LabKind::DmCrypt,
        about: "ext4 on dm-crypt (LUKS2, aes-xts-plain64, 512-bit key, 4 KiB sectors, a generated key file) over a loop image like the ext4 kind's",
        fs: "ext4",
        // dmsetup: `fsbench env` reads the mapping's cipher through it.
        tools: &[
            "cryptsetup",
            "dmsetup",
            "mkfs.ext4",
            "losetup",
            "mount",
            "umount",
        ],
        image: true,
        needs: &[probe::Need::DeviceMapper],
        build: dmcrypt::build,
    },
    Recipe {
        kind: LabKind::Nfs,
        about: "NFS v4.2 over loopback: a directory of an ext4 loop image exported (sync) by this machine's NFS server, mounted from 127.0.0.1",
        fs: "ext4",
        tools: &[
            "exportfs",
            "mount.nfs",
            "mkfs.ext4",
            "losetup",
            "mount",
            "umount",
        ],
        image: true,
        needs: &[probe::Need::NfsLoopback],
        build: nfs::build,
    },
    Recipe {
        kind: LabKind::Gocryptfs,
        about: "gocryptfs (FUSE encryption) over a directory of an ext4 loop image like the ext4 kind's",
        fs: "fuse",
        tools: &[
            "gocryptfs",
            "fusermount3",
            "mkfs.ext4",
            "losetup",
            "mount",
            "umount",
        ],
        image: true,
        needs: &[],
        build: fuse::gocryptfs,
    },
    Recipe {
        kind: LabKind::Bindfs,
        about: "bindfs (single-threaded FUSE pass-through) over a directory of an ext4 loop image like the ext4 kind's",
        fs: "fuse",
        tools: &[
            "bindfs",
            "fusermount3",
            "mkfs.ext4",
            "losetup",
            "mount",
            "umount",
        ],
        image: true,
        needs: &[],
        build: fuse::bindfs,
    },
    Recipe {
        kind: LabKind::Overlay,
        about: "overlayfs with lower, upper and work directories in the lab scratch",
        fs: "overlay",
        tools: &["mount", "umount"],
        image: false,
        needs: &[],
        build: overlay::build,
    },
    Recipe {
        kind: LabKind::Glusterfs,
        about: "GlusterFS from simulated server hosts (namespaces, veth): glusterd and one brick on an ext4 loop image per server, a distributed volume (replica=N: replicated over N servers; rtt=2ms: netem delay, or fsbench's wire over TAP devices), mounted by the glusterfs FUSE client",
        fs: "fuse",
        tools: &[
            "glusterd",
            "gluster",
            "glusterfs",
            "unshare",
            "nsenter",
            "setsid",
            "ip",
            "tc",
            "mkfs.ext4",
            "losetup",
            "mount",
            "umount",
        ],
        image: true,
        needs: &[],
        build: glusterfs::build,
    },
    Recipe {
        kind: LabKind::Sshfs,
        about: "sshfs from a simulated server host (namespaces, veth): sshd with throwaway keys serving a directory of an ext4 loop image (rtt=2ms: netem delay, or fsbench's wire over TAP devices)",
        fs: "fuse",
        tools: &[
            "sshd",
            "ssh",
            "ssh-keygen",
            "sshfs",
            "unshare",
            "nsenter",
            "setsid",
            "ip",
            "tc",
            "mkfs.ext4",
            "losetup",
            "mount",
            "umount",
        ],
        image: true,
        needs: &[],
        build: sshfs::build,
    },
];

/// The recipe of `kind` (`None` for a kind this fsbench does not know).
pub fn recipe(kind: &LabKind) -> Option<&'static Recipe> {
    RECIPES.iter().find(|r| r.kind == *kind)
}

const MIB: u64 = 1 << 20;

/// Run ids of lab scratches start with this (`.fsbench-lab-<pid>-<ns>`).
const LAB_ID: &str = "lab-";
/// Name prefix of a lab scratch directory.
const LAB_PREFIX: &str = ".fsbench-lab-";

/// How long one build or teardown command may run before it is killed.
const TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// One target being built: its directory in the lab scratch, the size, and what was done so far.
pub(crate) struct Building {
    live: Shared,
    cleanup: Cleanup,
    /// This kind's directory inside the lab scratch (created, empty).
    pub dir: PathBuf,
    /// `--lab-size`, bytes.
    pub size: u64,
    /// The record being filled (commands, loop device, options).
    pub info: LabInfo,
    /// Options of a kind served from simulated hosts (`replica=`, `rtt=`).
    pub net: Option<fsbench_model::NetSpec>,
    /// The block device the filesystem was made on (the loop device, or a dm-crypt mapping over
    /// it), for tools that read the filesystem's own device (`e2freefrag`).
    pub fs_device: Option<String>,
}

impl Building {
    /// Runs a tool and records its command line. Holds the teardown lock meanwhile, so a forced
    /// exit tears down after the command (which it kills first), and refuses once that began.
    pub fn run(&mut self, program: &str, args: &[&str]) -> Result<String, Error> {
        let guard = lock_live(&self.live);
        if self.cleanup.is_closed() || guard.as_ref().is_none_or(|g| g.is_none()) {
            return Err(Error::TearingDown);
        }
        let shown = tool::find(program).map_or(program.to_string(), |p| p.display().to_string());
        self.info.commands.push(tool::display(&shown, args));
        tool::run(program, args, TOOL_TIMEOUT, &self.cleanup)
    }

    /// Records a step to undo at teardown (steps are undone newest first).
    pub fn undo(&self, step: Undo) {
        let mut live = lock_live(&self.live);
        if let Some(t) = live
            .as_mut()
            .and_then(|g| g.as_mut())
            .and_then(|l| l.targets.last_mut())
        {
            t.undo.push(step);
        }
    }

    /// Mounts a kernel filesystem (`mount -t FSTYPE -o OPTIONS`, no device) at `mnt`, recording
    /// the options and the unmount to undo at teardown.
    pub fn mount(&mut self, fstype: &str, options: String, mnt: &Path) -> Result<(), Error> {
        self.undo(Undo::Unmount {
            point: mnt.to_path_buf(),
            fuse: false,
        });
        self.info.options = options.clone();
        let args = ["-t", fstype, "-o", &options, "fsbench-lab", text(mnt)];
        self.run("mount", &args).map(drop)
    }

    /// Creates directory `name` (mode 0700) in this kind's directory.
    pub fn mkdir(&self, name: &str) -> Result<PathBuf, Error> {
        subdir(&self.dir, name)
    }
}

/// `base/name`, made with mode 0700 (a directory on a lab target's own filesystem: gocryptfs's
/// cipher directory, bindfs's source, the NFS export).
pub(crate) fn subdir(base: &Path, name: &str) -> Result<PathBuf, Error> {
    use std::os::unix::fs::DirBuilderExt;
    let p = base.join(name);
    match std::fs::DirBuilder::new().mode(0o700).create(&p) {
        Ok(()) => Ok(p),
        Err(e) => Err(Error::io("create", p, e)),
    }
}

/// A path of the lab scratch as text (the lab directory was checked to be UTF-8).
pub(crate) fn text(p: &Path) -> &str {
    p.to_str()
        .expect("invariant: the lab directory is UTF-8 (checked by request)")
}

/// What is left to undo of one lab (one `fsbench run`).
struct LiveLab {
    scratch: Option<Scratch>,
    targets: Vec<LiveTarget>,
}

/// What is left to undo of one lab target.
struct LiveTarget {
    label: String,
    undo: Vec<Undo>,
}

/// One lab's undo state, shared by the [`Lab`] guard, its [`Building`]s and its step in the
/// cleanup registry; `None` once torn down. Held while a build command runs and while tearing
/// down, so a forced exit waits for either instead of acting in its middle.
type Shared = Arc<Mutex<Option<LiveLab>>>;

/// The lock of `live`, waiting at most a minute (a panic inside a teardown must not hang the
/// panic hook forever); `None` when it could not be had.
fn lock_live(live: &Shared) -> Option<MutexGuard<'_, Option<LiveLab>>> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match live.try_lock() {
            Ok(g) => return Some(g),
            Err(TryLockError::Poisoned(p)) => return Some(p.into_inner()),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(TryLockError::WouldBlock) => return None,
        }
    }
}

/// Tears down the lab in `live` (nothing if already done); returns the lines to show (notes as
/// they are, problems as errors). Holds its lock meanwhile.
fn tear_down(live: &Shared) -> Vec<String> {
    let Some(mut guard) = lock_live(live) else {
        return vec!["fsbench: error: lab teardown: still busy after a minute — run 'fsbench clean' on the lab directory".into()];
    };
    let Some(lab) = guard.take() else {
        return Vec::new();
    };
    let sweep = teardown::lab(lab);
    let mut lines = sweep.done;
    lines.extend(
        sweep
            .problems
            .into_iter()
            .map(|p| format!("fsbench: error: lab teardown: {p}")),
    );
    lines
}

/// Tears down what a dead run's lab left in its scratch `dir` (`fsbench clean`): unmounts the
/// lab's mounts (`KIND/mnt`) and detaches the loop devices of its images (`KIND/disk.img`).
/// Nothing for a scratch that is not a lab's. Returns one line per thing undone; a run error
/// when something could not be undone (the scratch must then stay).
pub fn teardown_dead(dir: &Path) -> EngineResult<Vec<String>> {
    let is_lab = dir
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(LAB_PREFIX));
    if !is_lab {
        return Ok(Vec::new()); // a run's scratch: nothing of a lab in it
    }
    let dir = std::fs::canonicalize(dir)
        .map_err(|e| Failure::run(format!("{} — check the path", Error::io("resolve", dir, e))))?;
    let sweep = teardown::sweep(&dir);
    match sweep.problems.first() {
        Some(p) => Err(Failure::run(format!(
            "{p} — run 'fsbench clean' as root, or undo it by hand"
        ))),
        None => Ok(sweep.done),
    }
}

/// The lab of one run: its targets are torn down and its scratch removed when this is dropped.
#[derive(Default)]
pub struct Lab {
    live: Option<Shared>,
    infos: Vec<(String, LabInfo)>,
    /// The aged targets: label and the directory measured.
    aged: Vec<(String, PathBuf)>,
    /// Where the teardown's lines go when this is dropped (the binary's stderr).
    say: Option<fn(&str)>,
    /// Tears the lab down if the process must stop before this is dropped.
    registration: Option<Registration>,
    cleanup: Cleanup,
}

impl std::fmt::Debug for Lab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lab").field("infos", &self.infos).finish()
    }
}

/// A target the lab built: its label (the kind) and the mounted directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltTarget {
    /// The kind's name, used as the target's label.
    pub label: String,
    /// The directory to measure.
    pub path: PathBuf,
}

impl Lab {
    fn register(scratch: Scratch, cleanup: &Cleanup) -> Self {
        let live: Shared = Arc::new(Mutex::new(Some(LiveLab {
            scratch: Some(scratch),
            targets: Vec::new(),
        })));
        let undo = live.clone();
        let registration = cleanup.register(Stage::Labs, move || tear_down(&undo));
        Self {
            live: Some(live),
            infos: Vec::new(),
            aged: Vec::new(),
            say: None,
            registration: Some(registration),
            cleanup: cleanup.clone(),
        }
    }

    /// The labels of the targets this lab built.
    pub fn labels(&self) -> Vec<String> {
        self.infos.iter().map(|(l, _)| l.clone()).collect()
    }

    /// Refuses a plan whose largest workload (`need` bytes, workload `what`) does not fit in the
    /// space aging left free on an aged target: one line naming the fix.
    pub fn check_aged_room(&self, need: u64, what: &str) -> EngineResult<()> {
        for (label, path) in &self.aged {
            let Ok(st) = rustix::fs::statvfs(path) else {
                continue;
            };
            let free = st.f_bavail * st.f_frsize;
            if need <= free {
                continue;
            }
            let used = st.f_blocks.saturating_sub(st.f_bfree) * st.f_frsize;
            let capacity = (used + free).max(1);
            let fill = ageplan::fullness_pct(used, free);
            let most = 100.0 - need as f64 * 100.0 / capacity as f64 - 5.0;
            let lower = if most >= 1.0 {
                format!("a lower fill (fill={} or less), or ", most.floor())
            } else {
                String::new()
            };
            return Err(Failure::input(format!(
                "lab target {label} has {:.1} MiB free after aging to {fill:.1}% full, but workload {what} needs {:.1} MiB — give {lower}a bigger --lab-size",
                free as f64 / MIB as f64,
                need as f64 / MIB as f64
            )));
        }
        Ok(())
    }

    /// Sets `lab` of each environment target that this lab built.
    pub fn annotate(&self, targets: &mut [TargetInfo]) {
        for t in targets {
            if let Some((_, info)) = self.infos.iter().find(|(l, _)| *l == t.label) {
                t.lab = Some(info.clone());
            }
        }
    }

    /// Builds `entry` by `recipe` in `root/<label>`, ages it when asked and measures its
    /// fragmentation; the target's undo steps are registered as they happen.
    fn build_one(
        &mut self,
        (entry, recipe): (&LabEntry, &Recipe),
        root: &Path,
        size: u64,
        progress: &prepare::Progress<'_>,
    ) -> Result<PathBuf, Error> {
        let live = self
            .live
            .clone()
            .expect("invariant: a lab that builds is registered");
        if let Some(l) = lock_live(&live).as_mut().and_then(|g| g.as_mut()) {
            l.targets.push(LiveTarget {
                label: entry.label.clone(),
                undo: Vec::new(),
            });
        }
        let mut b = Building {
            live,
            cleanup: self.cleanup.clone(),
            dir: root.join(&entry.label),
            size,
            info: LabInfo {
                kind: entry.kind.clone(),
                scratch: text(root).to_string(),
                ..LabInfo::default()
            },
            net: entry.net,
            fs_device: None,
        };
        std::fs::create_dir(&b.dir).map_err(|e| Error::io("create", b.dir.clone(), e))?;
        let path = (recipe.build)(&mut b)?;
        prepare::age_and_measure(&mut b, entry, recipe.fs, &path, progress)?;
        if entry.aging.is_some() {
            self.aged.push((entry.label.clone(), path.clone()));
        }
        self.infos.push((entry.label.clone(), b.info));
        Ok(path)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Some(live) = &self.live {
            // Torn down before the registration goes: a forced exit meanwhile waits for it.
            for line in tear_down(live) {
                if let Some(say) = self.say {
                    say(&line);
                }
            }
        }
        self.registration = None;
    }
}

/// How a lab build talks to its caller: whether a signal asked it to stop, and where its
/// progress and teardown lines go.
#[derive(Debug, Clone, Copy)]
pub struct Hooks {
    /// True once SIGINT or SIGTERM arrived: nothing more is built.
    pub interrupted: fn() -> bool,
    /// Shows one line to the user (progress, teardown notes and problems).
    pub say: fn(&str),
}

/// Builds the requested lab targets (none without `--lab`), in the order given; `taken` are the
/// labels of the other targets. Anything built is torn down when the returned guard drops, also
/// on error here.
/// `cleanup` is the process's cleanup registry: the lab is torn down from it if fsbench must
/// stop before the guard drops.
pub fn build(
    req: Option<LabRequest>,
    taken: &[&str],
    hooks: Hooks,
    cleanup: &Cleanup,
) -> EngineResult<(Lab, Vec<BuiltTarget>)> {
    let mut targets = Vec::new();
    let Some(req) = req else {
        return Ok((Lab::default(), targets));
    };
    if let Some(t) = taken
        .iter()
        .find(|t| req.entries.iter().any(|(e, _)| e.label == **t))
    {
        return Err(Failure::input(format!(
            "target label '{t}' is both a --target and a --lab kind — give the --target another label (LABEL=DIR)"
        )));
    }
    say_leftovers(&req.dir, hooks.say);
    if !req.quiet {
        say_namespace(hooks.say);
    }
    let id = format!("{}{}-{}", LAB_ID, std::process::id(), nanos());
    let scratch = Scratch::create(&req.dir, &id, cleanup).map_err(|e| Failure::input(e.message))?;
    let root = scratch.path().to_path_buf();
    let mut lab = Lab::register(scratch, cleanup);
    lab.say = Some(hooks.say);
    for (entry, recipe) in &req.entries {
        if (hooks.interrupted)() {
            return Err(Failure::interrupted());
        }
        let progress = prepare::Progress {
            label: &entry.label,
            hooks,
            quiet: req.quiet,
        };
        let path = lab
            .build_one((entry, recipe), &root, req.size, &progress)
            .map_err(|e| {
                let stopped = matches!(e, Error::TearingDown | Error::Interrupted);
                if stopped || (hooks.interrupted)() || cleanup.is_closed() {
                    return Failure::interrupted(); // a tool killed by the signal watcher
                }
                Failure::run(format!(
                    "cannot build lab target {}: {e} — 'fsbench lab list' says what works here",
                    entry.label
                ))
            })?;
        if !req.quiet {
            (hooks.say)(&built_line(&entry.label, &path, &lab.infos));
        }
        targets.push(BuiltTarget {
            label: entry.label.clone(),
            path,
        });
    }
    Ok((lab, targets))
}

/// One line per scratch in `dir` that a run which is gone left there (a lab's images, after a
/// SIGKILL), with how to remove it.
fn say_leftovers(dir: &Path, say: fn(&str)) {
    let found = fsbench_scratch::find_scratches(dir).unwrap_or_default();
    for f in found.iter().filter(|f| f.stale) {
        say(&format!(
            "warning: leftover scratch {} from a run that is gone — 'fsbench clean {}' removes it",
            f.path.display(),
            dir.display()
        ));
    }
}

/// When this process has a mount namespace of its own (`fsbench run` enters one for a lab),
/// says so, and how to see the lab's targets from outside.
fn say_namespace(say: fn(&str)) {
    let me = std::process::id();
    if fsbench_sys::mountns::entered() {
        say(&format!(
            "lab: its mounts are this run's own (gone with it, however it ends); to look from outside: nsenter -t {me} -m -- ls DIR, or /proc/{me}/root/DIR"
        ));
    }
}

fn built_line(label: &str, path: &Path, infos: &[(String, LabInfo)]) -> String {
    let info = infos.iter().find(|(l, _)| l == label).map(|(_, i)| i);
    let dev = info
        .and_then(|i| i.loop_device.as_ref().map(|d| (d, i.direct_io)))
        .map(|(d, dio)| {
            let dio = match dio {
                Some(true) => "direct I/O on",
                Some(false) => "direct I/O OFF: cold reads may hit the image's page cache",
                None => "direct I/O unknown",
            };
            format!(" ({d}, {dio})")
        })
        .unwrap_or_default();
    let frag = info.map(prepare::summary).unwrap_or_default();
    let rtt = info.and_then(|i| i.net.as_ref()).map(rtt_summary);
    format!(
        "lab: built {label} at {}{dev}{frag}{}",
        path.display(),
        rtt.unwrap_or_default()
    )
}

/// The measured round trip of a served target, for its built line: `; RTT 0.06 ms (how)`, or
/// why it was not measured.
fn rtt_summary(net: &fsbench_model::NetLabInfo) -> String {
    match net.rtt_measured_ms {
        Some(ms) => format!("; RTT {ms:.3} ms ({})", net.rtt_how),
        None => format!("; RTT {}", net.rtt_how),
    }
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_recipe_naming_known_tools() {
        assert_eq!(RECIPES.len(), LabKind::ALL.len());
        for kind in LabKind::ALL {
            let r = recipe(kind).unwrap_or_else(|| panic!("no recipe for {kind}"));
            for t in r.tools {
                assert!(
                    tool::TOOLS.iter().any(|x| x.name == *t),
                    "{t} has no package"
                );
            }
        }
        assert_eq!(recipe(&LabKind::Xfs).map(|r| r.fs), Some("xfs"));
        assert!(recipe(&LabKind::Other("zfs".into())).is_none());
    }
}
