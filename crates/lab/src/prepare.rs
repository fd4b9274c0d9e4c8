//! What happens to a lab target between building and measuring: aging it when asked
//! (`KIND:aged`), then recording its fragmentation — the free-space extents of every image kind
//! with a filesystem of its own (fresh ones too, so an aged target has something to be compared
//! with), and the extents per aging file.

use super::error::Error;
use super::{Building, Hooks, aging, frag};
use fsbench_model::{LabEntry, LabInfo};
use std::path::Path;

/// Where a target's progress lines go.
pub(crate) struct Progress<'a> {
    /// The target's label, at the start of each line.
    pub label: &'a str,
    /// The caller's signal check and output.
    pub hooks: Hooks,
    /// No progress lines.
    pub quiet: bool,
}

impl Progress<'_> {
    fn say(&self, line: &str) {
        if !self.quiet {
            (self.hooks.say)(&format!("lab: {}: {line}", self.label));
        }
    }
}

/// Ages the target at `path` (a filesystem of type `fs`) when `entry` asks, then records the
/// fragmentation in `b.info` (nothing for kinds without a filesystem image of their own: tmpfs,
/// FUSE, NFS, overlay).
pub(crate) fn age_and_measure(
    b: &mut Building,
    entry: &LabEntry,
    fs: &str,
    path: &Path,
    p: &Progress<'_>,
) -> Result<(), Error> {
    if !entry.kind.ageable() {
        return Ok(());
    }
    let mut files = Vec::new();
    let mut seed = 0;
    if let Some(spec) = &entry.aging {
        let cleanup = b.cleanup.clone();
        let stop = || (p.hooks.interrupted)() || cleanup.is_closed();
        let say = |line: &str| p.say(&format!("aging: {line}"));
        say(&format!(
            "filling to {}%, then {} churn rounds (seed {})",
            spec.fill, spec.churn, spec.seed
        ));
        let report = aging::Report {
            stop: &stop,
            say: &say,
        };
        let (info, aged_files) = aging::age(path, spec, &report)?;
        b.info.aging = Some(info);
        files = aged_files;
        seed = spec.seed;
    }
    let mount = b.dir.join("mnt");
    let subject = frag::Subject {
        fs,
        device: b.fs_device.as_deref(),
        mount: &mount,
        files: &files,
        seed,
    };
    b.info.fragmentation = Some(frag::measure(&subject, &b.cleanup));
    Ok(())
}

/// MiB with one decimal.
fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / f64::from(1 << 20))
}

/// The aging and fragmentation of a built target, for the end of its `lab: built` line (empty
/// when there is neither).
pub(crate) fn summary(info: &LabInfo) -> String {
    let mut parts = Vec::new();
    if let Some(a) = &info.aging {
        parts.push(format!(
            "aged to {:.1}% full in {:.1} s ({} churn rounds, {} files written, {} deleted)",
            a.fill_reached_pct, a.seconds, a.churn_rounds, a.files_created, a.files_deleted
        ));
    }
    if let Some(f) = &info.fragmentation {
        if let Some(s) = &f.free_space {
            parts.push(format!(
                "{} free extents (mean {})",
                s.extents,
                mib(s.mean_extent_bytes)
            ));
        }
        if let Some(x) = &f.files {
            parts.push(format!(
                "{:.2} extents per file, {:.0}% of files fragmented",
                x.mean, x.fragmented_pct
            ));
        }
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("; {}", parts.join(", "))
}
