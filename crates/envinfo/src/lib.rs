//! Facts about the host and each target: kernel, CPU, memory, and the storage stack under a
//! directory (mount, encryption, FUSE daemon, network or overlay options, block devices down to
//! the disk, loop images and what they live on), or the chain of a block device. Stored with
//! every run so results can be interpreted later. One submodule per source of facts.

#![warn(missing_docs)]

mod blockdev;
pub mod crypto;
pub(crate) mod dmcrypt;
mod encryption;
pub(crate) mod fscrypt;
mod fsdetails;
mod fuse;
pub(crate) mod mountinfo;
mod warnings;

#[cfg(test)]
mod fuzz;

#[allow(unused_imports)] // API for the runner (the daemon's CPU time around each sample)
pub use fsdetails::is_network;
pub use fuse::fuse_daemon_pids;
pub use mountinfo::{Mount, mount_of, mounts};
#[allow(unused_imports)] // the type of `stack_warnings`' items, for the runner
pub use warnings::StackWarning;
pub use warnings::stack_warnings;

use fsbench_model::{Environment, Stack, TargetInfo, TargetKind};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// Host facts (targets are filled in by the caller).
pub fn host() -> Environment {
    let uname = rustix::system::uname();
    let info = rustix::system::sysinfo();
    Environment {
        hostname: uname.nodename().to_string_lossy().into_owned(),
        kernel: uname.release().to_string_lossy().into_owned(),
        os: uname.sysname().to_string_lossy().into_owned(),
        cpu_model: cpu_model().unwrap_or_else(|| "unknown".into()),
        cpus: std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1),
        memory_bytes: info.totalram as u64 * info.mem_unit.max(1) as u64,
        root: rustix::process::geteuid().is_root(),
        targets: Vec::new(),
    }
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// Loop devices' backing files are described this many levels down (a loop image on a loop
/// image on tmpfs is already unusual).
const MAX_DEPTH: usize = 3;

/// Describes a target directory or block device: mount, encryption, FUSE daemon, filesystem
/// details and the block chain down to the disk.
pub fn target(label: &str, path: &Path) -> TargetInfo {
    describe(label, path, 0)
}

fn describe(label: &str, path: &Path, depth: usize) -> TargetInfo {
    let meta = std::fs::metadata(path).ok();
    if let Some(rdev) = meta
        .as_ref()
        .filter(|m| m.file_type().is_block_device())
        .map(|m| m.rdev())
    {
        return device_target(label, path, rdev, depth);
    }
    let m = mount_of(path, &mounts()).unwrap_or_else(unknown_mount);
    let (free, total) = space(path).unwrap_or((0, 0));
    let chain = blockdev::chain(&block_dev_of(&m));
    let mut stack = Stack::default();
    fsdetails::fill(&mut stack, &m);
    if fuse::is_fuse(&m.fs_type) {
        stack.fuse = Some(fuse::describe(&m));
    }
    let probe = fscrypt::probe(path);
    stack.fscrypt_status = probe.status();
    let kind = if meta.as_ref().is_some_and(|m| m.is_file()) {
        TargetKind::File
    } else {
        TargetKind::Dir
    };
    let mut t = TargetInfo {
        label: label.to_string(),
        path: path.display().to_string(),
        kind,
        mount_options: format!("{},{}", m.options, m.super_options)
            .trim_matches(',')
            .to_string(),
        fs_type: m.fs_type.clone(),
        source: m.source,
        mount_point: m.mount_point,
        free_bytes: free,
        total_bytes: total,
        ..TargetInfo::default()
    };
    finish(&mut t, stack, chain, &probe, depth);
    t
}

/// `major:minor` of the block device under mount `m`. btrfs (and other filesystems that hand out
/// anonymous device numbers per subvolume) report `0:N` in mountinfo; their source names the
/// device instead.
fn block_dev_of(m: &Mount) -> String {
    if !m.dev.starts_with("0:") || !m.source.starts_with("/dev/") {
        return m.dev.clone();
    }
    match std::fs::metadata(&m.source) {
        Ok(meta) if meta.file_type().is_block_device() => {
            format!(
                "{}:{}",
                rustix::fs::major(meta.rdev()),
                rustix::fs::minor(meta.rdev())
            )
        }
        _ => m.dev.clone(),
    }
}

/// The mount of a path that no mountinfo line holds.
fn unknown_mount() -> Mount {
    Mount {
        dev: "unknown".into(),
        mount_point: "unknown".into(),
        options: "unknown".into(),
        fs_type: "unknown".into(),
        source: "unknown".into(),
        super_options: String::new(),
    }
}

/// A raw block device: its chain and size; no filesystem.
fn device_target(label: &str, path: &Path, rdev: u64, depth: usize) -> TargetInfo {
    let dev = format!("{}:{}", rustix::fs::major(rdev), rustix::fs::minor(rdev));
    let mut t = TargetInfo {
        label: label.to_string(),
        path: path.display().to_string(),
        kind: TargetKind::Device,
        fs_type: "none".into(),
        source: "none".into(),
        mount_point: "none".into(),
        mount_options: "none".into(),
        total_bytes: device_size(path).unwrap_or(0),
        ..TargetInfo::default()
    };
    let stack = Stack {
        fscrypt_status: "not applicable".into(),
        ..Stack::default()
    };
    let probe = fscrypt::Probe::Unsupported;
    finish(&mut t, stack, blockdev::chain(&dev), &probe, depth);
    t
}

/// Fills the device and encryption facts of `t` from its stack and chain.
fn finish(
    t: &mut TargetInfo,
    mut stack: Stack,
    chain: blockdev::Chain,
    probe: &fscrypt::Probe,
    depth: usize,
) {
    t.device_chain = chain.names();
    let queue = chain.bottom_queue();
    t.rotational = queue.and_then(|q| q.rotational);
    t.device_model = match (queue, chain.layers.is_empty()) {
        (_, true) => "none".into(),
        (Some(q), false) => q.model.clone(),
        (None, false) => "unknown".into(),
    };
    stack.devices = chain.layers.clone();
    for layer in &mut stack.devices {
        if let Some(l) = layer.loop_device.as_mut() {
            let backing = Path::new(&l.backing_file);
            if depth < MAX_DEPTH && backing.is_absolute() && backing.exists() {
                l.backing = Some(Box::new(describe("", backing, depth + 1)));
            }
        }
    }
    if let Some(f) = stack.fuse.as_mut() {
        if let Some(dir) = f.backing_dir.clone().filter(|_| depth < MAX_DEPTH) {
            f.backing = Some(Box::new(describe("", Path::new(&dir), depth + 1)));
        }
    }
    stack.encryption = encryption::layers(&t.fs_type, &stack, probe, &chain.crypt);
    t.encryption = encryption::short(&t.fs_type, &stack);
    t.stack = stack;
}

/// The kernel names of every block device under `t`, top first and without repeats: the
/// filesystem's chain, then below each loop device the chain of its backing file's filesystem,
/// and below a FUSE daemon the chain of the directory it serves from. The last is the deepest
/// (the disk everything ends on). Empty for tmpfs and network filesystems.
pub fn io_devices(t: &TargetInfo) -> Vec<String> {
    let mut out = Vec::new();
    collect_devices(t, &mut out);
    out
}

fn collect_devices(t: &TargetInfo, out: &mut Vec<String>) {
    for layer in &t.stack.devices {
        if !out.contains(&layer.name) {
            out.push(layer.name.clone());
        }
        if let Some(b) = layer
            .loop_device
            .as_ref()
            .and_then(|l| l.backing.as_deref())
        {
            collect_devices(b, out);
        }
    }
    if let Some(b) = t.stack.fuse.as_ref().and_then(|f| f.backing.as_deref()) {
        collect_devices(b, out);
    }
}

/// True when `tool` is an executable file in a directory of `$PATH` (or `/sbin`, `/usr/sbin`,
/// which non-root shells often lack).
pub(crate) fn on_path(tool: &str) -> bool {
    fsbench_sys::process::find_program(tool).is_some()
        || ["/sbin", "/usr/sbin"]
            .iter()
            .any(|d| Path::new(d).join(tool).is_file())
}

/// (available, total) bytes of the filesystem holding `path`.
pub fn space(path: &Path) -> Option<(u64, u64)> {
    let s = rustix::fs::statvfs(path).ok()?;
    Some((s.f_bavail * s.f_frsize, s.f_blocks * s.f_frsize))
}

/// Size of a block device in bytes (seek to its end; no ioctl needed).
pub fn device_size(path: &Path) -> Option<u64> {
    use std::io::Seek;
    let mut f = std::fs::File::open(path).ok()?;
    f.seek(std::io::SeekFrom::End(0)).ok()
}

/// True when `dev` (a block device) or one of its partitions is mounted, or it has holders
/// (device-mapper, md, LVM).
pub fn device_in_use(dev: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(dev) else {
        return false;
    };
    let id = format!(
        "{}:{}",
        rustix::fs::major(meta.rdev()),
        rustix::fs::minor(meta.rdev())
    );
    let dev_str = dev.display().to_string();
    let mounted = mounts()
        .iter()
        .any(|m| m.dev == id || m.source == dev_str || m.source.starts_with(&dev_str));
    let name = dev
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let holders = std::fs::read_dir(format!("/sys/class/block/{name}/holders"))
        .map(|rd| rd.count() > 0)
        .unwrap_or(false);
    mounted || holders
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_facts_are_filled() {
        let h = host();
        assert!(h.cpus >= 1);
        assert!(h.memory_bytes > 0);
        assert!(!h.kernel.is_empty());
        assert!(!h.cpu_model.is_empty());
    }

    #[test]
    fn a_directory_is_described_without_empty_strings() {
        let t = target("x", Path::new("/proc"));
        assert_eq!(t.fs_type, "proc");
        assert_eq!(t.device_model, "none");
        assert!(t.device_chain.is_empty());
        for s in [
            &t.source,
            &t.mount_point,
            &t.encryption,
            &t.stack.fscrypt_status,
        ] {
            assert!(!s.is_empty());
        }
    }

    #[test]
    fn a_missing_path_says_unknown() {
        let t = target("x", Path::new("/nonexistent/fsbench/x"));
        assert!(t.encryption.starts_with("unknown"), "{}", t.encryption);
        assert!(t.stack.fscrypt_status.starts_with("unknown"));
    }
}
