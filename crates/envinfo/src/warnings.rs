//! Warnings derived from a target's stack: layers that make "cold" mean less than it says (a
//! loop device reading its image through the page cache, a FUSE daemon or a server with its own
//! cache, a filesystem that lives in memory). Typed, so sinks decide how to show them.

use fsbench_model::TargetInfo;
use std::fmt;

/// One thing about a target's stack that changes what a cold or warm result means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StackWarning {
    /// A loop device reads its backing file without direct I/O.
    LoopWithoutDirectIo {
        /// Loop device (`loop3`).
        device: String,
        /// Its backing file.
        backing_file: String,
    },
    /// A FUSE filesystem: the daemon (and what it serves from) may cache beyond drop_caches.
    Fuse {
        /// Mount point.
        mount_point: String,
        /// Filesystem type (`fuse.bindfs`).
        fs_type: String,
    },
    /// A network filesystem: the server's cache is out of reach of drop_caches.
    Network {
        /// Mount point.
        mount_point: String,
        /// Filesystem type (`nfs4`, `fuse.sshfs`).
        fs_type: String,
    },
    /// A lab target served from simulated hosts on this kernel (`--lab glusterfs`, `sshfs`):
    /// drop_caches reaches the server's page cache too, but not the daemons' own caches.
    Served {
        /// Mount point.
        mount_point: String,
        /// Filesystem type (`fuse.glusterfs`).
        fs_type: String,
    },
    /// tmpfs or ramfs: the data lives in memory.
    InMemory {
        /// Mount point.
        mount_point: String,
        /// Filesystem type.
        fs_type: String,
    },
}

impl fmt::Display for StackWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LoopWithoutDirectIo {
                device,
                backing_file,
            } => write!(
                f,
                "{device} reads {backing_file} without direct I/O: cold reads may be served from \
                 the backing file's page cache; re-attach with `losetup --direct-io=on`"
            ),
            Self::Fuse {
                mount_point,
                fs_type,
            } => write!(
                f,
                "{mount_point} is FUSE ({fs_type}): drop_caches may not reach the daemon's own \
                 cache; give a --cold-cmd that also restarts or flushes the daemon. Warm, the \
                 kernel keeps names and attributes only for the daemon's timeouts (1 s by \
                 default): a warm sample costs more the longer since the tree was last touched \
                 (git status on bindfs: 0.11 s back to back, 0.15 s after 1.5 s idle)"
            ),
            Self::Network {
                mount_point,
                fs_type,
            } => write!(
                f,
                "{mount_point} is a network filesystem ({fs_type}): drop_caches empties only this \
                 client's cache, not the server's; give a --cold-cmd that also drops the server's \
                 cache"
            ),
            Self::Served {
                mount_point,
                fs_type,
            } => write!(
                f,
                "{mount_point} is {fs_type} served from a simulated host on this kernel: \
                 drop_caches empties the server's page cache too, but not the daemons' own caches \
                 (the client's FUSE daemon, a GlusterFS client's io-cache)"
            ),
            Self::InMemory {
                mount_point,
                fs_type,
            } => write!(
                f,
                "{mount_point} is {fs_type}: the data lives in memory, so cold is meaningless; \
                 compare warm results only, or use a disk-backed target"
            ),
        }
    }
}

/// Loop backing files are followed this many levels (as `envinfo::target` describes them).
const MAX_DEPTH: usize = 4;

/// The warnings of `t`'s stack, top first, including those of loop devices' backing files.
pub fn stack_warnings(t: &TargetInfo) -> Vec<StackWarning> {
    let mut out = Vec::new();
    collect(t, 0, &mut out);
    out
}

fn collect(t: &TargetInfo, depth: usize, out: &mut Vec<StackWarning>) {
    let mount_point = t.mount_point.clone();
    let fs_type = t.fs_type.clone();
    if matches!(t.fs_type.as_str(), "tmpfs" | "ramfs") {
        out.push(StackWarning::InMemory {
            mount_point,
            fs_type,
        });
    } else if t.lab.as_ref().is_some_and(|l| l.net.is_some()) {
        out.push(StackWarning::Served {
            mount_point,
            fs_type,
        });
    } else if super::fsdetails::is_network(&t.fs_type) {
        out.push(StackWarning::Network {
            mount_point,
            fs_type,
        });
    } else if super::fuse::is_fuse(&t.fs_type) {
        out.push(StackWarning::Fuse {
            mount_point,
            fs_type,
        });
    }
    for layer in &t.stack.devices {
        let Some(l) = &layer.loop_device else {
            continue;
        };
        if l.direct_io == Some(false) {
            out.push(StackWarning::LoopWithoutDirectIo {
                device: layer.name.clone(),
                backing_file: l.backing_file.clone(),
            });
        }
        if let Some(b) = l.backing.as_deref().filter(|_| depth < MAX_DEPTH) {
            collect(b, depth + 1, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{BlockLayer, LoopInfo, Stack};

    fn on(fs_type: &str) -> TargetInfo {
        TargetInfo {
            fs_type: fs_type.into(),
            mount_point: "/m".into(),
            ..TargetInfo::default()
        }
    }

    fn over_loop(dio: Option<bool>, backing: TargetInfo) -> TargetInfo {
        let mut t = on("ext4");
        t.stack = Stack {
            devices: vec![BlockLayer {
                name: "loop3".into(),
                kind: fsbench_model::BlockKind::Loop,
                loop_device: Some(LoopInfo {
                    backing_file: "/var/img".into(),
                    direct_io: dio,
                    backing: Some(Box::new(backing)),
                    ..LoopInfo::default()
                }),
                ..BlockLayer::default()
            }],
            ..Stack::default()
        };
        t
    }

    #[test]
    fn memory_network_and_fuse_filesystems_warn_once_each() {
        assert_eq!(stack_warnings(&on("ext4")), []);
        let tmp = stack_warnings(&on("tmpfs"));
        assert!(matches!(tmp[..], [StackWarning::InMemory { .. }]));
        assert!(tmp[0].to_string().contains("cold is meaningless"));
        let ssh = stack_warnings(&on("fuse.sshfs"));
        assert!(matches!(ssh[..], [StackWarning::Network { .. }]));
        assert!(ssh[0].to_string().contains("server"));
        let bind = stack_warnings(&on("fuse"));
        assert!(matches!(bind[..], [StackWarning::Fuse { .. }]));
        assert!(bind[0].to_string().contains("drop_caches may not reach"));
        assert_eq!(stack_warnings(&on("nfs4")).len(), 1);
        let mut served = on("fuse.glusterfs");
        served.lab = Some(fsbench_model::LabInfo {
            net: Some(fsbench_model::NetLabInfo::default()),
            ..fsbench_model::LabInfo::default()
        });
        let w = stack_warnings(&served);
        assert!(matches!(w[..], [StackWarning::Served { .. }]), "{w:?}");
        assert!(w[0].to_string().contains("server's page cache too"));
    }

    #[test]
    fn loop_without_direct_io_warns_with_the_fix_and_follows_the_backing_file() {
        let w = stack_warnings(&over_loop(Some(false), on("tmpfs")));
        assert_eq!(w.len(), 2);
        assert!(w[0].to_string().contains("losetup --direct-io=on"));
        assert!(w[0].to_string().starts_with("loop3 reads /var/img"));
        assert!(matches!(w[1], StackWarning::InMemory { .. }));
        assert_eq!(stack_warnings(&over_loop(Some(true), on("ext4"))), []);
        assert_eq!(
            stack_warnings(&over_loop(None, on("ext4"))),
            [],
            "unknown dio: no guess"
        );
    }
}
