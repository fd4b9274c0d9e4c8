//! A sample's JSON in its row, compressed against its cell's first sample (LZ4, that sample as
//! the dictionary). The samples of a cell repeat the same keys, structure and most values, so a
//! 1.4 KB sample becomes about 150–450 bytes in 2–3 µs: the rows of a 10,000-sample run then
//! take a sixth of the log and of the checkpoint that copies it at the end (issue 32: the store's
//! cost on short samples was mostly the bytes it wrote). A sample that does not get smaller is
//! stored as plain JSON text.

/// The format's version, first byte of every blob.
const VERSION: u8 = 1;

/// The largest sample a blob may claim to inflate to (a sample's JSON is a few KB; its long
/// series and histogram have their own columns).
const MAX_INFLATED: usize = 16 << 20;

/// `json` compressed against `dict`; `None` when that is not smaller than `json` itself.
pub fn encode(json: &[u8], dict: &[u8]) -> Option<Vec<u8>> {
    let len = u32::try_from(json.len()).ok()?;
    let mut out = Vec::with_capacity(json.len() / 2);
    out.push(VERSION);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&lz4_flex::block::compress_with_dict(json, dict));
    (out.len() < json.len()).then_some(out)
}

/// The JSON that [`encode`] compressed against the same `dict`; `None` when the blob is not one
/// (another version, truncated, or damaged).
pub fn decode(blob: &[u8], dict: &[u8]) -> Option<Vec<u8>> {
    let (&version, rest) = blob.split_first()?;
    if version != VERSION || rest.len() < 4 {
        return None;
    }
    let (len, body) = rest.split_at(4);
    let len = u32::from_le_bytes(len.try_into().ok()?) as usize;
    if len > MAX_INFLATED {
        return None;
    }
    let json = lz4_flex::block::decompress_with_dict(body, len, dict).ok()?;
    (json.len() == len).then_some(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRST: &[u8] = br#"{"wall_ns":34875,"user_ns":0,"sys_ns":37000,"ops":1000,"metrics":{"cpu_pct":106.09,"iops":28673835.1}}"#;
    const NEXT: &[u8] = br#"{"wall_ns":35012,"user_ns":0,"sys_ns":36000,"ops":1000,"metrics":{"cpu_pct":102.82,"iops":28561190.7}}"#;

    #[test]
    fn a_sample_like_the_first_shrinks_and_comes_back_exactly() {
        let blob = encode(NEXT, FIRST).expect("smaller");
        assert!(
            blob.len() < NEXT.len() / 2,
            "{} of {}",
            blob.len(),
            NEXT.len()
        );
        assert_eq!(decode(&blob, FIRST).as_deref(), Some(NEXT));
        // The first sample against itself: a few bytes.
        assert!(encode(FIRST, FIRST).unwrap().len() < 20);
    }

    #[test]
    fn a_sample_that_does_not_shrink_is_not_encoded() {
        assert_eq!(encode(b"{}", FIRST), None);
    }

    #[test]
    fn damaged_or_foreign_blobs_are_refused_not_misread() {
        let blob = encode(NEXT, FIRST).unwrap();
        assert_eq!(decode(&blob[..blob.len() - 3], FIRST), None, "truncated");
        assert_eq!(decode(&blob[..3], FIRST), None, "no length");
        let mut other = blob.clone();
        other[0] = 9;
        assert_eq!(decode(&other, FIRST), None, "another version");
        let mut huge = blob.clone();
        huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&huge, FIRST), None, "a length beyond any sample");
        let mut flipped = blob;
        let last = flipped.len() - 1;
        flipped[last] ^= 0xff;
        assert_ne!(decode(&flipped, FIRST).as_deref(), Some(NEXT));
    }
}
