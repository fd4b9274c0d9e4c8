//! Compact columns of deflated JSON: a cell's profile (its folded stacks repeat the same frames
//! thousands of times: typically a tenth of its JSON) and a replay sample's time by call kind
//! (its kinds and paths repeat from sample to sample).

use fsbench_model::{CallTimes, Profile};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io::{Read, Write};

/// The format's version, first byte of every blob.
const VERSION: u8 = 1;

/// The largest blob's inflated size (a profile keeps at most 2,000 stacks).
const MAX_INFLATED: u64 = 64 << 20;

/// `v` as deflated JSON after the version byte.
fn deflated<T: Serialize>(v: &T) -> Option<Vec<u8>> {
    let json = serde_json::to_vec(v).ok()?;
    let mut z = flate2::write::DeflateEncoder::new(vec![VERSION], flate2::Compression::default());
    z.write_all(&json).ok()?;
    z.finish().ok()
}

/// What [`deflated`] made; `None` when the blob is not one.
fn inflated<T: DeserializeOwned>(blob: &[u8]) -> Option<T> {
    let (&version, body) = blob.split_first()?;
    if version != VERSION {
        return None;
    }
    let mut json = Vec::new();
    flate2::read::DeflateDecoder::new(body)
        .take(MAX_INFLATED)
        .read_to_end(&mut json)
        .ok()?;
    serde_json::from_slice(&json).ok()
}

/// Encodes `p`; `None` when there is no profile.
pub fn encode(p: Option<&Profile>) -> Option<Vec<u8>> {
    deflated(p?)
}

/// Decodes what [`encode`] made; `None` when the blob is not one. Its roles are as stored
/// (schema 10 gave those stored before roles theirs).
pub fn decode(blob: &[u8]) -> Option<Profile> {
    inflated(blob)
}

/// Encodes a sample's time by call kind (`samples.calls`, schema 9); `None` without one.
pub fn encode_calls(c: Option<&CallTimes>) -> Option<Vec<u8>> {
    deflated(c?)
}

/// Decodes what [`encode_calls`] made; `None` when the blob is not one.
pub fn decode_calls(blob: &[u8]) -> Option<CallTimes> {
    inflated(blob)
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

    #[test]
    fn call_times_round_trip() {
        let c = CallTimes {
            kinds: vec![fsbench_model::calls::KindTime {
                kind: "lstat".into(),
                count: 4_847,
                total_ns: 21_000_000,
                p50_ns: 3_900,
                p99_ns: 40_000,
                errors: 3,
                wall_ns: 9_000_000,
            }],
            slowest: vec![fsbench_model::calls::SlowCall {
                kind: "lstat".into(),
                path: "src/a.c".into(),
                thread: 2,
                call: 77,
                ns: 900_000,
            }],
        };
        let blob = encode_calls(Some(&c)).unwrap();
        assert_eq!(decode_calls(&blob), Some(c));
        assert_eq!(encode_calls(None), None);
        assert_eq!(decode_calls(&[1, 0xff]), None);
    }
}
