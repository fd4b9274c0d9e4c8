//! Throwaway secrets of lab targets (gocryptfs's password, dm-crypt's key file): random, in a new
//! file of mode 0600 inside the lab scratch, removed with it.

use super::error::Error;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Writes 32 random bytes as 64 hex digits to the new file `path` (mode 0600).
pub fn write(path: &Path) -> Result<(), Error> {
    let mut raw = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut raw))
        .map_err(|e| Error::io("read", "/dev/urandom", e))?;
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(hex.as_bytes()))
        .map_err(|e| Error::io("write", path, e))
}
