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
    /// Its rank among the rows of sum `s` (the `m`-cell ranking). A `u64`, as every rank
    /// is: the row itself is 104 bytes whether this is 4 or 8, and a rank of 8 pits can
    /// pass `u32::MAX` (`C(83, 7) > 2^32` rows of 76 seeds).
    pub(super) local: u64,
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

// `build_memory` counts the rows' table at this size a row; a `u64` rank (`local`) took
// the padding after the `u32` it was.
const _: () = assert!(std::mem::size_of::<Row>() == 104);

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
            let mut local = 0u64;
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
        // The schedule numbers the tiles with `u32` (its list of tile pairs is the largest
        // array it builds): there are at most as many tiles as rows, so a row count that
        // fits `u32` keeps those numbers exact. More rows would be a table of over 400 GiB.
        if u32::try_from(rows.len()).is_err() {
            return Err(GenError::Db(db_format::DbError::SizeOverflow {
                cells: 2 * m,
                seeds: k as u32,
            }));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use db_format::shard::{split_count, split_of, splits_size, Blocks};

    /// Level 32 of 6 pits (5,752,004,349 boards, past `u32::MAX`): at the ranks around
    /// `2^31` and `2^32` the generator's rank parts (`FastRank`, a row's block and
    /// `local`) give the ranker's rank; and in a shard of every split but 0, whose
    /// payload passes `2^32` entries, the place [`Tiling::compact`] gives a board is where
    /// the merge puts it (the blocks of `db_format::shard`, walked here), around offsets
    /// `2^31` and `2^32` too. Builds the rows' table of level 32 (about 410 MB).
    #[test]
    fn rows_blocks_and_shard_slots_past_32_bits() {
        let (m, k) = (6usize, 32u32);
        let ranker = Ranker::new(2 * m, k).unwrap();
        let fast = FastRank::new(&ranker);
        let mut tl = Tiling::new(&fast, m, k as usize).unwrap();
        let around = |x: u64| [x - 1, x, x + 1];
        let packed = |row: &[u8]| {
            let mut b = [0u8; 8];
            b[..m].copy_from_slice(row);
            u64::from_le_bytes(b)
        };
        let sum = |row: &[u8]| row.iter().map(|&x| usize::from(x)).sum::<usize>();
        let board = |rank: u64| {
            let mut c = [0u8; 16];
            ranker.unrank(rank, &mut c[..2 * m]);
            c
        };
        let ranks: Vec<u64> = around(1 << 31)
            .into_iter()
            .chain(around(1 << 32))
            .chain([ranker.count() - 1])
            .collect();
        for &rank in &ranks {
            let c = board(rank);
            let (own, opp) = (&c[..m], &c[m..2 * m]);
            assert_eq!(fast.rank(&c), rank);
            assert_eq!(fast.lo(packed(own)) + fast.hi(sum(own), packed(opp)), rank);
            let block = tl.rows[tl.index(sum(opp), opp)].block;
            let local = tl.rows[tl.index(sum(own), own)].local;
            assert_eq!(block + local, rank, "{c:?}");
        }
        // The shard of every split but 0, and where the blocks put its boards: the rank
        // of the board at each offset of the payload.
        let mask = (1u64 << split_count(k)) - 2;
        let len = tl.compact(k as usize, mask);
        assert_eq!(len, splits_size(m, k, mask).unwrap());
        assert!(len > 1 << 32, "{len}");
        let offsets: Vec<u64> = around(1 << 31)
            .into_iter()
            .chain(around(1 << 32))
            .chain([len - 1])
            .collect();
        let (mut at, mut kept) = (0u64, 0u64);
        let mut found = Vec::new();
        for (row, n) in Blocks::new(m, k).unwrap() {
            if mask >> split_of(k, row) & 1 == 1 {
                for &o in offsets.iter().filter(|&&o| kept <= o && o < kept + n) {
                    found.push((o, at + (o - kept)));
                }
                kept += n;
            }
            at += n;
        }
        assert_eq!(found.len(), offsets.len());
        for (offset, rank) in found {
            let c = board(rank);
            let (own, opp) = (&c[..m], &c[m..2 * m]);
            let slot = tl.rows[tl.index(sum(opp), opp)].block + fast.lo(packed(own));
            assert_eq!(slot, offset, "rank {rank}: {c:?}");
        }
        // A board of split 0 has no place in it.
        let mut c = [0u8; 16];
        c[2 * m - 1] = k as u8;
        let (own, opp) = (&c[..m], &c[m..2 * m]);
        assert_eq!(tl.rows[tl.index(sum(opp), opp)].block, u64::MAX);
        assert_eq!(sum(own), 0);
    }
}
