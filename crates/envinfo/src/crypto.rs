//! Which implementation of a cipher the kernel really uses for an encryption layer. fscrypt and
//! dm-crypt ask the crypto API for an algorithm (`xts(aes)`); the API picks the registered driver
//! of highest priority, which may be a portable C fallback (`aes-generic`, `aes-fixed-time`)
//! even on a CPU with AES instructions when the accelerated module is missing. That choice can
//! double the cost of every encrypted byte, so it is named wherever the layer is shown.
//! Sources: fscrypt's own kernel-log line (`fscrypt: AES-256-XTS using implementation "..."`),
//! else `/proc/crypto`.

use fsbench_model::CryptoImpl;

/// One `/proc/crypto` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CryptoEntry {
    /// Algorithm name (`xts(aes)`).
    pub name: String,
    /// Driver name (`xts(ecb(aes-fixed-time))`).
    pub driver: String,
    /// Priority: the crypto API uses the highest.
    pub priority: i64,
}

/// Parses `/proc/crypto` (blank-line-separated `key : value` blocks).
pub fn parse_proc_crypto(text: &str) -> Vec<CryptoEntry> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut name = None;
        let mut driver = None;
        let mut priority = None;
        for line in block.lines() {
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let v = v.trim().to_string();
            match k.trim() {
                "name" => name = Some(v),
                "driver" => driver = Some(v),
                "priority" => priority = v.parse().ok(),
                _ => {}
            }
        }
        if let (Some(name), Some(driver)) = (name, driver) {
            out.push(CryptoEntry {
                name,
                driver,
                priority: priority.unwrap_or(0),
            });
        }
    }
    out
}

/// The `(mode, driver)` pairs of fscrypt's kernel-log lines, latest last.
pub fn parse_fscrypt_log(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let rest = &l[l.find("fscrypt: ")? + "fscrypt: ".len()..];
            let (mode, tail) = rest.split_once(" using implementation \"")?;
            let driver = tail.split('"').next()?;
            Some((mode.trim().to_string(), driver.to_string()))
        })
        .collect()
}

/// The crypto-API algorithm behind an fscrypt mode name (`AES-256-XTS` → `xts(aes)`).
pub fn fscrypt_algorithm(mode: &str) -> Option<&'static str> {
    Some(match mode {
        "AES-256-XTS" => "xts(aes)",
        "AES-256-CTS" | "AES-128-CTS" => "cts(cbc(aes))",
        "AES-128-CBC-ESSIV" => "essiv(cbc(aes),sha256)",
        "Adiantum" => "adiantum(xchacha12,aes)",
        "AES-256-HCTR2" => "hctr2(aes)",
        _ => return None,
    })
}

/// The crypto-API algorithm behind a dm-crypt cipher spec (`aes-xts-plain64` → `xts(aes)`,
/// `capi:xts(aes)-plain64` → `xts(aes)`).
pub fn dm_algorithm(cipher: &str) -> Option<String> {
    if let Some(capi) = cipher.strip_prefix("capi:") {
        return Some(capi.rsplit_once('-').map_or(capi, |(a, _)| a).to_string());
    }
    let mut parts = cipher.split('-');
    let (c, mode) = (parts.next()?, parts.next()?);
    Some(format!("{mode}({c})"))
}

/// True for a driver built on the portable C AES (`aes-generic`, `aes-fixed-time`, `aes-lib`)
/// rather than CPU instructions (`aesni`, `-ce`, `vaes`) or an accelerator.
pub fn is_software(driver: &str) -> bool {
    ["aes-generic", "aes-fixed-time", "aes-lib"]
        .iter()
        .any(|s| driver.contains(s))
        || driver == "aes"
}

/// True when `/proc/cpuinfo` lists AES instructions (`aes` among x86 `flags` or arm `Features`).
pub fn cpu_has_aes(cpuinfo: &str) -> bool {
    cpuinfo.lines().any(|l| {
        let Some((k, v)) = l.split_once(':') else {
            return false;
        };
        matches!(k.trim(), "flags" | "Features") && v.split_whitespace().any(|f| f == "aes")
    })
}

/// The implementation used for `algorithm`: the fscrypt log line for `mode` when given and
/// present, else the highest-priority `/proc/crypto` driver; `None` when neither names it (the
/// algorithm was not instantiated yet since boot).
pub fn implementation_in(
    algorithm: &str,
    mode: Option<&str>,
    proc_crypto: &[CryptoEntry],
    log: &[(String, String)],
    cpu_aes: bool,
) -> Option<CryptoImpl> {
    let from_log = mode.and_then(|m| log.iter().rev().find(|(lm, _)| lm == m));
    let (driver, source) = match from_log {
        Some((_, d)) => (d.clone(), "kernel log"),
        None => {
            let best = proc_crypto
                .iter()
                .filter(|e| e.name == algorithm)
                .max_by_key(|e| e.priority)?;
            (best.driver.clone(), "/proc/crypto")
        }
    };
    Some(CryptoImpl {
        algorithm: algorithm.to_string(),
        software: is_software(&driver),
        driver,
        cpu_has_aes: cpu_aes,
        source: source.into(),
    })
}

/// [`implementation_in`] on this machine's `/proc/crypto`, kernel log (`/dev/kmsg`, readable by
/// root) and `/proc/cpuinfo`.
pub fn implementation(algorithm: &str, mode: Option<&str>) -> Option<CryptoImpl> {
    let proc_crypto = std::fs::read_to_string("/proc/crypto")
        .map(|t| parse_proc_crypto(&t))
        .unwrap_or_default();
    let log = mode
        .map(|_| parse_fscrypt_log(&kernel_log()))
        .unwrap_or_default();
    let aes = std::fs::read_to_string("/proc/cpuinfo")
        .map(|t| cpu_has_aes(&t))
        .unwrap_or(false);
    implementation_in(algorithm, mode, &proc_crypto, &log, aes)
}

/// The kernel log's records as text, read without blocking from `/dev/kmsg` (empty when not
/// permitted). Bounded: at most 4 MiB are kept.
fn kernel_log() -> String {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(mut f) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open("/dev/kmsg")
    else {
        return String::new();
    };
    let mut out = String::new();
    let mut buf = vec![0u8; 8192];
    // Each read returns one record; EAGAIN at the end of the buffer, EPIPE when a record was
    // overwritten (reading goes on).
    while out.len() < 4 << 20 {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let rec = String::from_utf8_lossy(&buf[..n]);
                let msg = rec.split_once(';').map_or(&*rec, |(_, m)| m);
                out.push_str(msg.lines().next().unwrap_or(""));
                out.push('\n');
            }
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
            Err(_) => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded from this machine (kernel 6.18, no aesni module): only the fixed-time C AES.
    const PROC_CRYPTO: &str = "name         : xts(aes)\ndriver       : xts(ecb(aes-fixed-time))\nmodule       : kernel\npriority     : 101\ntype         : skcipher\n\nname         : aes\ndriver       : aes-fixed-time\nmodule       : kernel\npriority     : 101\n\nname         : aes\ndriver       : aes-generic\nmodule       : kernel\npriority     : 100\n\nname         : xts(aes)\ndriver       : xts-aes-aesni\nmodule       : aesni_intel\npriority     : 401\n";

    #[test]
    fn the_highest_priority_driver_wins() {
        let e = parse_proc_crypto(PROC_CRYPTO);
        assert_eq!(e.len(), 4);
        let i = implementation_in("xts(aes)", None, &e, &[], true).unwrap();
        assert_eq!(i.driver, "xts-aes-aesni");
        assert!(!i.software);
        let only_c: Vec<_> = e.into_iter().filter(|x| x.priority < 400).collect();
        let i = implementation_in("xts(aes)", None, &only_c, &[], true).unwrap();
        assert_eq!(i.driver, "xts(ecb(aes-fixed-time))");
        assert!(i.software && i.cpu_has_aes);
        assert!(
            i.describe()
                .contains("software, although the CPU has AES instructions")
        );
        assert!(implementation_in("hctr2(aes)", None, &only_c, &[], true).is_none());
    }

    #[test]
    fn fscrypt_log_lines_name_the_implementation_used() {
        let log = "[ 9206.867693] fscrypt: AES-256-CBC-CTS using implementation \"cts(cbc(ecb(aes-fixed-time)))\"\n\
                   fscrypt: AES-256-XTS using implementation \"xts(ecb(aes-fixed-time))\"\nother line\n";
        let l = parse_fscrypt_log(log);
        assert_eq!(l.len(), 2);
        assert_eq!(
            l[1],
            ("AES-256-XTS".into(), "xts(ecb(aes-fixed-time))".into())
        );
        let i = implementation_in("xts(aes)", Some("AES-256-XTS"), &[], &l, false).unwrap();
        assert_eq!(i.source, "kernel log");
        assert!(i.software && !i.cpu_has_aes);
    }

    #[test]
    fn cipher_names_map_to_algorithms() {
        assert_eq!(fscrypt_algorithm("AES-256-XTS"), Some("xts(aes)"));
        assert_eq!(fscrypt_algorithm("AES-256-CTS"), Some("cts(cbc(aes))"));
        assert_eq!(dm_algorithm("aes-xts-plain64").as_deref(), Some("xts(aes)"));
        assert_eq!(
            dm_algorithm("capi:xts(aes)-plain64").as_deref(),
            Some("xts(aes)")
        );
        assert!(is_software("cbc(aes-generic)") && !is_software("xts-aes-vaes-avx512"));
    }

    #[test]
    fn aes_flags_are_read_on_x86_and_arm() {
        assert!(cpu_has_aes("flags\t\t: fpu vme sse2 aes avx\n"));
        assert!(cpu_has_aes("Features\t: fp asimd aes pmull\n"));
        assert!(!cpu_has_aes("flags\t\t: fpu vme sse2 avx\n"));
    }
}
