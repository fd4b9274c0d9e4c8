//! Gathers the encryption layers of a stack (fscrypt on the directory, a stacked or FUSE
//! encrypting filesystem, dm-crypt below, and whatever encrypts a loop device's backing file) and
//! says in one short string what was found: the layers, `none`, or `unknown` when a layer could
//! not be looked into.

use super::fscrypt::{self, Probe};
use fsbench_model::{BlockKind, DmCryptInfo, EncryptionKind, EncryptionLayer, Stack};

/// Encryption implied by a filesystem type or FUSE subtype alone.
pub fn fs_encryption(fs_type: &str, fuse_subtype: Option<&str>) -> Option<EncryptionKind> {
    let name = match fs_type {
        "ecryptfs" => return Some(EncryptionKind::Ecryptfs),
        "fuse" | "fuseblk" => fuse_subtype?,
        t => t.strip_prefix("fuse.")?,
    };
    match name {
        "gocryptfs" => Some(EncryptionKind::Gocryptfs),
        "encfs" => Some(EncryptionKind::Encfs),
        "cryfs" => Some(EncryptionKind::Cryfs),
        "securefs" => Some(EncryptionKind::Securefs),
        _ => None,
    }
}

/// The layers of `stack` (whose `fuse` and `devices` are filled), top first.
pub fn layers(
    fs_type: &str,
    stack: &Stack,
    probe: &Probe,
    crypt: &[DmCryptInfo],
) -> Vec<EncryptionLayer> {
    let mut out = Vec::new();
    let subtype = stack.fuse.as_ref().map(|f| f.subtype.as_str());
    if let Some(kind) = fs_encryption(fs_type, subtype) {
        out.push(EncryptionLayer {
            summary: kind.to_string(),
            level: "filesystem".into(),
            implementation: daemon_cipher(&kind),
            kind,
            ..EncryptionLayer::default()
        });
    }
    if let Probe::Encrypted(p) = probe {
        let mode = p.contents_mode.as_str();
        out.push(EncryptionLayer {
            kind: EncryptionKind::Fscrypt,
            summary: fscrypt::summary(p),
            level: "directory".into(),
            fscrypt: Some(p.clone()),
            implementation: super::crypto::fscrypt_algorithm(mode)
                .and_then(|a| super::crypto::implementation(a, Some(mode))),
            ..EncryptionLayer::default()
        });
    }
    for c in crypt {
        out.push(EncryptionLayer {
            kind: EncryptionKind::DmCrypt,
            summary: super::dmcrypt::summary(c),
            level: format!("block {}", c.device),
            dm_crypt: Some(c.clone()),
            implementation: c
                .cipher
                .as_deref()
                .and_then(super::crypto::dm_algorithm)
                .and_then(|a| super::crypto::implementation(&a, None)),
            ..EncryptionLayer::default()
        });
    }
    out.extend(inherited(stack));
    out
}

/// The cipher a FUSE encrypting daemon runs in user space: gocryptfs uses Go's AES-GCM, which
/// uses the CPU's AES instructions when it has them (else a constant-time software AES).
fn daemon_cipher(kind: &EncryptionKind) -> Option<fsbench_model::CryptoImpl> {
    let aes = std::fs::read_to_string("/proc/cpuinfo")
        .map(|t| super::crypto::cpu_has_aes(&t))
        .unwrap_or(false);
    let (algorithm, driver) = match kind {
        EncryptionKind::Gocryptfs => ("AES-256-GCM", "Go crypto/aes in the gocryptfs daemon"),
        _ => return None,
    };
    Some(fsbench_model::CryptoImpl {
        algorithm: algorithm.into(),
        driver: driver.into(),
        software: !aes,
        cpu_has_aes: aes,
        source: "the daemon".into(),
    })
}

/// The layers found under loop devices' backing files, marked as such.
fn inherited(stack: &Stack) -> Vec<EncryptionLayer> {
    let mut out = Vec::new();
    for layer in &stack.devices {
        let Some(backing) = layer
            .loop_device
            .as_ref()
            .and_then(|l| l.backing.as_deref())
        else {
            continue;
        };
        out.extend(backing.stack.encryption.iter().map(|e| EncryptionLayer {
            summary: format!("{} (under {})", e.summary, layer.name),
            level: format!("under {}", layer.name),
            ..e.clone()
        }));
    }
    out
}

/// The short `encryption` string of a target.
pub fn short(fs_type: &str, stack: &Stack) -> String {
    if !stack.encryption.is_empty() {
        let parts: Vec<&str> = stack
            .encryption
            .iter()
            .map(|e| e.summary.as_str())
            .collect();
        return parts.join(" over ");
    }
    match unknown_reason(fs_type, stack) {
        Some(why) => format!("unknown ({why})"),
        None => "none".into(),
    }
}

/// Why "none" cannot be claimed, if it cannot.
fn unknown_reason(fs_type: &str, stack: &Stack) -> Option<String> {
    if let Some(why) = stack.fscrypt_status.strip_prefix("unknown: ") {
        return Some(format!("fscrypt: {why}"));
    }
    if super::fsdetails::is_network(fs_type) {
        return Some("storage is on the server".into());
    }
    if stack.fuse.is_some() {
        return Some("storage is behind the FUSE daemon".into());
    }
    if let Some(l) = stack.devices.iter().find(|l| l.kind == BlockKind::Dm) {
        return Some(format!("{}: device-mapper target unknown", l.name));
    }
    let undescribed = stack.devices.iter().find(|l| {
        l.loop_device
            .as_ref()
            .is_some_and(|lo| lo.backing.is_none())
    });
    undescribed.map(|l| format!("{}: backing file not described", l.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{BlockLayer, FscryptPolicy, FuseInfo, LoopInfo, TargetInfo};

    #[test]
    fn filesystem_types_name_their_encryption() {
        assert_eq!(
            fs_encryption("fuse.gocryptfs", None),
            Some(EncryptionKind::Gocryptfs)
        );
        assert_eq!(
            fs_encryption("fuse", Some("encfs")),
            Some(EncryptionKind::Encfs)
        );
        assert_eq!(
            fs_encryption("ecryptfs", None),
            Some(EncryptionKind::Ecryptfs)
        );
        assert_eq!(fs_encryption("fuse.sshfs", None), None);
        assert_eq!(
            fs_encryption("ext4", Some("cryfs")),
            None,
            "only FUSE takes a subtype"
        );
    }

    #[test]
    fn fscrypt_and_dm_crypt_are_both_listed_top_first() {
        let p = FscryptPolicy {
            version: 2,
            contents_mode: "AES-256-XTS".into(),
            filenames_mode: "AES-256-CTS".into(),
            ..FscryptPolicy::default()
        };
        let c = DmCryptInfo {
            device: "dm-0".into(),
            cipher: Some("aes-xts-plain64".into()),
            key_bits: Some(512),
            ..DmCryptInfo::default()
        };
        let mut s = Stack::default();
        s.encryption = layers("ext4", &s, &Probe::Encrypted(p), &[c]);
        assert_eq!(s.encryption[1].level, "block dm-0");
        assert_eq!(
            short("ext4", &s),
            "fscrypt v2 AES-256-XTS/AES-256-CTS over dm-crypt aes-xts-plain64 512-bit"
        );
    }

    #[test]
    fn none_only_when_every_layer_was_checked() {
        let mut s = Stack {
            fscrypt_status: "unsupported".into(),
            ..Stack::default()
        };
        assert_eq!(short("tmpfs", &s), "none");
        s.fuse = Some(FuseInfo::default());
        assert_eq!(
            short("fuse", &s),
            "unknown (storage is behind the FUSE daemon)"
        );
        s.fuse = None;
        assert_eq!(short("nfs4", &s), "unknown (storage is on the server)");
        s.fscrypt_status = "unknown: Permission denied".into();
        assert_eq!(short("ext4", &s), "unknown (fscrypt: Permission denied)");
    }

    #[test]
    fn a_loop_image_inherits_its_backing_file_encryption() {
        let mut backing = TargetInfo::default();
        backing.stack.encryption.push(EncryptionLayer {
            kind: EncryptionKind::Fscrypt,
            summary: "fscrypt v2 AES-256-XTS/AES-256-CTS".into(),
            level: "directory".into(),
            ..EncryptionLayer::default()
        });
        let mut s = Stack {
            fscrypt_status: "not encrypted".into(),
            devices: vec![BlockLayer {
                name: "loop0".into(),
                kind: BlockKind::Loop,
                loop_device: Some(LoopInfo {
                    backing: Some(Box::new(backing)),
                    ..LoopInfo::default()
                }),
                ..BlockLayer::default()
            }],
            ..Stack::default()
        };
        s.encryption = layers("xfs", &s, &Probe::NotEncrypted, &[]);
        assert_eq!(s.encryption[0].level, "under loop0");
        assert_eq!(
            short("xfs", &s),
            "fscrypt v2 AES-256-XTS/AES-256-CTS (under loop0)"
        );
        if let Some(l) = s.devices[0].loop_device.as_mut() {
            l.backing = None;
        }
        s.encryption.clear();
        assert_eq!(
            short("xfs", &s),
            "unknown (loop0: backing file not described)"
        );
    }
}
