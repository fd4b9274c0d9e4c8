//! Latency histograms as text: HdrHistogram's standard V2 format, deflate-compressed and base64
//! encoded (the encoding of HdrHistogram's own log files), so a stored sample keeps its exact
//! distribution and percentiles can be recomputed and histograms merged later, by fsbench or any
//! other HdrHistogram tool.

use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

/// An empty histogram with the layout of every recorder's (so histograms merge exactly).
pub fn new_histogram() -> Histogram<u64> {
    crate::recorder::new_histogram()
}

/// Encodes `h`; `None` for an empty histogram or if encoding fails.
pub fn encode(h: &Histogram<u64>) -> Option<String> {
    if h.is_empty() {
        return None;
    }
    let mut bytes = Vec::new();
    V2DeflateSerializer::new().serialize(h, &mut bytes).ok()?;
    Some(base64_encode(&bytes))
}

/// Decodes what [`encode`] produced; `None` when the text is not a valid histogram.
pub fn decode(text: &str) -> Option<Histogram<u64>> {
    let bytes = base64_decode(text)?;
    Deserializer::new().deserialize(&mut bytes.as_slice()).ok()
}

fn base64_encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let clean: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD.decode(clean).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_every_count() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        for v in [
            1u64,
            500,
            4_096,
            90_000,
            1_000_000,
            1_000_000,
            3_000_000_000,
        ] {
            h.record(v).unwrap();
        }
        let text = encode(&h).unwrap();
        let back = decode(&text).unwrap();
        assert_eq!(back.len(), h.len());
        for q in [0.0, 0.5, 0.9, 0.99, 1.0] {
            assert_eq!(back.value_at_quantile(q), h.value_at_quantile(q));
        }
        assert!(decode("not base64!").is_none());
        assert!(encode(&Histogram::<u64>::new(3).unwrap()).is_none());
    }

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64_encode(b"f"), "Zg==");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_decode("Zm9vYg==").unwrap(), b"foob");
    }
}
