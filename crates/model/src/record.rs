//! Run records: one run of a plan, its environment, and one result per target × workload × cache.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything fsbench knows about one run; serialised as the `--json` document.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// Format version ([`crate::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Identity of the run.
    pub run: RunInfo,
    /// Host and targets.
    pub environment: Environment,
    /// fsbench's own cost per recorded operation, measured at start.
    pub overhead: OverheadInfo,
    /// One entry per target × workload × cache state.
    pub results: Vec<ResultEntry>,
    /// Statistical comparisons of headline metrics against the baseline.
    #[serde(default)]
    pub comparisons: Vec<Comparison>,
    /// Scaling analyses of workloads swept over `workers`.
    #[serde(default)]
    pub scaling: Vec<Scaling>,
    /// A card run's cards, one per target (built from its cells; `fsbench card`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<crate::card::Card>,
}

/// A workload swept over its worker count on one target and cache state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Scaling {
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Cache state.
    pub cache: String,
    /// One row per worker count.
    pub rows: Vec<ScalingRow>,
    /// `scales`, `saturates`, `lock-contention` (in the kernel) or `daemon-bound` (a FUSE daemon
    /// serialises the work).
    pub verdict: crate::ScalingVerdict,
    /// The verdict in words, with the numbers that led to it.
    pub explanation: String,
}

/// One worker count of a sweep (means over its samples).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct ScalingRow {
    /// Workers (J).
    pub workers: u32,
    /// Entries per second.
    pub rate: f64,
    /// Rate over the rate at the smallest J.
    pub speedup: f64,
    /// Speedup over the ideal speedup (capped at the CPU count).
    pub efficiency: f64,
    /// Kernel time per entry, ns.
    pub sys_ns_per_entry: f64,
    /// Wall time, ns.
    pub wall_ns: f64,
    /// User CPU, ns.
    pub user_ns: f64,
    /// System CPU, ns.
    pub sys_ns: f64,
    /// Machine-wide kernel time in percent of the machine's CPU capacity (wall × CPUs); `None`
    /// when not measured.
    #[serde(default)]
    pub machine_sys_pct: Option<f64>,
    /// CPU of the FUSE daemon (user + sys) in percent of one CPU; `None` without a daemon.
    #[serde(default)]
    pub daemon_cpu_pct: Option<f64>,
}

/// Identity and outcome of a run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RunInfo {
    /// Unique id: UTC start time plus pid (`20261122T101500Z-1234`).
    pub id: String,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// fsbench version.
    pub fsbench_version: String,
    /// The command line.
    pub argv: Vec<String>,
    /// `ok`, `failed` (a cell failed) or `interrupted`.
    pub status: crate::RunStatus,
    /// The suite the run measured: a built-in's name (`quick`, also for a plain `fsbench run`)
    /// or the suite file's path as given; `None` for a plan of `--workload`s (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// The suite's `--scale` when not 1 (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// The seed layout the suite asks for after the standard tables (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<crate::SeedLayout>,
    /// `run` or `card` (`fsbench card`: its cells are a character card's points).
    #[serde(default)]
    pub kind: RunKind,
}

/// What a stored run is: a plain run (`fsbench run`) or a character card (`fsbench card`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    /// `fsbench run`.
    #[default]
    Run,
    /// `fsbench card`.
    Card,
}

impl RunKind {
    /// The kind of a run whose report layout is `layout` (a card is stored as a run whose
    /// layout is the card's).
    pub fn of(layout: Option<crate::SeedLayout>) -> Self {
        if layout == Some(crate::SeedLayout::Card) {
            Self::Card
        } else {
            Self::Run
        }
    }
}

/// Host facts and one entry per target.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Environment {
    /// Host name.
    pub hostname: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// Operating system (`uname -s`).
    pub os: String,
    /// CPU model name.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpus: u32,
    /// Physical memory in bytes.
    pub memory_bytes: u64,
    /// Whether fsbench ran as root (needed for drop_caches).
    pub root: bool,
    /// The targets of the plan.
    pub targets: Vec<TargetInfo>,
}

/// A target directory or device and the filesystem under it. Text facts that could not be found
/// read `unknown` (never an empty string); numbers and flags that could not be found are `null`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct TargetInfo {
    /// Label used in results (`xfs` in `--target xfs=/mnt/xfs`).
    pub label: String,
    /// Absolute path given.
    pub path: String,
    /// `dir` or `device`.
    pub kind: crate::TargetKind,
    /// Filesystem type (`ext4`, `tmpfs`, `fuse.sshfs`...); `none` for a raw device.
    pub fs_type: String,
    /// Mount source (device or server path); `none` for a raw device.
    pub source: String,
    /// Mount point containing the target; `none` for a raw device.
    pub mount_point: String,
    /// Mount options: per-mount then superblock options, comma-separated.
    pub mount_options: String,
    /// Free bytes available to fsbench at start.
    pub free_bytes: u64,
    /// Total bytes of the filesystem (or device).
    pub total_bytes: u64,
    /// Block devices under the filesystem, top first (`dm-0 (dm-crypt)`, `nvme0n1p2 (partition)`,
    /// `nvme0n1 (disk)`); empty when there is no block device (tmpfs, NFS, FUSE).
    #[serde(default)]
    pub device_chain: Vec<String>,
    /// Encryption layers in short, top first, joined by ` over `
    /// (`fscrypt v2 AES-256-XTS/AES-256-CTS`, `dm-crypt aes-xts-plain64 512-bit`, `gocryptfs`);
    /// `none` when every layer was checked and none encrypts, `unknown` when one could not be
    /// checked.
    #[serde(default)]
    pub encryption: String,
    /// Whether the bottom device spins (`/sys/block/X/queue/rotational`), when known.
    #[serde(default)]
    pub rotational: Option<bool>,
    /// Model of the bottom device; `none` without a block device, `unknown` when the kernel does
    /// not report it.
    #[serde(default)]
    pub device_model: String,
    /// The full storage stack under the target, with details per layer.
    #[serde(default)]
    pub stack: Stack,
    /// How fsbench built this target (`fsbench run --lab`); `null` for a target it was given.
    #[serde(default)]
    pub lab: Option<LabInfo>,
}

/// A throwaway target that fsbench built, mounted and tore down itself (`--lab KIND`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LabInfo {
    /// The lab kind (`tmpfs`, `ext4`, `xfs`, `btrfs`, `ext4-fscrypt`, `dm-crypt`, `nfs`,
    /// `gocryptfs`, `bindfs`, `overlay`).
    pub kind: crate::LabKind,
    /// Every command run to build it, in order, as run (the fscrypt key and policy are set with
    /// ioctls and listed as `ioctl ...` lines).
    #[serde(default)]
    pub commands: Vec<String>,
    /// Size of the sparse image file (loop kinds) or the tmpfs size limit, bytes; `null` for
    /// layers over a directory (FUSE, overlay).
    #[serde(default)]
    pub image_bytes: Option<u64>,
    /// The loop device the image was attached to (`/dev/loop3`), when there is one.
    #[serde(default)]
    pub loop_device: Option<String>,
    /// Direct I/O of the loop device as the kernel reports it after attaching (`loop/dio`).
    #[serde(default)]
    pub direct_io: Option<bool>,
    /// Mount or daemon options given, comma-separated; empty when none.
    #[serde(default)]
    pub options: String,
    /// The scratch directory holding the image, backing directories and mount points.
    #[serde(default)]
    pub scratch: String,
    /// How it was aged before measuring (`--lab KIND:aged`); `null` for a fresh target.
    #[serde(default)]
    pub aging: Option<crate::AgingInfo>,
    /// Its fragmentation right after building (and aging); `null` for kinds without a
    /// filesystem image of their own (tmpfs, FUSE, overlay).
    #[serde(default)]
    pub fragmentation: Option<crate::Fragmentation>,
    /// The simulated hosts, network and software of a kind served from other hosts
    /// (`glusterfs`, `sshfs`); absent for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<crate::NetLabInfo>,
}

/// What is under a target, from the mount down to the disk. Each part is present only when that
/// layer exists.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Stack {
    /// fscrypt state of the target directory: `encrypted`, `not encrypted`, `unsupported` (the
    /// filesystem has no fscrypt or it is not enabled), or `unknown: REASON`.
    #[serde(default)]
    pub fscrypt_status: String,
    /// Encryption layers found, top first; empty when none was found.
    #[serde(default)]
    pub encryption: Vec<EncryptionLayer>,
    /// The FUSE layer, when the filesystem is FUSE.
    #[serde(default)]
    pub fuse: Option<FuseInfo>,
    /// overlayfs directories, when the filesystem is overlay.
    #[serde(default)]
    pub overlay: Option<OverlayInfo>,
    /// NFS mount options, when the filesystem is NFS.
    #[serde(default)]
    pub nfs: Option<NfsInfo>,
    /// CIFS/SMB mount options, when the filesystem is cifs or smb3.
    #[serde(default)]
    pub cifs: Option<CifsInfo>,
    /// AFS cell, when the filesystem is AFS.
    #[serde(default)]
    pub afs: Option<AfsInfo>,
    /// tmpfs limits, when the filesystem is tmpfs.
    #[serde(default)]
    pub tmpfs: Option<TmpfsInfo>,
    /// Block devices, top first; the last one is the bottom device.
    #[serde(default)]
    pub devices: Vec<BlockLayer>,
}

/// One encryption layer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct EncryptionLayer {
    /// `fscrypt`, `dm-crypt`, `ecryptfs`, `gocryptfs`, `encfs`, `cryfs`, `securefs`.
    pub kind: crate::EncryptionKind,
    /// Short description for tables (`fscrypt v2 AES-256-XTS/AES-256-CTS`).
    pub summary: String,
    /// Where it sits: `directory` (fscrypt), `filesystem` (stacked or FUSE), `block DEVICE`,
    /// or `under loopN` for a layer found below a loop device's backing file.
    #[serde(default)]
    pub level: String,
    /// The fscrypt policy, for `fscrypt`.
    #[serde(default)]
    pub fscrypt: Option<FscryptPolicy>,
    /// The mapping, for `dm-crypt`.
    #[serde(default)]
    pub dm_crypt: Option<DmCryptInfo>,
    /// The kernel's implementation of the cipher (fscrypt, dm-crypt), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<CryptoImpl>,
}

/// Which implementation of a cipher the kernel uses (the highest-priority driver of
/// `/proc/crypto`, or the one fscrypt named in the kernel log).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CryptoImpl {
    /// The algorithm (`xts(aes)`).
    pub algorithm: String,
    /// The driver (`xts(ecb(aes-fixed-time))`, `xts-aes-aesni`).
    pub driver: String,
    /// True for a portable C implementation (`aes-generic`, `aes-fixed-time`), false for one
    /// using CPU instructions or an accelerator.
    pub software: bool,
    /// True when the CPU has AES instructions (`aes` in `/proc/cpuinfo`).
    pub cpu_has_aes: bool,
    /// Where it was read: `/proc/crypto` or `kernel log`.
    pub source: String,
}

impl CryptoImpl {
    /// One line for people: the driver, and whether it is a software fallback.
    pub fn describe(&self) -> String {
        match (self.software, self.cpu_has_aes) {
            (true, true) => format!(
                "{} (software, although the CPU has AES instructions)",
                self.driver
            ),
            (true, false) => format!(
                "{} (software; the CPU has no AES instructions)",
                self.driver
            ),
            (false, _) => format!("{} (hardware-accelerated)", self.driver),
        }
    }
}

/// An fscrypt policy as `FS_IOC_GET_ENCRYPTION_POLICY_EX` reports it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct FscryptPolicy {
    /// Policy version: 1 or 2.
    pub version: u8,
    /// File contents mode (`AES-256-XTS`, `AES-128-CBC-ESSIV`, `Adiantum`...).
    pub contents_mode: String,
    /// File names mode (`AES-256-CTS`, `AES-128-CTS`, `Adiantum`, `AES-256-HCTR2`...).
    pub filenames_mode: String,
    /// Flags: `PAD_4`..`PAD_32`, `DIRECT_KEY`, `IV_INO_LBLK_64`, `IV_INO_LBLK_32`.
    #[serde(default)]
    pub flags: Vec<String>,
    /// Master key descriptor (v1, 16 hex digits) or identifier (v2, 32 hex digits).
    #[serde(default)]
    pub key: String,
    /// Whether the master key is present in the filesystem keyring; `null` when unknown
    /// (always for v1 policies).
    #[serde(default)]
    pub key_present: Option<bool>,
}

/// A dm-crypt mapping, from sysfs and the device-mapper table.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DmCryptInfo {
    /// Kernel device name (`dm-0`).
    pub device: String,
    /// Mapping name (`/sys/block/dm-0/dm/name`), `unknown` when unreadable.
    pub name: String,
    /// Format from the dm uuid: `LUKS1`, `LUKS2`, `PLAIN`..., `unknown`.
    pub format: String,
    /// Cipher spec (`aes-xts-plain64`, `capi:xts(aes)-plain64`), `null` when the table could not
    /// be read.
    #[serde(default)]
    pub cipher: Option<String>,
    /// Key size in bits, `null` when unknown.
    #[serde(default)]
    pub key_bits: Option<u32>,
    /// Encryption sector size in bytes (512 unless `sector_size:` is set), `null` when unknown.
    #[serde(default)]
    pub sector_size: Option<u32>,
    /// Optional table arguments (`allow_discards`, `no_read_workqueue`...).
    #[serde(default)]
    pub options: Vec<String>,
    /// Why something is unknown (`install dmsetup`), empty when all is known.
    #[serde(default)]
    pub note: String,
}

/// A FUSE filesystem and the process serving it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct FuseInfo {
    /// Subtype: `X` of a `fuse.X` type, else the daemon's command name, else `unknown`.
    pub subtype: String,
    /// Pids of the daemon processes (holding `/dev/fuse` for this mount); empty when not found.
    #[serde(default)]
    pub daemon_pids: Vec<i32>,
    /// Command name of the daemon (`/proc/PID/comm`), `unknown` when not found.
    pub daemon_command: String,
    /// The directory the daemon serves from (bindfs' source, gocryptfs' cipher directory), from
    /// its command line; `None` when it names none (a network daemon) or it was not found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing_dir: Option<String>,
    /// What is under that directory: its filesystem and devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing: Option<Box<TargetInfo>>,
}

/// overlayfs layers, from the superblock options.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct OverlayInfo {
    /// Lower directories, top first.
    pub lowerdirs: Vec<String>,
    /// Upper directory, `null` for a read-only overlay.
    #[serde(default)]
    pub upperdir: Option<String>,
    /// Work directory, `null` for a read-only overlay.
    #[serde(default)]
    pub workdir: Option<String>,
}

/// NFS mount options that change what a benchmark measures. `null` means the kernel did not
/// show the option (it shows only values that differ from the default).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct NfsInfo {
    /// Server (`addr=`, else the host part of the source).
    pub server: String,
    /// Protocol version (`vers=`: `3`, `4.2`...).
    #[serde(default)]
    pub version: Option<String>,
    /// Transport (`proto=`: `tcp`, `rdma`...).
    #[serde(default)]
    pub proto: Option<String>,
    /// Read size in bytes.
    #[serde(default)]
    pub rsize: Option<u64>,
    /// Write size in bytes.
    #[serde(default)]
    pub wsize: Option<u64>,
    /// Attribute caching: `false` with `noac`.
    pub attr_cache: bool,
    /// `actimeo=`, seconds (sets all four below).
    #[serde(default)]
    pub actimeo: Option<u32>,
    /// `acregmin=`, seconds.
    #[serde(default)]
    pub acregmin: Option<u32>,
    /// `acregmax=`, seconds.
    #[serde(default)]
    pub acregmax: Option<u32>,
    /// `acdirmin=`, seconds.
    #[serde(default)]
    pub acdirmin: Option<u32>,
    /// `acdirmax=`, seconds.
    #[serde(default)]
    pub acdirmax: Option<u32>,
}

/// CIFS/SMB mount options that change what a benchmark measures.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CifsInfo {
    /// Server (`addr=`, else the host part of the source).
    pub server: String,
    /// Dialect (`vers=`: `3.1.1`...), `null` when not shown.
    #[serde(default)]
    pub version: Option<String>,
    /// Cache mode (`cache=`: `strict`, `loose`, `none`), `null` when not shown.
    #[serde(default)]
    pub cache: Option<String>,
}

/// AFS facts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct AfsInfo {
    /// Cell (from a `%cell:volume` or `#cell:volume` source), `unknown` otherwise.
    pub cell: String,
    /// Volume, `null` when the source does not name one (OpenAFS, dynamic root).
    #[serde(default)]
    pub volume: Option<String>,
}

/// tmpfs limits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct TmpfsInfo {
    /// `size=` in bytes; `null` when not shown (the default: half of RAM).
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// `nr_inodes=`; `null` when not shown.
    #[serde(default)]
    pub nr_inodes: Option<u64>,
}

/// One block device of the stack.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct BlockLayer {
    /// Kernel name (`dm-0`, `loop3`, `nvme0n1p2`).
    pub name: String,
    /// `major:minor`, `unknown` when sysfs does not say.
    pub dev: String,
    /// `partition`, `disk`, `loop`, `md`, `dm-crypt`, `dm-linear`, `dm-<target>`, `dm`.
    pub kind: crate::BlockKind,
    /// The devices directly below (`slaves/`); the chain follows the first.
    #[serde(default)]
    pub slaves: Vec<String>,
    /// Loop device facts, for `loop`.
    #[serde(default)]
    pub loop_device: Option<LoopInfo>,
    /// Queue facts, for the bottom device of the chain.
    #[serde(default)]
    pub queue: Option<QueueInfo>,
}

/// A loop device and the file behind it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LoopInfo {
    /// Backing file (`loop/backing_file`), `unknown` when unreadable.
    pub backing_file: String,
    /// Direct I/O to the backing file (`loop/dio`); `null` when unknown.
    #[serde(default)]
    pub direct_io: Option<bool>,
    /// Offset into the backing file, bytes.
    #[serde(default)]
    pub offset: Option<u64>,
    /// Size limit, bytes (0 = the whole file).
    #[serde(default)]
    pub sizelimit: Option<u64>,
    /// The filesystem holding the backing file, described the same way (a few levels deep).
    #[serde(default)]
    pub backing: Option<Box<TargetInfo>>,
}

/// Request-queue facts of a block device (`/sys/block/X/queue`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct QueueInfo {
    /// Whether it spins.
    #[serde(default)]
    pub rotational: Option<bool>,
    /// Active I/O scheduler (the bracketed one), `unknown` when unreadable.
    pub scheduler: String,
    /// Read-ahead, KiB.
    #[serde(default)]
    pub read_ahead_kb: Option<u64>,
    /// Queue depth (`nr_requests`).
    #[serde(default)]
    pub nr_requests: Option<u64>,
    /// Discard support (`discard_max_bytes` > 0).
    #[serde(default)]
    pub discard: Option<bool>,
    /// Logical block size, bytes.
    #[serde(default)]
    pub logical_block_size: Option<u32>,
    /// Physical block size, bytes.
    #[serde(default)]
    pub physical_block_size: Option<u32>,
    /// Model (`device/model`), `unknown` when not reported.
    pub model: String,
    /// The hypervisor's paravirtual or emulated disk it is (`virtio`, `xen`, `vmware`,
    /// `hyper-v`, `qemu`), whose host may cache what the guest thinks reached the disk; `None`
    /// for a disk that does not say it is virtual.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtual_disk: Option<String>,
}

/// fsbench's own measurement cost.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct OverheadInfo {
    /// Extra time per 4 KiB page-cache read when each read is recorded (clock read + histogram
    /// insert), measured as recorded loop minus bare loop, ns.
    pub per_op_ns: f64,
    /// Time of one bare 4 KiB page-cache pread measured at start, ns (0 if not measured).
    pub reference_read_ns: f64,
    /// `per_op_ns` as a percentage of `reference_read_ns`.
    pub pct_of_4k_cached_read: f64,
    /// Cost of one recorder call alone (back-to-back calls, nothing to overlap with), ns.
    #[serde(default)]
    pub recorder_only_ns: f64,
}

/// Results of one target × workload × cache state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ResultEntry {
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Canonical parameters, defaults included.
    pub params: BTreeMap<String, String>,
    /// The swept parameters' values of this cell (`workers=1,2,4` gives one cell per value).
    #[serde(default)]
    pub sweep: BTreeMap<String, String>,
    /// Cache state and how it was obtained.
    pub cache: CacheInfo,
    /// The headline metric's name (a key of `summary`).
    pub headline: String,
    /// Other metrics tables show beside the headline (large-file's `write_mib_s`).
    #[serde(default)]
    pub also_shown: Vec<String>,
    /// Measured samples in order (warm-up samples are not included).
    pub samples: Vec<Sample>,
    /// Summary per metric.
    pub summary: BTreeMap<String, MetricSummary>,
    /// With `--runs auto`: whether the CI95 half-width reached the requested precision.
    #[serde(default)]
    pub precision_reached: Option<bool>,
    /// With `until=steady`: the SNIA steady-state judgement of the last rounds; when steady,
    /// `summary` is of the window's samples only (all samples are kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyState>,
    /// Things the reader should know (cold not reached, outliers, slow first sample).
    #[serde(default)]
    pub warnings: Vec<Warning>,
    /// Set when the cell failed; samples taken before the failure are kept.
    #[serde(default)]
    pub error: Option<String>,
    /// What bounded the cell's numbers, with the evidence (`None` before it was judged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
    /// With `--profile`: the kernel's evidence summed over the samples (schema 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::Profile>,
}

/// What limited a cell's result, judged from what was measured.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Bound {
    /// The limit.
    pub by: BoundBy,
    /// The measurements behind it, in words.
    pub evidence: String,
}

/// The kinds of limit a result can have.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BoundBy {
    /// The requests' own schedule (`rate=` held, or `think=`): the figure is the latency at
    /// that load, not a limit of the stack.
    Rate,
    /// The block device was busy (or at its measured ceiling).
    Device,
    /// A cache served it: the device moved next to nothing.
    Cache,
    /// fsbench's own thread was saturated in user or system time.
    Cpu,
    /// An encryption layer's CPU cost dominated.
    Crypto,
    /// A FUSE daemon: its CPU near a full core, or its round trips.
    Daemon,
    /// A kernel lock: system time per operation grows with parallelism.
    Lock,
    /// Round trips at queue depth 1 with an idle device.
    Latency,
    /// The network under a network filesystem.
    Network,
    /// A server host of a network filesystem: its daemons' CPU (`--lab glusterfs`, `sshfs`).
    Server,
    /// fsbench's own measured overhead is a large share.
    Harness,
    /// Not enough was measured to say.
    Unknown,
}

impl BoundBy {
    /// The JSON and table name.
    pub fn as_str(self) -> &'static str {
        match self {
            BoundBy::Rate => "rate",
            BoundBy::Device => "device",
            BoundBy::Cache => "cache",
            BoundBy::Cpu => "cpu",
            BoundBy::Crypto => "crypto",
            BoundBy::Daemon => "daemon",
            BoundBy::Lock => "lock",
            BoundBy::Latency => "latency",
            BoundBy::Network => "network",
            BoundBy::Server => "server",
            BoundBy::Harness => "harness",
            BoundBy::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for BoundBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The SNIA steady-state judgement of a cell's last rounds (its headline, one value a sample).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct SteadyState {
    /// Range within 20% and least-squares excursion within 10% of the window's average.
    pub steady: bool,
    /// The window's first sample, numbered from 1.
    pub window_first: usize,
    /// Samples in the window.
    pub window_len: usize,
    /// The headline's average over the window.
    pub mean: f64,
    /// max − min over the window, percent of its average.
    pub range_pct: f64,
    /// The least-squares line's rise or fall across the window, percent of its average.
    pub slope_excursion_pct: f64,
}

/// What a warning is about, so that every renderer can treat each kind alike.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WarningKind {
    /// Samples flagged as outliers (kept in every statistic).
    Outlier,
    /// The first sample differs from the others (a warm-up effect).
    FirstSample,
    /// A cold cell whose pages stayed cached.
    NotCold,
    /// A warm cell that started mostly uncached.
    WarmNotCached,
    /// A result no device under it could have given (above the device's measured ceiling), or
    /// durable writes the device never received.
    Implausible,
    /// `--runs auto` stopped before reaching the precision.
    PrecisionNotReached,
    /// `until=steady` stopped before the SNIA steady-state criteria held.
    NotSteady,
    /// A sustained level change inside a sample's time series (a throughput cliff).
    Cliff,
    /// An open-loop sample fell short of the rate it was asked for.
    RateShort,
    /// Asked-for direct I/O that went through the page cache during a sample.
    DirectNotHonoured,
    /// What the workload settled on its target (e.g. `direct=auto` fell back to buffered I/O).
    Workload,
    /// What the storage stack means for the numbers (loop without direct I/O, tmpfs, FUSE...).
    Stack,
    /// Samples that ran while other processes took a large share of the machine's CPUs.
    Load,
    /// Anything else (and every warning of JSON written before warnings had kinds).
    Other,
}

/// A warning on a cell: its kind and one line of text with the cause and the fix.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Warning {
    /// What it is about.
    pub kind: WarningKind,
    /// The line shown to the reader.
    pub message: String,
}

impl Warning {
    /// A warning of `kind`.
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl<'de> Deserialize<'de> for Warning {
    /// Reads `{"kind", "message"}`, or a bare string as written before warnings had kinds.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Typed { kind: WarningKind, message: String },
            Text(String),
        }
        Ok(match Form::deserialize(d)? {
            Form::Typed { kind, message } => Warning { kind, message },
            Form::Text(message) => Warning {
                kind: WarningKind::Other,
                message,
            },
        })
    }
}

/// Cache state of a result.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheInfo {
    /// `cold` or `warm`.
    pub state: crate::CacheState,
    /// How cold was reached: `drop_caches`, `fadvise`, `cold-cmd`; `none` for warm.
    pub method: String,
    /// Mean share of the workload's file pages resident in the page cache right before each
    /// sample, in percent; `None` when not measurable (no files, a device).
    pub resident_pct: Option<f64>,
}

/// One measured execution.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// Wall time, ns.
    pub wall_ns: u64,
    /// User CPU of fsbench and its waited-for children, ns.
    pub user_ns: u64,
    /// System CPU of fsbench and its waited-for children, ns.
    pub sys_ns: u64,
    /// Operations done.
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Derived and workload metrics by name.
    pub metrics: BTreeMap<String, f64>,
    /// Per-operation latency summary, where the workload records one.
    #[serde(default)]
    pub latency: Option<LatencySummary>,
    /// The whole latency histogram: HdrHistogram V2, deflate, base64 (HdrHistogram's log
    /// encoding), so percentiles can be recomputed and samples merged later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_hdr: Option<String>,
    /// Per-phase wall times, ns.
    #[serde(default)]
    pub phases: BTreeMap<String, u64>,
    /// Page-cache residency of the workload's files right before the sample, percent.
    #[serde(default)]
    pub resident_pct: Option<f64>,
    /// Flagged as an outlier of its cell (modified z-score of the headline > 3.5, judged with 5 or
    /// more samples); never dropped.
    #[serde(default)]
    pub outlier: bool,
    /// CPU time of the whole machine over the sample (`/proc/stat`); `None` when unreadable or
    /// in records written before it existed.
    #[serde(default)]
    pub machine: Option<MachineCpu>,
    /// CPU time of the FUSE daemon serving the target (or the walked tree) over the sample,
    /// summed over its processes and their threads; `None` when there is no daemon.
    #[serde(default)]
    pub daemon: Option<CpuPair>,
    /// fsbench's own page faults and context switches (itself and its waited-for children).
    #[serde(default)]
    pub process: Option<ProcessCounts>,
    /// What every block device under the target did during the sample, top first (the
    /// filesystem's device, then below a loop device the device of its backing file); empty
    /// when nothing is below (tmpfs, a network filesystem) or in records written before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceIo>,
    /// The sample as a time series: one point per interval of `series_interval_ns` (the last
    /// one ends with the sample and may be shorter); empty in records written before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<SeriesPoint>,
    /// The interval of `series`, ns (it doubles for long samples, to keep at most 1024 points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_interval_ns: Option<u64>,
    /// Under MPI: the ranks grouped by the host they ran on, in order of each host's lowest rank
    /// (empty alone, and in records written before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostShare>,
    /// A lab target served from simulated hosts (`--lab glusterfs`, `--lab sshfs`): what each
    /// server host did during the sample (empty for every other target, and in records written
    /// before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<crate::ServerSample>,
    /// With `--profile`: this sample's off-CPU time of fsbench's threads by reason, ns (schema 4).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub off_cpu: BTreeMap<String, u64>,
    /// The largest resident set during the sample, KiB: of fsbench itself (its workers are its
    /// threads) or of any child process reaped in the sample (a `command`'s process tree, walk
    /// workers), whichever is larger; `None` when unmeasured (older records, MPI ranks'
    /// merged samples, a kernel that refused to reset the high-water mark).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
    /// A replay's time by call kind and its slowest calls; `None` for every other workload, a
    /// replay with `calls=off`, and records written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<crate::CallTimes>,
}

impl Sample {
    /// A sample of what was measured, with nothing else observed yet: the one way to build a
    /// sample (the store's decoder, which names every field, aside), so that a new observation
    /// is one field here and its default.
    pub fn new(wall_ns: u64, user_ns: u64, sys_ns: u64, ops: u64, bytes: u64) -> Self {
        Self {
            wall_ns,
            user_ns,
            sys_ns,
            ops,
            bytes,
            metrics: BTreeMap::new(),
            latency: None,
            latency_hdr: None,
            phases: BTreeMap::new(),
            resident_pct: None,
            outlier: false,
            machine: None,
            daemon: None,
            process: None,
            devices: Vec::new(),
            series: Vec::new(),
            series_interval_ns: None,
            hosts: Vec::new(),
            servers: Vec::new(),
            off_cpu: BTreeMap::new(),
            peak_rss_kib: None,
            calls: None,
        }
    }

    /// This sample with `metrics` (a test's or a merge's shorthand).
    pub fn with_metrics<'a>(mut self, metrics: impl IntoIterator<Item = (&'a str, f64)>) -> Self {
        self.metrics
            .extend(metrics.into_iter().map(|(k, v)| (k.to_string(), v)));
        self
    }
}

/// One host's part of an MPI sample: its ranks' work over its slowest rank's time, the spread
/// between its ranks, and the machine CPU and block devices as that host's leader (its lowest
/// rank) read them around the sample.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct HostShare {
    /// The host's name, as MPI gives it (the host name).
    pub host: String,
    /// Ranks that ran on it.
    pub ranks: u32,
    /// Wall time of its slowest rank, ns.
    pub wall_ns: u64,
    /// Operations of its ranks.
    pub ops: u64,
    /// Bytes of its ranks.
    pub bytes: u64,
    /// Its slowest rank's MiB/s, each rank over its own time.
    pub rank_mib_s_min: f64,
    /// Its fastest rank's MiB/s.
    pub rank_mib_s_max: f64,
    /// Its slowest rank's operations per second.
    pub rank_iops_min: f64,
    /// Its fastest rank's operations per second.
    pub rank_iops_max: f64,
    /// Wall time of the host's leader, ns: the time its machine and device counters cover.
    #[serde(default)]
    pub leader_wall_ns: u64,
    /// The machine's CPU over the sample, read by the host's leader.
    #[serde(default)]
    pub machine: Option<MachineCpu>,
    /// The block devices under the target, read by the host's leader (top first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceIo>,
}

impl HostShare {
    /// The host's aggregate MiB/s: its ranks' bytes over its slowest rank's time.
    pub fn mib_s(&self) -> f64 {
        per_s(self.bytes as f64 / 1_048_576.0, self.wall_ns)
    }

    /// The host's aggregate operations per second.
    pub fn iops(&self) -> f64 {
        per_s(self.ops as f64, self.wall_ns)
    }

    /// The machine's kernel time over the leader's sample, in percent of wall × CPUs.
    pub fn machine_sys_pct(&self) -> Option<f64> {
        let c = self
            .machine
            .filter(|c| c.cpus > 0 && self.leader_wall_ns > 0)?;
        Some(c.sys_ns as f64 / (self.leader_wall_ns as f64 * f64::from(c.cpus)) * 100.0)
    }

    /// How busy the deepest device under the target was over the leader's sample, percent.
    pub fn device_busy_pct(&self) -> Option<f64> {
        let d = self.devices.last().filter(|_| self.leader_wall_ns > 0)?;
        Some((d.io_ticks_ms as f64 * 1e6 / self.leader_wall_ns as f64 * 100.0).min(100.0))
    }
}

fn per_s(x: f64, ns: u64) -> f64 {
    if ns == 0 { 0.0 } else { x / (ns as f64 / 1e9) }
}

/// One interval of a sample's time series.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct SeriesPoint {
    /// End of the interval, ns since the sample's start.
    pub t_ns: u64,
    /// Operations completed in the interval.
    pub ops: u64,
    /// Bytes moved in the interval.
    pub bytes: u64,
    /// Median latency of the interval's operations; `None` when the workload times no single
    /// operation or none completed in the interval.
    #[serde(default)]
    pub lat_p50_ns: Option<u64>,
    /// 99th percentile latency of the interval's operations.
    #[serde(default)]
    pub lat_p99_ns: Option<u64>,
    /// Slowest operation of the interval.
    #[serde(default)]
    pub lat_max_ns: Option<u64>,
}

/// A block device's measured speed: its ceiling, above which a result was served by a cache.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DeviceCeiling {
    /// Kernel name of the device (`vda`).
    pub device: String,
    /// Direct sequential read, MiB/s.
    pub read_mib_s: f64,
    /// Direct sequential write with a flush, MiB/s.
    pub write_mib_s: f64,
    /// How and when it was measured (`probed 2026-11-25T06:00:00Z`, `given by the user`).
    pub source: String,
}

/// One block device's counters over a sample: the difference of `/sys/block/DEV/stat` read
/// right before and right after the timed region.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct DeviceIo {
    /// Kernel name (`loop0`, `vda`, `nvme0n1p2`).
    pub name: String,
    /// Bytes read (sectors × 512).
    pub read_bytes: u64,
    /// Bytes written (sectors × 512).
    pub write_bytes: u64,
    /// Reads completed.
    pub read_ios: u64,
    /// Writes completed.
    pub write_ios: u64,
    /// Time with I/O in flight, ms (`io_ticks`).
    pub io_ticks_ms: u64,
    /// Weighted time in queue, ms (`time_in_queue`).
    pub queue_ms: u64,
}

/// Machine-wide CPU time over one sample, summed over all online CPUs, ns. Read from the
/// aggregate `cpu` line of `/proc/stat` right before and right after the measured run, so each
/// part is a multiple of one clock tick (10 ms) and known to about ±1 tick per CPU. The parts
/// add up to the interval's CPU capacity, about `wall_ns × cpus`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct MachineCpu {
    /// Online CPUs.
    pub cpus: u32,
    /// User mode, `user` + `nice`, ns.
    pub user_ns: u64,
    /// Kernel mode (`system`), ns.
    pub sys_ns: u64,
    /// Idle with I/O outstanding (`iowait`), ns.
    pub iowait_ns: u64,
    /// Interrupts (`irq` + `softirq`), ns.
    pub irq_ns: u64,
    /// Idle, ns.
    pub idle_ns: u64,
    /// Taken by the hypervisor (`steal`), ns.
    pub steal_ns: u64,
    /// Context switches on all CPUs (`ctxt`).
    pub context_switches: u64,
}

/// User and system CPU time of a process (all its threads), ns.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct CpuPair {
    /// User mode, ns.
    pub user_ns: u64,
    /// Kernel mode, ns.
    pub sys_ns: u64,
}

/// fsbench's own counters over one sample (`getrusage`, itself plus waited-for children).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct ProcessCounts {
    /// Major page faults (pages read from storage).
    pub major_faults: u64,
    /// Voluntary context switches (waits for I/O or locks).
    pub voluntary_switches: u64,
    /// Involuntary context switches (preemptions).
    pub involuntary_switches: u64,
}

/// Per-operation latency summary, ns.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    /// Operations recorded.
    pub count: u64,
    /// Minimum.
    pub min_ns: u64,
    /// Mean.
    pub mean_ns: f64,
    /// Standard deviation (ioping's mdev).
    pub stddev_ns: f64,
    /// 50th percentile.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Maximum.
    pub max_ns: u64,
}

/// Which direction of a metric is better.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Larger values are better (throughput).
    Higher,
    /// Smaller values are better (latency, time).
    Lower,
}

/// Summary of one metric over a cell's samples.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MetricSummary {
    /// Number of samples.
    pub n: usize,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Median.
    pub median: f64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// Half-width of the 95% confidence interval of the mean; `None` for n < 2.
    pub ci95: Option<f64>,
    /// Unit (`MiB/s`, `IOPS`, `ns`, `s`, `%`...).
    pub unit: String,
    /// Direction.
    pub better: Better,
}

/// A statistical comparison of one metric between a baseline cell and another.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    /// Metric name.
    pub metric: String,
    /// Baseline cell (`target/workload/cache`).
    pub baseline: String,
    /// Compared cell.
    pub other: String,
    /// Confidence level in percent.
    pub confidence: f64,
    /// Mean of other minus mean of baseline.
    pub difference: f64,
    /// Half-width of the confidence interval of the difference.
    pub ci_half: f64,
    /// Difference in percent of the baseline mean.
    pub difference_pct: f64,
    /// Half-width in percent of the baseline mean.
    pub ci_half_pct: f64,
    /// True when the interval excludes zero.
    pub proven: bool,
    /// Test used (`student-pooled`, `welch`).
    pub method: String,
    /// False when the two cells ran under unlike conditions (direct I/O on one side only, one
    /// side still cached, different parameters or fsbench versions): `proven` is then false and
    /// no verdict is given.
    #[serde(default = "yes")]
    pub comparable: bool,
    /// Why the cells are not comparable (empty when they are).
    #[serde(default)]
    pub not_comparable: Vec<String>,
    /// What would make a not-comparable pair comparable (`direct=false` on both, warm only...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how_to_compare: Option<String>,
    /// With `--runs auto`: the sequential decision (the comparison stopped its cells as soon as
    /// it was decided); `None` for fixed sample counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<SequentialDecision>,
}

/// How a comparison sampled with `--runs auto` ended: decided as soon as a look's interval
/// allowed, at a confidence that holds however often it was looked at
/// (`fsbench_stats::sequential`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SequentialDecision {
    /// `different`, `equivalent` or `undecided`.
    pub verdict: String,
    /// Samples both sides had at the deciding (or last) look, together.
    pub samples: u32,
    /// Samples a side at that look: the baseline's, then the other's.
    pub samples_each: [u32; 2],
    /// Samples the fixed plan (`--max-runs` a side) would have taken.
    pub fixed_samples: u32,
    /// Looks taken.
    pub looks: u32,
    /// The change against the baseline, % (ratio of the geometric means − 1).
    pub effect_pct: f64,
    /// The interval of the change, %: its lower end.
    pub low_pct: f64,
    /// Its upper end.
    pub high_pct: f64,
    /// The equivalence margin, ± % (`--margin`).
    pub margin_pct: f64,
    /// `different` by less than the margin.
    #[serde(default)]
    pub within_margin: bool,
    /// `undecided`: about how many more samples a side the spread suggests a decision needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more: Option<u32>,
    /// The method, its looks, level and margin, in words.
    pub method: String,
}

impl Comparison {
    /// The change its verdict rests on, in % of the baseline: `(change, low, high)`, from its
    /// sequential decision where it has one (the ratio of geometric means and its interval,
    /// which may be asymmetric), else ministat's difference ± its half-width.
    pub fn change_pct(&self) -> (f64, f64, f64) {
        match &self.decision {
            Some(d) => (d.effect_pct, d.low_pct, d.high_pct),
            None => (
                self.difference_pct,
                self.difference_pct - self.ci_half_pct,
                self.difference_pct + self.ci_half_pct,
            ),
        }
    }
}

fn yes() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_read_typed_and_as_the_bare_strings_of_older_json() {
        let w: Vec<Warning> =
            serde_json::from_str(r#"[{"kind":"not-cold","message":"m1"},"an old warning"]"#)
                .unwrap();
        assert_eq!(w[0], Warning::new(WarningKind::NotCold, "m1"));
        assert_eq!(w[1], Warning::new(WarningKind::Other, "an old warning"));
        let text = serde_json::to_string(&w[0]).unwrap();
        assert_eq!(text, r#"{"kind":"not-cold","message":"m1"}"#);
    }
}
