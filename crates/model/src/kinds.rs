//! The kinds the record names by a word: a lab target's ([`LabKind`]), an encryption layer's
//! ([`EncryptionKind`]) and a block device's ([`BlockKind`]). Each travels as the same word as
//! before (`ext4-fscrypt`, `dm-crypt`, `loop`), so old result files and databases load; a word
//! this version does not know (a newer fsbench's, or a hand-edited file's) loads as `Other` and
//! is written back unchanged.
//!
//! Beside [`LabKind`] live the plain values of a lab request that the spec holds and the lab
//! builds: [`LabEntry`] (a kind, how to age it, the target's label) and [`AgingSpec`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Serde, `Display` and `Default` (the empty word) of a kind enum with `name` and `from_word`.
macro_rules! word_traits {
    ($name:ident) => {
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.name())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            /// Any word loads: an unknown one as `Other`.
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d).map(Self::from_word)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.name())
            }
        }

        impl Default for $name {
            /// The empty word (what a record built field by field has before its kind is set).
            fn default() -> Self {
                Self::Other(String::new())
            }
        }
    };
}

/// A kind enum of fixed words plus `Other(String)`: `ALL`, `name`, `parse` and `from_word`.
macro_rules! word_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $($(#[$vmeta:meta])* $variant:ident = $word:literal,)+ }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A word this version does not know, kept as written.
            Other(String),
        }

        impl $name {
            /// Every kind this version knows, in the order they are listed to users.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The word in JSON, SQLite and on the command line.
            pub fn name(&self) -> &str {
                match self {
                    $(Self::$variant => $word,)+
                    Self::Other(word) => word,
                }
            }

            /// The known kind named `word`; `None` for any other word.
            pub fn parse(word: &str) -> Option<Self> {
                match word {
                    $($word => Some(Self::$variant),)+
                    _ => None,
                }
            }

            /// The kind named `word`, known or not (how a record is read).
            pub fn from_word(word: String) -> Self {
                Self::parse(&word).unwrap_or(Self::Other(word))
            }
        }

        word_traits!($name);
    };
}

word_enum! {
    /// A lab target's kind (`fsbench run --lab KIND`, `LabInfo::kind`).
    LabKind {
        /// tmpfs of `--lab-size`.
        Tmpfs = "tmpfs",
        /// ext4 on a loop image.
        Ext4 = "ext4",
        /// xfs on a loop image.
        Xfs = "xfs",
        /// btrfs on a loop image.
        Btrfs = "btrfs",
        /// ext4 with fscrypt on a loop image.
        Ext4Fscrypt = "ext4-fscrypt",
        /// ext4 on dm-crypt over a loop image.
        DmCrypt = "dm-crypt",
        /// Loopback NFS serving a directory of an ext4 loop image.
        Nfs = "nfs",
        /// gocryptfs (FUSE) over a directory of an ext4 loop image.
        Gocryptfs = "gocryptfs",
        /// bindfs (FUSE) over a directory of an ext4 loop image.
        Bindfs = "bindfs",
        /// overlayfs in the lab scratch.
        Overlay = "overlay",
        /// GlusterFS served from simulated server hosts (a brick on an ext4 loop image each).
        Glusterfs = "glusterfs",
        /// sshfs of a directory of an ext4 loop image served by sshd on a simulated host.
        Sshfs = "sshfs",
    }
}

const MIB: u64 = 1 << 20;

impl LabKind {
    /// Smallest `--lab-size` (a suite's `lab_size`) the kind can be built in, bytes: xfs's
    /// smallest filesystem, LUKS2's 16 MiB header plus ext4's smallest; 0 for an unknown kind.
    pub fn min_bytes(&self) -> u64 {
        match self {
            Self::Tmpfs => MIB,
            Self::Ext4
            | Self::Ext4Fscrypt
            | Self::Nfs
            | Self::Gocryptfs
            | Self::Bindfs
            | Self::Glusterfs
            | Self::Sshfs => 16 * MIB,
            Self::Xfs => 300 * MIB,
            Self::Btrfs => 128 * MIB,
            Self::DmCrypt => 32 * MIB,
            Self::Overlay | Self::Other(_) => 0,
        }
    }

    /// Why the kind cannot be aged (`KIND:aged`), or `None` when it can: only a filesystem on an
    /// image of its own (ext4, xfs, btrfs, ext4-fscrypt, dm-crypt) has a disk layout to age.
    pub fn why_not_aged(&self) -> Option<&'static str> {
        match self {
            Self::Tmpfs => Some("its files live in RAM, with no disk layout to fragment"),
            Self::Gocryptfs | Self::Bindfs => Some(
                "it is a FUSE layer; aging would fragment the ext4 image under it, which --lab ext4:aged measures directly",
            ),
            Self::Nfs => Some(
                "it is served over NFS from an ext4 image; aging through NFS would fragment that image, which --lab ext4:aged measures directly",
            ),
            Self::Overlay => Some(
                "its files live on the lab directory's own filesystem, which fsbench did not build",
            ),
            Self::Glusterfs | Self::Sshfs => Some(
                "it is served from a simulated host's ext4 image; aging through the network would fragment that image, which --lab ext4:aged measures directly",
            ),
            Self::Other(_) => Some("this fsbench does not know the kind"),
            Self::Ext4 | Self::Xfs | Self::Btrfs | Self::Ext4Fscrypt | Self::DmCrypt => None,
        }
    }

    /// True for a kind served from simulated hosts over a network (`glusterfs`, `sshfs`): it
    /// takes [`crate::NetSpec`] options (`rtt=`, and `replica=` for GlusterFS).
    pub fn served(&self) -> bool {
        matches!(self, Self::Glusterfs | Self::Sshfs)
    }

    /// True when the kind can be aged (see [`Self::why_not_aged`]).
    pub fn ageable(&self) -> bool {
        self.why_not_aged().is_none()
    }
}

word_enum! {
    /// An encryption layer's kind (`EncryptionLayer::kind`).
    EncryptionKind {
        /// fscrypt on the directory.
        Fscrypt = "fscrypt",
        /// dm-crypt under the filesystem.
        DmCrypt = "dm-crypt",
        /// eCryptfs, a stacked filesystem.
        Ecryptfs = "ecryptfs",
        /// gocryptfs (FUSE).
        Gocryptfs = "gocryptfs",
        /// EncFS (FUSE).
        Encfs = "encfs",
        /// CryFS (FUSE).
        Cryfs = "cryfs",
        /// securefs (FUSE).
        Securefs = "securefs",
    }
}

impl EncryptionKind {
    /// True for the kernel's own encryption (fscrypt, dm-crypt), as opposed to a daemon's.
    pub fn in_kernel(&self) -> bool {
        matches!(self, Self::Fscrypt | Self::DmCrypt)
    }
}

/// A block device's kind (`BlockLayer::kind`): `partition`, `disk`, `loop`, `md`, `dm-crypt`,
/// `dm-TARGET` from the device-mapper table, `dm-lvm`, `dm`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// A whole disk.
    Disk,
    /// A partition of a disk.
    Partition,
    /// A loop device.
    Loop,
    /// A software RAID device.
    Md,
    /// A dm-crypt mapping.
    DmCrypt,
    /// A device-mapper device of LVM whose table could not be read.
    DmLvm,
    /// A device-mapper device whose target could not be found.
    Dm,
    /// A device-mapper device of another target (`linear` in `dm-linear`).
    DmTarget(String),
    /// A word this version does not know, kept as written.
    Other(String),
}

impl BlockKind {
    /// Every kind without a payload, in the order of the documentation.
    pub const ALL: &'static [Self] = &[
        Self::Partition,
        Self::Disk,
        Self::Loop,
        Self::Md,
        Self::DmCrypt,
        Self::DmLvm,
        Self::Dm,
    ];

    /// The device-mapper device of table target `target` (`crypt` is [`Self::DmCrypt`]).
    pub fn dm_target(target: &str) -> Self {
        Self::from_word(format!("dm-{target}"))
    }

    /// The word in JSON and SQLite.
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed(match self {
            Self::Disk => "disk",
            Self::Partition => "partition",
            Self::Loop => "loop",
            Self::Md => "md",
            Self::DmCrypt => "dm-crypt",
            Self::DmLvm => "dm-lvm",
            Self::Dm => "dm",
            Self::DmTarget(t) => return std::borrow::Cow::Owned(format!("dm-{t}")),
            Self::Other(word) => word,
        })
    }

    /// The kind named `word`: `dm-X` of any other target `X` is [`Self::DmTarget`], any word
    /// no version wrote is [`Self::Other`].
    pub fn from_word(word: String) -> Self {
        match word.as_str() {
            "disk" => Self::Disk,
            "partition" => Self::Partition,
            "loop" => Self::Loop,
            "md" => Self::Md,
            "dm-crypt" => Self::DmCrypt,
            "dm-lvm" => Self::DmLvm,
            "dm" => Self::Dm,
            w => match w.strip_prefix("dm-") {
                Some(target) if !target.is_empty() => Self::DmTarget(target.to_string()),
                _ => Self::Other(word),
            },
        }
    }
}

word_traits!(BlockKind);

/// How to age a lab target (`KIND:aged:fill=PCT,churn=N,seed=N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgingSpec {
    /// Fullness to reach, percent of the filesystem (used / (used + available)), 1..=[`AgingSpec::MAX_FILL`].
    pub fill: u32,
    /// Churn rounds after the fill, 0..=[`AgingSpec::MAX_CHURN`].
    pub churn: u32,
    /// Seed of file sizes, directories and deletions.
    pub seed: u64,
}

impl AgingSpec {
    /// Fullness an aged target is filled to when `fill=` is not given, percent.
    pub const DEFAULT_FILL: u32 = 70;
    /// Churn rounds when `churn=` is not given.
    pub const DEFAULT_CHURN: u32 = 10;
    /// Seed of the aging when `seed=` is not given.
    pub const DEFAULT_SEED: u64 = 1;
    /// Highest `fill=`: above it most filesystems slow down for reasons other than
    /// fragmentation (reserved blocks, allocator fallbacks), and the workloads would have no
    /// room.
    pub const MAX_FILL: u32 = 95;
    /// Most `churn=` rounds.
    pub const MAX_CHURN: u32 = 100;
}

impl Default for AgingSpec {
    fn default() -> Self {
        Self {
            fill: Self::DEFAULT_FILL,
            churn: Self::DEFAULT_CHURN,
            seed: Self::DEFAULT_SEED,
        }
    }
}

/// One lab target asked for: the kind, how to age it, and the target's label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabEntry {
    /// The kind built.
    pub kind: LabKind,
    /// Aging before measuring (`KIND:aged`), or `None` for a fresh target.
    pub aging: Option<AgingSpec>,
    /// The target's label (`ext4`, `ext4-aged`, `ext4-aged-fill80`).
    pub label: String,
    /// The entry as given (`ext4:aged:fill=80`), for messages.
    pub text: String,
    /// Options of a kind served from simulated hosts (`glusterfs:replica=2,rtt=2ms`); `None`
    /// for the other kinds.
    pub net: Option<crate::NetSpec>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;

    /// `kind` serialises to `word`, and `word` loads back as `kind`.
    fn round_trips<K>(kind: &K, word: &str)
    where
        K: Serialize + DeserializeOwned + PartialEq + fmt::Debug + fmt::Display,
    {
        let json = serde_json::to_string(kind).unwrap();
        assert_eq!(json, format!("\"{word}\""));
        assert_eq!(&serde_json::from_str::<K>(&json).unwrap(), kind);
        assert_eq!(kind.to_string(), word);
    }

    #[test]
    fn every_lab_kind_is_the_word_it_always_was() {
        let words = [
            "tmpfs",
            "ext4",
            "xfs",
            "btrfs",
            "ext4-fscrypt",
            "dm-crypt",
            "nfs",
            "gocryptfs",
            "bindfs",
            "overlay",
            "glusterfs",
            "sshfs",
        ];
        assert_eq!(LabKind::ALL.len(), words.len());
        for (k, w) in LabKind::ALL.iter().zip(words) {
            round_trips(k, w);
            assert_eq!(LabKind::parse(w).as_ref(), Some(k));
        }
        round_trips(&LabKind::Other("zfs".into()), "zfs");
        assert_eq!(LabKind::parse("zfs"), None);
    }

    #[test]
    fn every_encryption_kind_is_the_word_it_always_was() {
        let words = [
            "fscrypt",
            "dm-crypt",
            "ecryptfs",
            "gocryptfs",
            "encfs",
            "cryfs",
            "securefs",
        ];
        assert_eq!(EncryptionKind::ALL.len(), words.len());
        for (k, w) in EncryptionKind::ALL.iter().zip(words) {
            round_trips(k, w);
        }
        round_trips(
            &EncryptionKind::Other("rclone-crypt".into()),
            "rclone-crypt",
        );
        assert!(EncryptionKind::DmCrypt.in_kernel() && !EncryptionKind::Gocryptfs.in_kernel());
    }

    #[test]
    fn every_block_kind_is_the_word_it_always_was() {
        let words = [
            "partition",
            "disk",
            "loop",
            "md",
            "dm-crypt",
            "dm-lvm",
            "dm",
        ];
        assert_eq!(BlockKind::ALL.len(), words.len());
        for (k, w) in BlockKind::ALL.iter().zip(words) {
            round_trips(k, w);
        }
        round_trips(&BlockKind::DmTarget("linear".into()), "dm-linear");
        round_trips(&BlockKind::Other("nbd".into()), "nbd");
        assert_eq!(BlockKind::dm_target("crypt"), BlockKind::DmCrypt);
        assert_eq!(
            BlockKind::dm_target("thin"),
            BlockKind::DmTarget("thin".into())
        );
        assert_eq!(
            BlockKind::from_word("dm-".into()),
            BlockKind::Other("dm-".into())
        );
    }

    #[test]
    fn a_target_of_an_older_or_newer_version_loads_with_its_kinds() {
        let json = r#"{"label":"t","path":"/m","kind":"dir","fs_type":"ext4","source":"/dev/mapper/x",
            "mount_point":"/m","mount_options":"rw","free_bytes":1,"total_bytes":2,
            "stack":{"encryption":[{"kind":"dm-crypt","summary":"s"},{"kind":"veracrypt","summary":"v"}],
                     "devices":[{"name":"dm-0","dev":"254:0","kind":"dm-crypt"},
                                {"name":"dm-1","dev":"254:1","kind":"dm-thin-pool"},
                                {"name":"sda","dev":"8:0","kind":"disk"},
                                {"name":"x","dev":"1:1","kind":"zoned"}]},
            "lab":{"kind":"zfs"}}"#;
        let t: crate::TargetInfo = serde_json::from_str(json).unwrap();
        let e = &t.stack.encryption;
        assert_eq!(e[0].kind, EncryptionKind::DmCrypt);
        assert_eq!(e[1].kind, EncryptionKind::Other("veracrypt".into()));
        let kinds: Vec<String> = t.stack.devices.iter().map(|d| d.kind.to_string()).collect();
        assert_eq!(kinds, ["dm-crypt", "dm-thin-pool", "disk", "zoned"]);
        assert_eq!(t.stack.devices[2].kind, BlockKind::Disk);
        assert_eq!(
            t.lab.as_ref().map(|l| &l.kind),
            Some(&LabKind::Other("zfs".into()))
        );
        let again: crate::TargetInfo =
            serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
        assert_eq!(again, t);
    }

    #[test]
    fn only_image_filesystems_can_be_aged_and_sizes_have_floors() {
        let ageable: Vec<&str> = LabKind::ALL
            .iter()
            .filter(|k| k.ageable())
            .map(|k| k.name())
            .collect();
        assert_eq!(
            ageable,
            ["ext4", "xfs", "btrfs", "ext4-fscrypt", "dm-crypt"]
        );
        assert_eq!(LabKind::Xfs.min_bytes(), 300 << 20);
        assert_eq!(LabKind::Overlay.min_bytes(), 0);
    }
}
