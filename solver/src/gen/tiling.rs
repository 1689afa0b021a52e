//! The rows of a level's boards: every row of `m` pits with `0..=k` seeds, in the tiled
//! order, with the rank parts computed once a row, and where each row's block of boards
//! lies in the level's array (see the [`super`] module docs, "Rows and blocks").

use db_format::Ranker;

use super::GenError;
use crate::rank::{next_in_rank_order, FastRank};

/// Rows per tile.
pub(super) const TILE: usize = 64;

/// One row of `m` pits, of some seed sum `s <= k`, in the tiled order.
#[derive(Clone, Copy)]
pub(super) struct Row {
    pub(super) cells: [u8; 8],
    /// Its rank among the rows of sum `s` (the `m`-cell ranking).
    pub(super) local: u32,
    /// The rank in level `k` of the board whose opponent's row this is and whose mover's
    /// row is the rank-0 row of sum `k - s`: ranks of boards `(a, self)` are
    /// `block + a.local`.
    pub(super) block: u64,
    /// `lo_add[t]` (`t <= m`): `lo` of this row with one seed more in each of its first
    /// `t` pits. A move of the other row that does not lap the board sows into this row's
    /// first pits, one seed each, and the child's rank starts with `lo` of the row as it
    /// is then: computed here once per row instead of once per board and move (4% fewer
    /// instructions for the whole build, results/bench.md). Example, `m = 2`: for the row
    /// `[0, 3]`, `lo_add = [lo([0, 3]), lo([1, 3]), lo([1, 4])]`.
    pub(super) lo_add: [u64; 9],
    /// Where this row's entries of [`Tiling::his`] start.
    pub(super) hi_at: usize,
}

/// Every row of `m` pits with `0..=k` seeds, ordered by (sum, rank).
pub(super) struct Tiling {
    pub(super) rows: Vec<Row>,
    /// `first[s]`: the index of the first row of sum `s` (`first[k + 1]` = rows).
    pub(super) first: Vec<usize>,
    /// The `m`-cell ranker of each sum.
    pub(super) rankers: Vec<Ranker>,
    /// `his[r.hi_at + a]`: `hi(a, r)` for each row `r` and `a <= k - (r's sum)`, the rank
    /// part of the child `(a', r)` of a free move that does not lap the board (its mover's
    /// row `a'` holds `a` seeds; the opponent's row `r` is untouched). Computed once per
    /// row and sum instead of once per board and move.
    pub(super) his: Vec<u64>,
}

impl Tiling {
    /// Every row of `m` pits with `0..=k` seeds, ordered by (sum, rank), with the rank
    /// parts of [`Row`] and [`Tiling::his`] from `fast`.
    pub(super) fn new(fast: &FastRank, m: usize, k: usize) -> Result<Tiling, GenError> {
        // Every row of sum 0..=k, ordered by (sum, rank).
        let mut rows: Vec<Row> = Vec::new();
        let mut his: Vec<u64> = Vec::new();
        let mut first = vec![0usize; k + 2];
        for (s, start) in first.iter_mut().enumerate().take(k + 1) {
            *start = rows.len();
            let r = Ranker::new(m, s as u32)?;
            let mut c = [0u8; 8];
            r.unrank(0, &mut c[..m]);
            let mut local = 0u32;
            loop {
                let mut board = [0u8; 16];
                board[m - 1] = (k - s) as u8;
                board[m..2 * m].copy_from_slice(&c[..m]);
                let packed = u64::from_le_bytes(c);
                let mut lo_add = [0u64; 9];
                for (t, lo) in lo_add.iter_mut().enumerate().take(m + 1) {
                    // One seed in each of pits 0..t: bytes 0..t set to 1.
                    let add = if t == 0 {
                        0
                    } else {
                        u64::MAX >> (64 - 8 * t) & 0x0101_0101_0101_0101
                    };
                    *lo = fast.lo(packed + add);
                }
                let hi_at = his.len();
                his.extend((0..=k - s).map(|a| fast.hi(a, packed)));
                rows.push(Row {
                    cells: c,
                    local,
                    block: fast.rank(&board),
                    lo_add,
                    hi_at,
                });
                local += 1;
                if !next_in_rank_order(&mut c[..m]) {
                    break;
                }
            }
        }
        first[k + 1] = rows.len();
        Ok(Tiling {
            rankers: (0..=k)
                .map(|s| Ranker::new(m, s as u32))
                .collect::<Result<_, _>>()?,
            rows,
            first,
            his,
        })
    }

    /// The index in [`Tiling::rows`] of the row `cells` (its `m` pits), whose sum is `sum`.
    pub(super) fn index(&self, sum: usize, cells: &[u8]) -> usize {
        self.first[sum] + self.rankers[sum].rank(cells) as usize
    }

    /// Moves the blocks of the rows of the splits `splits` of level `k` (bit `s` for the
    /// split `{s, k - s}`: the rows of sum `s` or `k - s`) into an array of those splits'
    /// boards alone, in the same order, and returns its length. A row's block holds its
    /// boards as the opponent's row, one for each mover's row of the other sum. The rows
    /// of other splits get a block past any array (`u64::MAX`): no board of theirs is
    /// evaluated.
    pub(super) fn compact(&mut self, k: usize, splits: u64) -> u64 {
        let mut kept: Vec<(u64, usize, u64)> = Vec::new();
        for s in (0..=k).filter(|&s| splits >> s.min(k - s) & 1 == 1) {
            let movers = (self.first[k - s + 1] - self.first[k - s]) as u64;
            for i in self.first[s]..self.first[s + 1] {
                kept.push((self.rows[i].block, i, movers));
            }
        }
        for r in &mut self.rows {
            r.block = u64::MAX;
        }
        kept.sort_unstable();
        let mut at = 0;
        for (_, i, movers) in kept {
            self.rows[i].block = at;
            at += movers;
        }
        at
    }
}
