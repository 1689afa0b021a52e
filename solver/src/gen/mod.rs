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
//! [`build_level`] is the one entry point. Lower levels come from a [`Probe`]
//! ([`Lower::Probe`]) or, faster, as their values in rank order ([`Lower::Values`]: one
//! rank from the split parts and one byte read per child, no call through a trait object),
//! or as level files of either format ([`Lower::Entries`]: a compact level decodes one
//! block a child).
//!
//! **Shards.** A same-level move keeps the two rows' sums (swapped), so the boards of
//! one split `{s, k - s}` of the seeds between the rows need, besides the lower levels,
//! only boards of that split. [`build_level`] with `splits` builds those splits only, the
//! tile pairs of their sums in the same order, into an array of their boards alone: each
//! row's block is moved to its place among the blocks of those splits (the blocks keep
//! their rank order, see [`db_format::shard::Blocks`]). The array is then the shard's
//! payload as it is written, and its memory is the shard's share of the level, not the
//! level. Values are schedule-independent, so the shards' boards, put back at their
//! ranks, equal the whole level byte for byte.
//!
//! **Modules**, each using only the ones before it: `tiling` (the rows and their blocks),
//! `level` (one level's array and the board-by-board evaluation), `kernel` (the
//! evaluation by rows for single sowing), `schedule` (the order of the tile pairs and the
//! threads, which drive the kernel over the level).

pub mod cyclic;
mod kernel;
mod level;
mod schedule;
mod tiling;

use std::sync::atomic::AtomicI8;

use db_format::{DbError, Entries, Ranker};
use rayon::prelude::*;

use crate::board::Board;
use crate::game::Game;
use crate::probe::Probe;
use crate::rank::FastRank;
use level::Level;
use tiling::Tiling;

/// "Not computed yet" in the level array: `-128` is outside `-k..=k` for every `k <= 127`.
pub const UNKNOWN: i8 = i8::MIN;

/// Why a level could not be built.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
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
    /// The requested splits are not all splits of the level.
    #[error("splits {splits:#x} are not all among level {k}'s 0..={}", k / 2)]
    BadSplits {
        /// Level.
        k: u32,
        /// Requested splits, bit `s` for split `s`.
        splits: u64,
    },
    /// The level does not fit the ranking or this machine's address space.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// Where the lower levels are read.
#[derive(Clone, Copy)]
pub enum Lower<'a> {
    /// Any table that answers exactly for every board below the level (a database, an
    /// in-memory table): `max_seeds() >= k - 1`.
    Probe(&'a dyn Probe),
    /// `lower[j]` holds level `j` in rank order (a [`db_format::LevelFile::values`] map,
    /// or a built level) for every `j < k`. The same result as [`Lower::Probe`], faster: a
    /// lower child is one rank and one byte read, with no call through [`Probe`].
    Values(&'a [&'a [i8]]),
    /// `lower[j]` holds the entries of level `j` for every `j < k`, in either file format
    /// ([`db_format::LevelFile::entries`]): as [`Lower::Values`], but a child of a compact
    /// level costs a block decoded. A compact block found damaged reads as 0, as a
    /// damaged byte of [`Lower::Values`] reads as whatever it holds; `kalah db verify`
    /// finds both.
    Entries(&'a [Entries<'a>]),
}

/// Level `k` of `game`'s database, read from `lower` below it: entry `i` is the value of
/// the board of rank `i`. With `splits` (bit `s` for the split `{s, k - s}` of the seeds
/// between the rows, `s <= k / 2`), only the boards of those splits, in rank order: a
/// shard's payload ([`db_format::shard`]).
///
/// `progress` is called from the worker threads with the number of positions just
/// finished, after each tile pair (at most `2·64²` boards): a caller can also pause its
/// thread there, as `kalah db build` does to release the lower levels' pages while the
/// threads wait. Runs on the current rayon pool. Memory: one byte a
/// board built, plus the rows' table (about `C(k + m, m)` rows of 104 bytes and
/// `C(k + m + 1, m + 1)` rank parts of 8).
pub fn build_level(
    game: &Game,
    k: u32,
    lower: Lower<'_>,
    splits: Option<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<i8>, GenError> {
    if game.rules().can_cycle() {
        return Err(GenError::Cyclic);
    }
    let cells = 2 * game.pits();
    // Also refuses `k > 127`, whose splits would not fit a `u64`'s bits.
    Ranker::new(cells, k)?;
    let lower = match lower {
        Lower::Probe(p) => {
            if k > 0 && (p.max_seeds() < k - 1 || p.value(&Board::EMPTY).is_none()) {
                return Err(GenError::MissingLower {
                    k,
                    have: p.max_seeds().to_string(),
                });
            }
            lower
        }
        Lower::Values(levels) => {
            check_lower_lengths(k, cells, |j| levels.get(j).map(|l| l.len() as u64))?;
            Lower::Values(&levels[..k as usize])
        }
        Lower::Entries(levels) => {
            check_lower_lengths(k, cells, |j| levels.get(j).map(|l| l.len()))?;
            Lower::Entries(&levels[..k as usize])
        }
    };
    let all = u64::MAX >> (63 - k / 2);
    let splits = splits.unwrap_or(all);
    if splits & !all != 0 {
        return Err(GenError::BadSplits { k, splits });
    }
    fill(game, k, lower, splits, progress)
}

/// `Ok` when `len(j)`, the entries given for level `j`, is that level's size for every
/// `j < k`; otherwise [`GenError::MissingLower`] naming the last level present in order.
fn check_lower_lengths(
    k: u32,
    cells: usize,
    len: impl Fn(usize) -> Option<u64>,
) -> Result<(), GenError> {
    for j in 0..k {
        if len(j as usize) != Some(Ranker::new(cells, j)?.count()) {
            return Err(GenError::MissingLower {
                k,
                have: match j {
                    0 => "none".to_string(),
                    j => (j - 1).to_string(),
                },
            });
        }
    }
    Ok(())
}

/// [`build_level`] once `lower` is known to cover every level below `k` and `splits`
/// (no bits past `k / 2`) to be splits of the level.
fn fill(
    game: &Game,
    k: u32,
    lower: Lower,
    splits: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<i8>, GenError> {
    let cells = 2 * game.pits();
    let ranker = Ranker::new(cells, k)?;
    let count = ranker.count();
    let fast = FastRank::new(&ranker);
    let mut tiling = Tiling::new(&fast, cells / 2, k as usize)?;
    let whole = splits == u64::MAX >> (63 - k / 2);
    let boards = if whole {
        count
    } else {
        tiling.compact(k as usize, splits)
    };
    let len = usize::try_from(boards).map_err(|_| DbError::SizeOverflow { cells, seeds: k })?;
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
            fast,
            tiling: &tiling,
            whole,
            values: atomics,
            lower,
        };
        level.tiled(splits, progress);
    }
    debug_assert!(values.iter().all(|&v| v != UNKNOWN));
    Ok(values)
}

/// Bytes [`build_level`] allocates for level `k` with `pits` pits a side and `splits`
/// (all when `None`): one byte a board built, and the rows' table, which every part of
/// the level needs whole (`C(k + m, m)` rows and `C(k + m + 1, m + 1)` rank parts).
pub fn build_memory(pits: usize, k: u32, splits: Option<u64>) -> Result<u64, DbError> {
    let overflow = || DbError::SizeOverflow {
        cells: 2 * pits,
        seeds: k,
    };
    let boards = match splits {
        None => Ranker::new(2 * pits, k)?.count(),
        Some(s) => db_format::shard::splits_size(pits, k, s)?,
    };
    let (m, k64) = (pits as u64, u64::from(k));
    let rows = db_format::checked_binomial(k64 + m, m).ok_or_else(overflow)?;
    let his = db_format::checked_binomial(k64 + m + 1, m + 1).ok_or_else(overflow)?;
    rows.checked_mul(std::mem::size_of::<tiling::Row>() as u64)
        .and_then(|r| r.checked_add(his.checked_mul(8)?))
        .and_then(|t| t.checked_add(boards))
        .ok_or_else(overflow)
}

/// `D` of the module docs: the sum over seeds of the distance to their row's store.
pub fn distance_sum(board: &Board, pits: usize) -> u32 {
    board.cells()[..2 * pits]
        .iter()
        .enumerate()
        .map(|(i, &c)| u32::from(c) * (pits - i % pits) as u32)
        .sum()
}
