//! The ranking of boards among those of their seed count, as the database files order
//! them ([`db_format::Ranker`], stars and bars), made fast for the generator, the
//! transposition table and the endgame table, which all rank boards in their inner loops.

use db_format::Ranker;

pub use db_format::next_in_rank_order;

/// [`Ranker::rank`] without its checks, over the 16-byte cells of a [`crate::Board`].
///
/// The rank of cells `c_0..c_{n-1}` is the sum over the bars `j < n - 1` of
/// `C(b_j, j + 1)`, where `b_j = c_0 + ... + c_j + j` is bar `j`'s position in the
/// stars-and-bars string. A [`Ranker`] holds at most 127 seeds in at most 16 cells, so every
/// `b_j` fits a byte (at most 127 + 14), and so do the partial sums: multiplying the
/// eight cells of a word by `0x0101..01` leaves `c_0 + ... + c_j` in byte `j` with no carry
/// between bytes, and adding `0x0706..00` adds `j`. So all fifteen bars come from two
/// multiplications, and each term is one read of `bin[j][b_j]`, whose index (a byte)
/// needs no bounds check. The rows of `bin` past the board's last bar are zeros, and the
/// cells past the board's are empty, so the sum over all fifteen bars is the rank; so is
/// the sum over the board's own `n - 1` bars, which [`FastRank::rank`] takes for boards of
/// 8 and 12 cells (4 and 6 pits a side), saving the reads of the zero rows.
///
/// Example, two cells `[1, 2]` (three seeds): `b_0 = 1`, rank `C(1, 1) = 1`; bars 1 to 14
/// read the zero rows.
///
/// The binomials do not depend on the seeds, so the table of level `k` ranks every level
/// below it as well.
pub(crate) struct FastRank {
    pub(crate) ranker: Ranker,
    cells: usize,
    /// `bin[j][b] = C(b, j + 1)` for the bars `j < cells - 1`, saturated at `u64::MAX`
    /// where it overflows (no valid board reaches those); zeros for `j >= cells - 1`.
    bin: Box<[[u64; 256]; 15]>,
    /// The rows of `bin` that [`FastRank::lo`] and [`FastRank::hi`] read, one for each
    /// byte of a packed row, zeros past the row's last bar: `bin[j]` and `bin[m + j]` for
    /// `j < m - 1`. A fixed count of terms, whose byte offsets the compiler then knows.
    lo_bin: Box<[[u64; 256]; 7]>,
    hi_bin: Box<[[u64; 256]; 7]>,
}

/// Ones in every byte: multiplying a word of bytes by it leaves the prefix sums.
const BYTE_ONES: u64 = 0x0101_0101_0101_0101;
/// `j` in byte `j`.
const BYTE_STEPS: u64 = 0x0706_0504_0302_0100;

/// Byte `j` of `x`.
#[inline(always)]
fn byte(x: u64, j: usize) -> usize {
    ((x >> (8 * (j & 7))) & 0xff) as usize
}

impl std::fmt::Debug for FastRank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FastRank({} cells, up to {} seeds)",
            self.cells,
            self.ranker.seeds()
        )
    }
}

impl FastRank {
    pub(crate) fn new(ranker: &Ranker) -> FastRank {
        let cells = ranker.cells();
        let mut bin = Box::new([[0u64; 256]; 15]);
        for (j, row) in bin.iter_mut().enumerate().take(cells.saturating_sub(1)) {
            for (b, x) in row.iter_mut().enumerate() {
                *x = db_format::checked_binomial(b as u64, j as u64 + 1).unwrap_or(u64::MAX);
            }
        }
        let m = cells / 2;
        let mut lo_bin = Box::new([[0u64; 256]; 7]);
        let mut hi_bin = Box::new([[0u64; 256]; 7]);
        for j in 0..m.saturating_sub(1) {
            lo_bin[j] = bin[j];
            hi_bin[j] = bin[m + j];
        }
        FastRank {
            ranker: ranker.clone(),
            cells,
            bin,
            lo_bin,
            hi_bin,
        }
    }

    /// The terms of the first row's bars: the rank of the packed row `first` among the
    /// rows of its sum (the `m`-cell ranking), and the low part of a board's rank.
    #[inline]
    pub(crate) fn lo(&self, first: u64) -> u64 {
        let bars = first.wrapping_mul(BYTE_ONES).wrapping_add(BYTE_STEPS);
        let mut r = 0u64;
        for (j, row) in self.lo_bin.iter().enumerate() {
            r += row[byte(bars, j)];
        }
        r
    }

    /// The terms of the other bars of a board whose first row holds `a` seeds and whose
    /// second row is the packed `second`: `rank = lo(first) + hi(a, second)`. Bar `m - 1`
    /// lies at `a + m - 1`, and bar `m + j` at `a + m + j` plus the second row's first
    /// `j + 1` cells.
    #[inline]
    pub(crate) fn hi(&self, a: usize, second: u64) -> u64 {
        let m = self.cells / 2;
        let mut r = self.bin[m - 1][(a + m - 1) & 0xff];
        let start = (a + m) as u64 * BYTE_ONES + BYTE_STEPS;
        let bars = second.wrapping_mul(BYTE_ONES).wrapping_add(start);
        for (j, row) in self.hi_bin.iter().enumerate() {
            r += row[byte(bars, j)];
        }
        r
    }

    /// The rank of the first `cells` cells of `c` (which must hold the level's seeds, or
    /// any fewer: the table ranks every level below its own).
    #[inline]
    pub(crate) fn rank(&self, c: &[u8; 16]) -> u64 {
        debug_assert!(c[self.cells..].iter().all(|&x| x == 0));
        debug_assert!(c.iter().map(|&x| u32::from(x)).sum::<u32>() <= self.ranker.seeds());
        // Only the board's own bars: the rows past them are zeros. A fixed count for each
        // common board size, so that the loop unrolls with known offsets.
        match self.cells {
            12 => self.rank_bars::<11>(c),
            8 => self.rank_bars::<7>(c),
            _ => self.rank_bars::<15>(c),
        }
    }

    /// [`FastRank::rank`] summed over the first `BARS` bars (every bar of a board of at
    /// most `BARS + 1` cells).
    #[inline(always)]
    fn rank_bars<const BARS: usize>(&self, c: &[u8; 16]) -> u64 {
        let x = u128::from_le_bytes(*c);
        let low = (x as u64).wrapping_mul(BYTE_ONES);
        // Bars 8 to 14 start after the first eight cells' seeds and bars.
        let start = ((low >> 56) + 8) * BYTE_ONES + BYTE_STEPS;
        let bars = [
            low.wrapping_add(BYTE_STEPS),
            ((x >> 64) as u64)
                .wrapping_mul(BYTE_ONES)
                .wrapping_add(start),
        ];
        let mut r = 0u64;
        for (j, row) in self.bin.iter().enumerate().take(BARS) {
            r += row[byte(bars[j / 8], j)];
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_rank_equals_the_ranker() {
        // Random boards of every level below the ranker's, up to the largest seed counts a
        // ranker takes (its bars must still fit a byte), split into rows for `lo` and `hi`.
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for (cells, max) in [
            (2, 127),
            (4, 127),
            (6, 80),
            (8, 60),
            (12, 48),
            (12, 25),
            (16, 40),
        ] {
            let fast = FastRank::new(&Ranker::new(cells, max).unwrap());
            for _ in 0..2000 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let k = (rng % (u64::from(max) + 1)) as u32;
                let r = Ranker::new(cells, k).unwrap();
                let rank = (rng >> 8) % r.count();
                let mut c = [0u8; 16];
                r.unrank(rank, &mut c[..cells]);
                assert_eq!(fast.rank(&c), rank, "{c:?}");
                let m = cells / 2;
                let row = |cells: &[u8]| {
                    u64::from_le_bytes(std::array::from_fn(|i| cells.get(i).copied().unwrap_or(0)))
                };
                let a = c[..m].iter().map(|&x| usize::from(x)).sum();
                let split = fast.lo(row(&c[..m])) + fast.hi(a, row(&c[m..cells]));
                assert_eq!(split, rank, "{c:?}");
            }
        }
    }

    #[test]
    fn successor_walks_every_rank_in_order() {
        for (cells, k) in [(4, 5), (6, 4), (12, 3), (1, 3), (2, 0)] {
            let r = Ranker::new(cells, k).unwrap();
            let mut c = vec![0u8; cells];
            r.unrank(0, &mut c);
            for i in 0..r.count() {
                assert_eq!(r.rank(&c), i, "{c:?}");
                assert_eq!(next_in_rank_order(&mut c), i + 1 < r.count());
            }
        }
    }
}
