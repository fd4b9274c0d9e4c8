//! `verify=true`: every block fsbench writes carries a header (a magic number, the CRC-32 of
//! the rest of the block, the block's own offset and a tag naming the write), so a block read back proves it is the one written there, whole and current: a
//! flipped bit fails the checksum, a misplaced write the offset, a lost write the tag. Written
//! by hand because the check sits in the measured read loop and must cost one CRC pass (fio's
//! `verify=crc32c` header does the same job).
//!
//! Writers seal each block before it is written and keep a journal of the last tag per offset;
//! after the sample (outside its timing) the blocks are read back from the device — flushed and
//! dropped from the page cache first, so an encrypting or FUSE stack decodes them again — and
//! checked. Readers check every block they read in a file fsbench sealed when it prepared it.

use crate::file::{self, AlignedBuf, DataFile, DataPattern};
use crate::{Context, WorkloadError};
use std::collections::HashMap;

/// Bytes of the header at the start of each block.
pub const HEADER: usize = 32;

/// Smallest block that can carry a header and something to check.
pub const MIN_BLOCK: u64 = 64;

const MAGIC: u32 = 0x4653_4256; // "FSBV"

/// Writes the header of `block`, which is written at `offset` with `tag`.
pub fn seal(block: &mut [u8], offset: u64, tag: u64) {
    block[0..4].copy_from_slice(&MAGIC.to_le_bytes());
    block[8..16].copy_from_slice(&offset.to_le_bytes());
    block[16..24].copy_from_slice(&tag.to_le_bytes());
    block[24..32].fill(0);
    let crc = crc32fast::hash(&block[8..]);
    block[4..8].copy_from_slice(&crc.to_le_bytes());
}

/// What a block read back was, against what was written there: each says what was expected
/// and what was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Mismatch {
    /// No fsbench header: never written, or overwritten by something else.
    #[error(
        "no fsbench block header (found {found:#010x}, expected {MAGIC:#010x}): the block was never written, or was overwritten"
    )]
    NoHeader {
        /// The magic word found.
        found: u32,
    },
    /// The data does not match its header's checksum.
    #[error(
        "checksum mismatch: the header says {header:#010x}, the data gives {data:#010x} (corrupted data)"
    )]
    Checksum {
        /// The checksum in the header.
        header: u32,
        /// The checksum of the data.
        data: u32,
    },
    /// The block written for another offset.
    #[error(
        "the block written for offset {written_at} was found at {found_at} (a misplaced write)"
    )]
    Misplaced {
        /// Where it was written.
        written_at: u64,
        /// Where it was read.
        found_at: u64,
    },
    /// The file ends inside the block.
    #[error("the file ends {read} bytes into this block (a lost write)")]
    Short {
        /// Bytes of the block the file still has.
        read: usize,
    },
    /// An older write of the block.
    #[error("expected write #{expected}, found write #{found} (a lost or stale write)")]
    Stale {
        /// The write expected last.
        expected: u64,
        /// The write found.
        found: u64,
    },
}

/// Checks `block`, read at `offset`, against its header; `tag`, when known, must match too.
pub fn check(block: &[u8], offset: u64, tag: Option<u64>) -> Result<(), Mismatch> {
    let word = |r: std::ops::Range<usize>| {
        let mut b = [0u8; 8];
        b[..r.len()].copy_from_slice(&block[r]);
        u64::from_le_bytes(b)
    };
    let (magic, crc) = (word(0..4) as u32, word(4..8) as u32);
    if magic != MAGIC {
        return Err(Mismatch::NoHeader { found: magic });
    }
    let (at, found_tag) = (word(8..16), word(16..24));
    let actual = crc32fast::hash(&block[8..]);
    if actual != crc {
        return Err(Mismatch::Checksum {
            header: crc,
            data: actual,
        });
    }
    if at != offset {
        return Err(Mismatch::Misplaced {
            written_at: at,
            found_at: offset,
        });
    }
    match tag {
        Some(t) if t != found_tag => Err(Mismatch::Stale {
            expected: t,
            found: found_tag,
        }),
        _ => Ok(()),
    }
}

/// Which tag each block written in a sample last got, by offset.
#[derive(Debug, Default)]
pub struct Journal {
    last: HashMap<u64, u64>,
}

impl Journal {
    /// Block at `offset` was written with `tag`.
    #[inline]
    pub fn wrote(&mut self, offset: u64, tag: u64) {
        self.last.insert(offset, tag);
    }

    /// Reads back every journalled block of `file` (`bs` each) from the device and checks it;
    /// the bytes checked. The journal is emptied.
    pub fn read_back(
        &mut self,
        ctx: &Context,
        file: &DataFile,
        bs: u64,
    ) -> Result<u64, WorkloadError> {
        let mut blocks: Vec<(u64, u64)> = self.last.drain().collect();
        blocks.sort_unstable();
        check_blocks(ctx, file, bs, blocks.into_iter())
    }
}

/// Reads each `(offset, tag)` block of `file` back from the device and checks it; the bytes
/// checked.
fn check_blocks(
    ctx: &Context,
    file: &DataFile,
    bs: u64,
    blocks: impl Iterator<Item = (u64, u64)>,
) -> Result<u64, WorkloadError> {
    let f = uncached(file)?;
    let mut buf = AlignedBuf::new(bs as usize);
    let mut checked = 0;
    for (off, tag) in blocks {
        if (checked / bs) % file::CANCEL_EVERY == 0 {
            ctx.cancel.check()?;
        }
        read_block(&f, file, &mut buf, off)?;
        check(buf.as_slice(), off, Some(tag)).map_err(|m| mismatch(file, off, &m))?;
        checked += bs;
    }
    Ok(checked)
}

/// Opens `file` for a read-back from the device: its dirty pages flushed, its clean pages
/// dropped, so the blocks come from the storage (and through any decrypting layer) again.
fn uncached(file: &DataFile) -> Result<std::fs::File, WorkloadError> {
    let f = file::open_read(file, false)?;
    file::sync_data(&f, &file.path)?;
    let _ = rustix::fs::fadvise(&f, 0, None, rustix::fs::Advice::DontNeed);
    Ok(f)
}

fn read_block(
    f: &std::fs::File,
    file: &DataFile,
    buf: &mut AlignedBuf,
    off: u64,
) -> Result<(), WorkloadError> {
    let want = buf.as_slice().len();
    let n = file::pread_full(f, buf.as_mut_slice(), off)
        .map_err(|e| WorkloadError::io("read back", &file.path, e))?;
    if n < want {
        return Err(mismatch(file, off, &Mismatch::Short { read: n }));
    }
    Ok(())
}

/// The error of a block that failed its check.
pub fn mismatch(file: &DataFile, off: u64, what: &Mismatch) -> WorkloadError {
    WorkloadError::Invalid(format!(
        "verify failed at offset {off} of {}: {what}",
        file.path.display()
    ))
}

/// Reads back the whole `bs` blocks of `range` of `file`, one every `step` bytes (each sealed
/// with tag `tag`), and checks every one; the bytes checked.
pub fn read_back_range(
    ctx: &Context,
    file: &DataFile,
    (range, step): (std::ops::Range<u64>, u64),
    bs: u64,
    tag: u64,
) -> Result<u64, WorkloadError> {
    let whole = range.end.saturating_sub(range.start) / bs;
    let offsets = (range.start..range.start + whole * bs).step_by(step.max(bs) as usize);
    check_blocks(ctx, file, bs, offsets.map(|off| (off, tag)))
}

/// Writes `file` whole as sealed `bs` blocks (tag 0) for readers that verify: unless it is
/// already there with its size and a valid first block.
pub fn ensure_sealed_file(
    ctx: &Context,
    file: &DataFile,
    bs: u64,
    pattern: DataPattern,
    seed: u64,
) -> Result<(), WorkloadError> {
    if let Ok(f) = file::open_read(file, false) {
        let mut buf = AlignedBuf::new(bs as usize);
        let same = f.metadata().map(|m| m.len() == file.size).unwrap_or(false);
        if same
            && read_block(&f, file, &mut buf, 0).is_ok()
            && check(buf.as_slice(), 0, None).is_ok()
        {
            return Ok(());
        }
    }
    let f = file::open_write(file, false, true)?;
    let mut buf = AlignedBuf::new(bs as usize);
    pattern.fill(buf.as_mut_slice(), seed);
    let mut off = 0;
    while off + bs <= file.size {
        if (off / bs) % file::CANCEL_EVERY == 0 {
            ctx.cancel.check()?;
        }
        pattern.stamp(buf.as_mut_slice(), off / bs);
        seal(buf.as_mut_slice(), off, 0);
        file::pwrite_full(&f, buf.as_slice(), off)
            .map_err(|e| WorkloadError::io("write", &file.path, e))?;
        off += bs;
    }
    file::sync_data(&f, &file.path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_block_checks_and_any_change_is_caught() {
        let mut b = vec![7u8; 4096];
        seal(&mut b, 8192, 3);
        assert_eq!(check(&b, 8192, Some(3)), Ok(()));
        let misplaced = check(&b, 4096, Some(3)).unwrap_err();
        assert!(matches!(
            misplaced,
            Mismatch::Misplaced {
                written_at: 8192,
                found_at: 4096
            }
        ));
        assert!(misplaced.to_string().contains("misplaced"));
        let stale = check(&b, 8192, Some(4)).unwrap_err();
        assert!(stale.to_string().contains("expected write #4"), "{stale}");
        b[1000] ^= 1;
        assert!(matches!(
            check(&b, 8192, Some(3)),
            Err(Mismatch::Checksum { .. })
        ));
        let none = check(&[0u8; 64], 0, None).unwrap_err();
        assert!(none.to_string().contains("header"), "{none}");
    }
}
