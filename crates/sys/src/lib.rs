//! The operating-system seam of fsbench. Every OS-specific call that the engine needs beyond a
//! workload's own syscall loop lives here, behind plain functions, so that a macOS module can
//! sit beside the Linux one without the rest of fsbench changing.
//!
//! The OS-specific modules are `src/linux/*.rs`, compiled on Linux under the names below. A
//! macOS backend (the seeds' APFS and HFS+) would add `src/macos/*.rs` with the same functions:
//! `cache` through `purge` and `F_NOCACHE`, `residency` through `mincore` (which macOS has),
//! `remove` through `openat`/`unlinkat` with `O_NOFOLLOW` and `st_dev`, `proc` through
//! `host_processor_info` and `proc_pidinfo`, `fskind` through `statfs`'s `f_fstypename`;
//! `fscrypt` has no macOS counterpart. The [`cleanup`] registry is portable.
#![warn(missing_docs)]

pub mod cancel;
pub mod child;
pub mod cleanup;

#[cfg(target_os = "linux")]
#[path = "linux/cache.rs"]
pub mod cache;
#[cfg(target_os = "linux")]
#[path = "linux/fscalls.rs"]
pub mod fscalls;
#[cfg(target_os = "linux")]
#[path = "linux/fscrypt.rs"]
pub mod fscrypt;
#[cfg(target_os = "linux")]
#[path = "linux/fskind.rs"]
pub mod fskind;
#[cfg(target_os = "linux")]
#[path = "linux/infile.rs"]
pub mod infile;
#[cfg(target_os = "linux")]
#[path = "linux/loopdev.rs"]
pub mod loopdev;
#[cfg(target_os = "linux")]
#[path = "linux/memory.rs"]
pub mod memory;
#[cfg(target_os = "linux")]
#[path = "linux/mountns.rs"]
pub mod mountns;
#[cfg(target_os = "linux")]
#[path = "linux/proc.rs"]
pub mod proc;
#[cfg(target_os = "linux")]
#[path = "linux/process.rs"]
pub mod process;
#[cfg(target_os = "linux")]
#[path = "linux/remove.rs"]
pub mod remove;
#[cfg(target_os = "linux")]
#[path = "linux/residency.rs"]
pub mod residency;
#[cfg(target_os = "linux")]
#[path = "linux/shared.rs"]
pub mod shared;
#[cfg(target_os = "linux")]
#[path = "linux/tap.rs"]
pub mod tap;
#[cfg(target_os = "linux")]
#[path = "linux/timer.rs"]
pub mod timer;
#[cfg(target_os = "linux")]
#[path = "linux/tracer.rs"]
pub mod tracer;
#[cfg(target_os = "linux")]
#[path = "linux/vfork.rs"]
pub mod vfork;
#[cfg(target_os = "linux")]
#[path = "linux/vm.rs"]
pub mod vm;
