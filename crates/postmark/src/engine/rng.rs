//! PostMark's pseudo-random generator, written by hand because it must be bit-exact: MT19937
//! ("Integer version (1999/10/28)") with the *old* `sgenrand` seeding (two 69069 LCG steps per
//! state word), not the 2002 `init_genrand` that `rand_mt` and most libraries use. With the same
//! seed and the same call order this replays Debian postmark's names, sizes and decisions exactly.
//! On LP64 postmark's `unsigned long` state is 64-bit, but every value is masked to 32 bits, so
//! `u32` arithmetic gives the same numbers.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The generator state (2.5 KiB).
#[derive(Clone)]
pub struct PmRng {
    mt: [u32; N],
    mti: usize,
}

impl PmRng {
    /// `sgenrand(seed)`: the state postmark sets at the start of every `run`.
    pub fn new(seed: u32) -> Self {
        let mut mt = [0u32; N];
        let mut s = seed;
        for word in mt.iter_mut() {
            *word = s & 0xffff_0000;
            s = s.wrapping_mul(69069).wrapping_add(1);
            *word |= (s & 0xffff_0000) >> 16;
            s = s.wrapping_mul(69069).wrapping_add(1);
        }
        Self { mt, mti: N }
    }

    /// `genrand()`: the next tempered 32-bit output.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.mti >= N {
            self.refill();
        }
        let mut y = self.mt[self.mti];
        self.mti += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `RND(x)`: `genrand() % x` for `x > 0`, else 0 **without** consuming a draw (postmark's
    /// macro only calls the generator when `x > 0`).
    #[inline]
    pub fn rnd(&mut self, x: i64) -> i64 {
        if x > 0 {
            i64::from(self.next_u32()) % x
        } else {
            0
        }
    }

    fn refill(&mut self) {
        let mag = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
        for kk in 0..N - M {
            let y = (self.mt[kk] & UPPER_MASK) | (self.mt[kk + 1] & LOWER_MASK);
            self.mt[kk] = self.mt[kk + M] ^ (y >> 1) ^ mag(y);
        }
        for kk in N - M..N - 1 {
            let y = (self.mt[kk] & UPPER_MASK) | (self.mt[kk + 1] & LOWER_MASK);
            self.mt[kk] = self.mt[kk + M - N] ^ (y >> 1) ^ mag(y);
        }
        let y = (self.mt[N - 1] & UPPER_MASK) | (self.mt[0] & LOWER_MASK);
        self.mt[N - 1] = self.mt[M - 1] ^ (y >> 1) ^ mag(y);
        self.mti = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_42_makes_debian_postmarks_file_contents() {
        // The first bytes every postmark file starts with (seed 42), read with strace from
        // Debian's postmark 1.53: each byte is `32 + RND(95)`.
        let mut r = PmRng::new(42);
        let text: String = (0..32).map(|_| (32 + r.rnd(95)) as u8 as char).collect();
        assert_eq!(text, "LeZebJ6S5~qPv$C$py}hmKd H58nM4~.");
    }

    #[test]
    fn rnd_of_non_positive_consumes_nothing() {
        let mut a = PmRng::new(42);
        let mut b = PmRng::new(42);
        assert_eq!(a.rnd(0), 0);
        assert_eq!(a.rnd(-3), 0);
        assert_eq!(a.rnd(10), b.rnd(10));
    }

    #[test]
    fn reseeding_replays_the_sequence() {
        let mut a = PmRng::new(42);
        let x: Vec<i64> = (0..2000).map(|_| a.rnd(95)).collect();
        let mut b = PmRng::new(42);
        let y: Vec<i64> = (0..2000).map(|_| b.rnd(95)).collect();
        assert_eq!(x, y);
        assert!(x.iter().all(|v| (0..95).contains(v)));
    }
}
