//! postmark's random numbers, bit for bit: MT19937 (the 1999 "integer version") seeded with the
//! old `sgenrand` (69069 linear congruential fill), 32-bit outputs, and `RND(x) = genrand() % x`
//! with no draw at all when x <= 0. Written by hand because the sequence must be exact: a
//! library MT uses the 2002 seeding and would replay different names, sizes and choices.

const N: usize = 624;
const M: usize = 397;

/// The generator state.
pub struct PmRng {
    mt: [u32; N],
    mti: usize,
}

impl PmRng {
    /// `sgenrand(seed)`.
    pub fn new(seed: u32) -> Self {
        let mut mt = [0u32; N];
        let mut s = seed;
        for slot in mt.iter_mut() {
            let hi = s & 0xffff_0000;
            s = s.wrapping_mul(69069).wrapping_add(1);
            *slot = hi | ((s & 0xffff_0000) >> 16);
            s = s.wrapping_mul(69069).wrapping_add(1);
        }
        Self { mt, mti: N }
    }

    /// `genrand()`: the next tempered 32-bit output.
    pub fn genrand(&mut self) -> u32 {
        const MAG: [u32; 2] = [0, 0x9908_b0df];
        if self.mti >= N {
            for k in 0..N {
                let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % N] & 0x7fff_ffff);
                self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ MAG[(y & 1) as usize];
            }
            self.mti = 0;
        }
        let mut y = self.mt[self.mti];
        self.mti += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `RND(x)`: uniform-ish in 0..x (with postmark's modulo bias); 0 and no draw for x <= 0.
    pub fn rnd(&mut self, x: i64) -> i64 {
        if x > 0 {
            (self.genrand() as u64 % x as u64) as i64
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = PmRng::new(42);
        let mut b = PmRng::new(42);
        let xs: Vec<u32> = (0..1000).map(|_| a.genrand()).collect();
        let ys: Vec<u32> = (0..1000).map(|_| b.genrand()).collect();
        assert_eq!(xs, ys);
        assert_ne!(PmRng::new(1).genrand(), PmRng::new(2).genrand());
    }

    #[test]
    fn rnd_of_zero_draws_nothing() {
        let mut a = PmRng::new(42);
        let mut b = PmRng::new(42);
        assert_eq!(a.rnd(0), 0);
        assert_eq!(a.rnd(-1), 0);
        assert_eq!(a.rnd(10), b.rnd(10));
    }
}
