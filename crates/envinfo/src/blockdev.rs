//! The block device chain under a filesystem, read from sysfs: device-mapper layers (dm-crypt
//! with its cipher), md, loop devices (backing file, direct I/O), partitions, and the bottom
//! device's queue (rotational, scheduler, read-ahead, discard, block sizes, model). Every read
//! takes the sysfs root as a parameter so tests run on a fake tree.

use super::dmcrypt::{self, TableReader};
use fsbench_model::{BlockKind, BlockLayer, DmCryptInfo, LoopInfo, QueueInfo};
use std::path::{Path, PathBuf};

/// What sysfs says about the devices under one filesystem.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chain {
    /// Devices, top first.
    pub layers: Vec<BlockLayer>,
    /// The dm-crypt mappings among them, top first.
    pub crypt: Vec<DmCryptInfo>,
}

impl Chain {
    /// `name (kind)` per layer, top first.
    pub fn names(&self) -> Vec<String> {
        self.layers
            .iter()
            .map(|l| format!("{} ({})", l.name, l.kind))
            .collect()
    }

    /// The bottom device's queue facts.
    pub fn bottom_queue(&self) -> Option<&QueueInfo> {
        self.layers.last().and_then(|l| l.queue.as_ref())
    }
}

/// The chain under the device `major:minor` (from mountinfo or a device node); empty for
/// virtual filesystems.
pub fn chain(dev: &str) -> Chain {
    chain_in(Path::new("/sys"), dev, &dmcrypt::dmsetup_table)
}

/// [`chain`] under the sysfs root `sys`, reading dm tables with `table`.
pub fn chain_in(sys: &Path, dev: &str, table: TableReader<'_>) -> Chain {
    let mut out = Chain::default();
    let Ok(start) = std::fs::canonicalize(sys.join("dev/block").join(dev)) else {
        return out;
    };
    let mut current = Some(start);
    let mut bottom = None;
    for _ in 0..16 {
        let Some(node) = current.take() else { break };
        let (layer, crypt) = describe_node(&node, table);
        out.layers.push(layer);
        out.crypt.extend(crypt);
        current = next_below(&node);
        bottom = Some(node);
    }
    if let (Some(b), Some(last)) = (bottom, out.layers.last_mut()) {
        last.queue = Some(queue(&b));
    }
    out
}

fn read(node: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(node.join(rel))
        .ok()
        .map(|s| s.trim().to_string())
}

fn read_num<T: std::str::FromStr>(node: &Path, rel: &str) -> Option<T> {
    read(node, rel)?.parse().ok()
}

/// One layer, plus its dm-crypt facts when it is a dm-crypt mapping.
fn describe_node(node: &Path, table: TableReader<'_>) -> (BlockLayer, Option<DmCryptInfo>) {
    let name = node
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "unknown".into());
    let mut layer = BlockLayer {
        dev: read(node, "dev").unwrap_or_else(|| "unknown".into()),
        slaves: slaves(node),
        ..BlockLayer::default()
    };
    let mut crypt = None;
    layer.kind = if node.join("dm").is_dir() {
        let (kind, c) = dm_kind(node, &name, table);
        crypt = c;
        kind
    } else if node.join("loop").is_dir() {
        layer.loop_device = Some(loop_info(node));
        BlockKind::Loop
    } else if node.join("md").is_dir() {
        BlockKind::Md
    } else if node.join("partition").exists() {
        BlockKind::Partition
    } else {
        BlockKind::Disk
    };
    layer.name = name;
    (layer, crypt)
}

/// `dm-crypt` (with its table facts), else `dm-TARGET` from the table, else `dm-lvm` or `dm`.
fn dm_kind(node: &Path, name: &str, table: TableReader<'_>) -> (BlockKind, Option<DmCryptInfo>) {
    let uuid = read(node, "dm/uuid").unwrap_or_default();
    let dm_name = read(node, "dm/name").unwrap_or_else(|| "unknown".into());
    let text = if dm_name == "unknown" {
        Err(dmcrypt::NoTable::Unnamed)
    } else {
        table(&dm_name)
    };
    if uuid.starts_with("CRYPT-") {
        let info = dmcrypt::crypt_info(name, &dm_name, &uuid, &text);
        return (BlockKind::DmCrypt, Some(info));
    }
    let kind = match text.as_deref().ok().and_then(dmcrypt::target_type) {
        Some(t) => BlockKind::dm_target(t),
        None if uuid.starts_with("LVM-") => BlockKind::DmLvm,
        None => BlockKind::Dm,
    };
    (kind, None)
}

fn loop_info(node: &Path) -> LoopInfo {
    LoopInfo {
        backing_file: read(node, "loop/backing_file").unwrap_or_else(|| "unknown".into()),
        direct_io: read(node, "loop/dio").and_then(|d| match d.as_str() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        }),
        offset: read_num(node, "loop/offset"),
        sizelimit: read_num(node, "loop/sizelimit"),
        backing: None,
    }
}

fn queue(node: &Path) -> QueueInfo {
    QueueInfo {
        rotational: read(node, "queue/rotational").map(|r| r == "1"),
        scheduler: read(node, "queue/scheduler")
            .map(|s| active_scheduler(&s))
            .unwrap_or_else(|| "unknown".into()),
        read_ahead_kb: read_num(node, "queue/read_ahead_kb"),
        nr_requests: read_num(node, "queue/nr_requests"),
        discard: read_num::<u64>(node, "queue/discard_max_bytes").map(|n| n > 0),
        logical_block_size: read_num(node, "queue/logical_block_size"),
        physical_block_size: read_num(node, "queue/physical_block_size"),
        model: read(node, "device/model")
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "unknown".into()),
        virtual_disk: virtual_disk(node),
    }
}

/// The hypervisor's disk `node` is, from its driver, vendor and model: virtio (`virtio_blk`,
/// vendor `0x1af4`), Xen (`vbd`), VMware, Hyper-V (`Virtual Disk` by `Msft`), QEMU's emulated
/// disks (`QEMU HARDDISK`).
pub fn virtual_disk(node: &Path) -> Option<String> {
    let driver = std::fs::read_link(node.join("device/driver"))
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let vendor = read(node, "device/vendor").unwrap_or_default();
    let model = read(node, "device/model").unwrap_or_default();
    let name = node
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    virtual_kind(&driver, &vendor, &model, &name).map(str::to_string)
}

/// [`virtual_disk`] from the facts read.
pub fn virtual_kind(driver: &str, vendor: &str, model: &str, name: &str) -> Option<&'static str> {
    let has = |s: &str, w: &str| s.to_ascii_lowercase().contains(w);
    if driver.starts_with("virtio") || vendor == "0x1af4" || name.starts_with("vd") {
        Some("virtio")
    } else if driver == "vbd" || name.starts_with("xvd") {
        Some("xen")
    } else if has(vendor, "vmware") || has(model, "vmware") {
        Some("vmware")
    } else if has(vendor, "msft") || has(model, "virtual disk") {
        Some("hyper-v")
    } else if has(vendor, "qemu") || has(model, "qemu") {
        Some("qemu")
    } else {
        None
    }
}

/// The bracketed entry of `queue/scheduler` (`none [mq-deadline] kyber`), or the only entry.
pub fn active_scheduler(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let active = words
        .iter()
        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')));
    match (active, words.as_slice()) {
        (Some(a), _) => a.to_string(),
        (None, [only]) => only.to_string(),
        _ => "unknown".into(),
    }
}

fn slaves(node: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(node.join("slaves"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The next device down: the first slave of a stacked device, or the disk of a partition.
fn next_below(node: &Path) -> Option<PathBuf> {
    if let Some(first) = slaves(node).first() {
        return std::fs::canonicalize(node.join("slaves").join(first)).ok();
    }
    if node.join("partition").exists() {
        return node.parent().map(Path::to_path_buf);
    }
    None
}

#[cfg(test)]
#[path = "blockdev_tests.rs"]
mod tests;
