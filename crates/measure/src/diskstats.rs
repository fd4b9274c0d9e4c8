//! The block layer's own counters (`/sys/class/block/DEV/stat`), read right before and right
//! after a sample, so that a result can say what the device really did: bytes read and written,
//! I/Os, and the time it had I/O in flight. Reading one device costs one small sysfs read (a few
//! microseconds); it happens outside the timed region.

use fsbench_model::DeviceIo;
use std::path::{Path, PathBuf};

/// Sectors in `stat` are always 512 bytes, whatever the device's block size.
const SECTOR: u64 = 512;

/// One reading of a device's `stat` file (see the kernel's `Documentation/block/stat.rst`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiskStat {
    /// Reads completed.
    pub read_ios: u64,
    /// Sectors read.
    pub read_sectors: u64,
    /// Writes completed.
    pub write_ios: u64,
    /// Sectors written.
    pub write_sectors: u64,
    /// Milliseconds with I/O in flight.
    pub io_ticks_ms: u64,
    /// Weighted milliseconds in queue.
    pub queue_ms: u64,
}

/// Parses the fields of a `stat` line: read I/Os, merges, sectors, ticks, then the same for
/// writes, in flight, io_ticks, time_in_queue (11 fields; newer kernels add discard and flush
/// fields after them). `None` when fewer than 11 numbers are there.
pub fn parse_stat(text: &str) -> Option<DiskStat> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    (f.len() >= 11).then(|| DiskStat {
        read_ios: f[0],
        read_sectors: f[2],
        write_ios: f[4],
        write_sectors: f[6],
        io_ticks_ms: f[9],
        queue_ms: f[10],
    })
}

/// The devices to watch and their `stat` files, resolved once per target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Devices {
    /// (kernel name, path of its `stat` file), top first.
    pub list: Vec<(String, PathBuf)>,
}

impl Devices {
    /// Watches the devices `names` (kernel names, top first) under the sysfs root `/sys`.
    pub fn named(names: &[String]) -> Self {
        Self::named_in(Path::new("/sys"), names)
    }

    /// [`Devices::named`] under another sysfs root (tests).
    pub fn named_in(sys: &Path, names: &[String]) -> Self {
        let list = names
            .iter()
            .map(|n| (n.clone(), sys.join("class/block").join(n).join("stat")))
            .filter(|(_, p)| p.is_file())
            .collect();
        Self { list }
    }

    /// Reads every device's counters; a device that cannot be read is left out.
    pub fn read(&self) -> Vec<(String, DiskStat)> {
        self.list
            .iter()
            .filter_map(|(n, p)| {
                let text = std::fs::read_to_string(p).ok()?;
                Some((n.clone(), parse_stat(&text)?))
            })
            .collect()
    }
}

/// What each device did between two readings (devices read both times only).
pub fn delta(before: &[(String, DiskStat)], after: &[(String, DiskStat)]) -> Vec<DeviceIo> {
    after
        .iter()
        .filter_map(|(name, a)| {
            let (_, b) = before.iter().find(|(n, _)| n == name)?;
            Some(DeviceIo {
                name: name.clone(),
                read_bytes: a.read_sectors.saturating_sub(b.read_sectors) * SECTOR,
                write_bytes: a.write_sectors.saturating_sub(b.write_sectors) * SECTOR,
                read_ios: a.read_ios.saturating_sub(b.read_ios),
                write_ios: a.write_ios.saturating_sub(b.write_ios),
                io_ticks_ms: a.io_ticks_ms.saturating_sub(b.io_ticks_ms),
                queue_ms: a.queue_ms.saturating_sub(b.queue_ms),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line recorded from this machine's virtio disk (kernel 6.18: 17 fields).
    const VDA: &str = "  848924  1962845 175689675  1213959  1401217   651644 302490797  2869729        0   413044  4178586   646040       47 154279328    92788    14886     2108\n";

    #[test]
    fn a_recorded_line_parses_into_its_fields() {
        let s = parse_stat(VDA).expect("parses");
        assert_eq!(s.read_ios, 848_924);
        assert_eq!(s.read_sectors, 175_689_675);
        assert_eq!(s.write_ios, 1_401_217);
        assert_eq!(s.write_sectors, 302_490_797);
        assert_eq!(s.io_ticks_ms, 413_044);
        assert_eq!(s.queue_ms, 4_178_586);
    }

    #[test]
    fn short_or_garbled_lines_are_refused() {
        assert_eq!(parse_stat("1 2 3"), None);
        assert_eq!(parse_stat("1 2 3 4 5 6 7 8 9 10 x"), None);
        assert_eq!(parse_stat(""), None);
        let old = "1 2 3 4 5 6 7 8 9 10 11";
        assert_eq!(parse_stat(old).map(|s| s.queue_ms), Some(11));
    }

    #[test]
    fn the_delta_is_in_bytes_and_skips_devices_read_once() {
        let b = [("vda".to_string(), parse_stat(VDA).unwrap())];
        let mut later = b[0].1;
        later.read_sectors += 8;
        later.write_sectors += 2048;
        later.read_ios += 1;
        later.io_ticks_ms += 5;
        let a = [("vda".to_string(), later), ("loop0".to_string(), later)];
        let d = delta(&b, &a);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].read_bytes, 4096);
        assert_eq!(d[0].write_bytes, 1_048_576);
        assert_eq!(d[0].read_ios, 1);
        assert_eq!(d[0].io_ticks_ms, 5);
    }

    #[test]
    fn devices_are_found_under_a_sysfs_root_and_missing_ones_dropped() {
        let d = tempfile::tempdir().unwrap();
        let vda = d.path().join("class/block/vda");
        std::fs::create_dir_all(&vda).unwrap();
        std::fs::write(vda.join("stat"), VDA).unwrap();
        let devs = Devices::named_in(d.path(), &["vda".into(), "nope".into()]);
        assert_eq!(devs.list.len(), 1);
        let r = devs.read();
        assert_eq!(r[0].1.read_ios, 848_924);
    }
}
