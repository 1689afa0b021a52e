//! Ranking of positions: the bijection between the ways to put `k` seeds into
//! `n` cells and the entry indices `0..C(k+n-1, n-1)` of a level file.
//!
//! Why this ranking: it is dense (no index is wasted, so a level is exactly as
//! large as its number of positions), it needs only a small binomial table, and
//! it is easy to reimplement in any language from one formula (see
//! `FORMAT.md`).
//!
//! # The formula
//!
//! Write a position `c_0 .. c_{n-1}` (the mover's pits 1..m, then the
//! opponent's pits 1..m) as stars and bars: `c_0` stars, a bar, `c_1` stars, a
//! bar, ..., `c_{n-1}` stars, with `k + n - 1` symbols in all. Bar `j` (for
//! `j = 0 .. n-2`) sits at position `b_j = (c_0 + ... + c_j) + j`, so
//! `0 <= b_0 < b_1 < ... < b_{n-2} <= k + n - 2`. The rank is the position of
//! that set of bars in the combinatorial number system:
//!
//! ```text
//! rank = Σ_{j=0}^{n-2} C(b_j, j + 1)
//! ```
//!
//! which runs over `0 .. C(k+n-1, n-1)` without gaps. The last cell does not
//! appear: it holds whatever the other cells leave of `k`.

use crate::error::DbError;
use crate::value::MAX_LEVEL_SEEDS;

/// Most cells a ranking supports: 2 × 8 pits.
pub const MAX_CELLS: usize = 16;

/// The board after `cells` in rank order (the same seeds), or `false` if `cells` is the
/// last board of its level.
///
/// Ranks are colexicographic on the bar positions of the stars-and-bars string (see
/// `FORMAT.md`), so the successor moves the lowest movable bar up by one and
/// packs the bars below it: with `i` the first cell after cell 0 that holds seeds and `t`
/// the seeds of cells `0..i`, cell `i` gives one seed to cell `i - 1`, which also takes
/// the `t` seeds, and cells `0..i-1` empty.
///
/// ```
/// use db_format::next_in_rank_order;
/// let mut c = [1, 0, 0, 1];
/// assert!(next_in_rank_order(&mut c));
/// assert_eq!(c, [0, 0, 2, 0]); // rank 3 → rank 4 of FORMAT.md's table
/// let mut last = [2, 0, 0, 0];
/// assert!(!next_in_rank_order(&mut last));
/// ```
pub fn next_in_rank_order(cells: &mut [u8]) -> bool {
    let Some(i) = cells.iter().skip(1).position(|&c| c > 0).map(|i| i + 1) else {
        return false;
    };
    let t: u8 = cells[..i].iter().sum();
    cells[..i].fill(0);
    cells[i - 1] = t + 1;
    cells[i] -= 1;
    true
}

/// `C(n, k)`, or `None` if it does not fit in a `u64`.
///
/// Exact for every `n` whose result fits: the running product of
/// `C(n-k+i, i)` never exceeds the result, and each step is done in `u128`.
pub fn checked_binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // acc = C(n - k + i, i); acc * (n - k + i + 1) / (i + 1) = C(n - k + i + 1, i + 1).
        acc = acc * u128::from(n - k + i + 1) / u128::from(i + 1);
        if acc > u128::from(u64::MAX) {
            return None;
        }
    }
    u64::try_from(acc).ok()
}

/// `C(n, k)` (0 when `k > n`).
///
/// # Panics
/// If the result does not fit in a `u64` (for example `C(142, 15)`); use
/// [`checked_binomial`] on parameters that come from a file.
pub fn binomial(n: u64, k: u64) -> u64 {
    checked_binomial(n, k).unwrap_or_else(|| panic!("C({n}, {k}) overflows u64"))
}

/// Number of positions with `seeds` seeds in `cells` cells, `C(seeds+cells-1, cells-1)`,
/// or `None` if it does not fit in a `u64` (or `cells` is 0).
pub fn checked_level_size(cells: usize, seeds: u32) -> Option<u64> {
    let cells = u64::try_from(cells).ok()?;
    if cells == 0 {
        return None;
    }
    checked_binomial(u64::from(seeds) + cells - 1, cells - 1)
}

/// Number of positions with `seeds` seeds in `cells` cells, `C(seeds+cells-1, cells-1)`:
/// the number of entries of that level.
///
/// ```
/// assert_eq!(db_format::level_size(4, 2), 10);
/// assert_eq!(db_format::level_size(12, 24), 417_225_900);
/// ```
///
/// # Panics
/// If `cells` is 0 or the size does not fit in a `u64`; use
/// [`checked_level_size`] on parameters that come from a file.
pub fn level_size(cells: usize, seeds: u32) -> u64 {
    checked_level_size(cells, seeds)
        .unwrap_or_else(|| panic!("level size for {cells} cells and {seeds} seeds overflows"))
}

/// Ranks and unranks the positions of one level (fixed cells and seeds).
///
/// Holds the table `C(b, r)` for `b = 0 ..= seeds + cells - 2` and
/// `r = 0 .. cells`, so [`rank`](Ranker::rank) costs `cells - 1` table lookups
/// and [`unrank`](Ranker::unrank) at most `seeds + 2·cells` lookups.
///
/// # Worked example: 2 pits a side (4 cells), 2 seeds
///
/// There are `C(2+3, 3) = 10` positions. For `[1, 0, 1, 0]` the bars are at
/// `b_0 = 1 + 0 = 1`, `b_1 = (1 + 0) + 1 = 2`, `b_2 = (1 + 0 + 1) + 2 = 4`,
/// so its rank is `C(1,1) + C(2,2) + C(4,3) = 1 + 1 + 4 = 6`. All ten, in rank
/// order (each line: rank, bars, position):
///
/// ```text
/// 0  {0,1,2}  [0,0,0,2]      5  {0,2,4}  [0,1,1,0]
/// 1  {0,1,3}  [0,0,1,1]      6  {1,2,4}  [1,0,1,0]
/// 2  {0,2,3}  [0,1,0,1]      7  {0,3,4}  [0,2,0,0]
/// 3  {1,2,3}  [1,0,0,1]      8  {1,3,4}  [1,1,0,0]
/// 4  {0,1,4}  [0,0,2,0]      9  {2,3,4}  [2,0,0,0]
/// ```
///
/// ```
/// use db_format::Ranker;
/// let r = Ranker::new(4, 2)?;
/// assert_eq!(r.count(), 10);
/// assert_eq!(r.rank(&[1, 0, 1, 0]), 6);
/// let expected: [[u8; 4]; 10] = [
///     [0, 0, 0, 2], [0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1], [0, 0, 2, 0],
///     [0, 1, 1, 0], [1, 0, 1, 0], [0, 2, 0, 0], [1, 1, 0, 0], [2, 0, 0, 0],
/// ];
/// let mut out = [0u8; 4];
/// for (i, pos) in expected.iter().enumerate() {
///     r.unrank(i as u64, &mut out);
///     assert_eq!(&out, pos);
///     assert_eq!(r.rank(pos), i as u64);
/// }
/// # Ok::<(), db_format::DbError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Ranker {
    /// Cells per position (`2 * pits`).
    cells: usize,
    /// Seeds on the board.
    seeds: u32,
    /// Symbols in the stars-and-bars string, `seeds + cells - 1`: bars lie in
    /// `0..symbols`, and the table has `symbols` columns.
    symbols: usize,
    /// Number of positions, `C(seeds + cells - 1, cells - 1)`.
    count: u64,
    /// `table[r * symbols + b] = C(b, r)`, saturated at `u64::MAX` where it
    /// overflows (such entries are never reached by a valid position: every
    /// term of a valid rank is at most the rank).
    table: Vec<u64>,
}

impl Ranker {
    /// The ranker for positions of `seeds` seeds in `cells` cells
    /// (`1..=16` cells, at most 127 seeds, at most `u64::MAX` positions).
    pub fn new(cells: usize, seeds: u32) -> Result<Ranker, DbError> {
        if !(1..=MAX_CELLS).contains(&cells) {
            return Err(DbError::BadCellCount {
                cells,
                max: MAX_CELLS,
            });
        }
        if seeds > MAX_LEVEL_SEEDS {
            return Err(DbError::TooManySeeds {
                seeds,
                max: MAX_LEVEL_SEEDS,
            });
        }
        let count =
            checked_level_size(cells, seeds).ok_or(DbError::SizeOverflow { cells, seeds })?;
        // Bars lie in 0..symbols (a single cell has no bars and an empty table).
        let symbols = seeds as usize + cells - 1;
        let width = symbols;
        // Pascal's triangle in u128 (C(141, 15) < 2^70), stored saturated in u64.
        let mut row = vec![0u128; cells];
        let mut table = vec![0u64; cells * width];
        row[0] = 1;
        for b in 0..width {
            if b > 0 {
                for r in (1..cells).rev() {
                    row[r] += row[r - 1];
                }
            }
            for (r, &v) in row.iter().enumerate() {
                table[r * width + b] = u64::try_from(v).unwrap_or(u64::MAX);
            }
        }
        Ok(Ranker {
            cells,
            seeds,
            symbols,
            count,
            table,
        })
    }

    /// Cells per position.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Seeds on the board.
    pub fn seeds(&self) -> u32 {
        self.seeds
    }

    /// Number of positions, `C(seeds + cells - 1, cells - 1)`: ranks are `0..count`.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Rank of the position `cells` (mover's pits then opponent's pits).
    ///
    /// The seeds in `cells` must sum to [`seeds`](Ranker::seeds) (checked in
    /// debug builds only: this is the solver's inner loop). In release builds a
    /// wrong sum gives a meaningless rank or panics on an index out of bounds.
    ///
    /// # Panics
    /// If `cells.len()` differs from [`cells`](Ranker::cells).
    #[inline]
    pub fn rank(&self, cells: &[u8]) -> u64 {
        assert_eq!(
            cells.len(),
            self.cells,
            "position has the wrong number of cells"
        );
        debug_assert_eq!(
            cells.iter().map(|&c| u32::from(c)).sum::<u32>(),
            self.seeds,
            "position does not hold the level's seeds"
        );
        let width = self.symbols;
        let mut bar = 0usize;
        let mut rank = 0u64;
        for (j, &c) in cells[..self.cells - 1].iter().enumerate() {
            // bar = b_j = (c_0 + ... + c_j) + j
            bar += usize::from(c);
            rank += self.table[(j + 1) * width + bar];
            bar += 1;
        }
        rank
    }

    /// Writes into `out` the position of rank `rank`.
    ///
    /// # Panics
    /// If `rank >= count()` or `out.len()` differs from [`cells`](Ranker::cells).
    pub fn unrank(&self, rank: u64, out: &mut [u8]) {
        assert_eq!(
            out.len(),
            self.cells,
            "output has the wrong number of cells"
        );
        assert!(rank < self.count, "rank {rank} out of 0..{}", self.count);
        let width = self.symbols;
        let mut rem = rank;
        // `next` is the position of the bar after the current one: b_{j+1}, or
        // `symbols` (one past the last symbol) for the last bar.
        let mut next = self.symbols;
        for j in (0..self.cells - 1).rev() {
            // Largest b < next with C(b, j+1) <= rem; C(j, j+1) = 0 stops it at b >= j.
            let row = &self.table[(j + 1) * width..(j + 2) * width];
            let mut b = next - 1;
            while row[b] > rem {
                b -= 1;
            }
            rem -= row[b];
            // Cell j+1 holds the stars between bar j and bar j+1.
            out[j + 1] = u8::try_from(next - b - 1).unwrap_or(u8::MAX);
            next = b;
        }
        // Stars before the first bar (all of them when there is a single cell).
        out[0] = u8::try_from(next).unwrap_or(u8::MAX);
        debug_assert_eq!(rem, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    #[test]
    fn binomials() {
        assert_eq!(binomial(0, 0), 1);
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(5, 6), 0);
        assert_eq!(binomial(36, 12), 1_251_677_700);
        assert_eq!(binomial(200, 1), 200);
        assert_eq!(binomial(67, 33), 14_226_520_737_620_288_370);
        assert_eq!(checked_binomial(68, 34), None);
        assert_eq!(checked_binomial(142, 15), None); // 68417580321122545536
        assert_eq!(checked_binomial(141, 14), Some(7_227_209_188_850_973_120));
        // Pascal's rule as an independent check.
        for n in 1..=70u64 {
            for k in 1..=n {
                if let (Some(a), Some(b), Some(c)) = (
                    checked_binomial(n, k),
                    checked_binomial(n - 1, k - 1),
                    checked_binomial(n - 1, k),
                ) {
                    assert_eq!(a, b + c, "C({n},{k})");
                }
            }
        }
    }

    #[test]
    fn level_sizes_sum_to_binomial() {
        // Σ_{k<=K} C(k+n-1, n-1) = C(K+n, n)
        let total: u64 = (0..=24).map(|k| level_size(12, k)).sum();
        assert_eq!(total, 1_251_677_700);
        for n in 1..=16usize {
            for big_k in 0..=40u32 {
                let total: u64 = (0..=big_k).map(|k| level_size(n, k)).sum();
                assert_eq!(total, binomial(u64::from(big_k) + n as u64, n as u64));
            }
        }
        assert_eq!(checked_level_size(0, 3), None);
        assert_eq!(checked_level_size(16, 127), None);
        assert!(checked_level_size(12, 127).is_some());
    }

    #[test]
    fn bijection_over_small_levels() {
        for cells in [1usize, 2, 3, 4, 6, 8, 12] {
            for k in 0..=6u32 {
                let r = Ranker::new(cells, k).unwrap();
                assert_eq!(r.count(), level_size(cells, k));
                let mut seen = HashSet::new();
                let mut out = vec![0u8; cells];
                for i in 0..r.count() {
                    r.unrank(i, &mut out);
                    assert_eq!(out.iter().map(|&c| u32::from(c)).sum::<u32>(), k);
                    assert_eq!(r.rank(&out), i, "cells {cells} k {k} {out:?}");
                    assert!(seen.insert(out.clone()), "duplicate {out:?}");
                }
                assert_eq!(seen.len() as u64, r.count());
            }
        }
    }

    #[test]
    fn ranks_of_all_vectors_are_dense() {
        // Enumerate every vector independently (odometer) and check that the
        // ranks are exactly 0..count.
        for cells in [4usize, 6, 8] {
            for k in 0..=6u32 {
                let r = Ranker::new(cells, k).unwrap();
                let mut ranks = Vec::new();
                let mut v = vec![0u8; cells];
                loop {
                    if v.iter().map(|&c| u32::from(c)).sum::<u32>() == k {
                        ranks.push(r.rank(&v));
                    }
                    let mut i = 0;
                    while i < cells && u32::from(v[i]) == k {
                        v[i] = 0;
                        i += 1;
                    }
                    if i == cells {
                        break;
                    }
                    v[i] += 1;
                }
                ranks.sort_unstable();
                let expected: Vec<u64> = (0..r.count()).collect();
                assert_eq!(ranks, expected, "cells {cells} k {k}");
            }
        }
    }

    #[test]
    fn worked_example_of_format_md() {
        let r = Ranker::new(12, 5).unwrap();
        let pos = [0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 1];
        assert_eq!(r.count(), 4368);
        assert_eq!(r.rank(&pos), 1003);
        let mut out = [0u8; 12];
        r.unrank(1003, &mut out);
        assert_eq!(out, pos);
    }

    #[test]
    fn extremes() {
        let r = Ranker::new(16, 127);
        assert!(matches!(r, Err(DbError::SizeOverflow { .. })));
        assert!(matches!(
            Ranker::new(0, 1),
            Err(DbError::BadCellCount { .. })
        ));
        assert!(matches!(
            Ranker::new(17, 1),
            Err(DbError::BadCellCount { .. })
        ));
        assert!(matches!(
            Ranker::new(12, 128),
            Err(DbError::TooManySeeds { .. })
        ));
        // Largest 12-cell level: first and last positions.
        let r = Ranker::new(12, 127).unwrap();
        let mut out = [0u8; 12];
        r.unrank(0, &mut out);
        assert_eq!(out[11], 127);
        assert_eq!(r.rank(&out), 0);
        r.unrank(r.count() - 1, &mut out);
        assert_eq!(out[0], 127);
        assert_eq!(r.rank(&out), r.count() - 1);
        // A full 16-cell ranker that fits.
        let r = Ranker::new(16, 60).unwrap();
        let mut out = [0u8; 16];
        r.unrank(r.count() - 1, &mut out);
        assert_eq!(out[0], 60);
        assert_eq!(r.rank(&out), r.count() - 1);
    }

    /// The ranks around `2^31` and `2^32` of level 32 of 6 pits (5,752,004,349 boards, the
    /// first 6-pit level past `u32::MAX`): each unranks to a board of 32 seeds that ranks
    /// back to it, the formula of FORMAT.md summed term by term with [`checked_binomial`]
    /// (not the ranker's table) agrees, and the next rank is the next board in rank order.
    #[test]
    fn ranks_past_32_bits_round_trip() {
        let r = Ranker::new(12, 32).unwrap();
        assert_eq!(r.count(), 5_752_004_349);
        assert!(r.count() > 1 << 32);
        let around = |x: u64| [x - 2, x - 1, x, x + 1, x + 2];
        let ranks = around(1 << 31)
            .into_iter()
            .chain(around(1 << 32))
            .chain([r.count() - 2, r.count() - 1]);
        let mut out = [0u8; 12];
        let mut next = [0u8; 12];
        for rank in ranks {
            r.unrank(rank, &mut out);
            assert_eq!(out.iter().map(|&c| u32::from(c)).sum::<u32>(), 32, "{rank}");
            assert_eq!(r.rank(&out), rank);
            let (mut bar, mut formula) = (0u64, 0u64);
            for (j, &c) in out[..11].iter().enumerate() {
                bar += u64::from(c);
                formula += checked_binomial(bar + j as u64, j as u64 + 1).unwrap();
            }
            assert_eq!(formula, rank, "{out:?}");
            next.copy_from_slice(&out);
            if next_in_rank_order(&mut next) {
                assert_eq!(r.rank(&next), rank + 1, "{out:?} -> {next:?}");
            } else {
                assert_eq!(rank, r.count() - 1);
            }
        }
        // Two boards worked by hand: all 32 seeds in the opponent's last pit is rank 0,
        // and in the mover's first pit the last rank, C(43, 11) - 1.
        let mut last = [0u8; 12];
        last[0] = 32;
        assert_eq!(r.rank(&last), binomial(43, 11) - 1);
        let mut first = [0u8; 12];
        first[11] = 32;
        assert_eq!(r.rank(&first), 0);
    }

    proptest! {
        #[test]
        fn rank_unrank_round_trip_12_cells(
            (k, rank) in (0u32..=30).prop_flat_map(|k| (Just(k), 0..level_size(12, k)))
        ) {
            let r = Ranker::new(12, k).unwrap();
            let mut out = [0u8; 12];
            r.unrank(rank, &mut out);
            prop_assert_eq!(out.iter().map(|&c| u32::from(c)).sum::<u32>(), k);
            prop_assert_eq!(r.rank(&out), rank);
        }
    }
}
