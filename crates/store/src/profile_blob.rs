//! A cell's profile in one compact column: its folded stacks repeat the same frames thousands
//! of times, so the JSON is deflated (typically to a tenth).

use fsbench_model::Profile;
use std::io::{Read, Write};

/// The format's version, first byte of every blob.
const VERSION: u8 = 1;

/// The largest profile a blob may inflate to (it keeps at most 2,000 stacks).
const MAX_INFLATED: u64 = 64 << 20;

/// Encodes `p`; `None` when there is no profile.
pub fn encode(p: Option<&Profile>) -> Option<Vec<u8>> {
    let json = serde_json::to_vec(p?).ok()?;
    let mut z = flate2::write::DeflateEncoder::new(vec![VERSION], flate2::Compression::default());
    z.write_all(&json).ok()?;
    z.finish().ok()
}

/// Decodes what [`encode`] made; `None` when the blob is not one.
pub fn decode(blob: &[u8]) -> Option<Profile> {
    let (&version, body) = blob.split_first()?;
    if version != VERSION {
        return None;
    }
    let mut json = Vec::new();
    flate2::read::DeflateDecoder::new(body)
        .take(MAX_INFLATED)
        .read_to_end(&mut json)
        .ok()?;
    let mut p: Profile = serde_json::from_slice(&json).ok()?;
    p.fill_legacy_roles();
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_round_trips_smaller_than_its_json() {
        let mut p = Profile::default();
        for i in 0..200 {
            let stack = format!("fsbench;[fsbench];do_syscall_64;vfs_read;filemap_read;f{i}");
            p.on_cpu.insert(stack, i);
        }
        let blob = encode(Some(&p)).unwrap();
        assert!(blob.len() < serde_json::to_vec(&p).unwrap().len() / 3);
        assert_eq!(decode(&blob), Some(p));
        assert_eq!(encode(None), None);
        assert_eq!(decode(&[9, 1, 2]), None);
    }
}
