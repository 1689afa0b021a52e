//! Endgame database generation for acyclic (counter-clockwise) rules.
//!
//! A level `k` holds the value (future net gain of the side to move, `-k..=k`) of every
//! board with `k` seeds in the pits, in the rank order of [`db_format::Ranker`]. Seeds in
//! a store never come back, so a move from a level-`k` board either puts at least one
//! seed into a store — its child lies in a *lower* level, read from `lower` — or keeps all
//! `k` seeds on the board, and its child lies in level `k` itself.
//!
//! # Why one pass suffices (counter-clockwise)
//!
//! Give each seed the distance from its pit to the store of the row it lies on: `m - i`
//! for a seed in pit `i` (0-based) of either row, and let `D(board)` be the sum over all
//! seeds (`0 <= D <= k·m`). `D` does not depend on whose view the board is in, so flipping
//! the board at the end of a turn leaves it unchanged. Counter-clockwise, the sowing cycle
//! is A1..Am, own store, B1..Bm (, opponent's store), so a move that puts no seed in any
//! store:
//!
//! * never reaches the own store, hence never the opponent's row or store (both come
//!   after it) and never laps the board: every seed it sows lands in the mover's row,
//!   strictly nearer the own store than the pit it was lifted from (relay lifts
//!   included: a lifted pit is sown forward again);
//! * captures nothing (a capture puts at least the capturing seed into the store);
//! * does not end in the store, so it is not a free move: the opponent moves next.
//!
//! So every same-level edge strictly lowers `D`: the same-level dependency graph is
//! acyclic, and any chain of same-level moves has fewer than `k·m + 1` steps.
//!
//! # The algorithm
//!
//! One shared array of `AtomicI8`, with [`UNKNOWN`] (`i8::MIN`, never a value since
//! `k <= 127`) for "not computed yet", filled in an order that computes every same-level
//! child before its parent and keeps the memory touched together close.
//!
//! **Rows and blocks.** Write a board as `(a, b)`: the mover's row `a`, the opponent's
//! row `b`. The rank of [`db_format::Ranker`] splits as `rank(a, b) = lo(a) + hi(|a|, b)`:
//! the first `m - 1` bars give `lo(a)`, the rank of `a` among the rows of its sum, and
//! the others `hi`. So the boards with opponent's row `b` fill one contiguous block of
//! the level, in the order of their mover's rows. Order all rows of sums `0..=k` by
//! (sum, rank). A same-level move from `(a, b)` leads to `(b, a')`, where `a'` is `a`
//! with seeds moved towards the store: the highest pit that changes gains seeds, so `a'`
//! has the same sum and a *smaller* rank than `a` (ranks order rows by their last pit
//! first, descending).
//!
//! **Tiles.** Cut the rows of each sum into tiles of `TILE` consecutive rows, and walk
//! the unordered pairs of tiles `{p <= q}` whose sums add up to `k` by `(q, p)`; within a
//! pair, walk `x` in `p` and `y` in `q` with `x` ascending for each `y` and `y` ascending
//! for each `x`, evaluating both `(x, y)` and `(y, x)`. The child `(y, x')` of `(x, y)` has
//! `x' < x`: it was done earlier in the pair or in a pair of a smaller key, and likewise
//! for `(y, x)`. The parents of a pair lie in `|q|` runs of `|p|` bytes (and the transposed
//! ones), their same-level children in runs too, and their lower children near each
//! other, so a pair works in cache.
//!
//! **Moves by rows.** With single sowing the seeds of a pit land in fixed slots whatever
//! the opponent's row: a move adds a fixed vector to `b`, and only a capture (the pit
//! facing the last seed) depends on `b`. `Kernel` computes each row's moves once per
//! tile pair and evaluates a board from them with packed `u64` rows, a table of the end
//! rule (which depends on the rows' sums only) and the split ranks. The boards of one
//! mover's row against a whole tile of opponent's rows (all of one sum) are evaluated a
//! move at a time: what kind of move it is, and whether the game ends, is then decided
//! once for the tile, and the processor's branch predictions hold across it. Relay
//! sowing goes through [`Game::play`] for every board.
//!
//! A same-level move keeps both rows' sums, so only pairs of the same split of the seeds
//! between the rows depend on each other. Worker threads (rayon) take runs of the
//! consecutive pairs of one `q` from a shared counter, in a list that interleaves the
//! splits (each in the order above), so that two runs going at once seldom need each
//! other's boards. A same-level child still unknown (another thread is on it) is
//! evaluated on the spot, recursively (depth at most `k·m`, by the argument above); two
//! threads may then evaluate the same board, but both compute the same value from the
//! same inputs, so the racing `Relaxed` stores are benign and the result does not depend
//! on the schedule or the number of threads.
//!
//! Lower levels come from a [`Probe`] ([`build_level`]) or, faster, as their values in
//! rank order ([`build_level_from_values`]: one rank from the split parts and one byte
//! read per child, no call through a trait object).
//!
//! The same routine builds a contiguous slice of ranks only ([`build_range`]): it still
//! needs the whole level's array for the same-level children outside the slice, but
//! walks the slice's ranks in order with [`next_in_rank_order`] and evaluates only the
//! boards the slice depends on (a memoised depth-first evaluation). Values are
//! schedule-independent, so slices joined end to end equal the whole level byte for byte.

pub mod cyclic;

use std::ops::Range;
use std::sync::atomic::{AtomicI8, Ordering::Relaxed};

use db_format::{DbError, Ranker};
use rayon::prelude::*;

use crate::board::Board;
use crate::game::{Game, Next};
use crate::probe::Probe;
use crate::rules::{Capture, OppStore, Sowing};

/// "Not computed yet" in the level array: `-128` is outside `-k..=k` for every `k <= 127`.
pub const UNKNOWN: i8 = i8::MIN;

/// Ranks per work item: large enough to amortise scheduling, small enough (16 Ki) to
/// balance two to a few dozen threads on the smallest levels worth parallelising.
const CHUNK: u64 = 1 << 14;

/// Why a level could not be built.
#[derive(Debug, thiserror::Error)]
pub enum RetroError {
    /// Clockwise play can repeat positions, so no order of a level computes every board
    /// after its children.
    #[error(
        "clockwise rules need the retrograde solver: play can cycle, so a level cannot be \
         built in one acyclic pass"
    )]
    Cyclic,
    /// The levels below `k` are not all available.
    #[error("level {k} needs every level below it, but the lower levels cover only {have} seeds")]
    MissingLower {
        /// The level being built.
        k: u32,
        /// `lower.max_seeds()`, or none at all.
        have: String,
    },
    /// The requested slice is not inside the level.
    #[error("ranks {start}..{end} are not inside level {k}'s 0..{count}")]
    BadRange {
        /// Level.
        k: u32,
        /// Requested first rank.
        start: u64,
        /// Requested end rank.
        end: u64,
        /// Positions in the level.
        count: u64,
    },
    /// The level does not fit the ranking or this machine's address space.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// Level `k` of `game`'s database: entry `i` is the value of the board of rank `i`.
///
/// `lower` must answer exactly for every board with fewer than `k` seeds
/// (`lower.max_seeds() >= k - 1`). `progress` is called from the worker threads with the
/// number of positions just finished (in chunks). Runs on the current rayon pool.
pub fn build_level(
    game: &Game,
    k: u32,
    lower: &dyn Probe,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<i8>, RetroError> {
    let count = Ranker::new(2 * game.pits(), k)?.count();
    build_range(game, k, lower, 0..count, progress)
}

/// The values of the ranks `ranks` of level `k` (see [`build_level`]); the slices of a
/// partition of `0..count`, joined in order, equal [`build_level`]'s result.
///
/// Memory: the whole level (one byte a position), whatever the slice.
pub fn build_range(
    game: &Game,
    k: u32,
    lower: &dyn Probe,
    ranks: Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<i8>, RetroError> {
    if game.rules().can_cycle() {
        return Err(RetroError::Cyclic);
    }
    if k > 0 && (lower.max_seeds() < k - 1 || lower.value(&Board::EMPTY).is_none()) {
        return Err(RetroError::MissingLower {
            k,
            have: lower.max_seeds().to_string(),
        });
    }
    build(game, k, Lower::Probe(lower), ranks, progress)
}

/// [`build_level`] with the lower levels given as their values: `lower[j]` holds level
/// `j` in rank order (a [`db_format::LevelFile::values`] map, or a built level). The same
/// result as [`build_level`], faster: a lower child is one rank and one byte read, with
/// no call through [`Probe`].
pub fn build_level_from_values(
    game: &Game,
    k: u32,
    lower: &[&[i8]],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<i8>, RetroError> {
    let count = Ranker::new(2 * game.pits(), k)?.count();
    build_range_from_values(game, k, lower, 0..count, progress)
}

/// [`build_range`] with the lower levels given as in [`build_level_from_values`].
pub fn build_range_from_values(
    game: &Game,
    k: u32,
    lower: &[&[i8]],
    ranks: Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<i8>, RetroError> {
    if game.rules().can_cycle() {
        return Err(RetroError::Cyclic);
    }
    let cells = 2 * game.pits();
    for j in 0..k {
        let ok = match lower.get(j as usize) {
            Some(l) => l.len() as u64 == Ranker::new(cells, j)?.count(),
            None => false,
        };
        if !ok {
            return Err(RetroError::MissingLower {
                k,
                have: match j {
                    0 => "none".to_string(),
                    j => (j - 1).to_string(),
                },
            });
        }
    }
    build(
        game,
        k,
        Lower::Values(&lower[..k as usize]),
        ranks,
        progress,
    )
}

/// Where the lower levels are read.
#[derive(Clone, Copy)]
enum Lower<'a> {
    Probe(&'a dyn Probe),
    Values(&'a [&'a [i8]]),
}

fn build(
    game: &Game,
    k: u32,
    lower: Lower,
    ranks: Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<i8>, RetroError> {
    if game.rules().can_cycle() {
        return Err(RetroError::Cyclic);
    }
    let cells = 2 * game.pits();
    let ranker = Ranker::new(cells, k)?;
    let count = ranker.count();
    if ranks.start > ranks.end || ranks.end > count {
        return Err(RetroError::BadRange {
            k,
            start: ranks.start,
            end: ranks.end,
            count,
        });
    }
    let len = usize::try_from(count).map_err(|_| DbError::SizeOverflow { cells, seeds: k })?;
    // Zeroed pages first (the system hands them out lazily), then filled by all threads:
    // the first touch of fresh memory is slow on some machines, and a level is up to
    // gigabytes.
    let mut values = crate::memory::zeroed_bytes(len);
    values
        .par_chunks_mut(1 << 20)
        .for_each(|chunk| chunk.fill(UNKNOWN));
    {
        // SAFETY: `AtomicI8` has the same size, alignment and bit validity as `i8`
        // (documented by std), and `values` is borrowed mutably for the whole scope, so
        // no other reference to its elements exists while the atomics are in use.
        let atomics: &[AtomicI8] =
            unsafe { &*(values.as_mut_slice() as *mut [i8] as *const [AtomicI8]) };
        let level = Level {
            game,
            k,
            cells,
            fast: FastRank::new(&ranker),
            values: atomics,
            lower,
        };
        if k > 0 && ranks.start == 0 && ranks.end == count {
            level.tiled(progress)?;
        } else {
            let chunks = (ranks.end - ranks.start).div_ceil(CHUNK);
            (0..chunks).into_par_iter().for_each(|c| {
                let start = ranks.start + c * CHUNK;
                let end = (start + CHUNK).min(ranks.end);
                level.chunk(start..end);
                progress(end - start);
            });
        }
    }
    let slice = &values[ranks.start as usize..ranks.end as usize];
    debug_assert!(slice.iter().all(|&v| v != UNKNOWN));
    if ranks.start == 0 && ranks.end == count {
        Ok(values)
    } else {
        Ok(slice.to_vec())
    }
}

/// The value of a non-terminal or terminal `board` re-derived from the stored values of
/// its children, all read from `db` (which must cover the board's own level): the
/// one-step check of a database's verifier. `None` when a child is not covered.
pub fn rederive(game: &Game, board: &Board, db: &dyn Probe) -> Option<i32> {
    if let Some(v) = game.terminal_value(board) {
        return Some(v);
    }
    let mut best = i32::MIN;
    for (_, step) in game.steps(board) {
        let child = match step.next {
            Next::Over => 0,
            Next::Same | Next::Other => db.value(&step.board)?,
        };
        best = best.max(step.value_through(child));
    }
    Some(best)
}

/// The board after `cells` in rank order (the same seeds), or `false` if `cells` is the
/// last board of its level.
///
/// Ranks are colexicographic on the bar positions of the stars-and-bars string (see
/// `db-format/FORMAT.md`), so the successor moves the lowest movable bar up by one and
/// packs the bars below it: with `i` the first cell after cell 0 that holds seeds and `t`
/// the seeds of cells `0..i`, cell `i` gives one seed to cell `i - 1`, which also takes
/// the `t` seeds, and cells `0..i-1` empty.
///
/// ```
/// use solver::gen::next_in_rank_order;
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

/// `D` of the module docs: the sum over seeds of the distance to their row's store.
pub fn distance_sum(board: &Board, pits: usize) -> u32 {
    board.cells()[..2 * pits]
        .iter()
        .enumerate()
        .map(|(i, &c)| u32::from(c) * (pits - i % pits) as u32)
        .sum()
}

/// One level under construction.
struct Level<'a> {
    game: &'a Game,
    k: u32,
    cells: usize,
    fast: FastRank,
    /// Entry `r` is the value of the board of rank `r`, or [`UNKNOWN`].
    values: &'a [AtomicI8],
    lower: Lower<'a>,
}

impl Level<'_> {
    /// Evaluates every board of ranks `ranks` that is still unknown.
    fn chunk(&self, ranks: Range<u64>) {
        let mut cells = [0u8; 16];
        let row = &mut cells[..self.cells];
        self.fast.ranker.unrank(ranks.start, row);
        for r in ranks {
            let slot = &self.values[r as usize];
            if slot.load(Relaxed) == UNKNOWN {
                let v = self.eval(&Board::from_cells(self.cells / 2, row));
                slot.store(v, Relaxed);
            }
            // Past the last rank of the level this returns false, at the loop's end.
            next_in_rank_order(row);
        }
    }

    /// The value of `board` (of this level), evaluating unknown same-level children first.
    fn eval(&self, board: &Board) -> i8 {
        let game = self.game;
        if let Some(v) = game.terminal_value(board) {
            return v as i8;
        }
        let mut best = i32::MIN;
        let mut mask = game.legal_mask(board);
        while mask != 0 {
            let pit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let step = game.play(board, pit);
            let child = match step.next {
                Next::Over => 0,
                Next::Same | Next::Other => {
                    if step.own_gain + step.opp_gain == 0 {
                        self.same_level(board, &step.board)
                    } else {
                        self.lower_value(&step.board, step.board.seeds())
                    }
                }
            };
            best = best.max(step.value_through(child));
        }
        best as i8
    }

    /// The value of `child`, which holds `seeds < k` seeds, from the lower levels.
    #[inline]
    fn lower_value(&self, child: &Board, seeds: u32) -> i32 {
        debug_assert_eq!(child.seeds(), seeds);
        match self.lower {
            // Invariant: `build_range` checked that `lower` covers every level below
            // `k`, and a child with seeds in a store is below `k`.
            Lower::Probe(p) => p
                .value(child)
                .expect("lower levels cover every board below the level"),
            // The ranks of every level share the binomials of `fast`'s table.
            Lower::Values(v) => {
                let rank = self.fast.rank(child.cells());
                debug_assert_eq!(
                    Ranker::new(self.cells, seeds)
                        .map(|r| r.rank(&child.cells()[..self.cells]))
                        .ok(),
                    Some(rank)
                );
                i32::from(v[seeds as usize][rank as usize])
            }
        }
    }

    /// The board of two packed rows (first the mover's).
    #[inline]
    fn board_of(&self, rows: &[u64; 2]) -> Board {
        let shift = 4 * self.cells as u32;
        Board::from_key(u128::from(rows[0]) | u128::from(rows[1]) << shift)
    }

    /// The value of the lower-level board `rows` (packed rows, the mover's first), `gone`
    /// seeds below this level, whose rank there is `rank`.
    #[inline]
    fn lower_at(&self, rows: &[u64; 2], gone: usize, rank: u64) -> i32 {
        let seeds = self.k as usize - gone;
        match self.lower {
            Lower::Values(v) => {
                debug_assert_eq!(rank, self.fast.rank(self.board_of(rows).cells()));
                i32::from(v[seeds][rank as usize])
            }
            Lower::Probe(_) => self.lower_value(&self.board_of(rows), seeds as u32),
        }
    }

    /// The value of the same-level board `rows` of rank `rank`, computed if unknown.
    fn same_level_at(&self, rank: u64, rows: &[u64; 2]) -> i32 {
        let child = self.board_of(rows);
        debug_assert_eq!(rank, self.fast.rank(child.cells()));
        let slot = &self.values[rank as usize];
        let v = self.eval(&child);
        slot.store(v, Relaxed);
        i32::from(v)
    }

    /// The value of the same-level child `child` of `parent`, from the array or computed.
    fn same_level(&self, parent: &Board, child: &Board) -> i32 {
        let pits = self.cells / 2;
        debug_assert_eq!(child.seeds(), self.k);
        debug_assert!(distance_sum(child, pits) < distance_sum(parent, pits));
        let rank = self.fast.rank(child.cells());
        debug_assert_eq!(rank, self.fast.ranker.rank(&child.cells()[..self.cells]));
        let slot = &self.values[rank as usize];
        let v = slot.load(Relaxed);
        if v != UNKNOWN {
            return i32::from(v);
        }
        let v = self.eval(child);
        slot.store(v, Relaxed);
        i32::from(v)
    }
}

/// [`Ranker::rank`] without its checks, over the 16-byte cells of a [`Board`].
///
/// The rank of cells `c_0..c_{n-1}` is the sum over the bars `j < n - 1` of
/// `C(b_j, j + 1)`, where `b_j = c_0 + ... + c_j + j` is bar `j`'s position in the
/// stars-and-bars string. A [`Ranker`] holds at most 127 seeds in at most 16 cells, so every
/// `b_j` fits a byte (at most 127 + 14), and so do the partial sums: multiplying the
/// eight cells of a word by `0x0101..01` leaves `c_0 + ... + c_j` in byte `j` with no carry
/// between bytes, and adding `0x0706..00` adds `j`. So all fifteen bars come from two
/// multiplications, and each term is one read of `bin[j][b_j]`, whose index (a byte)
/// needs no bounds check. The rows of `bin` past the board's last bar are zeros, and the
/// cells past the board's are empty, so the sum over all fifteen bars is the rank.
///
/// Example, two cells `[1, 2]` (three seeds): `b_0 = 1`, rank `C(1, 1) = 1`; bars 1 to 14
/// read the zero rows.
///
/// The binomials do not depend on the seeds, so the table of level `k` ranks every level
/// below it as well.
pub(crate) struct FastRank {
    ranker: Ranker,
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
    fn lo(&self, first: u64) -> u64 {
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
    fn hi(&self, a: usize, second: u64) -> u64 {
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
        for (j, row) in self.bin.iter().enumerate() {
            r += row[byte(bars[j / 8], j)];
        }
        r
    }
}

/// One row of `m` pits, of some seed sum `s <= k`, in the tiled order.
#[derive(Clone, Copy)]
struct Row {
    cells: [u8; 8],
    /// Its rank among the rows of sum `s` (the `m`-cell ranking).
    local: u32,
    /// The rank in level `k` of the board whose opponent's row this is and whose mover's
    /// row is the rank-0 row of sum `k - s`: ranks of boards `(a, self)` are
    /// `block + a.local`.
    block: u64,
    /// `lo_add[t]` (`t <= m`): `lo` of this row with one seed more in each of its first
    /// `t` pits. A move of the other row that does not lap the board sows into this row's
    /// first pits, one seed each, and the child's rank starts with `lo` of the row as it
    /// is then: computed here once per row instead of once per board and move (4% fewer
    /// instructions for the whole build, results/bench.md). Example, `m = 2`: for the row
    /// `[0, 3]`, `lo_add = [lo([0, 3]), lo([1, 3]), lo([1, 4])]`.
    lo_add: [u64; 9],
    /// Where this row's entries of [`Tiling::his`] start.
    hi_at: usize,
}

/// Every row of `m` pits with `0..=k` seeds, ordered by (sum, rank).
struct Tiling {
    rows: Vec<Row>,
    /// `first[s]`: the index of the first row of sum `s` (`first[k + 1]` = rows).
    first: Vec<usize>,
    /// The `m`-cell ranker of each sum.
    rankers: Vec<Ranker>,
    /// `his[r.hi_at + a]`: `hi(a, r)` for each row `r` and `a <= k - (r's sum)`, the rank
    /// part of the child `(a', r)` of a free move that does not lap the board (its mover's
    /// row `a'` holds `a` seeds; the opponent's row `r` is untouched). Computed once per
    /// row and sum instead of once per board and move.
    his: Vec<u64>,
}

impl Tiling {
    /// The index in [`Tiling::rows`] of the row `cells` (its `m` pits), whose sum is `sum`.
    fn index(&self, sum: usize, cells: &[u8]) -> usize {
        self.first[sum] + self.rankers[sum].rank(cells) as usize
    }
}

/// Rows per tile.
const TILE: usize = 64;

impl Level<'_> {
    /// Builds the whole level in tile order (see the module docs), in parallel.
    fn tiled(&self, progress: &(dyn Fn(u64) + Sync)) -> Result<(), RetroError> {
        let m = self.cells / 2;
        let k = self.k as usize;
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
                    *lo = self.fast.lo(packed + add);
                }
                let hi_at = his.len();
                his.extend((0..=k - s).map(|a| self.fast.hi(a, packed)));
                rows.push(Row {
                    cells: c,
                    local,
                    block: self.fast.rank(&board),
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
        let tl = Tiling {
            rankers: (0..=k)
                .map(|s| Ranker::new(m, s as u32))
                .collect::<Result<_, _>>()?,
            rows,
            first,
            his,
        };
        let (rows, first) = (&tl.rows, &tl.first);
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
        // again on the spot (through `Game::play`: with two threads a sixth of the 18-seed
        // level's build, `perf record`, results/bench.md, "Session 10"). So the splits are
        // interleaved, each in its own order and spread evenly over the list: run `i` of a
        // split of `n` runs goes at `(i + 1/2) / n`.
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
        let batches: Vec<(Range<usize>, u64)> = keyed
            .into_iter()
            .map(|(_, run)| {
                let n = pairs[run.clone()].iter().map(size).sum();
                (run, n)
            })
            .collect();
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
                        kern.pair(self, &tl, a..b, c..d, &mut scratch);
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
        Ok(())
    }

    /// Evaluates the board with mover's row `own` and opponent's row `opp`, if unknown.
    #[inline]
    fn visit(&self, own: &Row, opp: &Row) {
        let m = self.cells / 2;
        let rank = opp.block + u64::from(own.local);
        let slot = &self.values[rank as usize];
        if slot.load(Relaxed) == UNKNOWN {
            let mut c = [0u8; 16];
            c[..m].copy_from_slice(&own.cells[..m]);
            c[m..2 * m].copy_from_slice(&opp.cells[..m]);
            let board = Board::from_cells(m, &c[..2 * m]);
            debug_assert_eq!(self.fast.ranker.rank(&board.cells()[..2 * m]), rank);
            slot.store(self.eval(&board), Relaxed);
        }
    }
}

/// No capture can follow a move (in [`FastMove::cap`]).
const NO_CAP: u8 = u8::MAX;

/// One move of a mover's row, whatever the opponent's row: with single sowing the seeds
/// a pit sows land in fixed slots, so the opponent's row only gains a fixed vector and
/// only a capture depends on it.
#[derive(Clone, Copy, Default)]
struct FastMove {
    /// The mover's row after sowing, before any capture (packed, byte `i` = pit `i`).
    own_row: u64,
    /// What every pit of the opponent's row gains (packed).
    opp_add: u64,
    /// Seeds sown into the mover's store and the opponent's.
    own: u8,
    opp: u8,
    /// The last seed fell in the mover's store.
    in_store: bool,
    /// With a capture possible (the last seed in an empty own pit `pos`): the pit of the
    /// opponent's row it faces, `m - 1 - pos`; else [`NO_CAP`].
    cap: u8,
    /// With a capture possible: where [`Tiling::his`] holds `hi(a, r)` for the mover's row
    /// `r` after the capture (`own_row` with pit `pos` emptied), the rank part of the
    /// child, whose opponent's row that is.
    cap_hi_at: usize,
    /// With no seed in any store: the row index of `own_row`.
    row: u32,
    /// Seeds in `own_row` and in `opp_add`.
    own_sum: u8,
    add_sum: u8,
    /// `lo(own_row)` (the rank part of a free move's child) and, for a move to the
    /// opponent without capture, `hi(opponent's seeds afterwards, own_row)`.
    lo_own: u64,
    hi_own: u64,
    /// `t` when the move adds one seed to each of the opponent's first `t` pits and no
    /// other (see [`Row::lo_add`]), else [`NO_ADD`].
    add_t: u8,
}

/// [`FastMove::add_t`] of a move whose sowing laps the board.
const NO_ADD: u8 = u8::MAX;

/// The moves of one mover's row.
#[derive(Clone, Copy, Default)]
struct FastMoves {
    n: u8,
    moves: [FastMove; 8],
}

/// The single-sowing evaluation of a level's boards by rows.
struct Kernel {
    pits: usize,
    /// Slots a lap: `2m + 1`, or `2m + 2` when the opponent's store is sown.
    lap: usize,
    sow_opp: bool,
    capture: Capture,
    /// `end[a * (k + 1) + b]`: the value of a board whose mover's row holds `a` seeds and
    /// whose opponent's row `b` when the game is over there, else [`UNKNOWN`]. The end
    /// rule looks at the rows' sums only.
    end: Vec<i8>,
    k: usize,
}

impl Kernel {
    /// The kernel of `game`, if its rules sow singly (relay sowing depends on every pit
    /// it passes).
    fn new(game: &Game, k: usize) -> Option<Kernel> {
        let r = game.rules();
        if r.sowing != Sowing::Single || r.can_cycle() {
            return None;
        }
        let sow_opp = r.opp_store == OppStore::Sow;
        let pits = game.pits();
        let mut end = vec![UNKNOWN; (k + 1) * (k + 1)];
        for a in 0..=k {
            for b in 0..=k - a {
                let mut c = [0u8; 16];
                c[0] = a as u8;
                c[pits] = b as u8;
                if let Some(v) = game.terminal_value(&Board::from_cells(pits, &c[..2 * pits])) {
                    end[a * (k + 1) + b] = v as i8;
                }
            }
        }
        Some(Kernel {
            pits,
            lap: 2 * pits + 1 + usize::from(sow_opp),
            sow_opp,
            capture: r.capture,
            end,
            k,
        })
    }

    /// The moves of the mover's row `row` (of index `rows[..]`, sum `s`).
    fn moves(&self, row: &Row, tl: &Tiling, fast: &FastRank, k: usize) -> FastMoves {
        let m = self.pits;
        let mut out = FastMoves::default();
        for pit in 0..m {
            let n = usize::from(row.cells[pit]);
            if n == 0 {
                continue;
            }
            // Slots: 0..m own pits, m own store, m+1..=2m opponent's pits, 2m+1 its store.
            let mut slots = [0usize; 18];
            slots[..m].copy_from_slice(&row.cells.map(usize::from)[..m]);
            slots[pit] = 0;
            let mut pos = pit;
            for _ in 0..n {
                pos += 1;
                if pos == self.lap {
                    pos = 0;
                }
                slots[pos] += 1;
            }
            let mut own_row = [0u8; 8];
            let mut opp_add = [0u8; 8];
            for i in 0..m {
                own_row[i] = slots[i] as u8;
                opp_add[i] = slots[m + 1 + i] as u8;
            }
            let cap = if pos < m && slots[pos] == 1 && self.capture != Capture::None {
                (m - 1 - pos) as u8
            } else {
                NO_CAP
            };
            let own = slots[m] as u8;
            let opp = if self.sow_opp {
                slots[2 * m + 1] as u8
            } else {
                0
            };
            let s = row.cells[..m]
                .iter()
                .map(|&c| usize::from(c))
                .sum::<usize>();
            let own_sum = own_row.iter().map(|&c| usize::from(c)).sum::<usize>();
            let add_sum = opp_add.iter().map(|&c| usize::from(c)).sum::<usize>();
            let packed = u64::from_le_bytes(own_row);
            let mut mv = FastMove {
                own_row: packed,
                opp_add: u64::from_le_bytes(opp_add),
                own,
                opp,
                in_store: pos == m,
                cap,
                cap_hi_at: 0,
                row: 0,
                own_sum: own_sum as u8,
                add_sum: add_sum as u8,
                lo_own: fast.lo(packed),
                hi_own: fast.hi(k - s + add_sum, packed),
                add_t: NO_ADD,
            };
            // The sown seeds fill the opponent's first `add_sum` pits once each?
            if add_sum <= m
                && opp_add[..m]
                    .iter()
                    .enumerate()
                    .all(|(i, &a)| usize::from(a) == usize::from(i < add_sum))
            {
                mv.add_t = add_sum as u8;
            }
            if own == 0 && opp == 0 {
                mv.row = tl.index(s, &own_row[..m]) as u32;
            }
            if cap != NO_CAP {
                let mut left = own_row;
                left[m - 1 - usize::from(cap)] = 0;
                mv.cap_hi_at = tl.rows[tl.index(own_sum - 1, &left[..m])].hi_at;
            }
            out.moves[usize::from(out.n)] = mv;
            out.n += 1;
        }
        out
    }

    /// Evaluates the tile pair of rows `p` and `q` (see [`Level::tiled`]).
    fn pair(
        &self,
        level: &Level,
        tl: &Tiling,
        p: Range<usize>,
        q: Range<usize>,
        scratch: &mut (Vec<FastMoves>, Vec<FastMoves>, Range<usize>),
    ) {
        let (mp, mq, cached) = scratch;
        mp.clear();
        mp.extend(
            tl.rows[p.clone()]
                .iter()
                .map(|r| self.moves(r, tl, &level.fast, level.k as usize)),
        );
        if p == q {
            for x in p.clone() {
                for y in p.start..=x {
                    self.visit(level, tl, x, &mp[x - p.start], y);
                    if x != y {
                        self.visit(level, tl, y, &mp[y - p.start], x);
                    }
                }
            }
            return;
        }
        // Consecutive pairs mostly share `q`: its moves are kept.
        if *cached != q {
            mq.clear();
            mq.extend(
                tl.rows[q.clone()]
                    .iter()
                    .map(|r| self.moves(r, tl, &level.fast, level.k as usize)),
            );
            *cached = q.clone();
        }
        // Any order with `x` ascending for each `y` and `y` for each `x` computes every
        // same-level child first. For each `x`: its boards against every row of `q` first,
        // a move at a time (`row_band`), then the transposed boards, whose children
        // `(x, y')` with `y' < y` are then known.
        for x in p.clone() {
            self.row_band(level, tl, x, &mp[x - p.start], q.clone());
            self.column(level, tl, q.clone(), mq, x);
        }
    }

    /// [`Kernel::end`] of a board whose rows hold `mover` and `opponent` seeds.
    #[inline(always)]
    fn end_at(&self, mover: usize, opponent: usize) -> i8 {
        self.end[mover * (self.k + 1) + opponent]
    }

    /// For a board of this level whose mover's row is `xr`: the seeds in the opponent's
    /// row, and [`Kernel::end_at`] of the board.
    #[inline(always)]
    fn end_of(&self, xr: &Row) -> (usize, i8) {
        let xs = crate::board::byte_sum(u64::from_le_bytes(xr.cells)) as usize;
        let ys = self.k - xs;
        (ys, self.end_at(xs, ys))
    }

    /// Evaluates the boards of mover's row `x` (whose moves are `mv`) against each
    /// opponent's row of `opp` (at most [`TILE`] consecutive rows of one sum), those
    /// unknown.
    ///
    /// The same values as [`Kernel::visit`] board by board, computed a move at a time:
    /// the rows of `opp` share their sum, so which case a move is (a capture, a free move,
    /// a child on the same level or below, the end of the game: the end rule looks at the
    /// rows' sums only) is decided once for all of them, and the loop over the rows is
    /// a few loads each. A capture, which depends on the facing pit, goes board by board.
    /// The 18-seed level of Kalah(6,4) builds 13 to 22% faster so than board by board
    /// (two threads, three alternating pairs of runs; results/bench.md, "Session 9").
    fn row_band(&self, level: &Level, tl: &Tiling, x: usize, mv: &FastMoves, opp: Range<usize>) {
        let xr = &tl.rows[x];
        let yrs = &tl.rows[opp];
        debug_assert!(yrs.len() <= TILE);
        let slot = |yr: &Row| &level.values[(yr.block + u64::from(xr.local)) as usize];
        let mut todo = [false; TILE];
        for (t, yr) in todo.iter_mut().zip(yrs) {
            *t = slot(yr).load(Relaxed) == UNKNOWN;
        }
        if !todo.contains(&true) {
            return;
        }
        let (ys, end) = self.end_of(xr);
        let mut best = [i32::MIN; TILE];
        let best = &mut best[..yrs.len()];
        if end != UNKNOWN {
            best.fill(i32::from(end));
        } else {
            // A board that is not over has a move: its mover's row holds seeds.
            debug_assert!(mv.n > 0);
            for f in &mv.moves[..usize::from(mv.n)] {
                self.move_band(level, tl, f, yrs, ys, best);
            }
        }
        for ((t, yr), b) in todo.iter().zip(yrs).zip(best.iter()) {
            if *t {
                slot(yr).store(*b as i8, Relaxed);
            }
        }
    }

    /// Raises `best[i]` to the mover's value through move `f` from the board whose
    /// opponent's row is `yrs[i]` (rows of sum `ys`), for each `i` (see
    /// [`Kernel::row_band`]); the boards are not over.
    #[inline]
    fn move_band(
        &self,
        level: &Level,
        tl: &Tiling,
        f: &FastMove,
        yrs: &[Row],
        ys: usize,
        best: &mut [i32],
    ) {
        #[inline(always)]
        fn each(best: &mut [i32], yrs: &[Row], v: impl Fn(&Row) -> i32) {
            for (b, yr) in best.iter_mut().zip(yrs) {
                *b = (*b).max(v(yr));
            }
        }
        let gain = i32::from(f.own) - i32::from(f.opp);
        let gone = usize::from(f.own) + usize::from(f.opp);
        let own_sum = usize::from(f.own_sum);
        let opp_sum = ys + usize::from(f.add_sum);
        let opp_row = |yr: &Row| u64::from_le_bytes(yr.cells) + f.opp_add;
        if f.cap != NO_CAP {
            each(best, yrs, |yr| self.through(level, tl, f, yr, ys));
        } else if f.in_store {
            match self.end_at(own_sum, opp_sum) {
                UNKNOWN => each(best, yrs, |yr| {
                    gain + self.free_child(level, tl, f, yr, opp_row(yr), gone)
                }),
                end => each(best, yrs, |_| gain + i32::from(end)),
            }
        } else {
            match self.end_at(opp_sum, own_sum) {
                UNKNOWN => each(best, yrs, |yr| {
                    let rows = [opp_row(yr), f.own_row];
                    gain - self.plain_child(level, tl, f, yr, rows, opp_sum, gone, false)
                }),
                end => each(best, yrs, |_| gain - i32::from(end)),
            }
        }
    }

    /// Evaluates the board of mover's row `x` (whose moves are `mv`) and opponent's row
    /// `y`, if unknown.
    #[inline]
    fn visit(&self, level: &Level, tl: &Tiling, x: usize, mv: &FastMoves, y: usize) {
        self.evaluate(level, tl, &tl.rows[x], mv, &tl.rows[y]);
    }

    /// [`Kernel::visit`] of the boards of each mover's row of `movers` (whose moves are
    /// `moves`, in order) against the opponent's row `y`. One call for them all: a call
    /// of `visit` spent about a third of its instructions loading and spilling what every
    /// board shares (`valgrind --tool=callgrind`, results/bench.md, "Session 10").
    fn column(
        &self,
        level: &Level,
        tl: &Tiling,
        movers: Range<usize>,
        moves: &[FastMoves],
        y: usize,
    ) {
        let yr = &tl.rows[y];
        for (xr, mv) in tl.rows[movers].iter().zip(moves) {
            self.evaluate(level, tl, xr, mv, yr);
        }
    }

    /// Evaluates the board of mover's row `xr` (whose moves are `mv`) and opponent's row
    /// `yr`, if unknown.
    #[inline(always)]
    fn evaluate(&self, level: &Level, tl: &Tiling, xr: &Row, mv: &FastMoves, yr: &Row) {
        let slot = &level.values[(yr.block + u64::from(xr.local)) as usize];
        if slot.load(Relaxed) != UNKNOWN {
            return;
        }
        let (ys, end) = self.end_of(xr);
        if end != UNKNOWN {
            slot.store(end, Relaxed);
            return;
        }
        // A plain loop: as an iterator's `map(..).max()` the compiler kept the closure
        // around `through` a function of its own, called for every move.
        let mut best = i32::MIN;
        for f in &mv.moves[..usize::from(mv.n)] {
            best = best.max(self.through(level, tl, f, yr, ys));
        }
        // A board that is not over has a move (its mover's row holds seeds).
        debug_assert!(best > i32::MIN);
        slot.store(best as i8, Relaxed);
    }

    /// The mover's value through move `f` from the board whose opponent's row is `yr`
    /// (of sum `ys`), the board not being over.
    #[inline(always)]
    fn through(&self, level: &Level, tl: &Tiling, f: &FastMove, yr: &Row, ys: usize) -> i32 {
        let m = self.pits;
        let mut own_row = f.own_row;
        let mut opp_row = u64::from_le_bytes(yr.cells) + f.opp_add;
        let mut own = usize::from(f.own);
        let mut own_sum = usize::from(f.own_sum);
        let mut opp_sum = ys + usize::from(f.add_sum);
        let mut captured = false;
        if f.cap != NO_CAP {
            let at = 8 * u32::from(f.cap);
            let facing = ((opp_row >> at) & 0xff) as usize;
            if facing > 0 || self.capture == Capture::Empty {
                captured = true;
                own += facing + 1;
                opp_row &= !(0xff << at);
                let pos = m - 1 - usize::from(f.cap);
                own_row &= !(0xff << (8 * pos));
                own_sum -= 1;
                opp_sum -= facing;
            }
        }
        let opp = usize::from(f.opp);
        let gain = own as i32 - opp as i32;
        if f.in_store {
            // A free move (which never captures): the child is (own_row, opp_row), the
            // mover to move again.
            gain + match self.end_at(own_sum, opp_sum) {
                UNKNOWN => self.free_child(level, tl, f, yr, opp_row, own + opp),
                end => i32::from(end),
            }
        } else {
            // The child is (opp_row, own_row), the opponent to move.
            let rows = [opp_row, own_row];
            gain - match self.end_at(opp_sum, own_sum) {
                UNKNOWN => self.plain_child(level, tl, f, yr, rows, opp_sum, own + opp, captured),
                end => i32::from(end),
            }
        }
    }

    /// The value of the child `(f.own_row, opp_row)` of free move `f` from the board whose
    /// opponent's row is `yr` (the mover to move again; `gone` seeds went to the stores),
    /// the game not over there.
    #[inline(always)]
    fn free_child(
        &self,
        level: &Level,
        tl: &Tiling,
        f: &FastMove,
        yr: &Row,
        opp_row: u64,
        gone: usize,
    ) -> i32 {
        let own_sum = usize::from(f.own_sum);
        let rank = if f.opp_add == 0 {
            f.lo_own + tl.his[yr.hi_at + own_sum]
        } else {
            f.lo_own + level.fast.hi(own_sum, opp_row)
        };
        level.lower_at(&[f.own_row, opp_row], gone, rank)
    }

    /// The value of the child `rows` (the opponent's row `opp_sum` seeds, then the
    /// mover's) of move `f`, which passes the turn, from the board whose opponent's row is
    /// `yr`: `gone` seeds went to the stores, `captured` whether `f` captured. The game is
    /// not over there; a same-level child not known yet is computed.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn plain_child(
        &self,
        level: &Level,
        tl: &Tiling,
        f: &FastMove,
        yr: &Row,
        rows: [u64; 2],
        opp_sum: usize,
        gone: usize,
        captured: bool,
    ) -> i32 {
        let fast = &level.fast;
        if gone == 0 {
            // A same-level child: the sown row's block, at the opponent's row's rank.
            let rank = tl.rows[f.row as usize].block + u64::from(yr.local);
            return match level.values[rank as usize].load(Relaxed) {
                UNKNOWN => level.same_level_at(rank, &rows),
                v => i32::from(v),
            };
        }
        let rank = if captured {
            debug_assert_eq!(tl.his[f.cap_hi_at + opp_sum], fast.hi(opp_sum, rows[1]));
            fast.lo(rows[0]) + tl.his[f.cap_hi_at + opp_sum]
        } else if f.add_t != NO_ADD {
            yr.lo_add[usize::from(f.add_t)] + f.hi_own
        } else {
            fast.lo(rows[0]) + f.hi_own
        };
        level.lower_at(&rows, gone, rank)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::probe::MemoryDb;
    use crate::rules::{Capture, EndRule, OppStore, Remaining, Rules, RulesBuilder, Sowing};
    use crate::Solver;

    /// The plain reference: memoised negamax over [`Game::play`], nothing else.
    fn reference(game: &Game, board: &Board, memo: &mut HashMap<Board, i32>) -> i32 {
        if let Some(v) = game.terminal_value(board) {
            return v;
        }
        if let Some(&v) = memo.get(board) {
            return v;
        }
        let mut best = i32::MIN;
        for (_, step) in game.steps(board) {
            let child = match step.next {
                Next::Over => 0,
                _ => reference(game, &step.board, memo),
            };
            best = best.max(step.value_through(child));
        }
        memo.insert(*board, best);
        best
    }

    /// Levels `0..=max_k` built one after the other into memory.
    fn build_all(game: &Game, max_k: u32) -> MemoryDb {
        let mut db = MemoryDb::new(game.pits());
        for k in 0..=max_k {
            let v = build_level(game, k, &db, &|_| {}).unwrap();
            db.push(v).unwrap();
        }
        db
    }

    fn rule_variants(pits: usize) -> Vec<Rules> {
        let mut out = Vec::new();
        for capture in [Capture::Standard, Capture::Empty, Capture::None] {
            for sowing in [Sowing::Single, Sowing::Relay] {
                for opp_store in [OppStore::Skip, OppStore::Sow] {
                    for end in [EndRule::Either, EndRule::Mover] {
                        for remaining in [Remaining::Owner, Remaining::Emptier, Remaining::Discard]
                        {
                            let mut b = RulesBuilder::new(pits, 1);
                            b.capture = Some(capture);
                            b.sowing = sowing;
                            b.opp_store = opp_store;
                            b.end = end;
                            b.remaining = remaining;
                            out.push(b.build().unwrap());
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn fast_rank_equals_the_ranker() {
        // Random boards of every level below the ranker's, up to the largest seed counts a
        // ranker takes (its bars must still fit a byte), split into rows for `lo` and `hi`.
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for (cells, max) in [(2, 127), (4, 127), (6, 80), (12, 48), (12, 25), (16, 40)] {
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

    #[test]
    fn levels_equal_the_reference_under_every_ccw_rule_combination() {
        for pits in 2..=3 {
            let max_k = if pits == 2 { 9 } else { 7 };
            for rules in rule_variants(pits) {
                let game = Game::new(rules);
                let db = build_all(&game, max_k);
                let mut memo = HashMap::new();
                for k in 0..=max_k {
                    let r = Ranker::new(2 * pits, k).unwrap();
                    let mut c = vec![0u8; 2 * pits];
                    for i in 0..r.count() {
                        r.unrank(i, &mut c);
                        let b = Board::from_cells(pits, &c);
                        let want = reference(&game, &b, &mut memo);
                        assert_eq!(
                            i32::from(db.level(k as usize)[i as usize]),
                            want,
                            "{rules} {b:?}"
                        );
                        assert_eq!(rederive(&game, &b, &db), Some(want));
                    }
                }
            }
        }
    }

    #[test]
    fn values_equal_the_solver_on_random_boards() {
        let game = Game::new(Rules::kalah(6, 4).unwrap());
        let db = build_all(&game, 9);
        let mut solver = Solver::new(&game, 16).unwrap();
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..300 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let k = (rng % 10) as u32;
            let r = Ranker::new(12, k).unwrap();
            let rank = (rng >> 20) % r.count();
            let mut c = [0u8; 12];
            r.unrank(rank, &mut c);
            let b = Board::from_cells(6, &c);
            assert_eq!(
                solver.value(&b),
                i32::from(db.level(k as usize)[rank as usize]),
                "{b:?}"
            );
        }
    }

    #[test]
    fn slices_join_to_the_whole_level() {
        let game = Game::new(Rules::kalah(4, 4).unwrap());
        let db = build_all(&game, 7);
        let whole = build_level(&game, 8, &db, &|_| {}).unwrap();
        let n = whole.len() as u64;
        for parts in [1u64, 2, 3, 7] {
            let mut joined = Vec::new();
            for i in 0..parts {
                let range = i * n / parts..(i + 1) * n / parts;
                joined.extend(build_range(&game, 8, &db, range, &|_| {}).unwrap());
            }
            assert_eq!(joined, whole, "{parts} parts");
        }
    }

    #[test]
    fn thread_count_does_not_change_the_level() {
        let game = Game::new(Rules::kalah(5, 4).unwrap());
        let db = build_all(&game, 7);
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| build_level(&game, 8, &db, &|_| {}).unwrap())
        };
        assert_eq!(run(1), run(4));
    }

    /// Timing harness: `KALAH_DB=<dir> KALAH_K=<k> cargo test --release -p solver --lib
    /// retro::tests::time_level -- --ignored --nocapture` builds level `k` of the default
    /// 6-pit rules from the levels below it in `dir`, through [`build_level`] and
    /// [`build_level_from_values`] on one thread (or `KALAH_THREADS`), and compares both
    /// with level `k` in `dir` if it is there (`KALAH_VIA=probe|values`: only one).
    #[test]
    #[ignore]
    fn time_level() {
        use crate::dbfile::Database;
        let dir = std::path::PathBuf::from(std::env::var("KALAH_DB").expect("KALAH_DB"));
        let k: u32 = std::env::var("KALAH_K").expect("KALAH_K").parse().unwrap();
        let game = Game::new(Rules::kalah(6, 4).unwrap());
        let db = Database::open_up_to(&dir, game.rules(), k).unwrap();
        let lower = Database::open_up_to(&dir, game.rules(), k - 1).unwrap();
        let slices: Vec<&[i8]> = (0..k).map(|j| lower.level(j).unwrap().values()).collect();
        let threads = std::env::var("KALAH_THREADS").map_or(1, |t| t.parse().unwrap());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let want = db.level(k).map(|f| f.values().to_vec());
        let via = std::env::var("KALAH_VIA").unwrap_or_default();
        for (name, probe) in [("probe", true), ("values", false)] {
            if !via.is_empty() && via != name {
                continue;
            }
            let t = std::time::Instant::now();
            let got = pool.install(|| {
                if probe {
                    build_level(&game, k, &lower, &|_| {}).unwrap()
                } else {
                    build_level_from_values(&game, k, &slices, &|_| {}).unwrap()
                }
            });
            let s = t.elapsed().as_secs_f64();
            println!(
                "level {k} via {name}, {threads} threads: {} positions {s:.2} s {:.2} M/s, \
                 identical: {:?}",
                got.len(),
                got.len() as f64 / s / 1e6,
                want.as_ref().map(|w| *w == got)
            );
        }
    }

    #[test]
    fn values_api_equals_the_probe_api_under_every_ccw_rule_combination() {
        for rules in rule_variants(3) {
            let game = Game::new(rules);
            let db = build_all(&game, 6);
            let levels: Vec<&[i8]> = (0..7).map(|k| db.level(k)).collect();
            for k in 0..=7u32 {
                let want = build_level(&game, k, &db, &|_| {}).unwrap();
                let got = build_level_from_values(&game, k, &levels[..k as usize], &|_| {});
                assert_eq!(got.unwrap(), want, "{rules} level {k}");
                let n = want.len() as u64;
                let part = build_range_from_values(&game, k, &levels, n / 3..n / 2, &|_| {});
                assert_eq!(part.unwrap(), want[n as usize / 3..n as usize / 2]);
            }
            let e = build_level_from_values(&game, 7, &levels[..5], &|_| {}).unwrap_err();
            assert!(matches!(e, RetroError::MissingLower { k: 7, .. }), "{e}");
        }
    }

    #[test]
    fn refusals_are_clear() {
        let mut b = RulesBuilder::new(3, 3);
        b.direction = crate::rules::Direction::Cw;
        let cw = Game::new(b.build().unwrap());
        let e = build_level(&cw, 2, &MemoryDb::new(3), &|_| {}).unwrap_err();
        assert!(matches!(e, RetroError::Cyclic));
        assert!(e
            .to_string()
            .contains("clockwise rules need the retrograde solver"));
        let game = Game::new(Rules::kalah(3, 3).unwrap());
        let e = build_level(&game, 2, &MemoryDb::new(3), &|_| {}).unwrap_err();
        assert!(matches!(e, RetroError::MissingLower { k: 2, .. }), "{e}");
        let db = build_all(&game, 1);
        let e = build_range(&game, 2, &db, 5..100, &|_| {}).unwrap_err();
        assert!(matches!(e, RetroError::BadRange { .. }), "{e}");
        assert!(build_level(&game, 0, &MemoryDb::new(3), &|_| {}).unwrap() == vec![0]);
    }

    #[test]
    fn distance_sum_drops_along_same_level_moves() {
        // Explicit check of the module's argument over every board of a few levels.
        for rules in rule_variants(3) {
            let game = Game::new(rules);
            for k in 1..=6 {
                let r = Ranker::new(6, k).unwrap();
                let mut c = [0u8; 6];
                for i in 0..r.count() {
                    r.unrank(i, &mut c);
                    let b = Board::from_cells(3, &c);
                    if game.terminal_value(&b).is_some() {
                        continue;
                    }
                    for (_, s) in game.steps(&b) {
                        if s.next != Next::Over && s.own_gain + s.opp_gain == 0 {
                            assert_eq!(s.next, Next::Other);
                            assert!(distance_sum(&s.board, 3) < distance_sum(&b, 3));
                        }
                    }
                }
            }
        }
    }
}
