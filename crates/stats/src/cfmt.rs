//! C's `printf` number conversions that ministat's output depends on (`%g`, `%.1f`), reproduced
//! exactly: glibc rounds the exact binary value correctly, and so does Rust's formatting, so only
//! the layout rules of %g need writing out (style choice, trailing zeros, two-digit exponents,
//! `nan`/`-nan`/`inf`).

/// `%.{precision}g` of `v` (precision 0 is treated as 1, as C does).
pub fn g(v: f64, precision: usize) -> String {
    if let Some(s) = special(v) {
        return s;
    }
    let p = precision.max(1);
    let e_form = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = e_form
        .split_once('e')
        .expect("invariant: {:e} has an exponent");
    let x: i32 = exp.parse().expect("invariant: exponent is an integer");
    if x < -4 || x >= p as i32 {
        format!(
            "{}e{}{:02}",
            strip_zeros(mantissa),
            if x < 0 { '-' } else { '+' },
            x.abs()
        )
    } else {
        let decimals = (p as i32 - 1 - x).max(0) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

/// `%{width}.{precision}g`: right-aligned in `width` columns.
pub fn g_width(v: f64, width: usize, precision: usize) -> String {
    format!("{:>width$}", g(v, precision))
}

/// `%.{decimals}f`.
pub fn f(v: f64, decimals: usize) -> String {
    special(v).unwrap_or_else(|| format!("{v:.decimals$}"))
}

fn special(v: f64) -> Option<String> {
    if v.is_nan() {
        Some(if v.is_sign_negative() { "-nan" } else { "nan" }.into())
    } else if v.is_infinite() {
        Some(if v < 0.0 { "-inf" } else { "inf" }.into())
    } else {
        None
    }
}

/// Removes trailing zeros of a fraction, and the point when nothing follows it (%g without #).
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_glibc_printf() {
        // Expected strings produced by glibc printf("%g") / ("%13.8g").
        assert_eq!(g(2.5, 6), "2.5");
        assert_eq!(g(1.2909944487358056, 8), "1.2909944");
        assert_eq!(g(100000.0, 6), "100000");
        assert_eq!(g(1000000.0, 6), "1e+06");
        assert_eq!(g(0.0001, 6), "0.0001");
        assert_eq!(g(0.00001234, 6), "1.234e-05");
        assert_eq!(g(-3.0, 6), "-3");
        assert_eq!(g(0.0, 6), "0");
        assert_eq!(g(-0.0, 6), "-0");
        assert_eq!(g(123456789.0, 8), "1.2345679e+08");
        assert_eq!(g(1e100, 6), "1e+100");
        assert_eq!(g(f64::NAN, 6), "nan");
        assert_eq!(g(-f64::NAN, 6), "-nan");
        assert_eq!(g(f64::INFINITY, 6), "inf");
        assert_eq!(g(9.9999999, 6), "10");
        assert_eq!(g_width(4.0, 13, 8), "            4");
        assert_eq!(f(95.0, 1), "95.0");
        assert_eq!(f(99.5, 1), "99.5");
    }
}
