//! `--profile` around each sample: what the profile is about (fsbench, the target's FUSE
//! daemons, its device), started just before the timed region and stopped just after it; each
//! measured sample's profile is added to its cell's.

use crate::cell::Prepared;
use fsbench_model::{Profile, ResultEntry, Sample};
use fsbench_profile::{SampleProfiler, Scope};

/// The scope of `p`'s samples: this process, the daemons serving the target, its top device.
fn scope(p: &Prepared) -> Scope {
    Scope {
        own_pid: std::process::id(),
        daemon_pids: p.daemon_pids.iter().map(|&d| d as u32).collect(),
        ignored_tids: Vec::new(),
        device: p.devices.list.first().and_then(|(name, _)| {
            let text = std::fs::read_to_string(format!("/sys/class/block/{name}/dev")).ok()?;
            let (major, minor) = text.trim().split_once(':')?;
            let dev = fsbench_profile::device::dev_t(major.parse().ok()?, minor.parse().ok()?);
            Some((dev, name.clone()))
        }),
    }
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
