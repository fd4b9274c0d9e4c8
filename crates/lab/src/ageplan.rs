//! The arithmetic of aging, kept apart from the I/O so it can be tested: file sizes drawn from
//! the lognormal body of Agrawal et al.'s file-size distribution ("A Five-Year Study of
//! File-System Metadata", FAST 2007: most files are a few KiB, a few are large and hold most of
//! the bytes; Impressions and Geriatrix draw from the same fit), capped so one file is a small
//! share of the filesystem; the fullness of a filesystem as `df` computes it; the files a churn
//! round deletes; the directory a file goes to. Every draw comes from one seeded generator, so
//! a seed names the same files in every fsbench version.

use fsbench_io::Rng;

/// Mean of the natural log of file sizes in bytes (Agrawal et al. 2007, lognormal body).
pub const MU: f64 = 9.48;
/// Standard deviation of the natural log of file sizes.
pub const SIGMA: f64 = 2.46;
/// Share of the aging files each churn round deletes, percent.
pub const DELETE_PCT: u32 = 40;
/// Subdirectories per directory level of the aging tree.
pub const FANOUT: u64 = 16;
/// Smallest and largest cap of one file, bytes.
const CAP_RANGE: (u64, u64) = (1 << 20, 64 << 20);

/// The largest aging file on a filesystem of `capacity` bytes: 1/64 of it, within 1–64 MiB.
pub fn size_cap(capacity: u64) -> u64 {
    (capacity / 64).clamp(CAP_RANGE.0, CAP_RANGE.1)
}

/// The distribution in words, for the record.
pub fn describe(cap: u64) -> String {
    format!(
        "lognormal(mu={MU}, sigma={SIGMA}) bytes (Agrawal et al. 2007), 1 byte to {:.1} MiB",
        cap as f64 / f64::from(1 << 20)
    )
}

/// A uniform number in (0, 1].
fn unit(rng: &mut Rng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
}

/// One file size, bytes, in `1..=cap` (Box–Muller for the normal draw).
pub fn file_size(rng: &mut Rng, cap: u64) -> u64 {
    let (u1, u2) = (unit(rng), unit(rng));
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    let bytes = (MU + SIGMA * z).exp();
    (bytes as u64).clamp(1, cap)
}

/// Bytes a file of `size` bytes takes in blocks of `block` bytes.
pub fn allocated(size: u64, block: u64) -> u64 {
    size.div_ceil(block.max(1)) * block.max(1)
}

/// Fullness in percent as `df` shows it: used / (used + available to unprivileged users).
pub fn fullness_pct(used: u64, avail: u64) -> f64 {
    let total = used.saturating_add(avail);
    if total == 0 {
        return 100.0;
    }
    used as f64 * 100.0 / total as f64
}

/// Used bytes at `fill` percent of a filesystem whose used + available bytes are `capacity`.
pub fn goal_used(capacity: u64, fill: u32) -> u64 {
    (capacity as u128 * u128::from(fill) / 100) as u64
}

/// The indexes (of `n` files) a churn round deletes: `pct` percent of them, at least one when
/// there are any, drawn without repetition, largest index first (so `swap_remove` in that order
/// removes exactly these).
pub fn pick(rng: &mut Rng, n: usize, pct: u32) -> Vec<usize> {
    let k = ((n as u64 * u64::from(pct)).div_ceil(100) as usize).min(n);
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..k {
        let j = i + rng.below((n - i) as u64) as usize;
        idx.swap(i, j);
    }
    let mut chosen = idx[..k].to_vec();
    chosen.sort_unstable_by(|a, b| b.cmp(a));
    chosen
}

/// The leaf directory of the next file: two levels of [`FANOUT`] (`d03/d0c`).
pub fn leaf(rng: &mut Rng) -> String {
    let (a, b) = (rng.below(FANOUT), rng.below(FANOUT));
    format!("d{a:02x}/d{b:02x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_names_the_same_sizes_and_another_seed_others() {
        let draw = |seed| {
            let mut r = Rng::new(seed);
            (0..200)
                .map(|_| file_size(&mut r, 1 << 20))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
        let mut a = Rng::new(9);
        let mut b = Rng::new(9);
        assert_eq!(pick(&mut a, 50, 40), pick(&mut b, 50, 40));
        assert_eq!(leaf(&mut a), leaf(&mut b));
    }

    #[test]
    fn sizes_stay_in_bounds_and_follow_the_lognormal_body() {
        let cap = size_cap(512 << 20);
        assert_eq!(cap, 8 << 20);
        assert_eq!(size_cap(1 << 20), 1 << 20);
        assert_eq!(size_cap(1 << 40), 64 << 20);
        let mut r = Rng::new(1);
        let mut sizes: Vec<u64> = (0..20_000).map(|_| file_size(&mut r, cap)).collect();
        assert!(sizes.iter().all(|s| (1..=cap).contains(s)));
        sizes.sort_unstable();
        // The median of a lognormal is e^mu (13.1 KB); its quartiles e^(mu ± 0.674 sigma).
        let at = |q: f64| sizes[(q * sizes.len() as f64) as usize] as f64;
        let median = MU.exp();
        assert!((at(0.5) / median - 1.0).abs() < 0.1, "{}", at(0.5));
        let q1 = (MU - 0.674 * SIGMA).exp();
        assert!((at(0.25) / q1 - 1.0).abs() < 0.15, "{}", at(0.25));
        // Most files are small, but the few large ones hold most of the bytes.
        let total: u64 = sizes.iter().sum();
        let big: u64 = sizes.iter().filter(|&&s| s > 1 << 20).sum();
        assert!(big * 2 > total, "{big} of {total}");
        assert!(sizes.iter().filter(|&&s| s == cap).count() < sizes.len() / 50);
    }

    #[test]
    fn fullness_is_used_over_used_plus_available() {
        assert_eq!(fullness_pct(70, 30), 70.0);
        assert_eq!(fullness_pct(0, 0), 100.0);
        assert_eq!(goal_used(1000, 70), 700);
        assert_eq!(
            goal_used(u64::MAX / 2, 95),
            (u64::MAX as u128 / 2 * 95 / 100) as u64
        );
        assert_eq!(allocated(1, 4096), 4096);
        assert_eq!(allocated(4096, 4096), 4096);
        assert_eq!(allocated(4097, 4096), 8192);
    }

    #[test]
    fn a_round_deletes_its_share_of_distinct_files() {
        let mut r = Rng::new(3);
        let p = pick(&mut r, 100, 40);
        assert_eq!(p.len(), 40);
        assert!(p.windows(2).all(|w| w[0] > w[1]), "distinct, largest first");
        assert!(p.iter().all(|&i| i < 100));
        assert_eq!(pick(&mut r, 1, 40).len(), 1);
        assert!(pick(&mut r, 0, 40).is_empty());
        assert_eq!(pick(&mut r, 10, 100).len(), 10);
        let l = leaf(&mut r);
        assert!(l.len() == 7 && l.starts_with('d') && l.contains('/'), "{l}");
    }
}
