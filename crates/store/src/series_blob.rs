//! A sample's time series in one compact column: up to 1024 intervals of six numbers each would
//! be about 100 KB as JSON in every sample row. Stored instead as LEB128 varints (the interval's
//! end as a difference from the previous one, a missing latency as 0: a latency is at least
//! 1 ns), deflated: a regular series of 1024 intervals takes a few KB. A short series (a few
//! intervals: most samples of a quick run) is kept as plain varints, and one deflate state is
//! reused by each thread: setting up a new compressor (some 300 KB zeroed) cost more than all the
//! rest of storing a sample.

use fsbench_model::SeriesPoint;
use std::cell::RefCell;
use std::io::Read;

/// First byte of a deflated blob (the format's first version).
const VERSION: u8 = 1;
/// First byte of a blob of plain varints.
const PLAIN: u8 = 2;
/// Varints shorter than this are kept plain: deflate would save a few bytes at most.
const PLAIN_BELOW: usize = 512;

thread_local! {
    /// The deflate state of this thread, reset for every blob.
    static DEFLATE: RefCell<flate2::Compress> =
        RefCell::new(flate2::Compress::new(flate2::Compression::default(), false));
}

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
    if raw.len() < PLAIN_BELOW {
        let mut blob = Vec::with_capacity(raw.len() + 1);
        blob.push(PLAIN);
        blob.extend_from_slice(&raw);
        return Some(blob);
    }
    DEFLATE.with_borrow_mut(|z| deflate(z, &raw))
}

/// `raw` deflated by `z` (reset first) after the version byte.
fn deflate(z: &mut flate2::Compress, raw: &[u8]) -> Option<Vec<u8>> {
    z.reset();
    let mut blob = Vec::with_capacity(raw.len() / 2 + 64);
    blob.push(VERSION);
    loop {
        let consumed = usize::try_from(z.total_in()).ok()?;
        if blob.len() == blob.capacity() {
            blob.reserve(blob.capacity());
        }
        let status = z
            .compress_vec(&raw[consumed..], &mut blob, flate2::FlushCompress::Finish)
            .ok()?;
        if status == flate2::Status::StreamEnd {
            return Some(blob);
        }
    }
}

/// Decodes what [`encode`] made: the points and their interval; `None` when the blob is not one.
pub fn decode(blob: &[u8]) -> Option<(Vec<SeriesPoint>, Option<u64>)> {
    let (&version, body) = blob.split_first()?;
    let mut raw = Vec::new();
    match version {
        PLAIN => raw.extend_from_slice(body),
        // A series holds at most 1024 points of six varints (10 bytes at most): bounded.
        VERSION => {
            flate2::read::DeflateDecoder::new(body)
                .take(1 << 20)
                .read_to_end(&mut raw)
                .ok()?;
        }
        _ => return None,
    }
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
        assert_eq!(blob[0], VERSION, "deflated");
        assert!(blob.len() < 8 * 1024, "{} bytes", blob.len());
        assert_eq!(decode(&blob), Some((s, Some(10_000_000))));
        assert_eq!(encode(&[], None), None);
        // The reused state gives every blob whole, the same each time.
        assert_eq!(encode(&series(1024), Some(10_000_000)), Some(blob));
    }

    #[test]
    fn a_short_series_is_kept_plain_and_round_trips() {
        let s = series(3);
        let blob = encode(&s, Some(5)).unwrap();
        assert_eq!(blob[0], PLAIN);
        assert_eq!(decode(&blob), Some((s, Some(5))));
    }

    #[test]
    fn blobs_of_the_first_version_still_decode() {
        use std::io::Write;
        let s = series(40);
        let mut raw = Vec::new();
        put(&mut raw, 7);
        put(&mut raw, 40);
        let mut prev = 0;
        for p in &s {
            put(&mut raw, p.t_ns - prev);
            prev = p.t_ns;
            for v in [p.ops, p.bytes] {
                put(&mut raw, v);
            }
            for v in [p.lat_p50_ns, p.lat_p99_ns, p.lat_max_ns] {
                put(&mut raw, v.unwrap_or(0));
            }
        }
        let mut z =
            flate2::write::DeflateEncoder::new(vec![VERSION], flate2::Compression::default());
        z.write_all(&raw).unwrap();
        assert_eq!(decode(&z.finish().unwrap()), Some((s, Some(7))));
    }

    #[test]
    fn damaged_blobs_are_refused_not_misread() {
        let blob = encode(&series(10), Some(1)).unwrap();
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[9, 0, 0]), None, "another version");
        assert_eq!(decode(&blob[..blob.len() / 2]), None, "truncated");
        let mut raw = Vec::new();
        put(&mut raw, 1);
        put(&mut raw, 3); // says 3 points, holds none
        use std::io::Write;
        let mut z = flate2::write::DeflateEncoder::new(vec![VERSION], flate2::Compression::fast());
        z.write_all(&raw).unwrap();
        assert_eq!(decode(&z.finish().unwrap()), None);
    }
}
