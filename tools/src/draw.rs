//! Reproducible random draws from a seed, for the samples commands take (`kalah prove
//! --check`, `kalah estimate`): a xorshift64 generator, whose stream a printed seed
//! repeats on any machine.

/// A xorshift64 stream.
#[derive(Clone, Debug)]
pub struct Draw(u64);

impl Draw {
    /// The stream of `seed`: the seed itself is the generator's first state, so that
    /// no two seeds start the same stream, except 0, which xorshift cannot leave: it
    /// stands for a fixed state above 2^63.
    pub fn new(seed: u64) -> Draw {
        Draw(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (`n` at least 1).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_repeats_its_stream_and_stays_in_range() {
        let (mut a, mut b) = (Draw::new(42), Draw::new(42));
        for _ in 0..1000 {
            let x = a.below(6);
            assert_eq!(x, b.below(6));
            assert!(x < 6);
        }
        assert_ne!(Draw::new(1).next_u64(), Draw::new(3).next_u64());
    }

    #[test]
    fn neighbouring_seeds_draw_different_samples() {
        for seed in 0..64u64 {
            let (mut a, mut b) = (Draw::new(seed), Draw::new(seed + 1));
            let first: Vec<usize> = (0..8).map(|_| a.below(1000)).collect();
            let second: Vec<usize> = (0..8).map(|_| b.below(1000)).collect();
            assert_ne!(first, second, "seeds {seed} and {}", seed + 1);
        }
    }
}
