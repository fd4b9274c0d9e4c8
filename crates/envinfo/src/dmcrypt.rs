//! device-mapper layers: the mapping's format from its sysfs uuid (`CRYPT-LUKS2-…`) and, for
//! dm-crypt, the cipher and key size from its table in `dmsetup table` format
//! (`START LEN crypt CIPHER KEY IV_OFFSET DEVICE OFFSET [N OPTION...]`, see the kernel's
//! `Documentation/admin-guide/device-mapper/dm-crypt.rst`). Reading a table needs the
//! DM_TABLE_STATUS ioctl; fsbench asks `dmsetup` for it when it is installed.

use fsbench_model::DmCryptInfo;

/// Reads the table of the mapping `name`; `Err` holds why it is unknown.
pub type TableReader<'a> = &'a dyn Fn(&str) -> Result<String, NoTable>;

/// Why a mapping's table is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoTable {
    /// `dmsetup` is not installed.
    NoDmsetup,
    /// `dmsetup` could not be run.
    Spawn(String),
    /// `dmsetup table NAME` failed, saying this.
    Refused {
        /// The mapping.
        name: String,
        /// What dmsetup wrote to stderr.
        stderr: String,
    },
    /// The mapping's name could not be read from sysfs.
    Unnamed,
}

impl std::fmt::Display for NoTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoDmsetup => f.write_str("install dmsetup"),
            Self::Spawn(e) => write!(f, "dmsetup: {e}"),
            Self::Refused { name, stderr } => write!(f, "dmsetup table {name}: {stderr}"),
            Self::Unnamed => f.write_str("dm/name is unreadable"),
        }
    }
}

impl std::error::Error for NoTable {}

/// One `crypt` target line of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct CryptLine {
    /// Cipher spec (`aes-xts-plain64`, `capi:xts(aes)-plain64`).
    pub cipher: String,
    /// Key size in bits (hex digits × 4, or the `:SIZE:` of a keyring key × 8).
    pub key_bits: Option<u32>,
    /// Encryption sector size in bytes.
    pub sector_size: u32,
    /// Optional arguments after the fixed ones.
    pub options: Vec<String>,
}

/// Parses the first `crypt` line of a table.
pub fn parse_crypt_table(table: &str) -> Option<CryptLine> {
    table.lines().find_map(parse_crypt_line)
}

fn parse_crypt_line(line: &str) -> Option<CryptLine> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.get(2) != Some(&"crypt") || f.len() < 8 {
        return None;
    }
    let key = f[4];
    let key_bits = match key.strip_prefix(':') {
        Some(kr) => kr
            .split(':')
            .next()
            .and_then(|n| n.parse::<u32>().ok())
            .map(|b| b * 8),
        None if key != "-" && key.bytes().all(|c| c.is_ascii_hexdigit()) => {
            Some(key.len() as u32 * 4)
        }
        None => None,
    };
    let count: usize = f.get(8).and_then(|n| n.parse().ok()).unwrap_or(0);
    let options: Vec<String> = f
        .iter()
        .skip(9)
        .take(count)
        .map(|s| s.to_string())
        .collect();
    let sector_size = options
        .iter()
        .find_map(|o| o.strip_prefix("sector_size:"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(512);
    Some(CryptLine {
        cipher: f[3].to_string(),
        key_bits,
        sector_size,
        options: options
            .into_iter()
            .filter(|o| !o.starts_with("sector_size:"))
            .collect(),
    })
}

/// The target type of a table's first line (`crypt`, `linear`, `striped`, `thin`...).
pub fn target_type(table: &str) -> Option<&str> {
    table.lines().next()?.split_whitespace().nth(2)
}

/// The format named by a dm uuid: `CRYPT-LUKS2-…` → `LUKS2`, `CRYPT-PLAIN-…` → `PLAIN`,
/// `LVM-…` → `LVM`; `unknown` otherwise.
pub fn uuid_format(uuid: &str) -> String {
    let mut parts = uuid.trim().split('-');
    match (parts.next(), parts.next()) {
        (Some("CRYPT"), Some(f)) if !f.is_empty() => f.to_string(),
        (Some(p), _) if !p.is_empty() => p.to_string(),
        _ => "unknown".into(),
    }
}

/// A dm-crypt layer from its sysfs facts and (when readable) its table.
pub fn crypt_info(
    device: &str,
    name: &str,
    uuid: &str,
    table: &Result<String, NoTable>,
) -> DmCryptInfo {
    let mut info = DmCryptInfo {
        device: device.to_string(),
        name: name.to_string(),
        format: uuid_format(uuid),
        ..DmCryptInfo::default()
    };
    match table.as_ref().map(|t| parse_crypt_table(t)) {
        Ok(Some(line)) => {
            info.cipher = Some(line.cipher);
            info.key_bits = line.key_bits;
            info.sector_size = Some(line.sector_size);
            info.options = line.options;
        }
        Ok(None) => info.note = "cipher unknown: no crypt line in the table".into(),
        Err(why) => info.note = format!("cipher unknown: {why}"),
    }
    info
}

/// Short text for tables: `dm-crypt aes-xts-plain64 512-bit`.
pub fn summary(i: &DmCryptInfo) -> String {
    match (&i.cipher, i.key_bits) {
        (Some(c), Some(b)) => format!("dm-crypt {c} {b}-bit"),
        (Some(c), None) => format!("dm-crypt {c}"),
        _ if i.note.is_empty() => "dm-crypt (cipher unknown)".into(),
        _ => format!("dm-crypt ({})", i.note),
    }
}

/// The table of mapping `name` from `dmsetup table NAME` (needs root); `Err` says why not.
pub fn dmsetup_table(name: &str) -> Result<String, NoTable> {
    if !super::on_path("dmsetup") {
        return Err(NoTable::NoDmsetup);
    }
    let out = std::process::Command::new("dmsetup")
        .args(["table", name])
        .output()
        .map_err(|e| NoTable::Spawn(e.to_string()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(NoTable::Refused {
            name: name.to_string(),
            stderr,
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luks2_keyring_table_gives_cipher_key_size_and_options() {
        let t = "0 1953521664 crypt aes-xts-plain64 \
                 :64:logon:cryptsetup:8f2a1c3e-d0 0 8:2 32768 \
                 3 allow_discards sector_size:4096 no_read_workqueue\n";
        let l = parse_crypt_table(t).unwrap();
        assert_eq!(l.cipher, "aes-xts-plain64");
        assert_eq!(l.key_bits, Some(512));
        assert_eq!(l.sector_size, 4096);
        assert_eq!(l.options, ["allow_discards", "no_read_workqueue"]);
    }

    #[test]
    fn hex_key_and_capi_cipher_without_options() {
        let key = "0".repeat(64);
        let t = format!("0 409600 crypt capi:cbc(aes)-essiv:sha256 {key} 0 253:1 0");
        let l = parse_crypt_table(&t).unwrap();
        assert_eq!(l.cipher, "capi:cbc(aes)-essiv:sha256");
        assert_eq!(l.key_bits, Some(256));
        assert_eq!(l.sector_size, 512);
        assert!(l.options.is_empty());
    }

    #[test]
    fn non_crypt_tables_are_not_crypt() {
        assert_eq!(parse_crypt_table("0 2048 linear 8:3 2048\n"), None);
        assert_eq!(parse_crypt_table("0 2048 crypt aes"), None, "truncated");
        assert_eq!(target_type("0 2048 linear 8:3 2048\n"), Some("linear"));
        assert_eq!(target_type(""), None);
    }

    #[test]
    fn uuid_names_the_format() {
        assert_eq!(uuid_format("CRYPT-LUKS2-0a1b2c-root\n"), "LUKS2");
        assert_eq!(uuid_format("CRYPT-PLAIN-swap"), "PLAIN");
        assert_eq!(uuid_format("LVM-abcdef"), "LVM");
        assert_eq!(uuid_format(""), "unknown");
    }

    #[test]
    fn unknown_cipher_says_why() {
        let i = crypt_info("dm-0", "root", "CRYPT-LUKS1-x", &Err(NoTable::NoDmsetup));
        assert_eq!(i.format, "LUKS1");
        assert_eq!(i.cipher, None);
        assert_eq!(summary(&i), "dm-crypt (cipher unknown: install dmsetup)");
        let ok = crypt_info(
            "dm-0",
            "root",
            "CRYPT-LUKS2-x",
            &Ok("0 8 crypt aes-xts-plain64 :64:logon:k 0 8:2 4096".into()),
        );
        assert_eq!(summary(&ok), "dm-crypt aes-xts-plain64 512-bit");
        assert_eq!(ok.sector_size, Some(512));
    }
}
