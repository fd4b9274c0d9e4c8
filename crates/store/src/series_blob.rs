//! A sample's time series in one compact column: up to 1024 intervals of six numbers each would
//! be about 100 KB as JSON in every sample row. Stored instead as LEB128 varints (the interval's
//! end as a difference from the previous one, a missing latency as 0: a latency is at least
//! 1 ns), deflated: a regular series of 1024 intervals takes a few KB.

use fsbench_model::SeriesPoint;
use std::io::{Read, Write};

/// The format's version, first byte of every blob.
const VERSION: u8 = 1;

/// Encodes `points` (taken at `interval_ns`); `None` for an empty series.
pub fn encode(points: &[SeriesPoint], interval_ns: Option<u64>) -> Option<Vec<u8>> {
    if points.is_empty() {
        return None;
    }
    let mut raw = Vec::with_capacity(points.len() * 12);
    put(&mut raw, interval_ns.unwrap_or(0));
    put(&mut raw, points.len() as u64);
    let mut prev = 0;
    for p in points {
        put(&mut raw, p.t_ns.wrapping_sub(prev));
        prev = p.t_ns;
        for v in [p.ops, p.bytes] {
            put(&mut raw, v);
        }
        for v in [p.lat_p50_ns, p.lat_p99_ns, p.lat_max_ns] {
            put(&mut raw, v.unwrap_or(0));
        }
    }
    let mut z = flate2::write::DeflateEncoder::new(vec![VERSION], flate2::Compression::default());
    z.write_all(&raw).ok()?;
    z.finish().ok()
}

/// Decodes what [`encode`] made: the points and their interval; `None` when the blob is not one.
pub fn decode(blob: &[u8]) -> Option<(Vec<SeriesPoint>, Option<u64>)> {
    let (&version, body) = blob.split_first()?;
    if version != VERSION {
        return None;
    }
    let mut raw = Vec::new();
    // A series holds at most 1024 points of six varints (10 bytes at most): bounded.
    flate2::read::DeflateDecoder::new(body)
        .take(1 << 20)
        .read_to_end(&mut raw)
        .ok()?;
    let mut it = raw.as_slice();
    let interval = get(&mut it)?;
    let n = usize::try_from(get(&mut it)?).ok()?.min(1 << 16);
    let mut out = Vec::with_capacity(n);
    let mut t = 0u64;
    for _ in 0..n {
        t = t.wrapping_add(get(&mut it)?);
        let (ops, bytes) = (get(&mut it)?, get(&mut it)?);
        let mut lat = [None; 3];
        for l in &mut lat {
            *l = Some(get(&mut it)?).filter(|&v| v > 0);
        }
        out.push(SeriesPoint {
            t_ns: t,
            ops,
            bytes,
            lat_p50_ns: lat[0],
            lat_p99_ns: lat[1],
            lat_max_ns: lat[2],
        });
    }
    it.is_empty()
        .then_some((out, (interval > 0).then_some(interval)))
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn get(it: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = it.split_first()?;
        *it = rest;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(n: u64) -> Vec<SeriesPoint> {
        (1..=n)
            .map(|k| SeriesPoint {
                t_ns: k * 10_000_000,
                ops: 2500 + k % 7,
                bytes: (2500 + k % 7) * 4096,
                lat_p50_ns: Some(3800 + k % 3),
                lat_p99_ns: if k % 5 == 0 { None } else { Some(191_600) },
                lat_max_ns: Some(u64::MAX / 3),
            })
            .collect()
    }

    #[test]
    fn a_full_series_round_trips_in_a_few_kilobytes() {
        let s = series(1024);
        let blob = encode(&s, Some(10_000_000)).unwrap();
        assert!(blob.len() < 8 * 1024, "{} bytes", blob.len());
        assert_eq!(decode(&blob), Some((s, Some(10_000_000))));
        assert_eq!(encode(&[], None), None);
    }

    #[test]
    fn damaged_blobs_are_refused_not_misread() {
        let blob = encode(&series(10), Some(1)).unwrap();
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[2, 0, 0]), None, "another version");
        assert_eq!(decode(&blob[..blob.len() / 2]), None, "truncated");
        let mut raw = Vec::new();
        put(&mut raw, 1);
        put(&mut raw, 3); // says 3 points, holds none
        let mut z = flate2::write::DeflateEncoder::new(vec![VERSION], flate2::Compression::fast());
        z.write_all(&raw).unwrap();
        assert_eq!(decode(&z.finish().unwrap()), None);
    }
}
