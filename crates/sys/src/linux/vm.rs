//! The kernel's dirty-page limits (`/proc/sys/vm/dirty_*`): buffered writes run at memory speed
//! until this much of memory is dirty, then the writer is throttled to the speed of writeback.

/// The four settings, and the memory they are ratios of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DirtyLimits {
    /// `vm.dirty_bytes` (0 when the ratio is used).
    pub dirty_bytes: u64,
    /// `vm.dirty_ratio`, percent of dirtyable memory.
    pub dirty_ratio: u64,
    /// `vm.dirty_background_bytes` (0 when the ratio is used).
    pub background_bytes: u64,
    /// `vm.dirty_background_ratio`, percent of dirtyable memory.
    pub background_ratio: u64,
    /// Dirtyable memory, approximated by `MemAvailable` of `/proc/meminfo`.
    pub available_bytes: u64,
}

impl DirtyLimits {
    /// Reads this machine's; `None` when `/proc` cannot tell.
    pub fn read() -> Option<Self> {
        let num = |name: &str| {
            std::fs::read_to_string(format!("/proc/sys/vm/{name}"))
                .ok()?
                .trim()
                .parse::<u64>()
                .ok()
        };
        let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
        Some(Self {
            dirty_bytes: num("dirty_bytes")?,
            dirty_ratio: num("dirty_ratio")?,
            background_bytes: num("dirty_background_bytes")?,
            background_ratio: num("dirty_background_ratio")?,
            available_bytes: mem_available(&meminfo)?,
        })
    }

    /// Bytes dirty at which writers are held until writeback catches up.
    pub fn limit(&self) -> u64 {
        match self.dirty_bytes {
            0 => self.available_bytes / 100 * self.dirty_ratio,
            b => b,
        }
    }

    /// Bytes dirty at which background writeback starts.
    pub fn background(&self) -> u64 {
        match self.background_bytes {
            0 => self.available_bytes / 100 * self.background_ratio,
            b => b,
        }
    }

    /// The settings as a person sets them (`vm.dirty_bytes = 256 MiB` or `vm.dirty_ratio = 20%
    /// (about 4.6 GiB)`).
    pub fn describe(&self) -> String {
        let one = |name: &str, bytes: u64, ratio: u64, eff: u64| match bytes {
            0 => format!("vm.{name}_ratio = {ratio}% (about {} MiB)", eff >> 20),
            b => format!("vm.{name}_bytes = {} MiB", b >> 20),
        };
        format!(
            "{}, {}",
            one(
                "dirty_background",
                self.background_bytes,
                self.background_ratio,
                self.background()
            ),
            one("dirty", self.dirty_bytes, self.dirty_ratio, self.limit())
        )
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, bytes.
fn mem_available(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_win_over_ratios_and_ratios_are_of_available_memory() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:   20000000 kB\n";
        let avail = mem_available(text).unwrap();
        assert_eq!(avail, 20_000_000 * 1024);
        let by_ratio = DirtyLimits {
            dirty_ratio: 20,
            background_ratio: 10,
            available_bytes: avail,
            ..DirtyLimits::default()
        };
        assert_eq!(by_ratio.limit(), avail / 100 * 20);
        assert_eq!(by_ratio.background(), avail / 100 * 10);
        assert!(
            by_ratio
                .describe()
                .contains("vm.dirty_ratio = 20% (about 3906 MiB)")
        );
        let by_bytes = DirtyLimits {
            dirty_bytes: 256 << 20,
            background_bytes: 128 << 20,
            ..by_ratio
        };
        assert_eq!(by_bytes.limit(), 256 << 20);
        assert_eq!(
            by_bytes.describe(),
            "vm.dirty_background_bytes = 128 MiB, vm.dirty_bytes = 256 MiB"
        );
        assert!(DirtyLimits::read().is_some(), "this machine's /proc");
    }
}
