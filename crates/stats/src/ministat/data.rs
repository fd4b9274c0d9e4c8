//! ministat's datasets: reading numbers from text exactly as its ReadSet does (fgets pieces of
//! 8191 bytes, trailing white space stripped, strtok on the delimiters, a column, `#` comments,
//! strtod that must consume the whole token), and the old and current summary formulas.

/// One dataset: points sorted ascending, sums taken in input order (the old one-pass variance
/// depends on that order).
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Name shown in the legend (`<stdin>` for standard input).
    pub name: String,
    /// Points in ascending order.
    pub points: Vec<f64>,
    /// Sum of the points, in input order.
    pub sy: f64,
    /// Sum of the squares, in input order.
    pub syy: f64,
}

/// Why a dataset could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ParseError {
    /// A selected token is not a number: ministat's `Invalid data on line N`.
    InvalidData {
        /// 1-based line (fgets piece) number.
        line: usize,
    },
    /// Fewer than three points.
    TooFew,
}

/// fgets(buf, BUFSIZ) with glibc's BUFSIZ: a line longer than this is read in pieces.
const PIECE: usize = 8191;

/// Parses `text` as ministat does for `column` (1-based) and the delimiter bytes `delims`.
pub fn parse_dataset(
    name: &str,
    text: &[u8],
    column: usize,
    delims: &[u8],
) -> Result<Dataset, ParseError> {
    let mut points = Vec::new();
    let (mut sy, mut syy) = (0.0, 0.0);
    for (index, piece) in pieces(text).enumerate() {
        let line = index + 1;
        let trimmed = trim_trailing_space(piece);
        let Some(token) = select(trimmed, column, delims) else {
            continue;
        };
        let v = strtod_full(token).ok_or(ParseError::InvalidData { line })?;
        points.push(v);
        sy += v;
        syy += v * v;
    }
    if points.len() < 3 {
        return Err(ParseError::TooFew);
    }
    sort_like_qsort(&mut points);
    Ok(Dataset {
        name: name.to_string(),
        points,
        sy,
        syy,
    })
}

/// Splits like repeated fgets: at each newline (kept out) or after PIECE bytes.
fn pieces(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let limit = rest.len().min(PIECE);
        let (piece, next) = match rest[..limit].iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (&rest[..limit], &rest[limit..]),
        };
        rest = next;
        Some(piece)
    })
}

/// C's isspace in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn trim_trailing_space(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&b| !is_c_space(b)).map_or(0, |i| i + 1);
    &s[..end]
}

/// strtok over `delims` up to `column`; `None` when the line has no such token or a `#` token
/// comes first.
fn select<'a>(line: &'a [u8], column: usize, delims: &[u8]) -> Option<&'a [u8]> {
    let tokens = line.split(|b| delims.contains(b)).filter(|t| !t.is_empty());
    for (i, t) in tokens.enumerate() {
        if t.first() == Some(&b'#') {
            return None;
        }
        if i + 1 == column {
            return Some(t);
        }
    }
    None
}

/// C's strtod when the whole text must be a number (`-c 95.0`); `None` otherwise.
pub fn strtod(text: &str) -> Option<f64> {
    strtod_full(text.as_bytes())
}

/// strtod that must consume the whole token (leading C white space allowed): decimal and
/// hexadecimal floats, `inf`, `infinity`, `nan`, `nan(chars)`, any case.
pub(crate) fn strtod_full(token: &[u8]) -> Option<f64> {
    // Fast path for plain decimals, the common case in large inputs.
    if let Some(&b) = token.first() {
        if b.is_ascii_digit() && !token.iter().any(|&c| c == b'x' || c == b'X') {
            let s = std::str::from_utf8(token).ok()?;
            return if s
                .bytes()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                s.parse().ok()
            } else {
                None
            };
        }
    }
    let start = token.iter().position(|&b| !is_c_space(b))?;
    let s = std::str::from_utf8(&token[start..]).ok()?;
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let v = if lower == "inf" || lower == "infinity" {
        f64::INFINITY
    } else if lower == "nan"
        || (lower.starts_with("nan(")
            && lower.ends_with(')')
            && lower[4..lower.len() - 1]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    {
        f64::NAN
    } else if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else {
        let sign_first = matches!(body.as_bytes().first(), Some(b'+' | b'-'));
        if sign_first
            || !body
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// The digits after `0x` of a C hexadecimal float: `h[.h][p[+-]d]`.
fn parse_hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = match s.split_once('p') {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0.0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    Some(v * 2f64.powi(exp))
}

/// qsort with ministat's comparator (NaN compares equal to everything): glibc's qsort is a
/// stable merge sort, and so is `sort_by`.
fn sort_like_qsort(v: &mut [f64]) {
    if v.iter().any(|x| x.is_nan()) {
        // NaN makes ministat's comparator inconsistent: Rust's sort may panic on it, and only
        // glibc's own algorithm gives glibc's order. Written by hand to be exact.
        let mut tmp = v.to_vec();
        glibc_msort(v, &mut tmp);
    } else {
        // A total order on these values: any stable sort gives glibc's (stable) result.
        v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    }
}

/// ministat's `dbl_cmp`: -1, 1, or 0 (also for NaN).
fn dbl_cmp(a: f64, b: f64) -> i32 {
    if a < b {
        -1
    } else if a > b {
        1
    } else {
        0
    }
}

/// glibc's `msort_with_tmp`: top-down merge sort, left half `n/2`, ties taken from the left.
fn glibc_msort(b: &mut [f64], tmp: &mut [f64]) {
    let n = b.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    glibc_msort(&mut b[..n1], tmp);
    glibc_msort(&mut b[n1..], tmp);
    let (mut i, mut j, mut k) = (0, n1, 0);
    while i < n1 && j < n {
        if dbl_cmp(b[i], b[j]) <= 0 {
            tmp[k] = b[i];
            i += 1;
        } else {
            tmp[k] = b[j];
            j += 1;
        }
        k += 1;
    }
    while i < n1 {
        tmp[k] = b[i];
        i += 1;
        k += 1;
    }
    b[..k].copy_from_slice(&tmp[..k]);
}

impl Dataset {
    /// A dataset from values in input order (as if read from a file called `name`).
    pub fn from_values(name: &str, values: &[f64]) -> Self {
        let (sy, syy) = values
            .iter()
            .fold((0.0, 0.0), |(a, b), v| (a + v, b + v * v));
        let mut points = values.to_vec();
        sort_like_qsort(&mut points);
        Dataset {
            name: name.to_string(),
            points,
            sy,
            syy,
        }
    }

    /// Number of points.
    pub fn n(&self) -> usize {
        self.points.len()
    }
    /// Smallest point.
    pub fn min(&self) -> f64 {
        self.points[0]
    }
    /// Largest point.
    pub fn max(&self) -> f64 {
        self.points[self.n() - 1]
    }
    /// Mean (from the input-order sum).
    pub fn avg(&self) -> f64 {
        self.sy / self.n() as f64
    }
    /// Median: old = upper middle point; modern = mean of the two middle points for even n.
    pub fn median(&self, modern: bool) -> f64 {
        let n = self.n();
        if modern && n % 2 == 0 {
            (self.points[n / 2] + self.points[n / 2 - 1]) / 2.0
        } else {
            self.points[n / 2]
        }
    }
    /// Sample variance: old one-pass over the input-order sums, or modern two-pass.
    pub fn var(&self, modern: bool) -> f64 {
        let n = self.n() as f64;
        if modern {
            let a = self.avg();
            self.points.iter().map(|x| (x - a) * (x - a)).sum::<f64>() / (n - 1.0)
        } else {
            (self.syy - self.sy * self.sy / n) / (n - 1.0)
        }
    }
    /// Square root of the variance (NaN, printed `-nan`, when rounding made it negative).
    pub fn stddev(&self, modern: bool) -> f64 {
        self.var(modern).sqrt()
    }
}

#[cfg(test)]
mod tests {
    /// glibc's qsort order for input with NaN, printed by a C program on Debian 12 (found by the
    /// fuzz test: Rust's sort panicked on this comparator).
    #[test]
    fn nan_input_sorts_exactly_like_glibc_qsort() {
        let n = f64::NAN;
        let input = [
            5., n, 3., 9., n, 1., 7., 2., n, 8., 4., 6., 0., n, 11., 10., -1., n, 12., 13., -2.,
            14., n, 15., 3.5, 2.5, n, 1.5, 20., 19.,
        ];
        let want = [
            -2., -1., 0., 1., 2., 5., n, 3., 7., 9., n, n, 4., 6., 8., n, 10., 11., n, 12., 13.,
            14., n, 2.5, 3.5, 15., n, 1.5, 19., 20.,
        ];
        let d = Dataset::from_values("x", &input);
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        assert!(
            d.points.iter().zip(want).all(|(&a, b)| same(a, b)),
            "{:?}",
            d.points
        );
    }

    use super::*;

    #[test]
    fn strtod_accepts_what_c_accepts() {
        for (s, v) in [
            ("1", 1.0),
            ("-2.5", -2.5),
            ("1e3", 1000.0),
            ("0x10", 16.0),
            ("0x1p3", 8.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("+7", 7.0),
            ("INF", f64::INFINITY),
        ] {
            assert_eq!(strtod_full(s.as_bytes()), Some(v), "{s}");
        }
        assert!(strtod_full(b"nan").unwrap().is_nan());
        for s in ["2#c", "1e", "x", "", "1,5", "0x", "1.2.3", "--1"] {
            assert_eq!(strtod_full(s.as_bytes()), None, "{s}");
        }
    }

    #[test]
    fn columns_comments_and_crlf() {
        let text = b"# header\n1 10\r\n2 20 # c\n#3 30\n4\n5 50\n";
        let d = parse_dataset("f", text, 2, b" \t").unwrap();
        assert_eq!(d.points, [10.0, 20.0, 50.0]);
        let e = parse_dataset("f", b"1\n2\nx\n", 1, b" ").unwrap_err();
        assert_eq!(e, ParseError::InvalidData { line: 3 });
        assert_eq!(
            parse_dataset("f", b"1\n2\n", 1, b" "),
            Err(ParseError::TooFew)
        );
    }

    #[test]
    fn long_lines_are_read_in_pieces() {
        let mut text = vec![b' '; 9000];
        text.extend_from_slice(b"7\n1\n2\n");
        let d = parse_dataset("f", &text, 1, b" ").unwrap();
        assert_eq!(d.points, [1.0, 2.0, 7.0]);
    }

    #[test]
    fn old_and_modern_formulas() {
        let d = parse_dataset("f", b"1\n2\n3\n4\n", 1, b" ").unwrap();
        assert_eq!(d.median(false), 3.0);
        assert_eq!(d.median(true), 2.5);
        assert!((d.stddev(false) - 1.2909944487358056).abs() < 1e-15);
        assert!((d.stddev(true) - 1.2909944487358056).abs() < 1e-15);
    }
}
