//! `--profile` around each sample: what the profile is about (fsbench, the target's FUSE
//! daemons, its device), started just before the timed region and stopped just after it; each
//! measured sample's profile is added to its cell's.

use crate::cell::Prepared;
use fsbench_model::{Profile, ResultEntry, Sample};
use fsbench_profile::{SampleProfiler, Scope};

/// The scope of `p`'s samples: this process, the daemons serving the target, its top device.
fn scope(p: &Prepared) -> Scope {
    // The target's devices, then the server hosts' (a served lab's bricks on their own loop
    // devices): writeback to any of them serves the cell.
    let names = p.devices.list.iter().map(|(name, _)| name);
    let bricks = p.servers.iter().filter_map(|s| s.device.as_ref());
    let chain: Vec<(u32, String)> = names
        .chain(bricks)
        .filter_map(|name| Some((dev_t(name)?, name.clone())))
        .collect();
    Scope {
        own_pid: std::process::id(),
        daemon_pids: p.daemon_pids.iter().map(|&d| d as u32).collect(),
        server_pids: p.servers.iter().map(|s| s.init as u32).collect(),
        ignored_tids: Vec::new(),
        device: p
            .devices
            .list
            .first()
            .and_then(|(name, _)| chain.iter().find(|(_, n)| n == name).cloned()),
        chain,
        // Set by the profiler, on the thread that runs the sample.
        runner_tid: 0,
    }
}

/// The kernel dev_t of block device `name` (`/sys/class/block/NAME/dev`: `7:0`).
fn dev_t(name: &str) -> Option<u32> {
    let text = std::fs::read_to_string(format!("/sys/class/block/{name}/dev")).ok()?;
    let (major, minor) = text.trim().split_once(':')?;
    Some(fsbench_profile::device::dev_t(
        major.parse().ok()?,
        minor.parse().ok()?,
    ))
}

/// Starts recording a sample of `p` when the plan profiles.
pub fn start(p: &Prepared) -> Option<SampleProfiler> {
    p.profile.then(|| SampleProfiler::start(scope(p))).flatten()
}

/// A measured sample's profile: its off-CPU reasons on the sample, the whole added to the cell.
pub fn keep(profile: Option<Profile>, sample: &mut Sample, entry: &mut ResultEntry) {
    let Some(profile) = profile else { return };
    sample.off_cpu = profile.off_cpu.clone();
    match &mut entry.profile {
        Some(cell) => fsbench_profile::merge::add(cell, &profile),
        None => entry.profile = Some(profile),
    }
}
