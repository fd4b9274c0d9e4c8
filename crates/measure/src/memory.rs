//! A sample's peak memory: the largest resident set of fsbench itself or of a child it reaped
//! during the sample, from the marks of [`fsbench_sys::memory`].

/// A peak-memory measurement under way (from [`PeakMemory::start`] to [`PeakMemory::finish`]).
#[derive(Debug)]
#[must_use = "finish it to read the peak"]
pub struct PeakMemory {
    /// The kernel reset fsbench's own high-water mark at the start.
    marked: bool,
}

impl PeakMemory {
    /// Marks the start: fsbench's own high-water mark reset, the children reaped so far
    /// forgotten.
    pub fn start() -> Self {
        Self {
            marked: fsbench_sys::memory::mark(),
        }
    }

    /// The largest resident set since the start, KiB; `None` when the kernel refused the
    /// reset (the own mark would then cover fsbench's whole life, not the sample).
    pub fn finish(self) -> Option<u64> {
        if !self.marked {
            return None;
        }
        let own = fsbench_sys::memory::own_peak_kib();
        let children = fsbench_sys::memory::children_peak_kib();
        own.max(children)
    }
}
