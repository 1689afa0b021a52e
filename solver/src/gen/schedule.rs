//! The order in which a whole level is built: tiles of rows, tile pairs and the runs the
//! worker threads take (see the [`super`] module docs, "Tiles"). The schedule drives the
//! [`Kernel`] (or, for relay sowing, [`Level::visit`]) over the level's boards.

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::kernel::Kernel;
use super::level::Level;
use super::tiling::TILE;

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
                let Some((run, _)) = batches.get(i) else {
                    break;
                };
                for &(p, q) in &pairs[run.clone()] {
                    let (a, b, _) = tiles[p as usize];
                    let (c, d, _) = tiles[q as usize];
                    // After each pair (at most 2·TILE² boards, a millisecond or so): a
                    // caller that keeps its memory under a budget acts on it there.
                    let done = pair_boards(&tiles, p, q);
                    if let Some(kern) = &kernel {
                        kern.pair(self, tl, a..b, c..d, &mut scratch);
                        progress(done);
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
                    progress(done);
                }
            }
        });
    }
}

/// The tiles of `first`'s rows (runs of at most [`TILE`] consecutive rows of one sum, in
/// row order: `(first row, end, sum)`) and the unordered pairs of tiles `{p <= q}` whose
/// sums add up to `k`, by `(q, p)`. Tile numbers are `u32` (the pairs are the schedule's
/// largest list): [`super::tiling::Tiling::new`] refuses more than `u32::MAX` rows, and
/// there are no more tiles than rows, so `as u32` below is exact.
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

/// The boards the tile pair `{p, q}` of `tiles` evaluates: `(x, y)` and `(y, x)` for each
/// row `x` of `p` and `y` of `q`, once each when `p = q`.
fn pair_boards(tiles: &[(usize, usize, usize)], p: u32, q: u32) -> u64 {
    let (a, b, _) = tiles[p as usize];
    let (c, d, _) = tiles[q as usize];
    let n = ((b - a) * (d - c)) as u64;
    if p == q {
        n
    } else {
        2 * n
    }
}

/// The work items of `pairs` (of `tiles`) and the boards each evaluates, in the order the
/// threads take them.
fn batches(
    tiles: &[(usize, usize, usize)],
    pairs: &[(u32, u32)],
    k: usize,
) -> Vec<(Range<usize>, u64)> {
    let size = |&(p, q): &(u32, u32)| pair_boards(tiles, p, q);
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
