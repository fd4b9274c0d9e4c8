//! Why `--profile` cannot run here, in one line naming what is missing and how to allow it.

/// A reason the profiler cannot run on this machine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// The kernel refused system-wide perf events (permissions or no syscall).
    #[error("--profile cannot open system-wide perf events: {0}")]
    PerfEvents(String),
    /// tracefs is neither mounted nor mountable.
    #[error(
        "--profile needs tracefs at /sys/kernel/tracing: {0} (mount it with 'mount -t tracefs nodev /sys/kernel/tracing', as root)"
    )]
    Tracefs(String),
    /// A needed tracepoint is missing from the kernel.
    #[error("--profile needs the tracepoint {0}, which this kernel lacks")]
    Tracepoint(String),
}
