//! The order in which a whole level is built: rows, tiles, tile pairs and the runs the
//! worker threads take (see the [`super`] module docs, "Rows and blocks" and "Tiles").

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

use db_format::Ranker;
use rayon::prelude::*;

use super::kernel::Kernel;
use super::level::Level;
use super::GenError;
use crate::rank::{next_in_rank_order, FastRank};

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
    /// The index in [`Tiling::rows`] of the row `cells` (its `m` pits), whose sum is `sum`.
    pub(super) fn index(&self, sum: usize, cells: &[u8]) -> usize {
        self.first[sum] + self.rankers[sum].rank(cells) as usize
    }
}

/// Rows per tile.
pub(super) const TILE: usize = 64;

impl Level<'_> {
    /// Builds the boards of the splits `splits` (bit `s` for the split `{s, k - s}`) in
    /// tile order (see the module docs), in parallel.
    pub(super) fn tiled(&self, splits: u64, progress: &(dyn Fn(u64) + Sync)) {
        let k = self.k as usize;
        let tl = self.tiling;
        let rows = &tl.rows;
        let (tiles, mut pairs) = tile_pairs(&tl.first, k);
        pairs.retain(|&(_, q)| {
            let s = tiles[q as usize].2;
            splits >> s.min(k - s) & 1 == 1
        });
        let batches = batches(&tiles, &pairs, k);
        debug_assert_eq!(
            batches.iter().map(|b| b.1).sum::<u64>(),
            self.values.len() as u64
        );
        let next = std::sync::atomic::AtomicUsize::new(0);
        let threads = rayon::current_num_threads().max(1);
        let kernel = Kernel::new(self.game, k);
        (0..threads).into_par_iter().for_each(|_| {
            let mut scratch = (Vec::new(), Vec::new(), 0..0);
            loop {
                let i = next.fetch_add(1, Relaxed);
                let Some((run, n)) = batches.get(i) else {
                    break;
                };
                for &(p, q) in &pairs[run.clone()] {
                    let (a, b, _) = tiles[p as usize];
                    let (c, d, _) = tiles[q as usize];
                    if let Some(kern) = &kernel {
                        kern.pair(self, tl, a..b, c..d, &mut scratch);
                        continue;
                    }
                    if p == q {
                        for x in a..b {
                            for y in a..=x {
                                self.visit(&rows[x], &rows[y]);
                                if x != y {
                                    self.visit(&rows[y], &rows[x]);
                                }
                            }
                        }
                    } else {
                        for y in &rows[c..d] {
                            for x in &rows[a..b] {
                                self.visit(x, y);
                                self.visit(y, x);
                            }
                        }
                    }
                }
                progress(*n);
            }
        });
    }
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
}

impl Tiling {
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

/// The tiles of `first`'s rows (runs of at most [`TILE`] consecutive rows of one sum, in
/// row order: `(first row, end, sum)`) and the unordered pairs of tiles `{p <= q}` whose
/// sums add up to `k`, by `(q, p)`.
#[allow(clippy::type_complexity)]
fn tile_pairs(first: &[usize], k: usize) -> (Vec<(usize, usize, usize)>, Vec<(u32, u32)>) {
    // Tiles: runs of at most TILE consecutive rows of one sum, in row order.
    let mut tiles: Vec<(usize, usize, usize)> = Vec::new();
    for s in 0..=k {
        let mut a = first[s];
        while a < first[s + 1] {
            let b = (a + TILE).min(first[s + 1]);
            tiles.push((a, b, s));
            a = b;
        }
    }
    let mut first_tile = vec![0usize; k + 2];
    for s in 0..=k {
        first_tile[s + 1] = first_tile[s] + (first[s + 1] - first[s]).div_ceil(TILE);
    }
    // Unordered tile pairs {p <= q} whose sums add up to k, by (q, p).
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (q, &(_, _, sq)) in tiles.iter().enumerate() {
        let sp = k - sq;
        for p in first_tile[sp]..first_tile[sp + 1] {
            if p <= q {
                pairs.push((p as u32, q as u32));
            }
        }
    }
    (tiles, pairs)
}

/// The work items of `pairs` (of `tiles`) and the boards each evaluates, in the order the
/// threads take them.
fn batches(
    tiles: &[(usize, usize, usize)],
    pairs: &[(u32, u32)],
    k: usize,
) -> Vec<(Range<usize>, u64)> {
    let size = |&(p, q): &(u32, u32)| {
        let (a, b, _) = tiles[p as usize];
        let (c, d, _) = tiles[q as usize];
        let n = ((b - a) * (d - c)) as u64;
        if p == q {
            n
        } else {
            2 * n
        }
    };
    // Work items: runs of the consecutive pairs of one `q` (the thread keeps `q`'s
    // moves across a run). A same-level move keeps both rows' sums, so only runs of
    // the same split of the seeds between the rows depend on each other, each on the
    // ones before it. Taken in that order, two threads would often run neighbours of
    // one split at once, and a board the other thread has not finished is evaluated
    // again on the spot (through `Game::play`; `perf record`, results/bench.md). So the
    // splits are interleaved, each in its own order and spread evenly over the list:
    // run `i` of a split of `n` runs goes at `(i + 1/2) / n`.
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for (i, &(_, q)) in pairs.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if pairs[run.0].1 == q => run.1 = i + 1,
            _ => runs.push((i, i + 1, tiles[q as usize].2)),
        }
    }
    let mut split_len = vec![0u64; k + 1];
    for run in &runs {
        split_len[run.2] += 1;
    }
    let mut seen = vec![0u64; k + 1];
    let mut keyed: Vec<((u64, u64), Range<usize>)> = runs
        .iter()
        .map(|&(a, b, split)| {
            seen[split] += 1;
            ((2 * seen[split] - 1, 2 * split_len[split]), a..b)
        })
        .collect();
    // By the fractions, compared exactly; the sort is stable.
    keyed.sort_by(|((a, n), _), ((b, d), _)| {
        (u128::from(*a) * u128::from(*d)).cmp(&(u128::from(*b) * u128::from(*n)))
    });
    keyed
        .into_iter()
        .map(|(_, run)| {
            let n = pairs[run.clone()].iter().map(size).sum();
            (run, n)
        })
        .collect()
}
