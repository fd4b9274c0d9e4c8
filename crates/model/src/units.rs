//! Parsing of human sizes (`4k`, `1m`, `2g`: powers of 1024) and durations (`500ms`, `5s`, `2m`).

/// A size or duration that could not be read; its message shows the accepted format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnitError {
    /// Not a size.
    #[error("invalid size '{0}': use a number with an optional k, m, g or t suffix (4k = 4096)")]
    Size(String),
    /// Not a duration.
    #[error("invalid duration '{0}': use a number with ns, us, ms, s, m or h (500ms, 5s, 2m)")]
    Duration(String),
}

/// Parses a size: a non-negative integer with an optional suffix `k`, `m`, `g`, `t` (powers of
/// 1024, case-insensitive, an optional trailing `b`/`ib` accepted: `4KiB`). Returns bytes.
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let body = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (digits, mult) = match body.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c {
                'k' => 1 << 10,
                'm' => 1 << 20,
                'g' => 1 << 30,
                't' => 1 << 40,
                _ => return Err(size_error(text)),
            };
            (&body[..i], m)
        }
        _ => (body, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(size_error(text));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| size_error(text))
}

fn size_error(text: &str) -> UnitError {
    UnitError::Size(text.to_string())
}

/// Parses a duration: a number with a unit `ns`, `us`, `ms`, `s`, `m` or `h` (a bare number means
/// seconds). Returns nanoseconds.
pub fn parse_duration(text: &str) -> Result<u64, UnitError> {
    let t = text.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: f64 = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "" | "s" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        _ => return Err(duration_error(text)),
    };
    match num.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 && n * mult < u64::MAX as f64 => Ok((n * mult) as u64),
        _ => Err(duration_error(text)),
    }
}

fn duration_error(text: &str) -> UnitError {
    UnitError::Duration(text.to_string())
}

/// Formats bytes compactly in powers of 1024 (`4k`, `1m`, `1536k`), exact when possible.
pub fn format_size(bytes: u64) -> String {
    for (suffix, shift) in [("t", 40), ("g", 30), ("m", 20), ("k", 10)] {
        if bytes != 0 && bytes % (1u64 << shift) == 0 {
            return format!("{}{suffix}", bytes >> shift);
        }
    }
    bytes.to_string()
}

/// Formats a byte count for people, in powers of 1024 with one decimal: `512 B`, `1.5 KiB`,
/// `3.0 GiB`.
pub fn format_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

/// A duration for people: `0.8 s`, `45 s`, `3 min 20 s`, `1 h 05 min`.
pub fn format_seconds(seconds: f64) -> String {
    if seconds < 9.95 {
        return format!("{seconds:.1} s");
    }
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_powers_of_1024() {
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("10b"), Ok(10));
    }

    #[test]
    fn bad_sizes_explain_the_format() {
        for bad in [
            "4q",
            "",
            "k",
            "-1",
            "1.5m",
            "99999999999999999999",
            "16777216t",
        ] {
            let e = parse_size(bad).unwrap_err();
            assert!(e.to_string().contains("4k = 4096"), "{bad}: {e}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(500_000_000));
        assert_eq!(parse_duration("5s"), Ok(5_000_000_000));
        assert_eq!(parse_duration("2m"), Ok(120_000_000_000));
        assert_eq!(parse_duration("1.5"), Ok(1_500_000_000));
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn format_size_round_trips() {
        for s in ["4k", "1m", "3g", "1000", "1536k"] {
            assert_eq!(format_size(parse_size(s).unwrap()), s);
        }
    }

    #[test]
    fn durations_read_like_a_person_writes_them() {
        assert_eq!(format_seconds(12.4), "12 s");
        assert_eq!(format_seconds(0.84), "0.8 s");
        assert_eq!(format_seconds(1264.0), "21 min 04 s");
        assert_eq!(format_seconds(3.0 * 3600.0 + 300.0), "3 h 05 min");
    }
}
